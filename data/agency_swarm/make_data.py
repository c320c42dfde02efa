"""Regenerate data/agency_swarm/ and tests/fixtures/agency_swarm/generated/ by running the real
agency-swarm 1.11 (Python 3.12 only) with a scripted model: no network, no API key.

    python3.12 -m venv /tmp/as312 && /tmp/as312/bin/pip install agency-swarm==1.11.0 \
        pandas pyarrow orjson plotly ipywidgets tqdm genai-prices
    PYTHONPATH=. /tmp/as312/bin/python data/agency_swarm/make_data.py

Turn 1 runs an Agency whose save_threads_callback is threadlab's FileThreadStore (one pair
thread per file); turn 2 runs a *fresh* Agency that loads the chat back through the same store.
"""

from __future__ import annotations

import asyncio
import json
import os
import shutil
from pathlib import Path
from typing import Any

os.environ.setdefault("OPENAI_API_KEY", "sk-offline-not-used")
os.environ.setdefault("OPENAI_AGENTS_DISABLE_TRACING", "1")

from agency_swarm import Agency, Agent, function_tool
from agency_swarm.utils.usage_tracking import extract_usage_from_run_result
from agents import ModelSettings
from agents.usage import Usage
from openai.types.responses import ResponseReasoningItem
from openai.types.responses.response_reasoning_item import Summary
from openai.types.responses.response_usage import InputTokensDetails, OutputTokensDetails
from scripted_model import ScriptedModel, call_item, text_item

from threadlab.formats.agency_swarm import FileThreadStore

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "data" / "agency_swarm"
FIXTURES = ROOT / "tests" / "fixtures" / "agency_swarm" / "generated"
PAIR_STORE = ROOT / "tests" / "fixtures" / "threadprotocol" / "agency_pair_store"  # FileThreadStore writes ThreadProtocol
INPUTS = ROOT / "tests" / "fixtures" / "inputs" / "agency_swarm"  # usage stats: not conversations
CHAT_ID = "shop_chat"


@function_tool
def multiply(a: float, b: float) -> float:
    """Multiply two numbers."""
    return round(a * b, 2)


def _usage(step: int) -> Usage:
    """Different numbers per request, so the order requests are reported in can be checked."""
    return Usage(
        requests=1,
        input_tokens=100 * step,
        output_tokens=10 * step,
        total_tokens=110 * step,
        input_tokens_details=InputTokensDetails(cached_tokens=step),
        output_tokens_details=OutputTokensDetails(reasoning_tokens=2 * step),
    )


class CeoWorkerModel(ScriptedModel):
    """Answers from a script keyed by the agent and what the latest input item is."""

    def respond(self, items: list[dict[str, Any]]) -> tuple[list[Any], Usage]:
        last = items[-1]
        users = [i for i in items if i.get("role") == "user"]
        turn = len(users)
        answered = last.get("type") == "function_call_output"
        out: list[Any]
        if self.agent == "CEO":
            if not answered and turn == 1:
                out = [
                    ResponseReasoningItem(id="rs_ceo_1", type="reasoning", summary=[Summary(type="summary_text", text="Pricing is the Worker's job; delegate.")]),
                    call_item("call_ceo_1", "send_message", {"recipient_agent": "Worker", "message": "Price 3 notebooks at $4.50 each.", "additional_instructions": ""}),
                ]
            elif not answered:
                out = [call_item("call_ceo_2", "send_message", {"recipient_agent": "Worker", "message": "Add 20% tax to $13.50.", "additional_instructions": ""})]
            else:
                out = [text_item(f"msg_ceo_{turn}", f"The Worker says: {last['output']}")]
        else:
            if not answered:
                args = {"a": 3, "b": 4.5} if "notebooks" in str(last.get("content")) else {"a": 13.5, "b": 1.2}
                out = [call_item(f"call_w_{turn}", "multiply", args)]
            else:
                total = float(last["output"])
                out = [text_item(f"msg_w_{turn}", f"That comes to ${total:.2f}.")]
        step = {"CEO": 0, "Worker": 10}[self.agent] + self.step
        return out, _usage(step)


def build_agency(store: FileThreadStore, saved: list[list[dict[str, Any]]]) -> Agency:
    load, save = store.agency_callbacks(CHAT_ID)

    def save_and_keep(items: list[dict[str, Any]]) -> None:
        saved.append(json.loads(json.dumps(items)))
        save(items)

    ceo = Agent(name="CEO", instructions="Delegate pricing questions to the Worker.", model=CeoWorkerModel("CEO"), model_settings=ModelSettings())
    worker = Agent(name="Worker", instructions="Price things with the multiply tool.", model=CeoWorkerModel("Worker"), tools=[multiply])
    return Agency(ceo, communication_flows=[(ceo, worker)], load_threads_callback=load, save_threads_callback=save_and_keep)


def _write(path: Path, value: Any) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(value, indent=1) + "\n")


async def main() -> None:
    store_dir = PAIR_STORE
    shutil.rmtree(store_dir, ignore_errors=True)
    store = FileThreadStore(store_dir)
    saved1: list[list[dict[str, Any]]] = []
    result1 = await build_agency(store, saved1).get_response("What do 3 notebooks at $4.50 each cost? Ask the Worker.")
    usage1 = extract_usage_from_run_result(result1)
    saved2: list[list[dict[str, Any]]] = []
    fresh = build_agency(FileThreadStore(store_dir), saved2)  # reloads turn 1 through the store
    result2 = await fresh.get_response("And with 20% tax?")
    usage2 = extract_usage_from_run_result(result2)
    _write(DATA / "ceo_worker_saved_messages.json", saved2[-1])
    _write(FIXTURES / "turn1_saved_messages.json", saved1[-1])
    _write(FIXTURES / "turn2_saved_messages.json", saved2[-1])
    for name, usage in (("turn1_usage.json", usage1), ("turn2_usage.json", usage2)):
        assert usage is not None
        _write(INPUTS / name, {"usage_stats": usage.to_dict(), "request_usage_entries": [vars(e) for e in usage.request_usage_entries]})
    print(result1.final_output, "|", result2.final_output)


if __name__ == "__main__":
    asyncio.run(main())
