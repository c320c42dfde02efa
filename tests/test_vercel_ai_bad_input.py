"""Streams as they break in practice, v7 chunks older parsers reject, live reading, and a
100 MB stream read without holding it twice. Hand-written chunks here are only the broken or
newer-than-pydantic-ai ones; the good lines come from the bundled ai@6 streams."""

from __future__ import annotations

import time
import tracemalloc
from pathlib import Path

import orjson
import pytest

import threadlab
from tests.test_vercel_ai_support import facts
from threadlab import pending_tool_calls, validate
from threadlab.core.model import AssistantMessage, ToolCall, ToolReturn
from threadlab.formats.vercel_ai import UIStreamReader, from_ui_stream, to_ui_stream

DATA = Path(__file__).parent.parent / "data" / "vercel_ai"


def sse(*chunks: dict | str) -> str:
    return "".join(f"data: {c if isinstance(c, str) else orjson.dumps(c).decode()}\n\n" for c in chunks)


def real_lines(name: str = "ai6_multistep.sse") -> list[str]:
    return (DATA / name).read_text().splitlines(keepends=True)


def test_truncated_stream_keeps_what_arrived_and_says_so() -> None:
    lines = real_lines()
    cut = next(i for i, line in enumerate(lines) if '"delta":"It is sunny' in line) + 1
    thread = from_ui_stream("".join(lines[:cut]), name="chat.sse")
    assert [p.rule for p in thread.problems] == ["truncated"]
    assert "chat.sse" in str(thread.problems[0]) and "finish" in thread.problems[0].message
    last = thread.actions[-1]
    assert isinstance(last, AssistantMessage) and last.content == "It is sunny in Paris, "
    assert last.metadata["vercel_ai"]["state"] == "streaming"
    assert len([a for a in thread.actions if isinstance(a, ToolReturn)]) == 2
    with pytest.raises(threadlab.ThreadError, match="truncated"):
        threadlab.read("".join(lines[:cut]))
    assert threadlab.read("".join(lines[:cut]), strict=False).actions[-1].content == "It is sunny in Paris, "


def test_truncated_inside_tool_input_keeps_the_partial_input() -> None:
    lines = real_lines()
    cut = next(i for i, line in enumerate(lines) if "tool-input-delta" in line) + 1
    thread = from_ui_stream("".join(lines[:cut]))
    call = next(a for a in thread.actions if isinstance(a, ToolCall))
    assert call.args == '{"cit' and call.metadata["vercel_ai"]["input_incomplete"] is True
    assert pending_tool_calls(thread) == [call]
    assert [p.rule for p in thread.problems] == ["truncated"]


def test_finish_without_done_is_reported() -> None:
    text = "".join(real_lines()).replace("data: [DONE]\n", "")
    thread = from_ui_stream(text)
    assert [p.rule for p in thread.problems] == ["truncated"] and "[DONE]" in thread.problems[0].message
    assert thread.actions[-1].finish_reason == "stop"


def test_delta_for_an_unknown_id_is_kept_and_reported() -> None:
    text = sse(
        {"type": "start"},
        {"type": "text-start", "id": "t1"},
        {"type": "text-delta", "id": "t1", "delta": "Hello"},
        {"type": "text-delta", "id": "t2", "delta": "orphan"},
        {"type": "tool-input-delta", "toolCallId": "c9", "inputTextDelta": '{"a": 1}'},
        {"type": "tool-input-available", "toolCallId": "c9", "toolName": "calc", "input": {"a": 1}},
        {"type": "text-end", "id": "t1"},
        {"type": "finish"},
        "[DONE]",
    )
    thread = from_ui_stream(text)
    assert [(p.rule, p.line) for p in thread.problems] == [("unknown-id", 7), ("unknown-id", 9)]
    assert "'t2'" in thread.problems[0].message and "'c9'" in thread.problems[1].message
    assert [a.content for a in thread.actions if isinstance(a, AssistantMessage)] == ["Hello", "orphan"]
    assert [(a.tool_name, a.args) for a in thread.actions if isinstance(a, ToolCall)] == [("calc", {"a": 1})]


def test_tool_output_for_an_unknown_call() -> None:
    text = sse({"type": "start"}, {"type": "tool-output-available", "toolCallId": "ghost", "output": 42}, {"type": "finish"}, "[DONE]")
    thread = from_ui_stream(text)
    assert [(p.rule, p.line) for p in thread.problems] == [("tool-call-match", 3)]
    ret = thread.actions[0]
    assert isinstance(ret, ToolReturn) and (ret.tool_call_id, ret.content) == ("ghost", 42)
    assert any(p.rule == "tool-call-match" for p in validate(thread))  # the kept output still breaks the rule


def test_invalid_json_line_is_reported_with_its_number_and_the_rest_read() -> None:
    lines = real_lines()
    broken = next(i for i, line in enumerate(lines) if '"delta":"the weather."' in line)
    lines[broken] = lines[broken].replace('"delta":', '"delta"')
    thread = from_ui_stream("".join(lines))
    assert [(p.rule, p.line) for p in thread.problems] == [("json", broken + 1)]
    assert f"line {broken + 1}" in str(thread.problems[0])
    good = from_ui_stream(DATA / "ai6_multistep.sse")
    assert facts(thread)["calls"] == facts(good)["calls"] and facts(thread)["returns"] == facts(good)["returns"]
    assert facts(thread)["texts"] == ["Let me check ", "It is sunny in Paris, 21°C."]


def test_unknown_and_malformed_chunks_are_kept() -> None:
    text = sse(
        {"type": "start"},
        {"type": "future-thing", "payload": [1, 2]},
        {"type": "tool-input-available", "toolCallId": "c1"},  # toolName and input missing
        {"type": "text-start", "id": "t1", "somethingNew": True},
        {"type": "text-delta", "id": "t1", "delta": "ok"},
        {"type": "text-end", "id": "t1"},
        {"type": "finish"},
        "[DONE]",
    )
    lines = ": keep-alive\n\nevent: message\nid: 7\n" + text.replace("\n\n", "\r\n\r\n")
    thread = from_ui_stream(lines)
    assert [p.rule for p in thread.problems] == ["unknown-type", "schema"]
    assert "'future-thing'" in thread.problems[0].message and "tool-input-available" in thread.problems[1].message
    assert (thread.account.converted, thread.account.kept, thread.account.failed) == (6, 2, 0)  # 8 data lines
    unknown = [a.data for a in thread.actions if a.action_type == "system.unknown_chunk"]
    assert unknown == [{"type": "future-thing", "payload": [1, 2]}, {"type": "tool-input-available", "toolCallId": "c1"}]
    text_action = next(a for a in thread.actions if isinstance(a, AssistantMessage))
    assert text_action.metadata["vercel_ai"]["extra"] == {"somethingNew": True}  # unknown keys kept
    assert from_ui_stream("".join(to_ui_stream(thread)), thread_id=thread.thread_id).to_dict() == thread.to_dict()


def test_v7_chunks_pydantic_ai_does_not_model() -> None:
    text = sse(
        {"type": "start", "messageId": "m1"},
        {"type": "tool-input-available", "toolCallId": "c1", "toolName": "rm", "input": {"p": "/x"}},
        {"type": "tool-approval-request", "approvalId": "ap1", "toolCallId": "c1", "isAutomatic": False},
        {"type": "tool-approval-response", "approvalId": "ap1", "approved": False, "reason": "no"},
        {"type": "tool-output-denied", "toolCallId": "c1"},
        {"type": "reset-step"},
        {"type": "custom", "kind": "openai.compaction", "providerMetadata": {"openai": {"n": 1}}},
        {"type": "reasoning-file", "url": "data:image/png;base64,AAAA", "mediaType": "image/png"},
        {"type": "steering-message", "id": "s1", "parts": [{"type": "text", "text": "shorter please"}]},
        {"type": "text-start", "id": "t1"},
        {"type": "text-delta", "id": "t1", "delta": "Short."},
        {"type": "text-end", "id": "t1", "citations": [{"url": "https://a.example"}]},
        {"type": "finish", "finishReason": "interrupted"},
        "[DONE]",
    )
    thread = from_ui_stream(text)
    assert thread.problems == [] and validate(thread) == []
    kinds = [a.action_type for a in thread.actions]
    assert kinds == ["tool_call", "system.tool_resolved", "tool_return", "system.reset_step", "system.custom", "assistant_message", "user_message", "assistant_message"]
    assert thread.actions[1].data == {"tool_call_id": "c1", "resolution": "denied", "resolved_by": "user", "approval_id": "ap1", "denial_reason": "no"}
    assert thread.actions[0].metadata["vercel_ai"]["approval"] == {"id": "ap1", "isAutomatic": False}
    assert thread.actions[6].content[0].text == "shorter please"
    assert thread.actions[7].metadata["vercel_ai"]["extra"] == {"citations": [{"url": "https://a.example"}]}
    assert thread.actions[0].metadata["vercel_ai"]["finish_reason"] == "interrupted"


def test_live_response_read_as_it_arrives() -> None:
    """An HTTP response delivers raw chunks cut anywhere, or lines (iter_lines): both work, and
    the reader can be fed one line at a time."""
    text = (DATA / "ai6_agents.sse").read_bytes()
    expected = from_ui_stream(text, thread_id="t").to_dict()
    for size in (1, 5, 64, 4096):
        pieces = (text[i : i + size] for i in range(0, len(text), size))
        assert from_ui_stream(pieces, thread_id="t").to_dict() == expected
    assert from_ui_stream(iter(text.decode().splitlines()), thread_id="t").to_dict() == expected
    reader = UIStreamReader(thread_id="t")
    seen = []
    for number, line in enumerate(text.splitlines(), 1):
        reader.feed_line(line, number)
        seen.append(len(reader.builder.actions))
    assert seen[0] == 0 and seen[-1] == len(expected["actions"])  # actions land as each message completes
    assert reader.close().to_dict() == expected
    with (DATA / "ai6_agents.sse").open("rb") as fh:  # a file object is read line by line
        assert from_ui_stream(fh, thread_id="t").to_dict() == expected


def test_100_mb_stream_is_not_held_twice(tmp_path: Path) -> None:
    path = tmp_path / "big.sse"
    delta = "x" * 10_000
    with path.open("wb") as fh:
        fh.write(sse({"type": "start", "messageId": "big"}, {"type": "start-step"}).encode())
        for part in range(1000):
            fh.write(sse({"type": "text-start", "id": f"t{part}"}).encode())
            fh.write(sse({"type": "text-delta", "id": f"t{part}", "delta": delta}).encode() * 10)
            fh.write(sse({"type": "text-end", "id": f"t{part}"}).encode())
        fh.write(sse({"type": "finish-step"}, {"type": "finish"}, "[DONE]").encode())
    size = path.stat().st_size
    assert size > 100_000_000
    tracemalloc.start()
    started = time.perf_counter()
    try:
        thread = from_ui_stream(path)
        current, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    elapsed = time.perf_counter() - started
    text_bytes = sum(len(a.content) for a in thread.actions)
    assert text_bytes == 100_000_000 and thread.problems == []
    assert current >= text_bytes  # the thread itself holds the text once ...
    assert peak - current < size * 0.05  # ... and reading it never held a second copy
    assert elapsed < 30, f"reading 100 MB took {elapsed:.1f} s"
