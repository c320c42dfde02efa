"""Hugging Face session traces (the Hub's STS-Format): what each line becomes, exact round trips,
broken lines, detection against Pi's session lines, and threads of other formats written as traces."""

from __future__ import annotations

import warnings
from pathlib import Path

import orjson

import threadlab
from tests.conformance.test_formats import _projection
from threadlab.core.loss import WriteLoss
from threadlab.formats.common.source import Source
from threadlab.formats.sts import detect, from_thread, to_threads

FIXTURES = Path(__file__).parent / "fixtures"
EXAMPLE = FIXTURES / "real" / "hf_session_trace" / "hub_docs_sts_example.jsonl"
LINES = [
    {"type": "session", "harness": "llama.app", "id": "s-42", "name": "fix the build", "cwd": "/src"},
    {"type": "message", "message": {"role": "system", "content": "You are terse.", "timestamp": 1767225600000}},
    {"type": "message", "message": {"role": "user", "content": "build fails", "timestamp": 1767225601000}},
    {"type": "message", "message": {"role": "assistant", "content": "Looking.", "reasoningContent": "Check the log first.", "model": "qwen3",
                                    "timestamp": 1767225602123,
                                    "toolCalls": [{"id": "c1", "type": "function", "function": {"name": "bash", "arguments": "{\"cmd\":\"make\"}"}},
                                                  {"id": "c2", "function": {"name": "note", "arguments": "not json"}}]}},
    {"type": "message", "message": {"role": "tool", "toolCallId": "c1", "content": "error: x", "timestamp": 1767225603000}},
    {"type": "message", "message": {"role": "tool", "toolCallId": "c2", "content": "ok", "timestamp": 1767225603500}},
    {"type": "message", "message": {"role": "assistant", "content": "Fixed.", "model": "qwen3", "timestamp": 1767225604000}, "turn": 2},
]


def jsonl(lines: list[object]) -> bytes:
    return b"".join(orjson.dumps(line) + b"\n" for line in lines)


def write(thread: threadlab.Thread) -> tuple[bytes, list[WriteLoss]]:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        wire = from_thread(thread)
    return wire, [w.message for w in caught if isinstance(w.message, WriteLoss)]


def test_each_line_becomes_its_actions() -> None:
    (thread,) = to_threads(Source(jsonl(LINES), name="s.jsonl"))
    assert thread.thread_id == "s-42" and thread.title == "fix the build" and list(thread.agents) == ["llama_app"]
    kinds = [a.action_type for a in thread.actions]
    assert kinds == ["system.message", "user_message", "thinking", "assistant_message", "tool_call", "tool_call", "tool_return", "tool_return", "assistant_message"]
    calls = [a for a in thread.actions if a.action_type == "tool_call"]
    assert calls[0].args == {"cmd": "make"} and calls[1].args == "not json"  # a string that is no JSON stays a string
    assert thread.actions[2].metadata["model_name"] == "qwen3" and thread.actions[2].timestamp.microsecond == 123000
    assert thread.account.records == len(LINES) and thread.account.unconverted == 0 and not thread.problems


def test_a_session_trace_is_written_back_as_it_came() -> None:
    for data in (jsonl(LINES), EXAMPLE.read_bytes()):
        (thread,) = to_threads(Source(data, name="s.jsonl"))
        wire, losses = write(thread)
        assert losses == []
        assert [orjson.loads(line) for line in wire.splitlines()] == [orjson.loads(line) for line in data.splitlines() if line.strip()]


def test_broken_lines_are_accounted_for() -> None:
    lines = [*LINES[:3], {"type": "message", "message": {"role": "tool", "toolCallId": "nope", "content": "?"}}, {"type": "compaction"}]
    data = jsonl(lines) + b"{torn"
    (thread,) = to_threads(Source(data, name="s.jsonl"))
    assert (thread.account.converted, thread.account.kept, thread.account.failed) == (3, 2, 1)
    assert sorted(p.rule for p in thread.problems) == ["json", "unknown-id", "unknown-type"]
    assert all(p.line is not None for p in thread.problems)


def test_pi_sessions_and_other_lines_are_not_claimed() -> None:
    pi = [{"type": "session", "version": 3, "id": "p1", "harness": "pi", "cwd": "/x"},
          {"type": "message", "id": "m1", "parentId": None, "message": {"role": "user", "content": [{"type": "text", "text": "hi"}]}}]
    assert not detect(Source(jsonl(pi), name="pi.jsonl"))
    assert not detect(Source(jsonl([{"type": "session", "id": "x"}]), name="x.jsonl"))  # no harness
    assert detect(Source(EXAMPLE.read_bytes(), name="x.jsonl"))


def test_a_thread_of_another_format_keeps_its_messages_and_names_what_it_loses() -> None:
    source = FIXTURES / "pydantic_ai" / "pydantic_ai_v1.107.10_all_messages.json"
    thread = threadlab.read(source)
    wire, losses = write(thread)
    (again,) = to_threads(Source(wire, name="written.jsonl"))
    def kept(t: threadlab.Thread) -> list[tuple[object, ...]]:  # kinds, speakers, tools, call ids, and the texts of messages
        return [(p[0], p[1], p[3], p[4], p[2] if p[0] != "tool_return" else None) for p in _projection(t)]

    assert kept(again) == kept(thread)
    lost = " ".join(losses[0].lost)
    assert "usage" in lost and "tool_return" in lost  # no tokens; a structured return written as its JSON text
