"""Read-only means read-only (issue 24 §7): reading an SQLite session database changes no byte
and no mtime of the database, its ``-wal``, ``-shm`` or ``-journal``, and creates no file
beside it, in every journal mode, closed cleanly or copied while a writer had it open (rows
only in the WAL, an uncommitted transaction left in a hot journal or WAL). Opening a WAL
database with its ``-shm`` there ``mode=ro`` rewrote the ``-shm``; it is now read from a
private copy (``formats/common/sqlite.py``)."""

from __future__ import annotations

import hashlib
import shutil
import sqlite3
import time
from pathlib import Path

import pytest

import threadlab

from .hostile import session_db

MODES = ["delete", "truncate", "persist", "memory", "wal", "off"]


def _copy_while_open(db: Path, *, commit: bool) -> None:
    """One more message written by a connection that is still open when the folder is copied
    (a backup of a running app, or what a crash leaves): committed, or left uncommitted; the
    copy then takes the folder's place."""
    conn = sqlite3.connect(db)
    conn.execute("PRAGMA wal_autocheckpoint = 0")
    conn.execute("PRAGMA cache_spill = 1")
    conn.execute("BEGIN")
    conn.execute("INSERT INTO agent_messages (session_id, message_data) VALUES ('s', '{\"role\": \"user\", \"content\": \"late\"}')")
    if commit:
        conn.commit()
        conn.execute("BEGIN")
    copy = db.parent.with_name(db.parent.name + "-copy")
    shutil.copytree(db.parent, copy)
    conn.rollback()
    conn.close()
    shutil.rmtree(db.parent)
    copy.rename(db.parent)


def _state(folder: Path) -> dict[str, tuple[str, int, int]]:
    return {p.name: (hashlib.sha256(p.read_bytes()).hexdigest(), p.stat().st_mtime_ns, p.stat().st_size) for p in sorted(folder.iterdir())}


@pytest.mark.parametrize("state", ["closed", "committed", "uncommitted"])
@pytest.mark.parametrize("mode", MODES)
def test_reading_changes_no_byte_and_no_mtime_in_any_journal_mode(mode: str, state: str, tmp_path: Path) -> None:
    folder = tmp_path / "db"
    folder.mkdir()
    db = session_db(folder / "s.db", journal_mode=mode, rows=2)
    if state != "closed":
        _copy_while_open(db, commit=state == "committed")
    if mode == "wal" and state != "closed":
        assert {"s.db-wal", "s.db-shm"} <= set(_state(folder))
    before = _state(folder)
    time.sleep(0.02)  # an mtime written now would differ
    for _ in range(2):  # detection and reading, twice
        threads = threadlab.read_all(db)
        frames = threadlab.load(db, progress=False, cache=False)
    assert _state(folder) == before
    texts = [a.content for t in threads for a in t.actions]
    assert texts == ["message 0", "message 1", *(["late"] if state == "committed" else [])]
    assert len(frames.actions) == len(texts)


def test_a_wal_database_with_an_empty_wal_and_a_shm_stays_as_it_was(tmp_path: Path) -> None:
    folder = tmp_path / "db"
    folder.mkdir()
    db = session_db(folder / "s.db", journal_mode="wal", rows=2)
    (folder / "s.db-wal").write_bytes(b"")
    (folder / "s.db-shm").write_bytes(bytes(32768))
    before = _state(folder)
    time.sleep(0.02)
    assert [a.content for t in threadlab.read_all(db) for a in t.actions] == ["message 0", "message 1"]
    assert _state(folder) == before
