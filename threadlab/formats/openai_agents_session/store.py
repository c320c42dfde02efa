"""Where OpenAI Agents SDK sessions are kept: a ``SQLiteSession`` database (or any database
with its two tables) and JSON Lines of session items.

``SQLiteSession(session_id, db_path)`` (``agents/memory/sqlite_session.py``) creates::

    agent_sessions(session_id TEXT PRIMARY KEY, created_at TIMESTAMP, updated_at TIMESTAMP)
    agent_messages(id INTEGER PRIMARY KEY AUTOINCREMENT, session_id TEXT, message_data TEXT,
                   created_at TIMESTAMP)

``message_data`` is one Responses-API input item as JSON (``json.dumps``). The table names can be
changed (``sessions_table=`` / ``messages_table=``): any table with ``session_id`` and
``message_data`` columns is read. The database is opened read-only (``mode=ro``) or, for bytes,
deserialised into memory; only ``SELECT`` runs, on tables named by the schema, quoted."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

SQLITE_MAGIC = b"SQLite format 3\x00"
SESSIONS_TABLE = "agent_sessions"
MESSAGES_TABLE = "agent_messages"


@dataclass(frozen=True, slots=True)
class Row:
    row_id: int
    session_id: Any
    message_data: Any
    created_at: Any


@dataclass(frozen=True, slots=True)
class Session:
    session_id: str
    created_at: Any
    updated_at: Any
    rows: list[Row]
    table: str


def connect(path: Path | None, data: bytes | None) -> sqlite3.Connection:
    """A read-only connection: the file by a ``mode=ro`` URI, or bytes deserialised in memory."""
    if path is not None:
        return sqlite3.connect(path.resolve().as_uri() + "?mode=ro", uri=True)
    conn = sqlite3.connect(":memory:")
    conn.deserialize(data or b"")
    return conn


def _quote(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def message_tables(conn: sqlite3.Connection) -> list[str]:
    """Tables holding session items (``session_id`` and ``message_data`` columns), the SDK's
    default first."""
    names = [r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")]
    found = [n for n in names if {"session_id", "message_data"} <= {r[1] for r in conn.execute(f"PRAGMA table_info({_quote(n)})")}]
    return sorted(found, key=lambda n: (n != MESSAGES_TABLE, n))


@dataclass
class Damage:
    """Where a damaged database stopped being readable: the table, the first row id that could
    not be read (the table's first row, 1 when not even its lowest row id can be read: a
    database's rows are its lines), and SQLite's message."""

    table: str
    next_row: int
    message: str


def first_row(conn: sqlite3.Connection, table: str) -> int:
    """The lowest row id of ``table``, or 1 (where SQLite starts) when that cannot be read."""
    try:
        value = conn.execute(f"SELECT min(rowid) FROM {_quote(table)}").fetchone()[0]
    except sqlite3.DatabaseError:
        return 1
    return value if isinstance(value, int) else 1


def sessions(conn: sqlite3.Connection, damage: list[Damage]) -> Iterator[Session]:
    """Every session of every message table, rows in insertion order (row id). A table that
    breaks off mid-scan (a damaged or truncated file) gives the rows read before the break, and
    a ``Damage`` naming the first row it could not read."""
    info: dict[str, tuple[Any, Any]] = {}
    tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    if SESSIONS_TABLE in tables:
        columns = {r[1] for r in conn.execute(f"PRAGMA table_info({_quote(SESSIONS_TABLE)})")}
        if {"session_id", "created_at", "updated_at"} <= columns:
            try:
                for sid, created, updated in conn.execute(f"SELECT session_id, created_at, updated_at FROM {_quote(SESSIONS_TABLE)}"):
                    info[str(sid)] = (created, updated)
            except sqlite3.DatabaseError as exc:
                damage.append(Damage(SESSIONS_TABLE, first_row(conn, SESSIONS_TABLE), str(exc)))
    for table in message_tables(conn):
        columns = {r[1] for r in conn.execute(f"PRAGMA table_info({_quote(table)})")}
        stamp = "created_at" if "created_at" in columns else "NULL"
        rows: dict[str, list[Row]] = {}
        last: int | None = None
        try:  # a plain scan walks the table in row id order, so a break names the next row
            for row_id, sid, data, created in conn.execute(f"SELECT rowid, session_id, message_data, {stamp} FROM {_quote(table)}"):
                rows.setdefault(str(sid), []).append(Row(row_id, sid, data, created))
                last = row_id
        except sqlite3.DatabaseError as exc:
            damage.append(Damage(table, first_row(conn, table) if last is None else last + 1, str(exc)))
        for sid in sorted(rows):
            created, updated = info.get(sid, (None, None))
            yield Session(sid, created, updated, rows[sid], table)


def database_bytes(session_id: str, items: list[tuple[Any, str, Any]], created: Any, updated: Any) -> bytes:
    """A ``SQLiteSession`` database holding one session (its schema, verbatim), as bytes."""
    conn = sqlite3.connect(":memory:")
    conn.executescript(
        f"""
        CREATE TABLE {SESSIONS_TABLE} (
            session_id TEXT PRIMARY KEY,
            created_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP,
            updated_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP
        );
        CREATE TABLE {MESSAGES_TABLE} (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            session_id TEXT NOT NULL,
            message_data TEXT NOT NULL,
            created_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP,
            FOREIGN KEY (session_id) REFERENCES {SESSIONS_TABLE} (session_id) ON DELETE CASCADE
        );
        CREATE INDEX idx_{MESSAGES_TABLE}_session_id ON {MESSAGES_TABLE} (session_id, id);
        """
    )
    conn.execute(f"INSERT INTO {SESSIONS_TABLE} (session_id, created_at, updated_at) VALUES (?, ?, ?)", (session_id, created, updated))
    rows = [(i, session_id, d, t) for i, d, t in items]  # (row id or None, message_data, created_at)
    conn.executemany(f"INSERT INTO {MESSAGES_TABLE} (id, session_id, message_data, created_at) VALUES (?, ?, ?, ?)", rows)
    conn.commit()
    data = conn.serialize()
    conn.close()
    return bytes(data)
