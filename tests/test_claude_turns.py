"""Claude Code lines the real files in tests/fixtures/real/claude show, in the shapes they do not:
who wrote each turn (attachments, hook feedback, reminders, queued prompts, the compaction
agent), whitespace-only text blocks beside other blocks of their line and in stream-json, tool
calls and results without ids, usage of a line without a message id. Hand-written edge cases;
both reading routes and the writer are held to each."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import orjson
import pytest

import threadlab as tl
import threadlab.formats.claude as claude
from threadlab.core import Thread, tool_pairs
from threadlab.core.authors import author_of, harness_kind_of
from threadlab.formats import Source

from .documents_route import both_routes, frames_view

S = {"sessionId": "s1", "cwd": "/w", "version": "2.1.99"}


def line(n: int, kind: str, parent: int | None = None, **fields: Any) -> dict[str, Any]:
    return {"parentUuid": f"u{parent}" if parent else None, "type": kind, "uuid": f"u{n}", "timestamp": f"2026-01-01T00:00:{n:02d}Z", **S, **fields}


def user(n: int, content: Any, parent: int | None = None, **fields: Any) -> dict[str, Any]:
    return line(n, "user", parent, message={"role": "user", "content": content}, **fields)


def assistant(n: int, blocks: list[Any], parent: int | None = None, mid: str | None = "msg_1", usage: dict[str, int] | None = None) -> dict[str, Any]:
    message: dict[str, Any] = {"role": "assistant", "model": "claude-sonnet-4-5", "content": blocks, "usage": usage or {"input_tokens": 5, "output_tokens": 7}}
    if mid is not None:
        message["id"] = mid
    return line(n, "assistant", parent, message=message)


def jsonl(rows: list[dict[str, Any]]) -> bytes:
    return b"".join(orjson.dumps(r) + b"\n" for r in rows)


def read(rows: list[dict[str, Any]], name: str = "s1.jsonl") -> Thread:
    return tl.read(Source(jsonl(rows), name=name), strict=False)


def who(thread: Thread) -> list[tuple[str, str | None, str | None]]:
    return [(a.action_type, author_of(a.action_type, a.metadata), harness_kind_of(a.metadata)) for a in thread.actions]


@contextmanager
def _careful(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    with monkeypatch.context() as m:
        m.setattr(claude, "to_documents", lambda source: None)
        yield


def same_everywhere(rows: list[dict[str, Any]], tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Thread:
    """The thread both routes give, checked to come back from the writer line for line."""
    path = tmp_path / "s1.jsonl"
    path.write_bytes(jsonl(rows))
    new, old = both_routes(lambda: Source(path), lambda: _careful(monkeypatch), view=frames_view)
    assert new == old
    thread = tl.read(path, strict=False)
    written = claude.from_thread(thread)
    assert _sorted_lines(written) == sorted(orjson.dumps(r, option=orjson.OPT_SORT_KEYS) for r in rows)
    assert tl.read(Source(written, name=str(path)), strict=False).to_dict() == thread.to_dict()
    return thread


def _sorted_lines(data: bytes) -> list[bytes]:
    return sorted(orjson.dumps(orjson.loads(x), option=orjson.OPT_SORT_KEYS) for x in data.splitlines())


# --- who wrote it -------------------------------------------------------------------------


def test_attachments_hooks_and_queued_prompts(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """2.1.1xx writes hook output and prompts typed while the agent works as ``attachment`` lines."""
    rows = [user(1, "go"),
            line(2, "attachment", 1, attachment={"type": "hook_success", "hookEvent": "SessionStart", "content": "ok"}),
            line(3, "attachment", 2, attachment={"type": "queued_command", "prompt": "also this", "commandMode": "prompt", "origin": {"kind": "human"}}),
            line(4, "attachment", 3, attachment={"type": "queued_command", "prompt": "<task-notification>x</task-notification>", "commandMode": "task-notification"}),
            line(5, "attachment", 4, attachment={"type": "queued_command", "prompt": "from a peer", "origin": {"kind": "peer"}}),
            line(6, "attachment", 5, attachment={"type": "file", "filename": "a.py", "content": "x"}),
            line(7, "system", 6, subtype="stop_hook_summary", hookCount=1, hookInfos=[], preventedContinuation=False)]
    thread = same_everywhere(rows, tmp_path, monkeypatch)
    assert who(thread) == [("user_message", "human", None), ("system.attachment.hook_success", "harness", "hook"),
                           ("system.attachment.queued_command", "human", None), ("system.attachment.queued_command", "harness", "task_notification"),
                           ("system.attachment.queued_command", "agent", None), ("system.attachment.file", "harness", "attachment"),
                           ("system.stop_hook_summary", "harness", "hook")]
    (row,) = tl.load(tmp_path / "s1.jsonl", progress=False, workers=1).threads.to_dict("records")
    assert (row["n_human_prompts"], row["n_harness_turns"], row["n_interrupts"]) == (1, 4, 0)


@pytest.mark.parametrize(("content", "meta", "expected"), [
    ("Stop hook feedback:\n- [lint]: fix the import", True, ("system.meta_message", "harness", "hook")),
    ("<system-reminder>\nPreToolUse:Bash hook blocking error from command: x\n</system-reminder>", True, ("system.meta_message", "harness", "hook")),
    ("<system-reminder>The date changed.</system-reminder>", True, ("system.meta_message", "harness", "system_reminder")),
    ("Base directory for this skill: /x", True, ("system.meta_message", "harness", "meta")),
    ([{"type": "text", "text": "<system-reminder>a</system-reminder>"}, {"type": "text", "text": "<system-reminder>b</system-reminder>"}], False,
     ("user_message", "harness", "system_reminder")),
    ("[Request interrupted by user]", False, ("user_message", "harness", "interrupt")),
    ("[Request interrupted by user] and then I said more", False, ("user_message", "human", None)),
    ([{"type": "text", "text": "<system-reminder>a</system-reminder>"}, {"type": "text", "text": "my question"}], False, ("user_message", "human", None)),
    ("<command-name>/review</command-name>", False, ("system.command", "human", None)),
    ("<task-notification><task-id>b1</task-id></task-notification>", False, ("system.task_notification", "harness", "task_notification")),
], ids=["stop-hook", "hook-in-reminder", "reminder-meta", "skill-body", "reminders-only", "interrupt", "interrupt-quoted", "reminder-and-prompt",
        "command", "task-notification"])
def test_user_lines_claude_code_writes(content: Any, meta: bool, expected: tuple[str, str, str | None]) -> None:
    thread = read([user(1, "go"), user(2, content, 1, **({"isMeta": True} if meta else {}))])
    assert who(thread)[1] == expected


def test_an_interrupt_beside_tool_results_is_counted_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The marker in a text block of the line that carries the rejected call's result: the line's
    user message is the harness's, the result stays the tool's."""
    rows = [user(1, "go"), assistant(2, [{"type": "tool_use", "id": "t1", "name": "Bash", "input": {}}], 1),
            user(3, [{"type": "tool_result", "tool_use_id": "t1", "content": "rejected", "is_error": True},
                     {"type": "text", "text": "[Request interrupted by user for tool use]"}], 2)]
    thread = same_everywhere(rows, tmp_path, monkeypatch)
    assert who(thread)[-2:] == [("tool_return", "tool", None), ("user_message", "harness", "interrupt")]
    (row,) = tl.load(tmp_path / "s1.jsonl", progress=False, workers=1).threads.to_dict("records")
    assert (row["n_human_prompts"], row["n_harness_turns"], row["n_interrupts"]) == (1, 1, 1)


def test_the_compaction_agent_is_the_harness_s(tmp_path: Path) -> None:
    """``agent-acompact-*``: started by Claude Code from a line of the session, with no tool call
    and no sidecar; its prompt is the harness's, and neither is a problem."""
    (tmp_path / "s1" / "subagents").mkdir(parents=True)
    (tmp_path / "s1.jsonl").write_bytes(jsonl([user(1, "go"), assistant(2, [{"type": "text", "text": "ok"}], 1)]))
    sub = [{**user(3, "Your task is to create a detailed summary of the conversation so far", 2), "isSidechain": True, "agentId": "acompact-1"},
           {**assistant(4, [{"type": "text", "text": "<summary>...</summary>"}], 3, mid="msg_2"), "isSidechain": True, "agentId": "acompact-1"}]
    (tmp_path / "s1" / "subagents" / "agent-acompact-1.jsonl").write_bytes(jsonl(sub))
    thread = tl.read(tmp_path / "s1.jsonl", strict=False)
    assert thread.problems == []
    assert ("user_message", "harness", "task_prompt") in who(thread)


# --- whitespace-only text -----------------------------------------------------------------


def test_whitespace_block_beside_a_tool_call_in_one_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """(SDK dumps and older CLIs put a message's blocks in one line.) The blank block rides on the
    line's first other block; the usage goes to the tool call; the line comes back whole."""
    rows = [user(1, "go"), assistant(2, [{"type": "text", "text": "\n\n"}, {"type": "tool_use", "id": "t1", "name": "Bash", "input": {"c": 1}},
                                         {"type": "text", "text": " "}], 1)]
    thread = same_everywhere(rows, tmp_path, monkeypatch)
    assert [a.action_type for a in thread.actions] == ["user_message", "tool_call"]
    call = thread.actions[1]
    assert call.metadata["claude"]["blank_blocks"] == [[0, {"type": "text", "text": "\n\n"}], [2, {"type": "text", "text": " "}]]
    assert call.usage is not None


def test_a_message_of_whitespace_only_is_its_answer(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    thread = same_everywhere([user(1, "go"), assistant(2, [{"type": "text", "text": "\n"}], 1)], tmp_path, monkeypatch)
    (answer,) = [a for a in thread.actions if a.action_type == "assistant_message"]
    assert answer.content == "\n" and answer.usage is not None and answer.usage.output_tokens == 7


def test_a_whitespace_line_missing_a_session_field_comes_back_without_it(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    blank = assistant(2, [{"type": "text", "text": "\n\n"}], 1)
    del blank["cwd"]
    thread = same_everywhere([user(1, "go"), blank, assistant(3, [{"type": "text", "text": "hi"}], 2)], tmp_path, monkeypatch)
    assert [a.content for a in thread.actions if a.action_type == "assistant_message"] == ["hi"]


def test_stream_json_whitespace_lines_stay_in_order_with_the_stream_events() -> None:
    rows = [{"type": "system", "subtype": "init", "session_id": "s9", "model": "claude-sonnet-4-5"},
            {"type": "stream_event", "session_id": "s9", "event": {"type": "message_start", "message": {"id": "m1", "usage": {"output_tokens": 1}}}},
            {"type": "assistant", "session_id": "s9", "message": {"id": "m1", "role": "assistant", "content": [{"type": "text", "text": "\n\n"}]}},
            {"type": "stream_event", "session_id": "s9", "event": {"type": "content_block_start", "index": 1}},
            {"type": "assistant", "session_id": "s9", "message": {"id": "m1", "role": "assistant", "content": [{"type": "tool_use", "id": "t1", "name": "Bash", "input": {}}]}}]
    thread = tl.read(Source(jsonl(rows), name="stream.jsonl"), strict=False)
    assert [a.action_type for a in thread.actions] == ["system.init", "tool_call"]
    assert [orjson.loads(x) for x in claude.from_thread(thread).splitlines()] == rows


# --- ids and usage ------------------------------------------------------------------------


def test_calls_without_ids_get_ids_no_real_call_has(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Two calls without an id (one on a line without uuid), a real call whose id is what the first
    would have been given; a result without ``tool_use_id`` while two calls are open cannot be
    told: it stays an unknown block."""
    no_uuid = assistant(3, [{"type": "tool_use", "name": "Read", "input": {}}], 2, mid="msg_2")
    del no_uuid["uuid"]
    rows = [user(1, "go"), assistant(2, [{"type": "tool_use", "name": "Bash", "input": {}}, {"type": "tool_use", "id": "threadlab:u2:0", "name": "Grep", "input": {}}], 1),
            no_uuid, user(4, [{"type": "tool_result", "content": "which?"}], 2)]
    thread = same_everywhere(rows, tmp_path, monkeypatch)
    calls = [(a.tool_call_id, a.tool_name) for a in thread.actions if a.action_type == "tool_call"]
    assert calls == [("threadlab:u2:0'", "Bash"), ("threadlab:u2:0", "Grep"), ("threadlab:main:2", "Read")]
    assert [p.rule for p in thread.problems] == ["missing-id", "missing-id", "schema"]
    with pytest.raises(tl.ThreadError, match="missing-id"):
        tl.read(tmp_path / "s1.jsonl")


def test_a_result_without_its_call_id_answers_the_only_open_call_of_its_agent(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    rows = [user(1, "go"), assistant(2, [{"type": "tool_use", "id": "t1", "name": "Bash", "input": {}}], 1),
            user(3, [{"type": "tool_result", "content": "done"}], 2),
            assistant(4, [{"type": "tool_use", "id": "t2", "name": "Read", "input": {}}], 3, mid="msg_2"),
            user(5, [{"type": "tool_result", "tool_use_id": "t2", "content": "x"}], 4)]
    thread = same_everywhere(rows, tmp_path, monkeypatch)
    assert [(p.call.tool_call_id, p.ret.tool_call_id) for p in tool_pairs(thread) if p.call and p.ret] == [("t1", "t1"), ("t2", "t2")]
    (problem,) = thread.problems
    assert problem.rule == "missing-id" and "'t1', the only call of its agent still open" in problem.message and problem.line == 3


def test_usage_of_a_line_without_a_message_id_counts_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    rows = [user(1, "go"), assistant(2, [{"type": "thinking", "thinking": "hm"}, {"type": "text", "text": "hi"}], 1, mid=None,
                                     usage={"input_tokens": 3, "cache_read_input_tokens": 10, "output_tokens": 4})]
    thread = same_everywhere(rows, tmp_path, monkeypatch)
    used = [a for a in thread.actions if getattr(a, "usage", None) is not None]
    assert [(a.action_type, a.usage.input_tokens, a.usage.output_tokens) for a in used] == [("assistant_message", 13, 4)]


# --- the real CLI's own turns (tests/fixtures/claude/turns, data/claude_code/generate.py --turns) -


TURNS = Path(__file__).parent / "fixtures" / "claude" / "turns"


def _turns_session(prompt: str) -> Thread:
    for path in sorted((TURNS / "projects").glob("*/*.jsonl")):
        thread = tl.read(path)
        if thread.title == prompt:
            return thread
    raise AssertionError(prompt)


def test_hooks_the_cli_ran() -> None:
    """A ``UserPromptSubmit`` hook's context, a ``Stop`` hook that blocked once: every record of it
    is the harness's; the person typed one prompt."""
    thread = _turns_session("hello there")
    hooks = [(kind, harness) for kind, author, harness in who(thread) if harness == "hook"]
    assert hooks == [("system.attachment.hook_success", "hook"), ("system.meta_message", "hook"), ("system.attachment.hook_blocking_error", "hook"),
                     ("system.stop_hook_summary", "hook"), ("system.stop_hook_summary", "hook")]
    (row,) = tl.load(TURNS / "projects", progress=False, workers=1).threads.query("title == 'hello there'").to_dict("records")
    assert (row["n_human_prompts"], row["n_interrupts"]) == (1, 0) and row["n_harness_turns"] == sum(1 for _, a, _ in who(thread) if a == "harness")
    stream = tl.read(TURNS / "hooks.stream.jsonl")  # the same run's stream-json: the feedback is an ``isSynthetic`` user line
    assert [(kind, author, harness) for kind, author, harness in who(stream) if kind == "user_message"] == [("user_message", "harness", "hook")]


def test_an_interrupt_through_the_agent_sdk() -> None:
    """``ClaudeSDKClient.interrupt()`` while a tool call runs: its result is an error, the marker is
    the harness's (one interrupt), the whitespace line before the call is no message."""
    thread = _turns_session("SLOW-RUN wait for me")
    users = [(author, harness) for kind, author, harness in who(thread) if kind == "user_message"]
    assert users == [("human", None), ("harness", "interrupt"), ("human", None)]
    assert [p.status for p in tool_pairs(thread)] == ["error"]
    assert [a.content for a in thread.actions if a.action_type == "assistant_message"] == ["Hello again."]
    call = next(a for a in thread.actions if a.action_type == "tool_call")
    assert [e["message"]["content"] for e in call.metadata["claude"]["stream_events"]] == [[{"type": "text", "text": "\n\n"}]]
    (row,) = tl.load(TURNS / "projects", progress=False, workers=1).threads.query("title == 'SLOW-RUN wait for me'").to_dict("records")
    assert (row["n_human_prompts"], row["n_interrupts"]) == (2, 1)
