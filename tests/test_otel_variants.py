"""The containers and conventions spans reach disk in, each made by the real OpenTelemetry SDK
here: OTLP JSON with base64 ids (protobuf's json_format) and with hex ids (OTLP/JSON), the
SDK's own span JSON (``ReadableSpan.to_json()``) pretty-printed one after another as
``ConsoleSpanExporter`` prints it, one per line, or as an array; GenAI ≤ 1.36 messages as span
events; spans of no GenAI convention kept with a problem; a mixed folder in one frame set."""

from __future__ import annotations

import json
import shutil
import warnings
from pathlib import Path
from typing import Any

import orjson
import pytest
from google.protobuf.json_format import MessageToDict
from hypothesis import given, settings
from hypothesis import strategies as st
from opentelemetry.exporter.otlp.proto.common.trace_encoder import encode_spans
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.semconv._incubating.attributes import gen_ai_attributes as G
from opentelemetry.trace import Status, StatusCode

import threadlab
from threadlab.core.builder import ThreadBuilder
from threadlab.core.loss import WriteLoss
from threadlab.core.model import Thread
from threadlab.formats import get_format
from threadlab.formats.common.source import Source

FIXTURES = Path(__file__).parent / "fixtures"


def _spans_with_events() -> list[ReadableSpan]:
    """An agent whose model call records its messages as GenAI ≤ 1.36 span events, a tool
    span that fails, and an HTTP span under the tool (no GenAI convention)."""
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    tracer = provider.get_tracer("test")
    with tracer.start_as_current_span("invoke_agent Helper", attributes={G.GEN_AI_OPERATION_NAME: "invoke_agent", G.GEN_AI_AGENT_NAME: "Helper"}):
        with tracer.start_as_current_span("chat gpt-x", attributes={G.GEN_AI_OPERATION_NAME: "chat", G.GEN_AI_REQUEST_MODEL: "gpt-x",
                                                                   G.GEN_AI_USAGE_INPUT_TOKENS: 11, G.GEN_AI_USAGE_OUTPUT_TOKENS: 4}) as chat:
            chat.add_event("gen_ai.system.message", {"content": "Be brief."})
            chat.add_event("gen_ai.user.message", {"content": "Fetch the page."})
            chat.add_event("gen_ai.choice", {"index": 0, "finish_reason": "tool_calls",
                                             "message": json.dumps({"role": "assistant", "tool_calls": [
                                                 {"id": "t1", "type": "function", "function": {"name": "fetch", "arguments": '{"url": "u"}'}}]})})
        with tracer.start_as_current_span("execute_tool fetch", attributes={G.GEN_AI_OPERATION_NAME: "execute_tool", G.GEN_AI_TOOL_NAME: "fetch",
                                                                           G.GEN_AI_TOOL_CALL_ID: "t1"}) as tool:
            with tracer.start_as_current_span("GET", attributes={"http.request.method": "GET", "url.full": "https://example.org/u"}):
                pass
            tool.set_status(Status(StatusCode.ERROR, "timeout"))
        with tracer.start_as_current_span("chat gpt-x", attributes={G.GEN_AI_OPERATION_NAME: "chat", G.GEN_AI_REQUEST_MODEL: "gpt-x"}) as chat:
            chat.add_event("gen_ai.user.message", {"content": "Fetch the page."})
            chat.add_event("gen_ai.tool.message", {"id": "t1", "content": "timeout"})
            chat.add_event("gen_ai.choice", {"index": 0, "finish_reason": "stop", "message": json.dumps({"role": "assistant", "content": "It timed out."})})
    return list(exporter.get_finished_spans())


def _otlp(spans: list[ReadableSpan]) -> dict[str, Any]:
    return MessageToDict(encode_spans(spans))


def _summary(thread: Thread) -> list[tuple[Any, ...]]:
    return [(a.action_type, getattr(a, "agent_id", None), getattr(a, "content", None), getattr(a, "tool_call_id", None),
             getattr(a, "status", None), a.timestamp) for a in thread.actions]


CONTAINERS = {
    "otlp-base64": lambda spans: json.dumps(_otlp(spans)).encode(),
    "otlp-lines": lambda spans: b"".join(orjson.dumps(_otlp([s])) + b"\n" for s in spans),
    "console-pretty": lambda spans: "".join(s.to_json() + "\n" for s in spans).encode(),
    "span-lines": lambda spans: "".join(s.to_json(indent=None) + "\n" for s in spans).encode(),
    "span-array": lambda spans: ("[" + ",".join(s.to_json(indent=None) for s in spans) + "]").encode(),
}


@pytest.mark.parametrize("container", list(CONTAINERS))
def test_every_container_gives_the_same_thread(container: str) -> None:
    spans = _spans_with_events()
    data = CONTAINERS[container](spans)
    source = Source(data, name=f"spans.{container}")
    assert get_format("otel").detect(source)
    (thread,) = threadlab.read_all(source, strict=False)
    (reference,) = threadlab.read_all(Source(CONTAINERS["otlp-base64"](spans), name="ref"), strict=False)
    assert [x[:-1] for x in _summary(thread)] == [x[:-1] for x in _summary(reference)]
    # the SDK's span JSON writes ISO times rounded to the microsecond; OTLP keeps nanoseconds
    assert all(abs((x[-1] - y[-1]).total_seconds()) <= 1e-6 for x, y in zip(_summary(thread), _summary(reference), strict=True))
    assert thread.account.records == len(spans) == 5


def test_span_events_foreign_spans_and_errors() -> None:
    (thread,) = threadlab.read_all(Source(CONTAINERS["otlp-base64"](_spans_with_events()), name="events.json"), strict=False)
    kinds = [a.action_type for a in thread.actions]
    assert kinds == ["user_message", "tool_call", "system.span", "tool_return", "assistant_message"]
    call, span, ret, answer = thread.actions[1:]
    assert (call.tool_name, call.args, call.usage.input_tokens) == ("fetch", {"url": "u"}, 11)
    assert span.data["name"] == "GET" and span.data["attributes"]["url.full"] == "https://example.org/u"
    assert (ret.status, ret.content) == ("error", "timeout")
    assert answer.content == "It timed out." and answer.finish_reason == "stop"
    assert thread.agents["helper"].metadata["system_instructions"] == ["Be brief."]
    # the HTTP span is kept and named; everything else converted
    assert (thread.account.converted, thread.account.kept) == (4, 1)
    assert [p.rule for p in thread.problems] == ["unknown-type"] and "GET" in thread.problems[0].message


def test_hex_and_base64_ids_are_the_same_trace() -> None:
    doc = _otlp(_spans_with_events())
    hexed = json.loads(json.dumps(doc))
    import base64

    for rs in hexed["resourceSpans"]:
        for ss in rs["scopeSpans"]:
            for span in ss["spans"]:
                for key in ("traceId", "spanId", "parentSpanId"):
                    if key in span:
                        span[key] = base64.b64decode(span[key]).hex()
    (a,) = threadlab.read_all(Source(json.dumps(doc), name="b64.json"), strict=False)
    (b,) = threadlab.read_all(Source(json.dumps(hexed), name="hex.json"), strict=False)
    assert a.to_dict() == b.to_dict()
    assert len(a.thread_id) == 32 and all(c in "0123456789abcdef" for c in a.thread_id)


def test_a_mixed_folder_loads_into_one_frame_set(tmp_path: Path) -> None:
    shutil.copy(FIXTURES / "otel" / "pydantic_ai_v5_attributes.json", tmp_path / "otlp.json")
    shutil.copy(FIXTURES / "otel" / "openinference_openai_agents_collector.jsonl", tmp_path / "collector.jsonl")
    shutil.copy(FIXTURES / "openai_agents_trace" / "support_run.jsonl", tmp_path / "agents_trace.jsonl")
    (tmp_path / "console.log").write_bytes(CONTAINERS["console-pretty"](_spans_with_events()))
    shutil.copy(FIXTURES / "inputs" / "telemetry_agreement" / "pydantic_ai_v5_attributes.messages.json", tmp_path / "history.json")
    frames = threadlab.load(tmp_path, progress=False)
    formats = dict(zip(frames.threads["source"].map(lambda s: Path(s).name), frames.threads["format"], strict=True))
    assert formats == {"otlp.json": "otel", "collector.jsonl": "otel", "agents_trace.jsonl": "openai-agents-trace",
                       "console.log": "otel", "history.json": "pydantic-ai"}
    notes = frames.problems["message"].str.contains("finer than a microsecond")  # nanosecond times, said once per file
    assert set(frames.problems["rule"][~notes]) <= {"unknown-type"}  # the HTTP span of console.log
    assert set(frames.problems["rule"][notes]) <= {"time-precision"} and frames.problems["source"][notes].is_unique
    records = dict(zip(frames.threads["source"].map(lambda s: Path(s).name), frames.threads["n_records"], strict=True))
    assert {k: v for k, v in records.items() if k != "history.json"} == {"otlp.json": 10, "collector.jsonl": 22, "agents_trace.jsonl": 22,
                                                                         "console.log": 5}
    calls = frames.tool_calls
    assert (calls["status"] == "success").sum() >= 10 and calls["latency_s"].notna().all()


def _thread(draw: Any) -> Thread:
    """A random multi-agent conversation: prompts, answers, tool calls answered or pending."""
    b = ThreadBuilder("t-" + str(draw(st.integers(0, 10**6))))
    agents = [b.agent(name) for name in draw(st.lists(st.sampled_from(["Ann", "Bo", "Cy"]), min_size=1, max_size=3, unique=True))]
    n = 0
    for step in draw(st.lists(st.tuples(st.sampled_from(agents), st.text(min_size=1, max_size=20), st.integers(0, 2)), min_size=1, max_size=6)):
        agent, text, calls = step
        b.add("user_message", content=text, metadata={"to_agent_id": agent}, timestamp=f"2026-01-01T00:00:{n:02d}Z")
        b.add("assistant_message", agent_id=agent, content=text[::-1], timestamp=f"2026-01-01T00:00:{n + 1:02d}Z")
        for i in range(calls):
            call_id = f"c{n}-{i}"
            b.add("tool_call", agent_id=agent, tool_name="tool", tool_call_id=call_id, args={"i": i}, timestamp=f"2026-01-01T00:00:{n + 2:02d}Z")
            b.add("tool_return", tool_call_id=call_id, tool_name="tool", content=f"r{i}", timestamp=f"2026-01-01T00:00:{n + 3:02d}Z")
        n += 4
    return b.build()


@settings(max_examples=30, deadline=None)
@given(st.data())
def test_span_writers_keep_the_conversation(data: Any) -> None:
    """Any conversation written as spans (OTLP JSON or Agents SDK traces) and read back has the
    same prompts, answers, tool calls and returns in the same order, or the writer says what
    it lost."""
    thread = _thread(data.draw)
    for name in ("otel", "openai-agents-trace"):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            wire = get_format(name).from_thread(thread)
        (back,) = threadlab.read_all(Source(wire, name="w"), name, strict=False)
        want = [(a.action_type, getattr(a, "content", None), getattr(a, "tool_call_id", None)) for a in thread.actions]
        got = [(a.action_type, getattr(a, "content", None), getattr(a, "tool_call_id", None)) for a in back.actions]
        losses = [w.message for w in caught if isinstance(w.message, WriteLoss)]
        assert got == want or losses
