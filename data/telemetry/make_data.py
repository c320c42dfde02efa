"""Make data/telemetry: span exports of multi-agent runs, as teams keep them, made offline by the
real libraries (no model is called).

    .venv/bin/python data/telemetry/make_data.py

- ``support_desk.otlp.json``: pydantic-ai 2.x, ``instrument`` with ``InstrumentationSettings
  (version=5)`` (what Logfire shows), exported with opentelemetry-sdk's in-memory exporter and
  the OTLP encoder + protobuf's json_format. A Desk agent answers two questions in one
  conversation (the second run continues the first's history): it asks a Billing agent and a
  Shipping agent (each from a tool), a lookup fails once and is retried.
- ``support_handoff.trace.jsonl``: the OpenAI Agents SDK with the scripted model of
  tests/fixtures/openai_agents_trace (Triage asks Researcher, hands off to Billing), its trace
  written by a JSON Lines TracingProcessor.
- ``support_handoff.openinference.jsonl``: the same run through openinference-instrumentation-
  openai-agents, one OTLP JSON document per line (the collector's file exporter's shape).
"""

from __future__ import annotations

import asyncio
import importlib.util
import sys
from pathlib import Path
from typing import Any

from pydantic_ai import Agent, ModelRetry, RunContext
from pydantic_ai.messages import ModelResponse, TextPart, ToolCallPart, ToolReturnPart
from pydantic_ai.models.function import AgentInfo, FunctionModel
from pydantic_ai.models.instrumented import InstrumentationSettings

HERE = Path(__file__).parent
ROOT = HERE.parents[1]


def _module(path: Path, name: str) -> Any:
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


sys.path.insert(0, str(ROOT / "tests" / "fixtures" / "openai_agents_trace"))  # the scripted model both scripts use
otel_fixtures = _module(ROOT / "tests" / "fixtures" / "otel" / "make_fixtures.py", "otel_fixtures")
agents_fixtures = _module(ROOT / "tests" / "fixtures" / "openai_agents_trace" / "make_fixtures.py", "agents_fixtures")


def _returns(messages: list[Any]) -> list[ToolReturnPart]:
    return [p for m in messages for p in m.parts if isinstance(p, ToolReturnPart)]


def support_desk() -> None:
    provider, exporter = otel_fixtures.provider()
    settings = InstrumentationSettings(tracer_provider=provider, version=5)
    tries = {"lookup": 0}

    def billing_model(messages: list[Any], info: AgentInfo) -> ModelResponse:
        if not _returns(messages):
            return ModelResponse(parts=[ToolCallPart("get_invoice", {"order": "A-17"}, tool_call_id="bill_1")])
        return ModelResponse(parts=[TextPart("Invoice A-17: 42.50 EUR, paid on 3 March.")])

    def shipping_model(messages: list[Any], info: AgentInfo) -> ModelResponse:
        return ModelResponse(parts=[TextPart("Parcel A-17 left Lyon yesterday; delivery expected Friday.")])

    def desk_model(messages: list[Any], info: AgentInfo) -> ModelResponse:
        done = {p.tool_call_id for p in _returns(messages)}
        prompt = messages[-1].parts[-1].content if not _returns(messages[-1:]) else None
        if prompt and "refund" in str(prompt):
            return ModelResponse(parts=[TextPart("Let me check with billing."), ToolCallPart("ask_billing", {"question": "Was A-17 paid?"}, tool_call_id="desk_3")])
        if "desk_3" in done:
            return ModelResponse(parts=[TextPart("A-17 was paid (42.50 EUR), so a refund is possible once it arrives.")])
        if not done:
            return ModelResponse(parts=[ToolCallPart("lookup_order", {"order": "A-17"}, tool_call_id="desk_1")])
        if done == {"desk_1"} or len(done) == 1:
            return ModelResponse(parts=[ToolCallPart("lookup_order", {"order": "A-17"}, tool_call_id="desk_1b"),
                                        ToolCallPart("ask_shipping", {"question": "Where is A-17?"}, tool_call_id="desk_2")])
        return ModelResponse(parts=[TextPart("Order A-17 ships Friday; it left Lyon yesterday.")])

    billing = Agent(FunctionModel(billing_model, model_name="billing-fn"), name="Billing", instructions="You answer billing questions.")
    shipping = Agent(FunctionModel(shipping_model, model_name="shipping-fn"), name="Shipping", instructions="You track parcels.")
    desk = Agent(FunctionModel(desk_model, model_name="desk-fn"), name="Desk", instructions="You run the support desk.")
    for agent in (billing, shipping, desk):
        agent.instrument = settings

    @billing.tool_plain
    def get_invoice(order: str) -> dict[str, Any]:
        return {"order": order, "amount_eur": 42.5, "paid": "2026-03-03"}

    @desk.tool_plain
    def lookup_order(order: str) -> dict[str, Any]:
        tries["lookup"] += 1
        if tries["lookup"] == 1:
            raise ModelRetry("the order service timed out; try again")
        return {"order": order, "status": "shipped"}

    @desk.tool
    async def ask_billing(ctx: RunContext[None], question: str) -> str:
        return (await billing.run(question)).output

    @desk.tool
    async def ask_shipping(ctx: RunContext[None], question: str) -> str:
        return (await shipping.run(question)).output

    async def conversation() -> None:
        first = await desk.run("Where is my order A-17?")
        await desk.run("Can I get a refund when it arrives?", message_history=first.all_messages())

    asyncio.run(conversation())
    (HERE / "support_desk.otlp.json").write_text(otel_fixtures.otlp_json(exporter))


def support_handoff() -> None:
    asyncio.run(agents_fixtures.run("support_handoff", trace_first=False, folder=HERE, suffix=".trace.jsonl"))
    otel_fixtures.openinference_agents_run("support_handoff", folder=HERE, suffix=".openinference.jsonl")


if __name__ == "__main__":
    support_desk()
    support_handoff()
