"""Threads read from spans agree with the message history of the same run (issue 14, "Done
when"): for pydantic-ai, the thread from its spans and the thread from ``result.all_messages()``
have the same user prompts, assistant texts, tool calls and returns by id, and usage totals,
for each agent (the Router and the Researcher it delegates to); for the OpenAI Agents SDK, the
tool calls and handoffs the run made. Each on the committed fixtures (pydantic-ai 1.x's
instrumentation version 1 among them) and on a run made here, now, offline."""

from __future__ import annotations

import asyncio
import json
from collections import Counter
from pathlib import Path
from typing import Any

import orjson
import pytest
from google.protobuf.json_format import MessageToDict
from opentelemetry.exporter.otlp.proto.common.trace_encoder import encode_spans
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from pydantic_ai import Agent, ModelMessagesTypeAdapter, RunContext
from pydantic_ai.messages import ModelResponse, TextPart, ToolCallPart, ToolReturnPart
from pydantic_ai.models.function import AgentInfo, FunctionModel
from pydantic_ai.models.instrumented import InstrumentationSettings

import threadlab
from threadlab.core.model import Thread
from threadlab.formats.common.source import Source

FIXTURES = Path(__file__).parent / "fixtures"
AGREEMENT = FIXTURES / "inputs" / "telemetry_agreement"


def facts(thread: Thread, agent_id: str | None = None) -> dict[str, Any]:
    """What must agree: prompts, assistant texts, tool calls and returns by id, usage totals
    (of one agent's actions, or of the whole thread)."""
    def mine(a: Any) -> bool:
        if agent_id is None:
            return True
        if a.action_type == "user_message":
            return (a.metadata or {}).get("to_agent_id", agent_id) == agent_id
        if a.action_type == "tool_return":
            return calls.get(a.tool_call_id) == agent_id
        return getattr(a, "agent_id", None) == agent_id

    calls = {a.tool_call_id: a.agent_id for a in thread.actions if a.action_type == "tool_call"}
    acts = [a for a in thread.actions if mine(a)]
    usage = Counter()
    for a in acts:
        u = getattr(a, "usage", None)
        if u is not None:
            usage["input"] += u.input_tokens or 0
            usage["output"] += u.output_tokens or 0
    return {
        "prompts": [a.content for a in acts if a.action_type == "user_message"],
        "texts": [a.content for a in acts if a.action_type == "assistant_message"],
        "calls": sorted((a.tool_call_id, a.tool_name, json.dumps(a.args, sort_keys=True)) for a in acts if a.action_type == "tool_call"),
        "returns": sorted((a.tool_call_id, json.dumps(a.content, sort_keys=True, default=str)) for a in acts if a.action_type == "tool_return"),
        "usage": dict(usage),
    }


def history_facts(messages: Any) -> dict[str, Any]:
    return facts(threadlab.from_pydantic_ai(messages, agent="x"))


def span_thread(data: bytes | str | Path) -> Thread:
    threads = threadlab.read_all(data if isinstance(data, Path) else Source(data, name="spans.json"), "auto", strict=False)
    assert len(threads) == 1 and threads[0].origin[1] == "otel"
    assert [p for p in threads[0].problems if p.rule != "time-order"] == []
    return threads[0]


@pytest.mark.parametrize("name", ["pydantic_ai_v1_events", "pydantic_ai_v2_attributes", "pydantic_ai_v5_attributes"])
def test_committed_pydantic_ai_spans_agree_with_all_messages(name: str) -> None:
    thread = span_thread(FIXTURES / "otel" / f"{name}.json")
    router = orjson.loads((AGREEMENT / f"{name}.messages.json").read_bytes())
    (researcher,) = orjson.loads((AGREEMENT / f"{name}.sub_messages.json").read_bytes())
    assert facts(thread, "router") == history_facts(router)
    assert facts(thread, "researcher") == history_facts(researcher)
    totals = facts(thread)
    assert totals["usage"] == dict(Counter(history_facts(router)["usage"]) + Counter(history_facts(researcher)["usage"]))
    join = next(a for a in thread.actions if a.action_type == "system.agent_join")
    assert join.data == {"agent_id": "researcher", "invited_by": "router", "tool_call_id": "call_ask_1"}


def _delegating_run(version: int) -> tuple[bytes, list[Any], list[Any]]:
    """A Router that asks a Researcher (from a tool) and reads a clock, instrumented now."""
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    settings = InstrumentationSettings(tracer_provider=provider, version=version)  # type: ignore[arg-type]
    sub: list[Any] = []

    def researcher_model(messages: list[Any], info: AgentInfo) -> ModelResponse:
        if isinstance(messages[-1].parts[-1], ToolReturnPart):
            return ModelResponse(parts=[TextPart("It rains in Oslo.")])
        return ModelResponse(parts=[ToolCallPart("forecast", {"city": "Oslo"}, tool_call_id="r1")])

    def router_model(messages: list[Any], info: AgentInfo) -> ModelResponse:
        done = [p for m in messages for p in m.parts if isinstance(p, ToolReturnPart)]
        if not done:
            return ModelResponse(parts=[ToolCallPart("ask", {"q": "Oslo weather?"}, tool_call_id="c1"),
                                        ToolCallPart("clock", {}, tool_call_id="c2")])
        return ModelResponse(parts=[TextPart("Rain in Oslo; it is noon.")])

    researcher = Agent(FunctionModel(researcher_model), name="Researcher")
    router = Agent(FunctionModel(router_model), name="Router", instructions="Route.")
    researcher.instrument = router.instrument = settings

    @researcher.tool_plain
    def forecast(city: str) -> list[str]:
        return ["rain", "wind"]

    @router.tool
    async def ask(ctx: RunContext[None], q: str) -> str:
        result = await researcher.run(q)
        sub.append(result.all_messages())
        return result.output

    @router.tool_plain
    def clock() -> str:
        return "12:00"

    result = asyncio.run(router.run("Weather in Oslo, and the time?"))
    wire = json.dumps(MessageToDict(encode_spans(exporter.get_finished_spans()))).encode()
    return wire, result.all_messages(), sub[0]


@pytest.mark.parametrize("version", [5, 6])
def test_spans_of_a_run_made_now_agree_with_its_all_messages(version: int) -> None:
    wire, router, researcher = _delegating_run(version)
    thread = span_thread(wire)
    as_json = [json.loads(ModelMessagesTypeAdapter.dump_json(m)) for m in (router, researcher)]
    assert facts(thread, "router") == history_facts(as_json[0])
    assert facts(thread, "researcher") == history_facts(as_json[1])
    # every model call repeats the history: the thread holds each message once
    assert [a.content for a in thread.actions if a.action_type == "user_message"] == ["Weather in Oslo, and the time?", "Oslo weather?"]
    ids = [a.tool_call_id for a in thread.actions if a.action_type == "tool_call"]
    assert sorted(ids) == ["c1", "c2", "r1"]
    returns = {a.tool_call_id: a for a in thread.actions if a.action_type == "tool_return"}
    calls = {a.tool_call_id: a for a in thread.actions if a.action_type == "tool_call"}
    for call_id in ids:  # tool spans give the call and return their real times: latency = the tool's duration
        assert returns[call_id].timestamp >= calls[call_id].timestamp
    assert thread.agents["router"].metadata["system_instructions"] == ["Route."]
    assert all((a.metadata or {}).get("parent_tool_call_id") == "c1" for a in thread.actions if getattr(a, "agent_id", None) == "researcher")


def _agents_run_records() -> tuple[list[dict[str, Any]], list[Any]]:
    import agents
    from agents.tracing import TracingProcessor

    from tests.fixtures.openai_agents_trace.scripted_model import build_agents

    records: list[dict[str, Any]] = []

    class Collect(TracingProcessor):
        def on_trace_start(self, trace: Any) -> None:
            pass

        def on_trace_end(self, trace: Any) -> None:
            records.append(trace.export())

        def on_span_start(self, span: Any) -> None:
            pass

        def on_span_end(self, span: Any) -> None:
            records.append(span.export())

        def shutdown(self) -> None:
            pass

        def force_flush(self) -> None:
            pass

    agents.set_trace_processors([Collect()])

    async def run() -> Any:
        with agents.trace("support", group_id="g-now"):
            return await agents.Runner.run(build_agents(), "What's the weather in Paris, and what do I owe?")

    try:
        result = asyncio.run(run())
    finally:
        agents.set_trace_processors([])
    return records, result.to_input_list()


def _agents_facts(items: list[Any]) -> tuple[list[tuple[str, str]], list[tuple[str, str]]]:
    calls = sorted((i["call_id"], i["name"]) for i in items if i.get("type") == "function_call")
    outputs = sorted((i["call_id"], i["output"]) for i in items if i.get("type") == "function_call_output")
    return calls, outputs


def _check_agents_thread(thread: Thread, items: list[Any]) -> None:
    calls, outputs = _agents_facts(items)
    top = {a.tool_call_id for a in thread.actions if a.action_type == "tool_call" and a.agent_id in ("triage", "billing")}
    got_calls = sorted((a.tool_call_id, a.tool_name) for a in thread.actions if a.action_type == "tool_call" and a.tool_call_id in top)
    got_outputs = sorted((a.tool_call_id, a.content) for a in thread.actions if a.action_type == "tool_return" and a.tool_call_id in top)
    assert got_calls == calls and got_outputs == outputs
    (handoff,) = [a for a in thread.actions if a.action_type == "system.handoff"]
    assert handoff.data == {"from_agent_id": "triage", "to_agent_id": "billing", "tool_call_id": "call_handoff_1"}
    (join,) = [a for a in thread.actions if a.action_type == "system.agent_join"]
    assert join.data == {"agent_id": "researcher", "invited_by": "triage", "tool_call_id": "call_ask_1"}
    assert [a.content for a in thread.actions if a.action_type == "user_message"] == [items[0]["content"], "Weather in Paris?"]


def test_committed_agents_sdk_trace_agrees_with_the_run() -> None:
    (thread,) = threadlab.read_all(FIXTURES / "openai_agents_trace" / "support_run.jsonl", strict=False)
    _check_agents_thread(thread, orjson.loads((AGREEMENT / "support_run.result.json").read_bytes()))


def test_agents_sdk_trace_of_a_run_made_now_agrees_with_the_run() -> None:
    records, items = _agents_run_records()
    data = b"".join(orjson.dumps(r) + b"\n" for r in records)
    (thread,) = threadlab.read_all(Source(data, name="trace.jsonl"), strict=False)
    assert thread.origin[1] == "openai-agents-trace" and thread.thread_id == "g-now"
    _check_agents_thread(thread, items)
    assert thread.account.records == len(records) and thread.account.unconverted == 0
