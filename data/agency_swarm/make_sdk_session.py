"""Regenerate tests/fixtures/openai_agents_session/session_get_items.json: a plain OpenAI Agents SDK session
(``session.get_items()`` of an ``SQLiteSession``, saved as a JSON array), made by running the real
openai-agents with a scripted model: no network, no API key.

    python3 -m venv /tmp/sdk && /tmp/sdk/bin/pip install openai-agents==0.24.0
    /tmp/sdk/bin/python data/agency_swarm/make_sdk_session.py

Two turns: a triage agent reasons and hands off to a billing agent, which searches the web (a
hosted tool: the model's own call, no call_id, no output item) and calls its function tool; the
second turn asks the billing agent a follow-up it answers from its tool again.
"""

from __future__ import annotations

import asyncio
import json
import os
from pathlib import Path
from typing import Any

os.environ.setdefault("OPENAI_API_KEY", "sk-offline-not-used")
os.environ.setdefault("OPENAI_AGENTS_DISABLE_TRACING", "1")

from agents import Agent, Runner, SQLiteSession, function_tool, handoff
from agents.usage import Usage
from openai.types.responses import ResponseFunctionWebSearch, ResponseReasoningItem
from openai.types.responses.response_function_web_search import ActionSearch
from openai.types.responses.response_reasoning_item import Summary
from scripted_model import ScriptedModel, call_item, text_item

OUT = Path(__file__).resolve().parents[2] / "tests" / "fixtures" / "openai_agents_session"


@function_tool
def lookup_invoice(invoice_id: str) -> str:
    """The amount and state of an invoice."""
    return {"INV-7": "INV-7: 120.00 EUR, paid on 2026-03-02", "INV-9": "INV-9: 80.00 EUR, open"}.get(invoice_id, "no such invoice")


class SupportModel(ScriptedModel):
    """Answers from a script keyed by the agent, the turn and what the latest input item is."""

    def respond(self, items: list[dict[str, Any]]) -> tuple[list[Any], Usage]:
        last = items[-1]
        turn = sum(1 for i in items if i.get("role") == "user")
        out: list[Any]
        if self.agent == "Triage":
            out = [
                ResponseReasoningItem(id="rs_triage_1", type="reasoning", summary=[Summary(type="summary_text", text="An invoice question: billing handles it.")]),
                call_item("call_handoff_1", "transfer_to_billing_agent", {}),
            ]
        elif last.get("type") == "function_call_output" and last["call_id"].startswith("call_lookup"):
            out = [text_item(f"msg_billing_{turn}", f"Here is what I found: {last['output']}.")]
        else:
            invoice = "INV-7" if turn == 1 else "INV-9"
            out = []
            if turn == 1:
                out.append(ResponseFunctionWebSearch(id="ws_billing_1", type="web_search_call", status="completed", action=ActionSearch(type="search", query="invoice INV-7 payment terms")))
            out.append(call_item(f"call_lookup_{turn}", "lookup_invoice", {"invoice_id": invoice}))
        return out, Usage(requests=1, input_tokens=100 * self.step, output_tokens=10 * self.step, total_tokens=110 * self.step)


async def main() -> None:
    billing = Agent(name="Billing agent", instructions="Answer invoice questions with lookup_invoice.", model=SupportModel("Billing"), tools=[lookup_invoice])
    triage = Agent(name="Triage", instructions="Hand billing questions to the billing agent.", model=SupportModel("Triage"), handoffs=[handoff(billing)])
    session = SQLiteSession("support_chat")
    first = await Runner.run(triage, "Was invoice INV-7 paid?", session=session)
    second = await Runner.run(first.last_agent, "And INV-9?", session=session)
    OUT.mkdir(parents=True, exist_ok=True)
    items = await session.get_items()
    (OUT / "session_get_items.json").write_text(json.dumps(items, indent=1) + "\n")
    print(first.final_output, "|", second.final_output)


if __name__ == "__main__":
    asyncio.run(main())
