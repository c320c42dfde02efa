"""Gemini CLI sessions (``threadlab/formats/gemini_cli``): the real program's files against the raw
counter (``tests/wild/rules_gemini.py``, no threadlab), the log records of the JSON Lines
generation (repeated copies, ``$set`` histories, rewinds, resumes), a live file's torn last line,
and the ``~/.gemini`` home read as a folder."""

from __future__ import annotations

import shutil
import warnings
from pathlib import Path

import orjson
import pytest

import threadlab as tl
from tests.wild.compare import disagreements
from threadlab.core.problems import ThreadError
from threadlab.formats import gemini_cli
from threadlab.formats.common.source import Source

HERE = Path(__file__).resolve().parent
MADE = HERE / "fixtures" / "gemini_cli"
SESSIONS = sorted(MADE.rglob("session-*.json*"))
LIVE = max((p for p in SESSIONS if p.suffix == ".jsonl"), key=lambda p: p.stat().st_size)
HOME = LIVE.parents[3]
RESUMED = next(p for p in LIVE.parent.glob("session-*.jsonl") if p != LIVE)  # the file the resume started, left beside


def _jsonl(*records: object) -> bytes:
    return b"".join(orjson.dumps(r) + b"\n" for r in records)


META = {"sessionId": "s-1", "projectHash": "ab" * 32, "startTime": "2026-01-01T00:00:00.000Z", "lastUpdated": "2026-01-01T00:00:00.000Z", "kind": "main"}


def test_the_real_programs_sessions_are_there() -> None:
    assert {p.suffix for p in SESSIONS} == {".json", ".jsonl"}


@pytest.mark.parametrize("path", SESSIONS, ids=lambda p: p.parent.parent.parent.parent.parent.name)
def test_the_real_programs_sessions_count_as_the_raw_counter_does(path: Path) -> None:
    assert disagreements(path, "gemini-cli") == {}


def test_the_0_61_session_reads_as_the_program_wrote_it() -> None:
    thread = tl.read(LIVE)
    kinds = [a.action_type for a in thread.actions]
    assert kinds.count("tool_call") == kinds.count("tool_return") == 2  # each return once, though the file holds it twice
    context = thread.actions[0]
    assert context.action_type == "user_message" and context.metadata["author"] == "harness" and context.metadata["harness"] == "environment_context"
    assert thread.thread_id == "167884c3-dd57-4e34-9c67-19b84f0ddb6a" and thread.title.startswith("Create notes.txt")
    # the file the resumed process started is read with the session: its lines are counted here
    assert thread.account.records == sum(len([line for line in p.read_bytes().splitlines() if line.strip()]) for p in (LIVE, RESUMED))
    assert thread.account.unconverted == 0
    resumed = kinds.index("system.session_resumed")  # where the resumed process went on, before its prompt
    assert kinds[resumed - 1] == "assistant_message" and kinds[resumed + 1] == "user_message" and kinds.count("system.session_resumed") == 1
    assert thread.actions[resumed].data["sessionId"] == thread.thread_id and thread.actions[resumed].timestamp < thread.actions[resumed + 1].timestamp


def test_the_file_a_resume_left_is_a_thread_when_read_alone_and_another_sessions_file_is_its_own(tmp_path: Path) -> None:
    (alone,) = tl.read_all(RESUMED)
    assert [a.action_type for a in alone.actions] == ["user_message"] and alone.thread_id == tl.read(LIVE).thread_id
    chats = tmp_path / "p" / "chats"
    chats.mkdir(parents=True)
    first, other = chats / "session-2026-01-01T00-00-0a1b2c3d.jsonl", chats / "session-2026-01-01T00-05-0a1b2c3d.jsonl"
    first.write_bytes(_jsonl({**META, "sessionId": "0a1b2c3d-1"}, {"id": "u1", "timestamp": "2026-01-01T00:00:01.000Z", "type": "user", "content": "hi"}))
    other.write_bytes(_jsonl({**META, "sessionId": "0a1b2c3d-2"}, {"id": "u2", "timestamp": "2026-01-01T00:05:01.000Z", "type": "user", "content": "bye"}))
    frames = tl.load(tmp_path, progress=False)  # the same id8, other sessions: a thread each
    assert sorted(frames.threads["thread_id"]) == ["0a1b2c3d-1", "0a1b2c3d-2"] and len(frames.problems) == 0


def test_a_later_copy_of_a_message_is_the_message_and_a_history_set_adds_only_new_ones() -> None:
    first = {"id": "g1", "timestamp": "2026-01-01T00:00:02.000Z", "type": "gemini", "content": "", "thoughts": [], "model": "gemini-2.5-pro"}
    call = {"id": "c1", "name": "read_file", "args": {"path": "a"}, "status": "success", "timestamp": "2026-01-01T00:00:03.000Z",
            "result": [{"functionResponse": {"id": "c1", "name": "read_file", "response": {"output": "A"}}}]}
    data = _jsonl(
        META,
        {"id": "u1", "timestamp": "2026-01-01T00:00:01.000Z", "type": "user", "content": [{"text": "read a"}]},
        first,
        {**first, "toolCalls": [call], "tokens": {"input": 10, "output": 2, "cached": 0, "thoughts": 0, "tool": 0, "total": 12}},
        {"id": "u2", "timestamp": "2026-01-01T00:00:04.000Z", "type": "user", "content": [{"functionResponse": {"id": "c1", "name": "read_file", "response": {"output": "A"}}}]},
        {"$set": {"messages": [{"id": "u1", "type": "user", "content": [{"text": "read a"}]}, {"id": "n1", "timestamp": "2026-01-01T00:00:05.000Z", "type": "user", "content": [{"text": "summary so far"}]}]}},
        {"$rewindTo": "n1"},
        {**META, "startTime": "2026-01-01T01:00:00.000Z"},
        {"id": "x1", "timestamp": "2026-01-01T01:00:01.000Z", "type": "compression", "content": "?"},
        {"something": "else"},
    )
    (thread,) = tl.read_all(Source(data, name="made.jsonl"), strict=False)
    kinds = [a.action_type for a in thread.actions]
    assert kinds == ["user_message", "tool_call", "tool_return", "user_message", "system.rewind", "system.session_resumed", "system.unknown_message", "system.unknown_record"]
    assert thread.actions[1].usage == {"input_tokens": 10, "output_tokens": 2, "total_tokens": 12, "thinking_tokens": 0, "cache_read_tokens": 0}
    assert thread.account.records == 10 and thread.account.unconverted == 2
    assert sorted(p.rule for p in thread.problems) == ["unknown-type", "unknown-type"]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        again = tl.read_all(Source(gemini_cli.from_thread(thread), name="made.jsonl"), strict=False)[0]
    assert not caught, [str(w.message) for w in caught]
    assert again.to_dict() == thread.to_dict()


def test_a_torn_last_line_is_a_problem_and_the_rest_loads(tmp_path: Path) -> None:
    lines = LIVE.read_bytes().splitlines(keepends=True)
    last_message = max(i for i, line in enumerate(lines) if line.startswith(b'{"id"'))
    torn = tmp_path / LIVE.name
    torn.write_bytes(b"".join(lines[:last_message]) + lines[last_message][: len(lines[last_message]) // 2])
    (thread,) = tl.read_all(torn, strict=False)
    assert [(p.rule, p.line) for p in thread.problems] == [("truncated", last_message + 1)]
    (tmp_path / "whole").mkdir()
    whole = tl.read(shutil.copy(LIVE, tmp_path / "whole"))  # the session's own file alone
    assert [a.action_type for a in thread.actions] == [a.action_type for a in whole.actions][:-1]  # all but the answer it was writing
    with pytest.raises(ThreadError, match="truncated"):
        tl.read(torn)
    frames = tl.load(torn, progress=False)
    assert list(frames.problems["rule"]) == ["truncated"] and len(frames.threads) == 1


def test_the_gemini_home_reads_as_a_folder_and_lists_what_it_skips() -> None:
    frames = tl.load(HOME, progress=False)
    # the resumed run's own start-up file (same session id, the context message again) is read with its session
    assert list(frames.threads["format"]) == ["gemini-cli"] and len(frames.problems) == 0
    assert list(frames.threads["n_human_prompts"]) == [2] and list(frames.threads["source"]) == [str(LIVE)]
    reasons = {Path(p).name: r for p, r in zip(frames.skipped["path"], frames.skipped["reason"], strict=True)}
    assert reasons["settings.json"] == "a Gemini CLI home's settings.json"
    assert reasons["projects.json"] == "a Gemini CLI home's project list (projects.json)"
    assert reasons["history"].startswith("a Gemini CLI home's per-project history")
    assert set(reasons) == {"settings.json", "projects.json", "history", ".project_root"}


def test_a_project_folders_prompt_log_is_listed_not_read(tmp_path: Path) -> None:
    chats = tmp_path / "proj" / "chats"
    chats.mkdir(parents=True)
    (chats / "session-2026-01-01T00-00-s1.jsonl").write_bytes(_jsonl(META, {"id": "u1", "timestamp": "2026-01-01T00:00:01.000Z", "type": "user", "content": "hi"}))
    (tmp_path / "proj" / "logs.json").write_bytes(orjson.dumps([{"sessionId": "s-1", "messageId": 0, "type": "user", "message": "hi", "timestamp": "2026-01-01T00:00:01.000Z"}]))
    frames = tl.load(tmp_path, progress=False)
    assert len(frames.threads) == 1 and len(frames.problems) == 0
    assert list(frames.skipped["reason"]) == ["a Gemini CLI project's prompt log (logs.json: the prompts typed, repeated in chats/)"]


def test_detection_needs_a_sessions_metadata() -> None:
    assert gemini_cli.detect(Source(_jsonl(META), name="a.jsonl"))
    assert not gemini_cli.detect(Source(_jsonl({"projectHash": "x", "id": "1"}), name="a.jsonl"))
    assert not gemini_cli.detect(Source(orjson.dumps({"projectHash": "x", "messages": []}), name="a.json"))
    assert not gemini_cli.detect(Source(_jsonl({"sessionId": "s", "projectHash": 3}), name="a.jsonl"))
