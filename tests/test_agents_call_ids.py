"""Calls and returns keyed as the producer keys them (issue 24 §5): one Agents SDK run with the
SDK's default Responses model (``tests/fixtures/openai_agents_trace/make_responses_run.py``),
recorded four ways: its trace with the response spans' items, its session items, its Responses
log and its OpenInference spans. Each read by threadlab gives the same tool calls and returns,
keyed by the model's call ids, as the raw session items say (counted here with orjson alone).
The trace as ``span.export()`` writes it holds no call id at all: its calls keep the function
spans' ids, and still pair with their returns and agree on everything else."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import orjson
import pytest

import threadlab
from threadlab.formats.common.source import Source

FIXTURES = Path(__file__).parent / "fixtures"
TRACES = FIXTURES / "openai_agents_trace"
INPUTS = FIXTURES / "inputs" / "agents_call_ids"
FILES = {"responses_run_full.jsonl": "openai-agents-trace", "responses_run.session.jsonl": "openai-agents-session",
         "responses_run.exchanges.jsonl": "openai-responses", "responses_run.openinference.json": "otel"}


def _jsonl(text: str) -> list[Any]:
    return [orjson.loads(line) for line in text.splitlines() if line.strip()]


def _args(value: Any) -> str:
    return orjson.dumps(orjson.loads(value) if isinstance(value, str) else value, option=orjson.OPT_SORT_KEYS).decode()


def raw_session(text: str) -> tuple[list[tuple[str, str, str]], list[tuple[str, str]]]:
    """(call_id, name, args) of each function call and (call_id, output) of each output."""
    items = _jsonl(text)
    calls = sorted((i["call_id"], i["name"], _args(i["arguments"])) for i in items if i.get("type") == "function_call")
    outputs = sorted((i["call_id"], i["output"]) for i in items if i.get("type") == "function_call_output")
    return calls, outputs


def raw_exchanges(text: str) -> tuple[list[tuple[str, str, str]], list[tuple[str, str]]]:
    """The Responses log: calls from each response's output, outputs from the requests' inputs
    (each request repeats the history: counted once per call id)."""
    pairs = _jsonl(text)
    calls = {i["call_id"]: (i["call_id"], i["name"], _args(i["arguments"])) for p in pairs for i in p["response"]["output"]
             if i.get("type") == "function_call"}
    outputs = {i["call_id"]: (i["call_id"], i["output"]) for p in pairs for i in p["request"]["input"] if i.get("type") == "function_call_output"}
    return sorted(calls.values()), sorted(outputs.values())


def raw_function_spans(text: str) -> list[tuple[str, str, str, str]]:
    """(span id, name, args, output) of each function span of an Agents SDK trace."""
    return sorted((r["id"], r["span_data"]["name"], _args(r["span_data"]["input"]), r["span_data"]["output"]) for r in _jsonl(text)
                  if r.get("object") == "trace.span" and r["span_data"]["type"] == "function")


def read(data: bytes, name: str) -> threadlab.Thread:
    (thread,) = threadlab.read_all(Source(data, name=name), strict=False)
    assert thread.origin[1] == FILES[name]
    assert [p for p in thread.problems if p.rule != "time-order"] == []
    return thread


def got(thread: threadlab.Thread) -> tuple[list[tuple[str, str, str]], list[tuple[str, str]]]:
    calls = sorted((a.tool_call_id, a.tool_name, _args(a.args)) for a in thread.actions if a.action_type == "tool_call")
    returns = sorted((a.tool_call_id, a.content) for a in thread.actions if a.action_type == "tool_return")
    return calls, returns


def check_run(texts: dict[str, str]) -> None:
    expected = raw_session(texts["responses_run.session.jsonl"])
    assert len(expected[0]) == 3 and all(c[0].startswith("call_") for c in expected[0])
    assert raw_exchanges(texts["responses_run.exchanges.jsonl"]) == expected  # the raw records agree with each other
    for name in FILES:
        assert got(read(texts[name].encode(), name)) == expected, name
    # the plain export: no call id anywhere in it, so the function spans' ids key the pairs
    plain = texts["responses_run.jsonl"]
    assert "call_" not in plain
    (thread,) = threadlab.read_all(Source(plain.encode(), name="responses_run.jsonl"), strict=False)
    assert [p for p in thread.problems if p.rule != "time-order"] == []
    calls, returns = got(thread)
    spans = raw_function_spans(plain)
    assert calls == [(s[0], s[1], s[2]) for s in spans] and returns == [(s[0], s[3]) for s in spans]
    assert sorted((c[1], c[2]) for c in calls) == sorted((c[1], c[2]) for c in expected[0])


def committed() -> dict[str, str]:
    traces = ("responses_run.jsonl", "responses_run_full.jsonl")
    return {name: (TRACES if name in traces else INPUTS).joinpath(name).read_text() for name in ("responses_run.jsonl", *FILES)}


def test_committed_run_gives_the_same_call_ids_in_every_record() -> None:
    check_run(committed())


def test_a_run_made_now_gives_the_same_call_ids_in_every_record() -> None:
    from tests.fixtures.openai_agents_trace.make_responses_run import record

    check_run(asyncio.run(record()))


def test_response_spans_give_the_turns_and_usage_of_the_run() -> None:
    """The full trace's thread is the session's conversation: prompts, texts, thinking, usage
    per response (once), each answer naming its response id as the Responses log does."""
    texts = committed()
    trace = read(texts["responses_run_full.jsonl"].encode(), "responses_run_full.jsonl")
    items = _jsonl(texts["responses_run.session.jsonl"])
    assert [a.content for a in trace.actions if a.action_type == "user_message"] == [i["content"] for i in items if i.get("role") == "user"]
    assert [a.content for a in trace.actions if a.action_type == "assistant_message"] == [
        i["content"][0]["text"] for i in items if i.get("role") == "assistant"]
    assert [a.content for a in trace.actions if a.action_type == "thinking"] == [
        i["summary"][0]["text"] for i in items if i.get("type") == "reasoning"]
    spans = [r["span_data"] for r in _jsonl(texts["responses_run_full.jsonl"]) if r.get("span_data", {}).get("type") == "response"]
    usage = [a.usage for a in trace.actions if getattr(a, "usage", None) is not None]
    assert [(u.input_tokens, u.output_tokens) for u in usage] == [(s["usage"]["input_tokens"], s["usage"]["output_tokens"]) for s in spans]
    answered = {a.metadata["openai_agents_trace"].get("response_id") for a in trace.actions if a.action_type in ("tool_call", "assistant_message")}
    assert answered == {s["response_id"] for s in spans}
    assert {a.agent_id for a in trace.actions if a.action_type == "system.model_call"} <= set(trace.agents)


def test_a_plain_export_keeps_usage_on_the_registered_agent() -> None:
    """Response spans with only usage are ``system.model_call`` actions of the agent that ran them
    (its registry id, not its display name)."""
    (thread,) = threadlab.read_all(TRACES / "responses_run.jsonl", strict=False)
    calls = [a for a in thread.actions if a.action_type == "system.model_call"]
    assert len(calls) == 4 and {a.agent_id for a in calls} == {"forecaster"} <= set(thread.agents)
    assert not [p for p in thread.problems if p.rule == "agent-ref"]


@pytest.mark.parametrize("key", ["response", "output"])
def test_response_items_are_read_whichever_key_holds_them(key: str) -> None:
    """Processors write the model's output as the whole ``response`` or as its ``output`` list."""
    lines = []
    for record in _jsonl(committed()["responses_run_full.jsonl"]):
        data = record.get("span_data") or {}
        if data.get("type") == "response" and key == "output":
            record["span_data"] = {**data, "output": data["response"]["output"]}
            del record["span_data"]["response"]
        lines.append(orjson.dumps(record))
    (thread,) = threadlab.read_all(Source(b"\n".join(lines), name="t.jsonl"), strict=False)
    assert got(thread) == raw_session(committed()["responses_run.session.jsonl"])
