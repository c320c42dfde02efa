"""LangGraph stream captures (tests/fixtures/langchain/react_stream*, langgraph's own output):
read as the messages of the fullest mode, every part accounted for, written back as a message
list with a WriteLoss naming the stream."""

from __future__ import annotations

import warnings
from pathlib import Path
from typing import Any

import orjson
import pytest

from threadlab.core.canonical import thread_to_dict
from threadlab.core.loss import WriteLoss
from threadlab.formats import detect_format, get_format
from threadlab.formats.common.source import Source

HERE = Path(__file__).parent / "fixtures" / "langchain"
langchain = get_format("langchain")


def _kinds(source: Source) -> list[tuple[str, Any]]:
    [thread] = langchain.to_threads(source)
    return [(a["action_type"], a.get("status") or a.get("content") or a.get("tool_name")) for a in thread_to_dict(thread)["actions"]]


def test_values_updates_and_messages_read_as_the_last_state() -> None:
    source = Source(HERE / "react_stream.jsonl")
    assert detect_format(source).NAME == "langchain"
    [thread] = langchain.to_threads(source)
    lines = (HERE / "react_stream.jsonl").read_bytes().splitlines()
    last_state = [orjson.loads(ln)[1] for ln in lines if orjson.loads(ln)[0] == "values"][-1]
    assert thread.account.converted == len(last_state["messages"]) + len(lines) - 1 and not thread.problems
    assert thread.metadata["langchain"]["mode"] == "values"
    kinds = _kinds(source)
    assert kinds[0] == ("user_message", "What is the weather in Paris and in Atlantis?")
    assert [k for k in kinds if k[0] == "tool_return"] == [("tool_return", "success"), ("tool_return", "error")]


def test_sdk_stream_parts_without_values_read_from_the_updates() -> None:
    kinds = _kinds(Source(HERE / "react_stream_updates.json"))
    assert [k[0] for k in kinds] == ["assistant_message", "tool_call", "tool_call", "tool_return", "tool_return", "assistant_message"]


def test_token_chunks_of_one_message_are_joined() -> None:
    chunk = {"lc": 1, "type": "constructor", "id": ["langchain", "schema", "messages", "AIMessageChunk"],
             "kwargs": {"content": "", "type": "AIMessageChunk", "id": "run-1", "tool_calls": [], "invalid_tool_calls": []}}
    parts = [["messages", [{**chunk, "kwargs": {**chunk["kwargs"], "content": text}}, {"langgraph_node": "agent"}]] for text in ("It is ", "sunny", ".")]
    [thread] = langchain.to_threads(Source(b"".join(orjson.dumps(p) + b"\n" for p in parts), name="tokens.jsonl"))
    assert [a.content for a in thread.actions] == ["It is sunny."] and thread.account.converted == 3


def test_written_back_as_messages_with_a_loss() -> None:
    [thread] = langchain.to_threads(Source(HERE / "react_stream.jsonl"))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        written = langchain.from_thread(thread)
    assert any(issubclass(w.category, WriteLoss) and "LangGraph stream" in str(w.message) for w in caught)
    [back] = langchain.to_threads(Source(written, name="back.json"))
    assert [a.action_type for a in back.actions] == [a.action_type for a in thread.actions]


@pytest.mark.parametrize("item", [["values"], ["nonsense", {}], {"event": "values"}])
def test_an_item_that_is_no_part_is_kept(item: Any) -> None:
    lines = (HERE / "react_stream.jsonl").read_bytes().splitlines()
    data = b"\n".join([*lines[:3], orjson.dumps(item), *lines[3:]]) + b"\n"
    [thread] = langchain.to_threads(Source(data, name="odd.jsonl"))
    assert thread.account.kept == 1 and [p.rule for p in thread.problems] == ["unknown-type"]
