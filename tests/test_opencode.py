"""opencode (issue 25): the database and the storage/ folders the real program wrote read as one
thread each, the subagent's session inside it; the database stays byte-identical (a running
opencode keeps it in WAL mode); a damaged row costs that row; the data folder reads as a home."""

from __future__ import annotations

import hashlib
import shutil
import sqlite3
import time
from pathlib import Path

import pytest

import threadlab
from tests.wild.compare import disagreements
from threadlab.formats import get_format
from threadlab.formats.common.source import Source

HERE = Path(__file__).resolve().parent / "fixtures" / "opencode"
DB = HERE / "opencode-1.18.33" / "opencode" / "opencode.db"
STORAGE_HOME = HERE / "opencode-1.1.65" / "opencode"
SESSION = next(p for p in (STORAGE_HOME / "storage" / "session" / "global").glob("*.json") if b"parentID" not in p.read_bytes())


def _state(folder: Path) -> dict[str, tuple[str, int]]:
    return {p.name: (hashlib.sha256(p.read_bytes()).hexdigest(), p.stat().st_mtime_ns) for p in sorted(folder.iterdir())}


@pytest.mark.parametrize("source", [DB, STORAGE_HOME], ids=["db", "storage"])
def test_the_subagent_session_is_read_into_its_parents_thread(source: Path) -> None:
    threads = threadlab.read_all(source)
    assert len(threads) == 1, "the child session is no thread of its own"
    thread = threads[0]
    kinds = [a.action_type for a in thread.actions]
    call = next(a for a in thread.actions if a.action_type == "tool_call" and a.tool_name == "task")
    join = next(a for a in thread.actions if a.action_type == "system.agent_join")
    back = next(a for a in thread.actions if a.action_type == "tool_return" and a.tool_name == "task")
    assert join.data["tool_call_id"] == call.tool_call_id and join.data["invited_by"] == "opencode"
    child = join.data["agent_id"]
    between = thread.actions[kinds.index("system.agent_join") + 1 : thread.actions.index(back)]
    assert [a.action_type for a in between] == ["user_message", "thinking", "tool_call", "tool_return", "assistant_message"]
    assert all(getattr(a, "agent_id", child) == child for a in between)
    assert [p.rule for p in thread.problems] == []


@pytest.mark.parametrize("source", [DB, SESSION], ids=["db", "storage"])
def test_counts_and_tokens_equal_the_raw_counters(source: Path) -> None:
    assert disagreements(source, "opencode") == {}


def test_usage_is_all_input_and_output_with_reasoning() -> None:
    """opencode's ``input`` leaves the cached tokens out and ``output`` the reasoning: the first
    response (1500 prompt tokens, 1024 of them cached; 22 completion tokens, 9 reasoning)."""
    (thread,) = threadlab.read_all(DB)
    first = next(a for a in thread.actions if getattr(a, "usage", None) is not None)
    assert first.usage.model_dump(exclude_none=True) == {"input_tokens": 1500, "output_tokens": 22, "total_tokens": 1522, "thinking_tokens": 9, "cache_read_tokens": 1024}


def test_a_database_opencode_has_open_stays_byte_identical(tmp_path: Path) -> None:
    """A running opencode: WAL mode, a change only in the ``-wal`` (its writer still open).
    The change is read; no byte or mtime of the folder changes and no file is added."""
    folder = tmp_path / "opencode"
    folder.mkdir()
    db = folder / "opencode.db"
    shutil.copyfile(DB, db)
    writer = sqlite3.connect(db)
    try:
        writer.execute("PRAGMA journal_mode = WAL")
        writer.execute("PRAGMA wal_autocheckpoint = 0")
        writer.execute("UPDATE session SET title = 'renamed while open' WHERE parent_id IS NULL")
        writer.commit()
        assert (folder / "opencode.db-wal").stat().st_size > 0
        before = _state(folder)
        time.sleep(0.02)
        (thread,) = threadlab.read_all(db)
        threadlab.load(folder, progress=False, cache=False)
        assert _state(folder) == before
        assert thread.title == "renamed while open"
    finally:
        writer.close()


def test_a_damaged_row_costs_that_row(tmp_path: Path) -> None:
    db = tmp_path / "opencode.db"
    shutil.copyfile(DB, db)
    conn = sqlite3.connect(db)
    conn.execute("UPDATE part SET data = '{not json' WHERE rowid = 3")
    conn.execute("UPDATE part SET message_id = 'msg_gone' WHERE rowid = 4")
    conn.commit()
    conn.close()
    (thread,) = threadlab.read_all(db, strict=False)
    assert thread.account.records == 35 and thread.account.failed == 1
    messages = [p.message for p in thread.problems]
    assert any("row 3 of table part" in m and "not JSON" in m for m in messages), messages
    assert any("msg_gone" in m for m in messages), messages
    with pytest.raises(threadlab.ThreadError):
        threadlab.read_all(db, strict=True)


def test_the_data_folder_reads_as_a_home(tmp_path: Path) -> None:
    """``~/.local/share/opencode``: the database is read; logs, programs, snapshots and
    credentials are listed as skipped; the storage/ an older release left is not read again."""
    home = tmp_path / "opencode"
    home.mkdir()
    shutil.copyfile(DB, home / "opencode.db")
    shutil.copytree(STORAGE_HOME / "storage", home / "storage")
    for name in ("log", "bin", "snapshot"):
        (home / name).mkdir()
        (home / name / "x").write_text("x")
    (home / "auth.json").write_text('{"secret": 1}')
    frames = threadlab.load(home, progress=False, cache=False)
    assert len(frames.threads) == 1
    skipped = {Path(p).name: r for p, r in zip(frames.skipped["path"], frames.skipped["reason"], strict=True)}
    assert set(skipped) == {"log", "bin", "snapshot", "auth.json", "storage"}
    assert "never opened" in skipped["auth.json"]


def test_a_storage_folder_reads_each_session_once() -> None:
    """Walking ``storage/``: the subagent's session file is read with its parent's, the
    message and part folders with their session."""
    frames = threadlab.load(STORAGE_HOME / "storage", progress=False, cache=False)
    assert len(frames.threads) == 1 and frames.threads["n_records"].sum() == 35


def test_opencode_is_not_written() -> None:
    (thread,) = threadlab.read_all(DB)
    with pytest.raises(ValueError, match="does not write opencode"):
        get_format("opencode").from_thread(thread)


def test_a_session_file_in_memory_reads_without_its_folders() -> None:
    (thread,) = get_format("opencode").to_threads(Source(SESSION.read_bytes(), name="s.json"))
    assert thread.title == "Notes file and a subagent" and thread.account.records == 1


def test_a_title_that_is_not_utf8_is_kept_and_named(tmp_path: Path) -> None:
    db = tmp_path / "opencode.db"
    shutil.copyfile(DB, db)
    conn = sqlite3.connect(db)
    conn.execute("UPDATE session SET title = CAST(X'6e6f74ff7574663820' AS TEXT) WHERE parent_id IS NULL")
    conn.commit()
    conn.close()
    (thread,) = threadlab.read_all(db, strict=False)
    assert thread.title == "not\\xffutf8 "
    assert any("row 1 of table session: " in p.message and "title" in p.message and "not UTF-8" in p.message for p in thread.problems), [p.message for p in thread.problems]
