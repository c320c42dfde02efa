"""A value of the wrong type costs itself, not its file (issue 24 §7, "no converter crash"): each
case below was the whole file lost as an ``internal`` row (a converter's exception), found by the
fuzz hunt and a sweep that put a value of every wrong type in every place of a real file. Now the
file reads, and the value is a problem naming its line (or its container's address, or its
action's sequence) and its field.

- Inspect AI: a model event whose ``output`` is a list (``.get`` on it), a figure of its usage
  that is no count (pydantic's ``ValidationError`` from ``Usage``), ``samples`` / ``messages`` /
  ``events`` that are no lists (iterated), ids that are lists (dict keys).
- Anthropic Messages: a block of a tool result that is a string (``.model_dump`` on it while the
  reader compared its messages with the writer's rebuild).
- OpenAI Chat streams: ``choices`` or a delta's ``tool_calls`` that are ``true`` (iterated);
  OpenAI Responses: a response's ``output`` that is ``true`` (iterated).
- Claude Code: a user message whose ``content`` is a number or a bool (iterated); a stream
  event whose ``parent_tool_use_id`` is a list (a dict key).
- Codex: a message kept as it came (``InvalidAction``, which has no ``metadata``); a reasoning
  item whose ``summary`` is ``true`` (iterated), there and in every reader of Responses items."""

from __future__ import annotations

import io
import zipfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import orjson
import pytest

import threadlab as tl

from .mutants import payloads

FIXTURES = Path(__file__).resolve().parent / "fixtures"
REAL = FIXTURES / "real"
INSPECT = REAL / "inspect_ai" / "2024-11-05T13-31-45-05-00_input-task_8zXjbRzCWrL9GXiXo2vus9.json"
INSPECT_EVAL = REAL / "inspect_ai" / "2024-11-05T13-32-37-05-00_input-task_hxs4q9azL3ySGkjJirypKZ.eval"
MCP_STREAM = REAL / "anthropic_messages" / "vercel_ai_mcp_tool_use.jsonl"
CHAT_STREAM = REAL / "openai_chat" / "openai_python_tool_call_stream.sse"
RESPONSES_STREAM = REAL / "openai_responses" / "vercel_ai_custom_tool_chunks.jsonl"
CLAUDE = REAL / "claude" / "cli-2.1.38-interrupt-and-local-command" / "short.jsonl"
CLAUDE_STREAM = FIXTURES / "claude" / "stream_json_sync_subagent_partial_messages.jsonl"
CODEX = REAL / "codex" / "rollout-2026-02-23T13-19-38-019c8a70-dda7-7f33-98ea-f30553347322.jsonl"


def read(path: Path) -> list[tl.Problem]:
    """The file's problems, read leniently; its load has no ``internal`` row and the same actions."""
    threads = tl.read_all(path, strict=False)
    frames = tl.load(path, workers=1, progress=False)
    assert "internal" not in set(frames.problems["rule"]), frames.problems["message"].tolist()
    assert len(frames.actions) == sum(len(t.actions) for t in threads) > 0
    return [p for t in threads for p in t.problems]


def changed_line(source: Path, target: Path, change: Callable[[Any], bool]) -> int:
    """``source`` (JSON Lines or SSE) with ``change`` applied to the first record it changes
    (returns True); the line it is on (from 1)."""
    data = source.read_bytes()
    lines = data.split(b"\n")
    for index, prefix, record in payloads(data):
        if change(record):
            lines[index] = prefix + orjson.dumps(record)
            target.write_bytes(b"\n".join(lines))
            return index + 1
    raise AssertionError("nothing changed")


def named(problems: list[tl.Problem], *, line: int | None, words: str, rule: str = "schema") -> None:
    found = [p for p in problems if p.rule == rule and p.line == line and words in p.message]
    assert found, [(p.rule, p.line, p.message) for p in problems]


# --- Inspect AI -------------------------------------------------------------------------------


def _model_events(log: dict[str, Any]) -> list[dict[str, Any]]:
    return [e for s in log["samples"] for e in s["events"] if e.get("event") == "model"]


@pytest.mark.parametrize(("change", "words", "rule"), [
    (lambda log: _model_events(log)[0].update(output=[1, 2]), "output is [1, 2], not a model output", "schema"),
    (lambda log: _model_events(log)[0]["output"]["usage"].update(input_tokens=1.5), "output.usage.input_tokens: 1.5 is not a whole number", "usage"),
    (lambda log: _model_events(log)[0]["output"]["usage"].update(output_tokens=[3]), "output.usage.output_tokens: [3] is a list", "usage"),
    (lambda log: log["samples"][0].update(messages=True), "messages is True, not a list", "schema"),
    (lambda log: log["samples"][0].update(events=7), "events is 7, not a list", "schema"),
    (lambda log: log["samples"][0]["messages"][0].update(id=["x"]), None, None),
    (lambda log: next(m for m in log["samples"][0]["messages"] if m["role"] == "assistant").update(tool_calls=True), "tool_calls is True, not a list", "schema"),
], ids=["output-list", "usage-float", "usage-list", "messages-bool", "events-int", "id-list", "tool-calls-bool"])
def test_an_inspect_log_value_of_the_wrong_type(change: Callable[[Any], Any], words: str | None, rule: str | None, tmp_path: Path) -> None:
    log = orjson.loads(INSPECT.read_bytes())
    change(log)
    path = tmp_path / INSPECT.name
    path.write_bytes(orjson.dumps(log))
    problems = read(path)
    if words is not None:
        named(problems, line=None, words=words, rule=rule or "schema")
        assert "samples[1]" in next(p.message for p in problems if words in p.message)  # where: the sample (and its event)


def test_an_inspect_log_whose_samples_are_no_list_is_refused_by_name(tmp_path: Path) -> None:
    log = orjson.loads(INSPECT.read_bytes())
    log["samples"] = True
    path = tmp_path / INSPECT.name
    path.write_bytes(orjson.dumps(log))
    with pytest.raises(tl.ThreadError) as caught:  # (no thread in it: a strict read raises, a lenient one warns)
        tl.read_all(path)
    assert [(p.rule, "samples are True" in p.message) for p in caught.value.problems] == [("schema", True)]


def test_an_eval_sample_member_names_its_member(tmp_path: Path) -> None:
    """In a ``.eval`` (a zip) the problem's line is the sample member's position, as for every
    container (``docs/DEVELOPING.md``)."""
    out = io.BytesIO()
    with zipfile.ZipFile(INSPECT_EVAL) as source, zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as target:
        for position, info in enumerate(source.infolist(), 1):
            body = source.read(info)
            if info.filename.startswith("samples/"):
                sample = orjson.loads(body)
                next(e for e in sample["events"] if e.get("event") == "model")["output"] = "no output"
                body, member = orjson.dumps(sample), position
            target.writestr(info.filename, body)
    path = tmp_path / INSPECT_EVAL.name
    path.write_bytes(out.getvalue())
    named(read(path), line=member, words=f"member {member} (samples/1_epoch_1.json) event")


# --- provider streams -------------------------------------------------------------------------


def test_an_anthropic_tool_result_block_that_is_a_string(tmp_path: Path) -> None:
    def change(event: Any) -> bool:
        block = event.get("content_block") if isinstance(event, dict) else None
        if isinstance(block, dict) and block.get("type") == "mcp_tool_result":
            block["content"] = ["x"]
            return True
        return False

    line = changed_line(MCP_STREAM, tmp_path / MCP_STREAM.name, change)
    named(read(tmp_path / MCP_STREAM.name), line=line, words="content")


@pytest.mark.parametrize("where", ["choices", "tool_calls"])
def test_an_openai_chat_chunk_list_that_is_true(where: str, tmp_path: Path) -> None:
    def change(chunk: Any) -> bool:
        if not isinstance(chunk, dict) or not chunk.get("choices"):
            return False
        if where == "choices":
            chunk["choices"] = True
            return True
        delta = chunk["choices"][0].get("delta") or {}
        if delta.get("tool_calls"):
            delta["tool_calls"] = True
            return True
        return False

    line = changed_line(CHAT_STREAM, tmp_path / CHAT_STREAM.name, change)
    named(read(tmp_path / CHAT_STREAM.name), line=line, words=where)


def test_an_openai_response_whose_output_is_true(tmp_path: Path) -> None:
    def change(event: Any) -> bool:
        response = event.get("response") if isinstance(event, dict) and event.get("type") == "response.completed" else None
        if isinstance(response, dict) and isinstance(response.get("output"), list):
            response["output"] = True
            return True
        return False

    path = tmp_path / RESPONSES_STREAM.name
    line = changed_line(RESPONSES_STREAM, path, change)
    threads = tl.read_all(path, strict=False)  # (its one response held all its actions: none are left)
    assert "internal" not in set(tl.load(path, workers=1, progress=False).problems["rule"])
    named([p for t in threads for p in t.problems], line=line, words="response.output")


# --- Claude Code and Codex ----------------------------------------------------------------------


@pytest.mark.parametrize("value", [5, 1.5, True], ids=repr)
def test_a_claude_prompt_whose_content_is_a_number(value: Any, tmp_path: Path) -> None:
    def change(line: Any) -> bool:
        message = line.get("message") if isinstance(line, dict) and line.get("type") == "user" else None
        if isinstance(message, dict) and isinstance(message.get("content"), str):
            message["content"] = value
            return True
        return False

    line = changed_line(CLAUDE, tmp_path / CLAUDE.name, change)
    named(read(tmp_path / CLAUDE.name), line=line, words=f"message.content is {value!r}")


def test_a_claude_stream_event_whose_parent_is_a_list(tmp_path: Path) -> None:
    def change(line: Any) -> bool:
        if isinstance(line, dict) and line.get("type") == "stream_event" and "parent_tool_use_id" in line:
            line["parent_tool_use_id"] = ["x"]
            return True
        return False

    line = changed_line(CLAUDE_STREAM, tmp_path / CLAUDE_STREAM.name, change)
    named(read(tmp_path / CLAUDE_STREAM.name), line=line, words="parent_tool_use_id is ['x']")


def test_a_codex_message_kept_as_it_came(tmp_path: Path) -> None:
    """A part whose ``type`` is ``true`` breaks the message's schema: the action is kept as it
    came (``InvalidAction``, with no ``metadata``), named by its sequence, and written back."""
    def change(line: Any) -> bool:
        payload = line.get("payload") if isinstance(line, dict) else None
        if isinstance(payload, dict) and payload.get("type") == "message" and payload.get("role") == "user":
            payload["content"][0]["type"] = True
            return True
        return False

    line = changed_line(CODEX, tmp_path / CODEX.name, change)
    problems = read(tmp_path / CODEX.name)
    assert [(p.rule, p.sequence) for p in problems] == [("schema", line)] * 2  # (one action a line: its sequence is the line)
    thread = tl.read(tmp_path / CODEX.name, strict=False)
    from threadlab.formats import get_format

    assert tl.dumps(tl.read(get_format("codex").from_thread(thread), "codex", strict=False)) == tl.dumps(thread)


def test_a_codex_reasoning_summary_that_is_true(tmp_path: Path) -> None:
    def change(line: Any) -> bool:
        payload = line.get("payload") if isinstance(line, dict) else None
        if isinstance(payload, dict) and payload.get("type") == "reasoning":
            payload["summary"] = True
            return True
        return False

    line = changed_line(CODEX, tmp_path / CODEX.name, change)
    named(read(tmp_path / CODEX.name), line=line, words="reasoning item's summary is True, not a list")
