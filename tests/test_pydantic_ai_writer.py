"""The pydantic-ai writer: one agent's history, and a WriteLoss naming everything it cannot hold;
values a file did not have (timestamps, tool call ids) are not invented on the way in or out; a
return for a call that already has one is flagged, not made a second tool_return."""

from __future__ import annotations

import json
import warnings
from pathlib import Path
from typing import Any

import pytest
from pydantic_ai.messages import BinaryContent, ImageUrl, ModelMessagesTypeAdapter, UserPromptPart

import threadlab as tl
from threadlab.core import SystemAction, ToolReturn, tool_pairs, validate
from threadlab.core.loss import WriteLoss
from threadlab.formats import get_format
from threadlab.formats.pydantic_ai import from_pydantic_ai, to_pydantic_ai

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = ROOT / "tests" / "fixtures"
WRITER = get_format("pydantic-ai")


def written(thread: tl.Thread, **options: Any) -> tuple[list[Any], list[str]]:
    """The history written (as pydantic-ai JSON) and what the writer said it lost."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        data = WRITER.from_thread(thread, **options)
    lost = [item for w in caught if isinstance(w.message, WriteLoss) for item in w.message.lost]
    return json.loads(data), lost


def guide(*contents: Any) -> tl.Thread:
    builder = tl.ThreadBuilder("t-guide")
    agent = builder.agent("assistant")
    for content in contents:
        builder.add("user_message", content=content, timestamp="2026-01-01T10:00:00Z")
    builder.add("assistant_message", agent_id=agent, content="Noted.", timestamp="2026-01-01T10:00:01Z")
    return builder.build()


# --- media (issue 12 §5) --------------------------------------------------------------------


@pytest.mark.parametrize("image", [
    {"type": "image", "image_url": "https://example.org/a.png"},
    {"type": "file", "content_type": "url", "media_type": "image/png", "media_category": "image", "url": "https://example.org/a.png"},
    {"type": "image", "source": {"type": "url", "url": "https://example.org/a.png"}},
    {"type": "image", "url": "https://example.org/a.png"},
    {"type": "image", "image": "https://example.org/a.png", "detail": "auto"},
], ids=["v1-image_url", "rc2-media", "anthropic-source", "url", "inspect-image"])
def test_an_image_url_becomes_an_image_url_never_an_empty_binary(image: dict[str, Any]) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error", WriteLoss)
        (request, _) = to_pydantic_ai(guide([{"type": "text", "text": "Look:"}, image]))
    (part,) = request.parts
    assert isinstance(part, UserPromptPart) and part.content[0] == "Look:"
    assert isinstance(part.content[1], ImageUrl) and part.content[1].url == "https://example.org/a.png"
    assert not any(isinstance(c, BinaryContent) for c in part.content)


def test_inline_image_data_becomes_binary_content() -> None:
    (request, _) = to_pydantic_ai(guide([{"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "iVBORw0KGgo="}}]))
    (item,) = request.parts[0].content
    assert isinstance(item, BinaryContent) and item.data == b"\x89PNG\r\n\x1a\n" and item.media_type == "image/png"


def test_media_with_neither_url_nor_data_is_reported_not_written_empty() -> None:
    history, lost = written(guide([{"type": "text", "text": "Look:"}, {"type": "image", "media_type": "image/png"}]))
    assert history[0]["parts"][0]["content"] == ["Look:"]
    assert "1 media part with neither a URL nor data, left out" in lost


def test_a_url_in_an_agent_message_is_text_and_said_so() -> None:
    builder = tl.ThreadBuilder("t1")
    agent = builder.agent("assistant")
    builder.add("user_message", content="Map?")
    builder.add("assistant_message", agent_id=agent, content=[
        {"type": "text", "text": "Here:"},
        {"type": "file", "content_type": "url", "media_type": "application/pdf", "media_category": "document", "url": "https://example.org/m.pdf"}])
    history, lost = written(builder.build())
    assert [p["content"] for p in history[1]["parts"]] == ["Here:", "[document: https://example.org/m.pdf]"]
    assert any(item.startswith("1 media URL in agent messages, written as text") for item in lost)


# --- several agents -------------------------------------------------------------------------


def test_a_multi_agent_thread_writes_the_agent_it_starts_with_and_names_the_others() -> None:
    thread = tl.read(ROOT / "data" / "agency_swarm" / "ceo_worker_saved_messages.json", strict=False)
    history, lost = written(thread)
    prompts = [p["content"] for m in history for p in m["parts"] if p["part_kind"] == "user-prompt"]
    assert prompts == ["What do 3 notebooks at $4.50 each cost? Ask the Worker.", "And with 20% tax?"]  # the CEO's, not the Worker's task
    calls = [p["tool_name"] for m in history for p in m["parts"] if p["part_kind"] == "tool-call"]
    assert set(calls) == {c.tool_name for c in thread.actions if c.action_type == "tool_call" and c.agent_id == "ceo"}
    assert lost[0].startswith("8 actions of other agents ('Worker' (8))") and "wrote the history of 'CEO'" in lost[0]
    worker, lost = written(thread, agent="Worker")
    assert [p["content"] for m in worker for p in m["parts"] if p["part_kind"] == "user-prompt"] == [
        "Price 3 notebooks at $4.50 each.", "Add 20% tax to $13.50."]
    assert not [item for item in lost if "other agents" in item or "name" in item]  # named: the caller chose that history


def test_a_claude_session_writes_the_main_agent_with_the_subagent_result_as_its_tool_return() -> None:
    thread = tl.read(FIXTURES / "claude" / "stream_json_background_subagent.jsonl", strict=False)
    history, lost = written(thread)
    returns = [p["tool_call_id"] for m in history for p in m["parts"] if p["part_kind"] == "tool-return"]
    assert returns == ["toolu_01TaskMock000000000002", "toolu_01BashMock000000000001"]
    assert "Subagent report: 42 files." not in json.dumps([p for m in history if m["kind"] == "response" for p in m["parts"]])
    assert any(item.startswith("1 action of other agents") for item in lost)
    assert any("system.agent_join" in item and "system action" in item for item in lost)


# --- nothing lost quietly ---------------------------------------------------------------------


@pytest.mark.parametrize("path", sorted((ROOT / "data" / "pydantic_ai").glob("*.messages.json")) + sorted((FIXTURES / "pydantic_ai").glob("*.json*")),
                         ids=lambda p: p.name)
def test_a_history_read_with_auto_detection_writes_back_with_no_loss(path: Path) -> None:
    for thread in tl.read_all(path, strict=False):
        history, lost = written(thread)
        assert lost == []
        assert json.dumps(history)  # valid JSON of a valid history
        ModelMessagesTypeAdapter.validate_python(history)


def test_what_a_foreign_thread_loses_is_listed() -> None:
    builder = tl.ThreadBuilder("t-foreign", title="A chat")
    agent = builder.agent("Helper", metadata={"team": "ops"})
    builder.add("user_message", content="Go", action_id="a1", metadata={"vendor": {"x": 1}})
    builder.add("tool_call", agent_id=agent, tool_name="lookup", tool_call_id="c1", args={"q": 1})
    builder.add("user_message", content="Also this")
    builder.add("tool_return", tool_call_id="c1", tool_name="lookup", content="ok", status="validation_error")
    builder.add("system.config_update", data={"k": 1})
    builder.add("assistant_message", agent_id=agent, content="Done", usage={"input_tokens": 5, "output_tokens": 2, "total_tokens": 9})
    history, lost = written(builder.build())
    assert lost == [
        "the agent's name 'Helper' (a pydantic-ai history names no agent; it reads back as 'assistant')",
        "the agent's metadata (team)",
        "the thread's title",
        "6 synthesised timestamps (written as if they were real)",
        "1 action id",
        "1 action with metadata pydantic-ai has no field for (vendor)",
        "1 system action pydantic-ai has no part for (system.config_update)",
        "1 usage total that are not input + output (pydantic-ai keeps no total)",
        "2 messages, thinking, tool calls or returns read back in another order (tool results lead their request; first: user_message 'Also this')",
    ]
    retried = next(p for m in history for p in m["parts"] if p["part_kind"] == "tool-return")
    assert (retried["outcome"], retried["retry"]["cause"]) == ("retried", "validation_error")  # reads back as validation_error
    assert all(m["conversation_id"] == "t-foreign" for m in history)  # the thread id comes back


# --- values a file did not have ---------------------------------------------------------------

NO_TIMES = [
    {"kind": "request", "parts": [{"part_kind": "user-prompt", "content": "Weather?"}]},
    {"kind": "response", "parts": [{"part_kind": "tool-call", "tool_name": "weather", "args": {"city": "Oslo"}}]},
    {"kind": "request", "parts": [{"part_kind": "tool-return", "tool_name": "weather", "content": "rain"}]},
    {"kind": "response", "parts": [{"part_kind": "text", "content": "Rain."}]},
]


def test_missing_timestamps_and_tool_call_ids_are_not_invented() -> None:
    first = from_pydantic_ai(NO_TIMES)
    second = from_pydantic_ai(json.dumps(NO_TIMES).encode())
    assert tl.dumps(first) == tl.dumps(second)  # pydantic-ai would put the wall clock and random ids there
    assert first.metadata == {"synthetic_timestamps": 4}
    (pair,) = tool_pairs(first)
    assert pair.tool_call_id == "pyd_ai_missing_1_0" and pair.status == "success"
    assert [p.rule for p in first.problems] == ["schema"] and "no tool_call_id" in first.problems[0].message
    history, lost = written(first)
    assert lost == []
    assert all("timestamp" not in m or m["timestamp"] is None for m in history)
    assert all("timestamp" not in p and "tool_call_id" not in p for m in history for p in m["parts"])
    assert tl.dumps(from_pydantic_ai(json.dumps(history).encode())) == tl.dumps(first)


# --- a return for a call that already has one (issue 12 §3) -------------------------------------

ANSWERED_TWICE = [
    {"kind": "request", "parts": [{"part_kind": "user-prompt", "content": "Rate it", "timestamp": "2026-03-01T10:00:00Z"}]},
    {"kind": "response", "timestamp": "2026-03-01T10:00:01Z",
     "parts": [{"part_kind": "tool-call", "tool_name": "final_result", "args": {"stars": 9}, "tool_call_id": "out_1"}]},
    {"kind": "request", "parts": [{"part_kind": "tool-return", "tool_name": "final_result", "content": "Final result processed.",
                                   "tool_call_id": "out_1", "timestamp": "2026-03-01T10:00:02Z"}]},
    {"kind": "request", "parts": [{"part_kind": "retry-prompt", "tool_name": "final_result", "content": "stars must be <= 5",
                                   "tool_call_id": "out_1", "timestamp": "2026-03-01T10:00:03Z"}]},
    {"kind": "response", "timestamp": "2026-03-01T10:00:04Z",
     "parts": [{"part_kind": "tool-call", "tool_name": "final_result", "args": {"stars": 5}, "tool_call_id": "out_2"}]},
]


def test_a_retry_prompt_for_an_answered_call_is_flagged_not_a_second_return() -> None:
    thread = from_pydantic_ai(ANSWERED_TWICE)
    returns = [a for a in thread.actions if isinstance(a, ToolReturn)]
    assert [(r.tool_call_id, r.content) for r in returns] == [("out_1", "Final result processed.")]
    (kept,) = [a for a in thread.actions if isinstance(a, SystemAction)]
    assert kept.action_type == "system.pydantic_ai.tool_return" and kept.data["content"] == "stars must be <= 5"
    (problem,) = [p for p in thread.problems if p.rule == "duplicate-return"]
    assert problem.sequence == kept.sequence and "a retry-prompt answers tool call out_1" in problem.message
    assert thread.account.kept == 1 and thread.account.records == 5
    assert [(p.tool_call_id, p.status) for p in tool_pairs(thread)] == [("out_1", "success"), ("out_2", "pending")]
    assert validate(thread) == []  # nothing an orphan check would have to catch
    history, lost = written(thread)
    assert lost == [] and tl.dumps(from_pydantic_ai(json.dumps(history).encode())) == tl.dumps(thread)


def test_args_that_are_not_an_object_are_written_as_json_text_and_said_so() -> None:
    builder = tl.ThreadBuilder("t-args")
    agent = builder.agent("assistant")
    builder.add("tool_call", agent_id=agent, tool_name="pick", tool_call_id="c1", args=[1, 2])
    history, lost = written(builder.build())
    assert history[0]["parts"][0]["args"] == "[1,2]"
    assert "1 tool call args that are not an object, written as JSON text" in lost
    assert any("read back changed (first: tool_call" in item for item in lost)
