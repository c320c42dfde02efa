"""Crush's per-project database, ``.crush/crush.db`` (SQLite, made by goose migrations in
``internal/db/migrations/`` of charmbracelet/crush), read into sessions with their messages.

- ``sessions``: ``id``, ``parent_session_id`` (a session an agent tool started), ``title``,
  ``message_count``, ``prompt_tokens``, ``completion_tokens``, ``cost``, ``created_at`` /
  ``updated_at`` (Unix seconds), ``summary_message_id``, ``todos`` (later releases);
- ``messages``: ``id``, ``session_id``, ``role`` (``user``, ``assistant``, ``tool``, ``system``),
  ``parts`` (a JSON array of ``{type, data}``: ``text``, ``reasoning``, ``tool_call``,
  ``tool_result``, ``finish``, ``image_url``, ``binary``, ``shell_command``), ``model``,
  ``provider``, ``created_at``, ``updated_at``, ``finished_at``, ``is_summary_message``.

The database is opened as opencode's is (``common/sqlite.py`` ``opened``: read-only,
nothing written beside it, a WAL database with a ``-wal`` read from a private copy), only the
stored columns of these two tables are selected, in row id order. ``files`` (the file versions
Crush's edits made), ``read_files`` and ``goose_db_version`` hold no conversation and are not
read: only scanned, a row at a time, so that damage in them is named as it is in the two read
(the rows of a damaged file are what a user is told about, table by table)."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from threadlab.formats.common.sqlite import Damage, Tables, opened, scan, schema

SESSION_COLUMNS = frozenset({"id", "parent_session_id", "title", "prompt_tokens", "completion_tokens", "cost", "created_at"})
MESSAGE_COLUMNS = frozenset({"id", "session_id", "role", "parts", "created_at"})


@dataclass
class Row:
    """A row: its values (text decoded), its row id, and the text columns that were not UTF-8."""

    values: dict[str, Any]
    row_id: int
    undecodable: tuple[str, ...] = ()


@dataclass
class Session:
    row: Row | None  # None: messages whose session row is not there
    id: str
    parent: str | None
    messages: list[Row] = field(default_factory=list)


def is_crush_db(tables: Tables) -> bool:
    """Crush's two tables with the columns read (``parts`` is what tells them from opencode's)."""
    return SESSION_COLUMNS <= set(tables.get("sessions", ())) and MESSAGE_COLUMNS <= set(tables.get("messages", ()))


def _row(row_id: int, row: dict[str, Any]) -> Row:
    values, bad = {}, []
    for name, value in row.items():
        if isinstance(value, bytes):
            try:
                value = value.decode()
            except UnicodeDecodeError:
                value, _ = value.decode("utf-8", "backslashreplace"), bad.append(name)
        values[name] = value
    return Row(values, row_id, tuple(bad))


def database_sessions(path: Path | None, data: bytes | None, damage: list[Damage]) -> tuple[list[Session], bool]:
    """Every session (row id order) with its messages (row id order), and whether the file is a
    Crush database at all."""
    with opened(path, data) as conn:
        tables = schema(conn, damage)
        if not is_crush_db(tables):
            return [], False
        sessions: dict[str, Session] = {}
        for row_id, raw in scan(conn, "sessions", tables["sessions"], damage):
            row = _row(row_id, raw)
            sid = str(row.values.get("id"))
            parent = row.values.get("parent_session_id")
            sessions[sid] = Session(row, sid, parent if isinstance(parent, str) and parent else None)
        loose: list[Row] = []
        for row_id, raw in scan(conn, "messages", tables["messages"], damage):
            row = _row(row_id, raw)
            owner = sessions.get(str(row.values.get("session_id")))
            (owner.messages if owner is not None else loose).append(row)
        for table in sorted(set(tables) - {"sessions", "messages"}):  # not read, but a break in them is named
            for _ in scan(conn, table, tables[table], damage):
                pass
    found = list(sessions.values())
    if loose:
        found.append(Session(None, "orphans", None, loose))
    return found, True
