"""Where Goose keeps its sessions, read into one shape: sessions, each with its messages.

- ``sessions.db`` (Goose 1.10 and later; ``~/.local/share/goose/sessions/``): table
  ``sessions`` (one row a session: ``id`` such as ``20250929_3``, ``name`` / ``description``,
  ``working_dir``, ``session_type`` — ``user``, ``scheduled``, ``sub_agent``, ``hidden``, ``acp`` —,
  token totals ``accumulated_*_tokens``, ``accumulated_cost``, ``provider_name``,
  ``model_config_json`` ...) and ``messages`` (``id``, ``message_id``, ``session_id``, ``role``,
  ``content_json``: the ``MessageContent`` array, ``created_timestamp`` in seconds,
  ``metadata_json``); the schema as ``crates/goose/src/session`` creates and migrates it. The
  database is opened read-only and nothing is written beside it (``opened`` of
  ``common/sqlite.py``); the stored columns of the two tables are selected, in row id
  order. Its other tables (``schema_version``, ``threads``, ``thread_messages``, the provider
  inventory) hold no conversation: they are scanned only so that damage in them is named.
- ``sessions/<id>.jsonl`` (earlier releases, which Goose imports into the database once): a
  first line of session fields (``working_dir``, ``description``, token totals), then one
  message a line (``role``, ``created``, ``content``, ``id``, ``metadata``)."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson

from threadlab.formats.common.sqlite import Damage, Tables, opened, scan, schema, texts

SESSION_COLUMNS = frozenset({"id", "working_dir"})
MESSAGE_COLUMNS = frozenset({"session_id", "role", "content_json", "created_timestamp"})


@dataclass
class Record:
    """One input record: a session's fields or a message (None when it could not be read),
    where it is, its row id (or line), and why it could not be read."""

    value: Any
    where: str
    line: int = 0
    error: str | None = None
    undecodable: tuple[str, ...] = ()


@dataclass
class Session:
    record: Record
    id: str
    messages: list[Record] = field(default_factory=list)


def is_goose_db(tables: Tables) -> bool:
    return SESSION_COLUMNS <= set(tables.get("sessions", ())) and MESSAGE_COLUMNS <= set(tables.get("messages", ()))


def _json(value: Any) -> tuple[Any, str | None]:
    if value is None:
        return None, None
    try:
        return orjson.loads(value), None
    except orjson.JSONDecodeError as exc:
        return None, f"is not JSON ({exc})"


def _session(row_id: int, row: dict[str, Any]) -> Session:
    names = tuple(row)
    values, bad = texts(names, row)
    fields = dict(zip(names, values, strict=True))
    return Session(Record(fields, f"row {row_id} of table sessions", row_id, undecodable=bad), str(fields.get("id")))


def _message(row_id: int, row: dict[str, Any]) -> tuple[str, Record]:
    (sid, role, content, metadata, message_id), bad = texts(("session_id", "role", "content_json", "metadata_json", "message_id"), row)
    where = f"row {row_id} of table messages"
    parts, error = _json(content)
    meta, meta_error = _json(metadata)
    if error is None and not isinstance(parts, list):
        error = f"is a JSON {type(parts).__name__}, not an array of parts"
    if error is not None:
        return str(sid), Record(None, where, row_id, f"content_json {error}", bad)
    value: dict[str, Any] = {"role": role, "created": row.get("created_timestamp"), "content": parts}
    if message_id is not None:
        value["id"] = message_id
    if meta_error is not None:
        value["metadata_json"] = metadata  # kept as it came
    elif isinstance(meta, dict):
        value["metadata"] = meta
    return str(sid), Record(value, where, row_id, f"metadata_json {meta_error}" if meta_error else None, bad)


def database_sessions(path: Path | None, data: bytes | None, damage: list[Damage]) -> tuple[list[Session], bool]:
    """Every session of a ``sessions.db`` with its messages (row id order), and whether the
    file is one at all. Messages whose session has no row are a session of their own (``orphans``)."""
    with opened(path, data) as conn:
        tables = schema(conn, damage)
        if not is_goose_db(tables):
            return [], False
        sessions: dict[str, Session] = {}
        for row_id, row in scan(conn, "sessions", tables["sessions"], damage):
            session = _session(row_id, row)
            sessions[session.id] = session
        loose: list[Record] = []
        for row_id, row in scan(conn, "messages", tables["messages"], damage):
            sid, record = _message(row_id, row)
            (sessions[sid].messages if sid in sessions else loose).append(record)
        for table in sorted(set(tables) - {"sessions", "messages"}):  # no conversation, but is any damaged?
            for _ in scan(conn, table, tables[table], damage):
                pass
    found = list(sessions.values())
    if loose:
        found.append(Session(Record(None, "no session row", 0, "missing"), "orphans", loose))
    return found, True


__all__ = ["Damage", "Record", "Session", "database_sessions", "is_goose_db"]
