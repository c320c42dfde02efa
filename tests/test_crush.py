"""Crush databases (``threadlab/formats/crush``): the public ``.crush/crush.db`` files against the
raw counter (``tests/wild/rules_crush.py``, no threadlab), and databases made with Crush's schema
(its migrations: ``sessions``, ``messages`` with ``parts``) for what those files do not hold:
reasoning, a person's shell command, an agent tool's session, parts threadlab does not know, parts
that are no JSON, a WAL database read without a byte of it changing, and the ``.crush`` folder."""

from __future__ import annotations

import hashlib
import sqlite3
from pathlib import Path

import orjson
import pytest

import threadlab as tl
from tests.wild.compare import disagreements
from threadlab.formats import detect_format
from threadlab.formats.common.source import Source

REAL = sorted((Path(__file__).resolve().parent / "fixtures" / "real" / "crush").glob("*.db"))
SCHEMA = """
CREATE TABLE sessions (id TEXT PRIMARY KEY, parent_session_id TEXT, title TEXT NOT NULL, message_count INTEGER NOT NULL DEFAULT 0,
    prompt_tokens INTEGER NOT NULL DEFAULT 0, completion_tokens INTEGER NOT NULL DEFAULT 0, cost REAL NOT NULL DEFAULT 0.0,
    updated_at INTEGER NOT NULL, created_at INTEGER NOT NULL, summary_message_id TEXT, todos TEXT);
CREATE TABLE messages (id TEXT PRIMARY KEY, session_id TEXT NOT NULL, role TEXT NOT NULL, parts TEXT NOT NULL default '[]', model TEXT,
    created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL, finished_at INTEGER, provider TEXT, is_summary_message INTEGER DEFAULT 0 NOT NULL);
CREATE TABLE files (id TEXT PRIMARY KEY, session_id TEXT NOT NULL, path TEXT NOT NULL, content TEXT NOT NULL, version INTEGER NOT NULL DEFAULT 0,
    created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL);
"""


def _parts(*parts: tuple[str, dict[str, object]]) -> str:
    return orjson.dumps([{"type": t, "data": d} for t, d in parts]).decode()


def _db(path: Path, messages: list[tuple[str, str, str, str]], *, wal: bool = False) -> Path:
    """A database in Crush's schema: sessions ``s1`` and ``s1``'s agent tool session ``s2``;
    ``messages`` as (id, session, role, parts)."""
    conn = sqlite3.connect(path)
    if wal:
        conn.execute("PRAGMA journal_mode = WAL")
    conn.executescript(SCHEMA)
    conn.execute("INSERT INTO sessions (id, title, prompt_tokens, completion_tokens, cost, updated_at, created_at) VALUES ('s1', 'Notes', 1200, 40, 0.01, 2, 1)")
    conn.execute("INSERT INTO sessions (id, parent_session_id, title, updated_at, created_at) VALUES ('s2', 's1', 'Find hello', 2, 1)")
    conn.executemany("INSERT INTO messages (id, session_id, role, parts, model, provider, created_at, updated_at) VALUES (?, ?, ?, ?, 'gpt-4.1', 'openai', 1700000000, 1700000000)", messages)
    conn.commit()
    if not wal:
        conn.close()
    return path


MESSAGES = [
    ("m1", "s1", "user", _parts(("text", {"text": "Create notes.txt"}), ("finish", {"reason": "stop", "time": 0}))),
    ("m2", "s1", "assistant", _parts(("reasoning", {"thinking": "Use the shell.", "signature": "sig"}), ("text", {"text": "Writing it."}),
                                     ("tool_call", {"id": "c1", "name": "bash", "input": '{"command": "echo hello > notes.txt"}', "finished": True}),
                                     ("finish", {"reason": "tool_use", "time": 1700000001}))),
    ("m3", "s1", "tool", _parts(("tool_result", {"tool_call_id": "c1", "name": "bash", "content": "", "is_error": False}))),
    ("m4", "s1", "user", _parts(("shell_command", {"command": "ls", "output": "notes.txt\n", "exit_code": 0}))),
    ("m5", "s2", "user", _parts(("text", {"text": "Which files say hello?"}))),
    ("m6", "s2", "assistant", _parts(("tool_call", {"id": "c2", "name": "grep", "input": "not json"}))),
    ("m7", "s2", "tool", _parts(("tool_result", {"tool_call_id": "c2", "name": "grep", "content": "no such file", "is_error": True}))),
]


@pytest.mark.parametrize("path", REAL, ids=lambda p: p.name)
def test_public_databases_count_as_the_raw_counter_does(path: Path) -> None:
    assert detect_format(Source(path)).NAME == "crush"
    assert disagreements(path, "crush") == {}


def test_a_database_made_with_crushs_schema(tmp_path: Path) -> None:
    db = _db(tmp_path / "crush.db", MESSAGES)
    assert disagreements(db, "crush") == {}
    s1, s2 = tl.read_all(Source(db), strict=True)
    assert [a.action_type for a in s1.actions] == ["user_message", "thinking", "assistant_message", "tool_call", "tool_return", "tool_call", "tool_return"]
    assert s1.actions[1].signature == "sig" and s1.actions[3].args == {"command": "echo hello > notes.txt"}  # type: ignore[attr-defined]
    assert s1.actions[1].metadata["crush"]["finish"]["reason"] == "tool_use"  # type: ignore[index]
    assert (s1.actions[5].metadata or {})["author"] == "human" and s1.actions[5].args == {"command": "ls"}  # type: ignore[attr-defined]
    assert s1.metadata["usage_total"] == {"input_tokens": 1200, "output_tokens": 40} and s1.metadata["cost_usd"] == 0.01
    assert s2.parent_thread_id == "s1" and s2.title == "Find hello"
    assert s2.actions[1].args == "not json" and s2.actions[2].status == "error"  # type: ignore[attr-defined]


def test_unknown_parts_and_parts_that_are_no_json_are_named(tmp_path: Path) -> None:
    db = _db(tmp_path / "crush.db", [("m1", "s1", "user", _parts(("text", {"text": "hi"}))), ("m2", "s1", "assistant", _parts(("hologram", {"x": 1}))),
                                     ("m3", "s1", "assistant", "[{broken"), ("m4", "s1", "robot", "[]")])
    s1, _ = tl.read_all(Source(db), strict=False)
    assert sorted((p.rule, p.line) for p in s1.problems if p.rule != "usage-total") == [("json", 3), ("unknown-type", 2), ("unknown-type", 4)]
    assert [a.action_type for a in s1.actions] == ["user_message", "system.unknown_part", "system.unknown_message"]
    assert s1.account.unconverted == 3


def test_a_wal_database_is_read_without_changing_a_byte(tmp_path: Path) -> None:
    folder = tmp_path / ".crush"
    folder.mkdir()
    db = folder / "crush.db"
    writer = sqlite3.connect(db)
    writer.execute("PRAGMA journal_mode = WAL")
    writer.execute("PRAGMA wal_autocheckpoint = 0")
    writer.executescript(SCHEMA)
    writer.execute("INSERT INTO sessions (id, title, updated_at, created_at) VALUES ('s1', 'Live', 1, 1)")
    writer.execute("INSERT INTO messages (id, session_id, role, parts, created_at, updated_at) VALUES ('m1', 's1', 'user', ?, 1, 1)", (_parts(("text", {"text": "hi"})),))
    writer.commit()  # kept open: the rows are in crush.db-wal, as while Crush runs
    (folder / "init").write_bytes(b"")
    before = {p.name: (hashlib.sha256(p.read_bytes()).hexdigest(), p.stat().st_mtime_ns) for p in folder.iterdir()}
    frames = tl.load(folder, progress=False)
    assert {p.name: (hashlib.sha256(p.read_bytes()).hexdigest(), p.stat().st_mtime_ns) for p in folder.iterdir()} == before
    writer.close()
    assert frames.threads.title.tolist() == ["Live"] and frames.actions.text.tolist() == ["hi"]
    assert [(Path(p).name, r) for p, r in zip(frames.skipped.path, frames.skipped.reason, strict=True)] == [("init", "Crush's marker that the project was initialised (empty)")]


def test_an_answer_of_only_a_finish_names_its_model() -> None:
    """A failed or canceled answer holds only a ``finish`` part: its empty message still names
    the model the row says it asked (rnwolf/dbr's first answer is an OpenRouter "API Error")."""
    frames = tl.load(Path(__file__).parent / "fixtures" / "real" / "crush" / "dbr-crush.db", progress=False)
    first = frames.actions[frames.actions.action_type == "assistant_message"].iloc[0]
    assert (first.text, first.model_name) == ("", "openrouter/horizon-alpha")
