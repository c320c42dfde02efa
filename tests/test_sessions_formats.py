"""Codex CLI rollouts, Inspect AI logs and OpenAI Agents SDK sessions, on real files: tool calls,
returns, prompts and usage equal to counts computed here from the raw files with orjson /
zipfile / sqlite3 alone; plus the behaviours each reader promises (usage counted once, handoffs,
sub-agents, damaged containers)."""

from __future__ import annotations

import sqlite3
import warnings
import zipfile
from pathlib import Path
from typing import Any

import orjson
import pytest

import threadlab
from tests.conformance.records import _zip_member
from tests.counting import action_kinds as _kinds
from tests.counting import token_total as _tokens
from threadlab.core.loss import WriteLoss
from threadlab.formats import get_format
from threadlab.formats.common.source import Source

FIXTURES = Path(__file__).parent / "fixtures"
CODEX = sorted((FIXTURES / "real" / "codex").glob("*.jsonl"))
CODEX_RUNS = sorted((FIXTURES / "codex").glob("codex-*/rollout-*.jsonl"))  # written by the real codex (make_rollouts.py)
INSPECT = sorted([*(FIXTURES / "inspect_ai").glob("*.eval"), *(FIXTURES / "inspect_ai").glob("*.json"), *(FIXTURES / "real" / "inspect_ai").glob("*.*")])
INSPECT = [p for p in INSPECT if p.suffix in (".eval", ".json")]
SESSIONS = FIXTURES / "openai_agents_session"


# --- Codex ---------------------------------------------------------------------------------


def _codex_counts(path: Path) -> dict[str, int]:
    lines = [orjson.loads(x) for x in path.read_bytes().splitlines() if x.strip()]
    items = [x["payload"] for x in lines if x.get("type") == "response_item"]
    if "payload" not in lines[0]:  # the bare generation: items are the lines with a type
        items = [x for x in lines[1:] if "type" in x]
    calls = [i for i in items if i.get("type", "").endswith("_call")]
    hosted = [i for i in calls if i["type"] in ("web_search_call",)]
    out = {
        "tool_call": len(calls),
        "tool_return": sum(1 for i in items if i.get("type", "").endswith("_call_output")) + len(hosted),
        "user_message": sum(1 for i in items if i.get("type") == "message" and i.get("role") == "user"),
        "assistant_message": sum(1 for i in items if i.get("type") == "message" and i.get("role") == "assistant"),
        "thinking": sum(1 for i in items if i.get("type") == "reasoning"),
    }
    last_total, output = None, 0
    for x in lines:  # cumulative totals: a repeated event adds nothing
        info = (x.get("payload") or {}).get("info") if x.get("type") == "event_msg" and x["payload"].get("type") == "token_count" else None
        if info and info.get("total_token_usage") != last_total:
            last_total = info["total_token_usage"]
            output += info["last_token_usage"]["output_tokens"]
    out["output_tokens"] = output
    return out


@pytest.mark.parametrize("path", CODEX + CODEX_RUNS, ids=lambda p: p.name)
def test_codex_real_rollouts_match_counts_from_the_raw_lines(path: Path) -> None:
    threads = threadlab.read_all(path, strict=False)
    assert [t.origin[1] for t in threads] == ["codex"]
    want = _codex_counts(path)
    kinds = _kinds(threads)
    for kind in ("tool_call", "tool_return", "user_message", "assistant_message", "thinking"):
        assert kinds.get(kind, 0) == want[kind], kind
    assert _tokens(threads, "output_tokens") == want["output_tokens"]
    assert threads[0].account.unconverted == 0


@pytest.mark.parametrize("path", CODEX + CODEX_RUNS, ids=lambda p: p.name)
def test_codex_rollout_is_written_back_line_for_line(path: Path) -> None:
    (thread,) = threadlab.read_all(path, strict=False)
    with warnings.catch_warnings():
        warnings.simplefilter("error", WriteLoss)
        wire = get_format("codex").from_thread(thread)
    assert [orjson.loads(x) for x in wire.splitlines()] == [orjson.loads(x) for x in path.read_bytes().splitlines() if x.strip()]


def _lines(path: Path) -> list[dict[str, Any]]:
    return [orjson.loads(x) for x in path.read_bytes().splitlines() if x.strip()]


def test_codex_0_169_rollout_has_its_calls_patch_and_per_response_usage() -> None:
    """The rollout Codex 0.169 wrote for the scripted run: a reasoning item and an exec_command
    function call, a reasoning item and an apply_patch custom tool call (the patch as its
    input), a final message; usage per model response from the token_count events, equal to
    the token_usage_record lines beside them, counted once."""
    (path,) = [p for p in CODEX_RUNS if p.parent.name == "codex-0.169.0" and "01a2078f" in p.name]  # (make_rollouts.py's run)
    raw = _lines(path)
    (thread,) = threadlab.read_all(path)
    assert thread.account.unconverted == 0 and thread.problems == []
    assert thread.thread_id == raw[0]["payload"]["id"] and thread.title == "Create notes.txt saying hello, then fix the typo in it."
    calls = [a for a in thread.actions if a.action_type == "tool_call"]
    raw_calls = [x["payload"] for x in raw if x["type"] == "response_item" and x["payload"]["type"] in ("function_call", "custom_tool_call")]
    assert [(c.tool_name, c.tool_call_id) for c in calls] == [(c["name"], c["call_id"]) for c in raw_calls] == [("exec_command", "call_shell_1"), ("apply_patch", "call_patch_2")]
    assert calls[1].args == raw_calls[1]["input"] and calls[0].args == orjson.loads(raw_calls[0]["arguments"])
    assert [a.status for a in thread.actions if a.action_type == "tool_return"] == ["success", "success"]
    records = [x["payload"]["usage"] for x in raw if x["type"] == "token_usage_record"]
    usages = [a.usage for a in thread.actions if getattr(a, "usage", None) is not None]
    assert [(u.input_tokens, u.output_tokens, u.cache_read_tokens or 0, u.thinking_tokens or 0) for u in usages] == [
        (r["input_tokens"], r["output_tokens"], r["cached_input_tokens"], r["reasoning_output_tokens"]) for r in records
    ]
    final = [x["payload"]["info"]["total_token_usage"] for x in raw if x["type"] == "event_msg" and x["payload"]["type"] == "token_count"][-1]
    frames = threadlab.load(path, progress=False)
    assert frames.usage["output_tokens"].sum() == final["output_tokens"] and frames.usage["input_tokens"].sum() == final["input_tokens"]
    assert set(frames.actions["model_name"].dropna()) == {"gpt-5.5"}


@pytest.mark.parametrize("path", [p for p in CODEX_RUNS if p.parent.name == "codex-0.20.0"], ids=lambda p: p.name)
def test_codex_0_20_rollouts_are_bare_and_hold_no_token_counts(path: Path) -> None:
    """Codex 0.20 wrote the bare generation (header, state markers, items, no timestamps) and
    no token counts: the thread has no usage rather than made-up figures."""
    raw = _lines(path)
    (thread,) = threadlab.read_all(path)
    assert "payload" not in raw[0] and raw[1] == {"record_type": "state"} and thread.metadata["codex"] == {"generation": "bare"}
    assert thread.thread_id == raw[0]["id"] and thread.account.unconverted == 0
    kinds = {x["type"] for x in raw if "type" in x}
    names = {a.tool_name for a in thread.actions if a.action_type == "tool_call"}
    assert names == ({"local_shell"} if "local_shell_call" in kinds else {"shell"})
    assert all(getattr(a, "usage", None) is None for a in thread.actions)


def test_codex_exit_codes_in_tool_outputs_give_the_return_status() -> None:
    from threadlab.formats.codex.reading import exit_status

    assert exit_status("Chunk ID: 1\nWall time: 0.1 seconds\nProcess exited with code 2\nOriginal token count: 1\nOutput:\nno\n") == "error"
    assert exit_status("Exit code: 0\nWall time: 0 seconds\nOutput:\nSuccess.\n") == "success"
    assert exit_status("Exit code: 1\nWall time: 0 seconds\nOutput:\nfailed\n") == "error"
    assert exit_status("Output:\nExit code: 1\n") == "success"  # in the output, not the header
    assert exit_status('{"output":"x","metadata":{"exit_code":3}}') == "error"


def test_codex_usage_is_counted_once_per_response(tmp_path: Path) -> None:
    """A token_count written twice (Codex does) and an info-less one give usage once."""
    usage = {"input_tokens": 10, "cached_input_tokens": 4, "output_tokens": 3, "reasoning_output_tokens": 1, "total_tokens": 13}
    count = {"type": "token_count", "info": {"total_token_usage": usage, "last_token_usage": usage}}
    lines = [
        {"timestamp": "2025-10-01T10:00:00.000Z", "type": "session_meta", "payload": {"id": "s1", "cli_version": "0.50.0"}},
        {"timestamp": "2025-10-01T10:00:01.000Z", "type": "response_item", "payload": {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "hi"}]}},
        {"timestamp": "2025-10-01T10:00:02.000Z", "type": "event_msg", "payload": {"type": "token_count", "info": None}},
        {"timestamp": "2025-10-01T10:00:03.000Z", "type": "response_item", "payload": {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "hello"}]}},
        {"timestamp": "2025-10-01T10:00:04.000Z", "type": "event_msg", "payload": count},
        {"timestamp": "2025-10-01T10:00:05.000Z", "type": "event_msg", "payload": count},
    ]
    path = tmp_path / "rollout-x.jsonl"
    path.write_bytes(b"".join(orjson.dumps(x) + b"\n" for x in lines))
    frames = threadlab.load(path, progress=False)
    assert frames.usage["output_tokens"].sum() == 3 and frames.usage["cache_read_tokens"].sum() == 4
    assert frames.threads["title"].tolist() == ["hi"]


def test_codex_bare_generation_reads_and_writes_back(tmp_path: Path) -> None:
    """The mid-2025 rollouts: a header line, state markers, bare items with no timestamps."""
    lines = [
        {"id": "c27a914d", "timestamp": "2025-08-20T13:20:47.060Z", "instructions": None, "git": {"branch": "main"}},
        {"record_type": "state"},
        {"type": "message", "id": None, "role": "user", "content": [{"type": "input_text", "text": "list files"}]},
        {"type": "reasoning", "id": "rs_1", "summary": [], "encrypted_content": "opaque"},
        {"type": "local_shell_call", "id": "lsh_1", "call_id": "call_1", "status": "completed", "action": {"type": "exec", "command": ["ls"]}},
        {"type": "function_call_output", "call_id": "call_1", "output": '{"output":"boom","metadata":{"exit_code":2}}'},
        {"record_type": "state"},
    ]
    path = tmp_path / "rollout-2025-08-20.jsonl"
    path.write_bytes(b"".join(orjson.dumps(x) + b"\n" for x in lines))
    (thread,) = threadlab.read_all(path, strict=False)
    assert thread.origin[1] == "codex" and thread.thread_id == "c27a914d"
    call, back = (a for a in thread.actions if a.action_type in ("tool_call", "tool_return"))
    assert (call.tool_name, call.args, back.status) == ("local_shell", {"type": "exec", "command": ["ls"]}, "error")
    assert thread.account.records == 7 and thread.account.unconverted == 0
    assert [orjson.loads(x) for x in get_format("codex").from_thread(thread).splitlines()] == lines


def test_codex_home_reads_only_the_sessions(tmp_path: Path) -> None:
    home = tmp_path / ".codex"
    day = home / "sessions" / "2026" / "02" / "23"
    day.mkdir(parents=True)
    whole = next(p for p in CODEX if "trimmed" not in p.name)  # (a trimmed file has a usage-total row)
    (day / whole.name).write_bytes(whole.read_bytes())
    (home / "auth.json").write_text('{"OPENAI_API_KEY": "sk-not-read"}')
    (home / "history.jsonl").write_text('{"session_id":"x","ts":1,"text":"hi"}\n')
    (home / "config.toml").write_text('model = "gpt-5"\n')
    frames = threadlab.load(str(home), progress=False)
    assert len(frames.threads) == 1 and frames.problems.empty


# --- Inspect AI ----------------------------------------------------------------------------


def _inspect_samples(path: Path) -> list[dict[str, Any]]:
    if path.suffix == ".json":
        return orjson.loads(path.read_bytes())["samples"]
    with zipfile.ZipFile(path) as archive:
        return [orjson.loads(_zip_member(archive, n)) for n in archive.namelist() if n.startswith("samples/")]


def _inspect_counts(path: Path) -> dict[str, int]:
    """Tool calls and returns of the model and tool events (messages when a sample has none),
    prompts, and output tokens of the model events."""
    out = {"tool_call": 0, "tool_return": 0, "user_message": 0, "output_tokens": 0, "samples": 0}
    for sample in _inspect_samples(path):
        out["samples"] += 1
        events = sample.get("events") or []
        models = [e for e in events if e.get("event") == "model"]
        by_events = bool(models) and any(m.get("id") for m in sample["messages"])
        if by_events:
            out["tool_call"] += sum(len(e["output"]["choices"][0]["message"].get("tool_calls") or []) for e in models if e["output"].get("choices"))
            out["tool_return"] += sum(1 for e in events if e.get("event") == "tool")
            given = {e["output"]["choices"][0]["message"].get("id") for e in models if e["output"].get("choices")}
            out["user_message"] += sum(1 for m in sample["messages"] if m["role"] == "user" and m.get("id") not in given)
        else:
            out["tool_call"] += sum(len(m.get("tool_calls") or []) for m in sample["messages"] if m["role"] == "assistant")
            out["tool_return"] += sum(1 for m in sample["messages"] if m["role"] == "tool")
            out["user_message"] += sum(1 for m in sample["messages"] if m["role"] == "user")
        out["output_tokens"] += sum(((e.get("output") or {}).get("usage") or {}).get("output_tokens") or 0 for e in models if by_events or e.get("output", {}).get("choices"))
    return out


@pytest.mark.parametrize("path", INSPECT, ids=lambda p: p.name)
def test_inspect_logs_match_counts_from_the_raw_members(path: Path) -> None:
    threads = threadlab.read_all(path, strict=False)
    assert {t.origin[1] for t in threads} == {"inspect-ai"}
    want = _inspect_counts(path)
    kinds = _kinds(threads)
    assert len(threads) == want["samples"]
    for kind in ("tool_call", "tool_return", "user_message"):
        assert kinds.get(kind, 0) == want[kind], kind
    assert _tokens(threads, "output_tokens") == want["output_tokens"]


def test_inspect_multi_agent_log_shows_handoff_sub_agent_scorer_and_scores() -> None:
    (thread,) = threadlab.read_all(FIXTURES / "inspect_ai" / "multi_agent.eval")
    names = {a.agent_name for a in thread.agents.values()}
    assert {"supervisor", "researcher", "summarizer", "scorer:model_graded_fact"} <= names
    (handoff,) = [a for a in thread.actions if a.action_type == "system.handoff"]
    assert handoff.data["to_agent_id"] == "researcher" and handoff.data["tool_call_id"] == "call_handoff"
    (join,) = [a for a in thread.actions if a.action_type == "system.agent_join"]
    assert join.data == {"agent_id": "summarizer", "invited_by": "supervisor", "tool_call_id": "call_summarize"}
    meta = thread.metadata["inspect_ai"]
    assert meta["scores"]["model_graded_fact"]["value"] == "C" and meta["metadata"] == {"country": "France"}
    frames = threadlab.load(FIXTURES / "inspect_ai" / "multi_agent.eval", progress=False)
    by_model = frames.usage.groupby("model_name", observed=True)["output_tokens"].sum().to_dict()
    assert by_model == {"mockllm/grader": 3, "mockllm/model": 37}


def test_inspect_failed_tool_call_is_an_error_return() -> None:
    threads = threadlab.read_all(FIXTURES / "inspect_ai" / "tools_epochs.eval")
    assert len(threads) == 4 and {t.metadata["inspect_ai"]["epoch"] for t in threads} == {1, 2}
    statuses = [(a.tool_call_id, a.status) for a in threads[0].actions if a.action_type == "tool_return"]
    assert ("call_neg", "error") in statuses and ("call_pos", "success") in statuses


def test_inspect_eval_cut_short_keeps_the_samples_before_the_cut(tmp_path: Path) -> None:
    data = (FIXTURES / "inspect_ai" / "tools_epochs.eval").read_bytes()
    cut = tmp_path / "cut.eval"
    cut.write_bytes(data[: len(data) * 3 // 5])
    threads = threadlab.read_all(cut, strict=False)
    assert 1 <= len(threads) < 4
    problems = [p for t in threads for p in t.problems]
    assert any(p.rule == "truncated" and p.line is not None and "member" in p.message for p in problems)


# --- OpenAI Agents SDK sessions ------------------------------------------------------------


def _db_items(path: Path) -> dict[str, list[dict[str, Any]]]:
    conn = sqlite3.connect(path.resolve().as_uri() + "?mode=ro", uri=True)
    try:
        out: dict[str, list[dict[str, Any]]] = {}
        for sid, data in conn.execute("SELECT session_id, message_data FROM agent_messages ORDER BY id"):
            out.setdefault(sid, []).append(orjson.loads(data))
        return out
    finally:
        conn.close()


def test_sessions_database_gives_one_thread_per_session_with_the_raw_counts() -> None:
    path = SESSIONS / "agents_sessions.db"
    raw = _db_items(path)
    threads = {t.thread_id: t for t in threadlab.read_all(path)}
    assert set(threads) == set(raw) == {"weather-chat", "math-chat"}
    for sid, items in raw.items():
        kinds = _kinds([threads[sid]])
        assert kinds.get("tool_call", 0) == sum(1 for i in items if i.get("type") == "function_call")
        assert kinds.get("tool_return", 0) == sum(1 for i in items if i.get("type") == "function_call_output")
        assert kinds.get("user_message", 0) == sum(1 for i in items if i.get("role") == "user")
        assert kinds.get("thinking", 0) == sum(1 for i in items if i.get("type") == "reasoning")
    weather = threads["weather-chat"]
    handoffs = [a.data for a in weather.actions if a.action_type == "system.handoff"]
    assert [h["to_agent_id"] for h in handoffs] == ["weather_agent", "weather_agent"]
    assert {a.agent_name for a in weather.agents.values()} == {"Agent", "Weather agent"}
    (failed,) = [a for a in threads["math-chat"].actions if a.action_type == "tool_return"]
    assert failed.status == "error"


def test_sessions_database_round_trips_through_a_database_the_sdk_reads(tmp_path: Path) -> None:
    pytest.importorskip("agents")
    import asyncio

    from agents import SQLiteSession

    (thread,) = [t for t in threadlab.read_all(SESSIONS / "agents_sessions.db") if t.thread_id == "weather-chat"]
    with warnings.catch_warnings():
        warnings.simplefilter("error", WriteLoss)
        data = get_format("openai-agents-session").from_thread(thread)
    out = tmp_path / "copy.db"
    out.write_bytes(data)
    items = asyncio.run(SQLiteSession("weather-chat", str(out)).get_items())
    assert items == _db_items(SESSIONS / "agents_sessions.db")["weather-chat"]
    (again,) = threadlab.read_all(Source(data, name=thread.origin[0]), "openai-agents-session")
    assert again.to_dict() == thread.to_dict()


def test_sessions_jsonl_is_not_claimed_by_agency_swarm_and_vice_versa() -> None:
    jsonl = Source(SESSIONS / "weather_chat_items.jsonl")
    assert not get_format("agency-swarm").detect(jsonl)
    for path in (FIXTURES / "agency_swarm").glob("*.json"):
        assert not get_format("openai-agents-session").detect(Source(path))


def test_a_database_of_another_program_is_refused_naming_it(tmp_path: Path) -> None:
    path = tmp_path / "other.db"
    conn = sqlite3.connect(path)
    conn.execute("CREATE TABLE notes (id INTEGER, body TEXT)")
    conn.commit()
    conn.close()
    frames = threadlab.load(path, progress=False)
    assert frames.threads.empty and list(frames.problems["rule"]) == ["format"] and "SQLite" in frames.problems["message"][0]


def _wal_database(tmp_path: Path, side_files: str) -> tuple[Path, int]:
    """The fixture database in WAL mode, with one more row that is only in its ``-wal`` file
    (copied while the writer still has it open, as a backup of a running app would be), and
    the number of rows it holds. ``side_files``: ``none`` (closed cleanly: no ``-wal`` /
    ``-shm``), ``both``, or ``wal`` (the ``-shm`` not copied)."""
    work, out = tmp_path / "writer", tmp_path / "copy"
    work.mkdir()
    out.mkdir()
    db = work / "s.db"
    db.write_bytes((SESSIONS / "agents_sessions.db").read_bytes())
    conn = sqlite3.connect(db)
    assert conn.execute("PRAGMA journal_mode = WAL").fetchone() == ("wal",)
    conn.execute("PRAGMA wal_autocheckpoint = 0")
    conn.execute("INSERT INTO agent_messages (session_id, message_data) VALUES ('math-chat', ?)", ['{"role": "user", "content": "only in the WAL"}'])
    conn.commit()
    rows = conn.execute("SELECT count(*) FROM agent_messages").fetchone()[0]
    if side_files == "none":
        conn.close()  # the last connection checkpoints and removes the side files
    for name in ("s.db", "s.db-wal", "s.db-shm"):
        if (work / name).exists() and (name == "s.db" or side_files == "both" or (side_files == "wal" and name == "s.db-wal")):
            (out / name).write_bytes((work / name).read_bytes())
    conn.close()
    return out / "s.db", rows


def _listing(folder: Path) -> dict[str, tuple[bytes, int]]:
    """Each file's bytes and mtime, the ``-shm`` index too: a reader of the user's WAL database
    would write its read marks there, so the WAL is read from a private copy instead."""
    return {p.name: (p.read_bytes(), p.stat().st_mtime_ns) for p in folder.iterdir()}


@pytest.mark.parametrize("side_files", ["none", "both", "wal"])
def test_a_wal_database_reads_whole_and_nothing_is_written_beside_it(tmp_path: Path, side_files: str) -> None:
    path, rows = _wal_database(tmp_path, side_files)
    assert path.read_bytes()[18:20] == b"\x02\x02"  # the header says WAL
    before = _listing(path.parent)
    threads = threadlab.read_all(path)
    assert sum(t.account.records for t in threads) == rows
    assert "only in the WAL" in [a.content for t in threads for a in t.actions if a.action_type == "user_message"]
    assert _listing(path.parent) == before  # no -wal/-shm created, the database and its WAL unchanged
    assert sum(t.account.records for t in threadlab.read_all(path.read_bytes(), "openai-agents-session")) == rows - (side_files != "none")  # bytes: no WAL beside them


_READ_COUNT = "import sys, threadlab; print(sum(t.account.records for t in threadlab.read_all(sys.argv[1])))"


def _read_in_read_only_folder(folder: Path, path: Path) -> str:
    """Read ``path`` in a subprocess that cannot write to ``folder``: as a user other than root
    the folder's mode is enough; root writes anywhere, so the folder is bind-mounted read-only
    in a mount namespace of its own (``unshare``)."""
    import os
    import shutil
    import subprocess
    import sys

    if os.geteuid() != 0:
        folder.chmod(0o555)
        try:
            return subprocess.run([sys.executable, "-c", _READ_COUNT, str(path)], capture_output=True, text=True, check=True).stdout
        finally:
            folder.chmod(0o755)
    if shutil.which("unshare") is None:
        pytest.skip("running as root without unshare: no way to make a folder read-only for root")
    script = f'mount --bind -o ro "{folder}" "{folder}" && touch "{folder}/probe" 2>/dev/null && exit 3; exec "{sys.executable}" -c "$0" "{path}"'
    done = subprocess.run(["unshare", "--user", "--map-root-user", "--mount", "sh", "-c", script, _READ_COUNT], capture_output=True, text=True)
    if done.returncode == 3:
        raise AssertionError("the read-only bind mount is writable")
    if done.returncode and "unshare failed" in done.stderr:
        pytest.skip(f"user namespaces are not allowed here: {done.stderr.strip()}")
    assert done.returncode == 0, done.stderr
    return done.stdout


@pytest.mark.parametrize("side_files", ["none", "both", "wal"])
def test_a_wal_database_in_a_read_only_folder_reads_whole(tmp_path: Path, side_files: str) -> None:
    path, rows = _wal_database(tmp_path, side_files)
    assert _read_in_read_only_folder(path.parent, path).strip() == str(rows)


def test_a_rollback_database_in_a_read_only_folder_reads(tmp_path: Path) -> None:
    folder = tmp_path / "ro"
    folder.mkdir()
    (folder / "s.db").write_bytes((SESSIONS / "agents_sessions.db").read_bytes())
    assert _read_in_read_only_folder(folder, folder / "s.db").strip() == str(sum(len(v) for v in _db_items(SESSIONS / "agents_sessions.db").values()))


def _big_database(path: Path, rows: int) -> None:
    conn = sqlite3.connect(path)
    conn.execute("CREATE TABLE agent_messages (id INTEGER PRIMARY KEY AUTOINCREMENT, session_id TEXT NOT NULL, message_data TEXT NOT NULL, created_at TIMESTAMP)")
    item = '{"role": "user", "content": "%s"}'
    conn.executemany("INSERT INTO agent_messages (session_id, message_data) VALUES ('s', ?)", [(item % (f"message {i} " + "x" * 300),) for i in range(1, rows + 1)])
    conn.commit()
    conn.close()


def test_a_table_damaged_in_the_middle_keeps_the_rows_before_and_names_the_first_row_lost(tmp_path: Path) -> None:
    from tests.conformance.containers import sqlite_breaks

    path = tmp_path / "s.db"
    _big_database(path, 200)
    data = bytearray(path.read_bytes())
    page = 4096
    last_leaf = len(data) // page - 1  # a leaf page near the end of the table (0-based page index)
    data[last_leaf * page : last_leaf * page + 100] = b"\xff" * 100
    path.write_bytes(bytes(data))
    ((table, first_lost),) = sqlite_breaks(path)
    assert table == "agent_messages" and 1 < first_lost <= 200
    (thread,) = threadlab.read_all(path, "openai-agents-session", strict=False)
    assert thread.account.records == first_lost - 1  # every row before the damage, none after
    (problem,) = [p for p in thread.problems if p.line is not None]
    assert problem.line == first_lost and f"row {first_lost} of agent_messages " in problem.message and str(path) in problem.message


def test_rows_that_are_not_utf8_are_that_rows_problem_and_the_scan_goes_on(tmp_path: Path) -> None:
    path = tmp_path / "s.db"
    conn = sqlite3.connect(path)
    conn.execute("CREATE TABLE agent_messages (id INTEGER PRIMARY KEY, session_id TEXT, message_data TEXT, created_at TIMESTAMP)")
    good = '{"role": "user", "content": "fine"}'
    rows = [(1, "s", good), (2, "s", b'{"role": "user", "content": "\xff"}'), (3, b"s\xfe", good), (4, "s", good)]
    conn.executemany("INSERT INTO agent_messages (id, session_id, message_data) VALUES (?, ?, CAST(? AS TEXT))", rows)
    conn.commit()
    conn.close()
    threads = threadlab.read_all(path, "openai-agents-session", strict=False)
    assert sum(t.account.records for t in threads) == 4 and sum(t.account.failed for t in threads) == 1
    problems = {p.line: p.message for t in threads for p in t.problems}
    assert "row 2 of agent_messages is not JSON" in problems[2]
    assert "row 3 of agent_messages: session_id not UTF-8; kept with backslash escapes" in problems[3]
    assert {t.thread_id for t in threads} == {"s", "s\\xfe"}


def test_inspect_assistant_message_of_reasoning_alone_is_its_thinking_only() -> None:
    """An assistant message whose content is only a reasoning part (what the writer gives a
    thinking action with no text after it) reads back as that thinking, with no empty message."""
    from threadlab.core.builder import ThreadBuilder

    b = ThreadBuilder("t1", source="x")
    agent = b.agent("solver")
    b.add("user_message", content="hi")
    b.add("thinking", agent_id=agent, content="plan the answer", provider_name="openai")
    b.add("tool_return", tool_call_id="c1", tool_name="lookup", content="42")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", WriteLoss)
        data = get_format("inspect-ai").from_thread(b.build())
    assert orjson.loads(data)["samples"][0]["messages"][1]["content"] == [{"type": "reasoning", "reasoning": "plan the answer"}]
    (back,) = threadlab.read_all(Source(data, name="x.json"), "inspect-ai", strict=False)  # (the return answers no call)
    assert [a.action_type for a in back.actions] == ["user_message", "thinking", "tool_return"]


@pytest.mark.parametrize("writer", ["openai-agents-session", "codex"])
def test_a_return_whose_call_is_not_in_the_thread_loses_its_tool_name_and_says_so(writer: str) -> None:
    """An output item names no tool: read back, a return with no call in the thread is named by
    the item's kind (``function``), so the writer names that loss."""
    from threadlab.core.builder import ThreadBuilder

    b = ThreadBuilder("t2", source="x")
    b.agent("Agent")
    b.add("user_message", content="hi")
    b.add("tool_return", tool_call_id="c9", tool_name="lookup", content="42")
    with pytest.warns(WriteLoss, match="tool names of returns whose call is not in the thread"):
        get_format(writer).from_thread(b.build())
