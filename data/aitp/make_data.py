"""Regenerate data/aitp/ (and the copies in tests/fixtures/aitp/).

1. nearai_hub_trip_thread.json — a NEAR AI hub export ``{"thread", "messages"}`` built with the
   hub's own SQLModel ``Message`` / ``Thread`` classes and serialised by their ``to_openai()``
   (OpenAI ``openai.types.beta`` models). The classes are not on PyPI: copy ``Message``,
   ``Thread`` and their helpers from nearai/nearai ``hub/api/v1/models.py`` into a module
   ``hub_models.py`` on ``PYTHONPATH`` (they need ``openai``, ``sqlmodel``; no database).
2. aitp_flight_booking_thread.json — the child thread in the AITP spec shape (``content:
   list[str]``, ``metadata.actor``, ``metadata.actors`` with capabilities, ``parent_id``): no
   library writes this shape, so it is written here from the spec (nearai/aitp
   ``website/docs/threads.md``), with capability payloads shaped as in the aitp-02 decisions and
   aitp-04 transactions docs. Values are invented.

    PYTHONPATH=.:/path/to/hub_models_dir python data/aitp/make_data.py
"""

from __future__ import annotations

import json
from datetime import datetime
from pathlib import Path
from typing import Any

from hub_models import Message, Thread  # type: ignore[import-not-found]

ROOT = Path(__file__).resolve().parents[2]
OUT = ROOT / "data" / "aitp"
FIXTURES = ROOT / "tests" / "fixtures" / "aitp"
TRAVEL = "alice.near/travel-agent/0.1.0"
FLIGHTS = "flights.near/flight-booker/1.2.0"
PARENT = "thread_5f1c0e2a9b7d4c3e8a6f1b20"
CHILD = "thread_9a8b7c6d5e4f30211f0e9d8c"
RUN = "run_1a2b3c4d5e6f708192a3b4c5"
DECISIONS = "https://aitp.dev/capabilities/aitp-02-decisions/v1.0.0/schema.json"
TRANSACTIONS = "https://aitp.dev/capabilities/aitp-04-transactions/v1.0.0/schema.json"
T0 = 1741953600  # 2025-03-14T12:00:00Z


def at(seconds: int) -> datetime:
    return datetime.fromtimestamp(T0 + seconds)


def hub_export() -> dict[str, Any]:
    thread = Thread(
        id=PARENT,
        created_at=at(0),
        owner_id="alice.near",
        meta_data={"agent_ids": [TRAVEL, FLIGHTS], "topic": "NYC flight"},
        child_thread_ids=[CHILD],
    )
    messages = [
        Message(id="msg_0a1b2c3d4e5f60718293a4b5", thread_id=PARENT, created_at=at(1), role="user",
                content="Book me a flight to NYC on March 20, under $400.", meta_data={}),
        Message(id="msg_1b2c3d4e5f60718293a4b5c6", thread_id=PARENT, created_at=at(2), role="assistant",
                assistant_id=TRAVEL, run_id=RUN, content="I'll ask the flight booker for options."),
        Message(id="msg_2c3d4e5f60718293a4b5c6d7", thread_id=PARENT, created_at=at(2), role="assistant",
                assistant_id=TRAVEL, run_id=RUN, content=f"calling {FLIGHTS} in child thread {CHILD}",
                meta_data={"message_type": "agent:log"}),
        Message(id="msg_3d4e5f60718293a4b5c6d7e8", thread_id=PARENT, created_at=at(9), role="assistant",
                assistant_id=FLIGHTS, run_id=RUN,
                content="Booked: JetBlue B6 1104, March 20, 08:15 JFK arrival, $289. Confirmation NY4411.",
                completed_at=at(9)),
        Message(id="msg_4e5f60718293a4b5c6d7e8f9", thread_id=PARENT, created_at=at(10), role="assistant",
                assistant_id=TRAVEL, run_id=RUN, content="itinerary_NY4411.md",
                attachments=[{"file_id": "file_7c1d2e3f4a5b", "tools": [{"type": "file_search"}]}],
                meta_data={"message_type": "system:output_file"}),
    ]
    return {"thread": thread.to_openai().model_dump(), "messages": [m.to_openai().model_dump() for m in messages]}


def aitp(payload: dict[str, Any]) -> str:
    return json.dumps(payload)


def aitp_child_thread() -> dict[str, Any]:
    def message(seconds: int, role: str, actor: str, *content: str) -> dict[str, Any]:
        return {"created_at": T0 + seconds, "thread_id": CHILD, "content": list(content), "attachments": [], "role": role, "metadata": {"actor": actor}}

    request_decision = {
        "$schema": DECISIONS,
        "request_decision": {
            "id": "rd_flights_0320",
            "title": "Flights to NYC, March 20",
            "type": "radio",
            "options": [
                {"id": "b6_1104", "name": "JetBlue B6 1104", "description": "BOS 07:00 → JFK 08:15", "quote": {"amount": 289, "currency": "USD"}},
                {"id": "dl_2210", "name": "Delta DL 2210", "description": "BOS 09:30 → LGA 10:50", "quote": {"amount": 342, "currency": "USD"}},
            ],
        },
    }
    decision = {"$schema": DECISIONS, "decision": {"request_decision_id": "rd_flights_0320", "options": [{"id": "b6_1104", "name": "JetBlue B6 1104"}]}}
    quote = {
        "$schema": TRANSACTIONS,
        "quote": {
            "type": "Quote",
            "quote_id": "quote_ny4411",
            "payee_id": "flights.near",
            "payment_plans": [{"plan_id": "one_time_289", "plan_type": "one-time", "amount": 289, "currency": "USD"}],
            "valid_until": "2025-03-14T13:00:00Z",
        },
    }
    authorization = {
        "$schema": TRANSACTIONS,
        "payment_authorization": {
            "quote_id": "quote_ny4411",
            "result": "success",
            "timestamp": "2025-03-14T12:00:07Z",
            "details": [{"network": "NEAR", "token_type": "USDC", "amount": 289.0, "account_id": "alice.near", "transaction_id": "9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin"}],
        },
    }
    return {
        "id": CHILD,
        "messages": [
            message(3, "user", TRAVEL, "Find flights BOS → NYC on March 20 under $400 for alice.near."),
            message(4, "assistant", FLIGHTS, "Two flights fit:", aitp(request_decision)),
            message(5, "user", TRAVEL, aitp(decision)),
            message(6, "assistant", FLIGHTS, aitp(quote)),
            message(7, "user", TRAVEL, aitp(authorization)),
            message(8, "assistant", FLIGHTS, "Booked: JetBlue B6 1104, confirmation NY4411."),
        ],
        "metadata": {
            "parent_id": PARENT,
            "actors": [
                {"id": TRAVEL, "capabilities": [{"schema": DECISIONS}, {"schema": TRANSACTIONS}]},
                {"id": FLIGHTS, "capabilities": [{"schema": DECISIONS}, {"schema": TRANSACTIONS}]},
            ],
        },
    }


def main() -> None:
    files = {"nearai_hub_trip_thread.json": hub_export(), "aitp_flight_booking_thread.json": aitp_child_thread()}
    for folder in (OUT, FIXTURES):
        folder.mkdir(parents=True, exist_ok=True)
        for name, doc in files.items():
            (folder / name).write_text(json.dumps(doc, indent=1) + "\n")


if __name__ == "__main__":
    main()
