"""Where OpenAI Agents SDK sessions are kept: a ``SQLiteSession`` database (or any database
with its two tables) and JSON Lines of session items.

``SQLiteSession(session_id, db_path)`` (``agents/memory/sqlite_session.py``) creates::

    agent_sessions(session_id TEXT PRIMARY KEY, created_at TIMESTAMP, updated_at TIMESTAMP)
    agent_messages(id INTEGER PRIMARY KEY AUTOINCREMENT, session_id TEXT, message_data TEXT,
                   created_at TIMESTAMP)

``message_data`` is one Responses-API input item as JSON (``json.dumps``). The table names can be
changed (``sessions_table=`` / ``messages_table=``): any table with ``session_id`` and
``message_data`` columns is read. The database is opened and read as every SQLite format's is
(``common/sqlite.py``: read-only, nothing written beside it, only the stored columns selected,
damage costing only the rows it makes unreadable)."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from threadlab.formats.common.sqlite import Damage, Tables, scan, texts

SESSIONS_TABLE = "agent_sessions"
MESSAGES_TABLE = "agent_messages"


@dataclass(frozen=True, slots=True)
class Row:
    row_id: int
    session_id: Any
    message_data: Any
    created_at: Any
    undecodable: tuple[str, ...] = ()  # text columns that are not UTF-8 (kept with backslash escapes)


@dataclass(frozen=True, slots=True)
class Session:
    session_id: str
    created_at: Any
    updated_at: Any
    rows: list[Row]
    table: str
    undecodable: tuple[str, ...] = ()  # columns of its agent_sessions row that are not UTF-8


def message_tables(tables: Tables) -> list[str]:
    """Tables holding session items (``session_id`` and ``message_data`` columns), the SDK's
    default first."""
    found = [n for n, columns in tables.items() if {"session_id", "message_data"} <= set(columns)]
    return sorted(found, key=lambda n: (n != MESSAGES_TABLE, n))


def sessions(conn: sqlite3.Connection, tables: Tables, damage: list[Damage]) -> Iterator[Session]:
    """Every session of every message table, rows in insertion order (row id). The other
    tables are scanned too, so damage anywhere in the file's rows is named."""
    info: dict[str, tuple[Any, Any, tuple[str, ...]]] = {}
    read = set(message_tables(tables))
    if {"session_id", "created_at", "updated_at"} <= set(tables.get(SESSIONS_TABLE, ())):
        read.add(SESSIONS_TABLE)
        for _, row in scan(conn, SESSIONS_TABLE, tables[SESSIONS_TABLE], damage):
            (sid, created, updated), bad = texts(("session_id", "created_at", "updated_at"), row)
            info[str(sid)] = (created, updated, bad)
    for table in message_tables(tables):
        rows: dict[str, list[Row]] = {}
        for row_id, row in scan(conn, table, tables[table], damage):
            (sid, created), bad = texts(("session_id", "created_at"), row)
            rows.setdefault(str(sid), []).append(Row(row_id, sid, row["message_data"], created, bad))
        for sid in sorted(rows):
            created, updated, bad = info.get(sid, (None, None, ()))
            yield Session(sid, created, updated, rows[sid], table, bad)
    for table in sorted(set(tables) - read):  # the other tables (sqlite_sequence ...): is any damaged?
        for _ in scan(conn, table, tables[table], damage):
            pass


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
