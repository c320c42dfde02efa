"""Goose sessions: counts against the raw counter, a live WAL database read without a byte of
it or its side files changing, and the sessions folder loading as one source."""

from __future__ import annotations

import shutil
import sqlite3
from pathlib import Path

import pytest

import threadlab as tl
from tests.wild.compare import disagreements

SESSIONS = Path(__file__).parent / "fixtures" / "goose" / "sessions"


@pytest.mark.parametrize("name", ["sessions.db", "20250512_101500.jsonl"])
def test_counts_equal_the_raw_counter(name: str) -> None:
    assert disagreements(SESSIONS / name, "goose") == {}


def _state(folder: Path) -> dict[str, tuple[bytes, int]]:
    return {p.name: (p.read_bytes(), p.stat().st_mtime_ns) for p in folder.iterdir()}


def test_a_live_wal_database_is_read_whole_and_left_as_it_was(tmp_path: Path) -> None:
    db = tmp_path / "sessions.db"
    shutil.copyfile(SESSIONS / "sessions.db", db)
    writer = sqlite3.connect(db)  # Goose still running: its connection open, rows in the -wal
    try:
        writer.execute("PRAGMA journal_mode=WAL")
        writer.execute("PRAGMA wal_autocheckpoint=0")
        writer.execute(
            "INSERT INTO messages (session_id, role, content_json, created_timestamp, metadata_json) VALUES ('20250929_2', 'user', ?, 1759154800, NULL)",
            ('[{"type":"text","text":"one more thing"}]',),
        )
        writer.commit()
        assert (tmp_path / "sessions.db-wal").stat().st_size > 0
        before = _state(tmp_path)
        frames = tl.load(db, progress=False)
        assert _state(tmp_path) == before
    finally:
        writer.close()
    texts = frames.actions.loc[frames.actions["thread_id"] == "20250929_2", "text"].tolist()
    assert "one more thing" in texts


def test_the_sessions_folder_loads_as_one_source() -> None:
    frames = tl.load(SESSIONS, progress=False)
    assert sorted(frames.threads["thread_id"]) == ["20250512_101500", "20250929_1", "20250929_2"]
    assert set(frames.threads["format"]) == {"goose"}
    harness = frames.actions[frames.actions["author"] == "harness"]
    assert list(harness["harness_kind"]) == ["meta"]
