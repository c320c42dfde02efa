"""ADK's SQLite session store: ``<agent>/.adk/session.db`` (what ``adk web`` and ``adk run`` keep
by default, ``SqliteSessionService``) and the v1 schema of ``DatabaseSessionService`` on SQLite
(``--session_service_uri sqlite:///...``): tables ``sessions`` (``app_name``, ``user_id``, ``id``,
``state`` JSON, ``create_time``, ``update_time``) and ``events`` (``id``, ``app_name``, ``user_id``,
``session_id``, ``invocation_id``, ``timestamp``, ``event_data``: the event as
``model_dump_json(exclude_none=True)``). ``app_states`` / ``user_states`` hold state shared by the
app's or user's sessions, no conversation, and are not read. (``DatabaseSessionService``'s first
schema kept an event's fields in columns, pickled actions among them: not read.)

Opened read-only with nothing written beside it, only the stored columns selected, in row id
order (the OpenAI Agents session format's ``opening`` and ``store``). A record is a row of
``sessions`` (the thread's metadata) or of ``events``; events whose session row is missing make
a thread of their own."""

from __future__ import annotations

import sqlite3
from typing import Any

import orjson

from threadlab.core.builder import ThreadBuilder
from threadlab.core.model import Thread
from threadlab.core.problems import Problem, ThreadError
from threadlab.formats.common.source import Source
from threadlab.formats.common.sqlite import SQLITE_MAGIC, Damage, Tables, opened, scan, schema, with_file_problems
from threadlab.formats.google_adk.reading import Record, read_events
from threadlab.formats.google_adk.wire import KEY

SESSION_COLUMNS = ("app_name", "user_id", "id")
EVENT_COLUMNS = ("app_name", "user_id", "session_id", "event_data")


def is_adk_db_head(head: bytes) -> bool:
    return head.startswith(SQLITE_MAGIC)


def is_adk_db(tables: Tables) -> bool:
    return set(SESSION_COLUMNS) <= set(tables.get("sessions", ())) and set(EVENT_COLUMNS) <= set(tables.get("events", ()))


def _text(value: Any) -> Any:
    return value.decode("utf-8", "backslashreplace") if isinstance(value, bytes) else value


def _json(value: Any) -> tuple[Any, str | None]:
    try:
        return orjson.loads(value) if isinstance(value, bytes | str) else value, None
    except orjson.JSONDecodeError as exc:
        return None, f"holds no JSON ({exc})"


def _rows(conn: sqlite3.Connection, tables: Tables, damage: list[Damage]) -> tuple[dict[tuple[Any, ...], tuple[int, dict[str, Any]]], dict[tuple[Any, ...], list[Record]]]:
    sessions: dict[tuple[Any, ...], tuple[int, dict[str, Any]]] = {}
    for row_id, row in scan(conn, "sessions", tables["sessions"], damage):
        values = {k: _text(v) for k, v in row.items()}
        sessions[(values["app_name"], values["user_id"], values["id"])] = (row_id, values)
    events: dict[tuple[Any, ...], list[Record]] = {}
    for row_id, row in scan(conn, "events", tables["events"], damage):
        key = tuple(_text(row[k]) for k in ("app_name", "user_id", "session_id"))
        value, error = _json(row.get("event_data"))
        if error is None and type(value) is not dict:
            value, error = None, f"holds {type(value).__name__}, no event object"
        events.setdefault(key, []).append(Record(value, row_id, f"row {row_id} of table events", error and f"{error}; its event is lost"))
    return sessions, events


def is_adk_database(source: Source) -> bool:
    """Whether the database has ADK's ``sessions`` and ``events`` tables."""
    try:
        with opened(source.path, None if source.path is not None else source.data) as conn:
            return is_adk_db(schema(conn, []))
    except (sqlite3.Error, OSError):
        return False


def database_threads(source: Source) -> list[Thread]:
    """The sessions of an ADK ``session.db`` as threads, in the order of their rows."""
    damage: list[Damage] = []
    try:
        with opened(source.path, None if source.path is not None else source.data) as conn:
            tables = schema(conn, damage)
            if not is_adk_db(tables):
                if damage:
                    raise ThreadError([Problem("io", d.describe(source.name), source=source.name, line=d.next_row) for d in damage])
                raise source.error("format", "is an SQLite database without ADK's sessions and events tables")
            sessions, events = _rows(conn, tables, damage)
    except (sqlite3.Error, OSError) as exc:
        raise source.error("io", f"cannot be opened as an SQLite database ({exc})") from None
    threads = [_thread(source, key, sessions.get(key), events.pop(key, [])) for key in list(sessions)]
    threads += [_thread(source, key, None, rows) for key, rows in events.items()]
    size = source.path.stat().st_size if source.path is not None else len(source.data)
    return with_file_problems(threads, damage, source.name, source.head(100), size, "ADK session")


def _thread(source: Source, key: tuple[Any, ...], session: tuple[int, dict[str, Any]] | None, records: list[Record]) -> Thread:
    b = ThreadBuilder(str(key[2]), source=source.name)
    head: dict[str, Any] = {"app_name": key[0], "user_id": key[1]}
    if session is None:
        b.problem("unknown-id", f"events of session {key[2]!r} (app {key[0]!r}, user {key[1]!r}) have no row of table sessions")
    else:
        row_id, values = session
        head = {k: v for k, v in values.items() if k != "state"}
        state, error = _json(values.get("state"))
        if error is None:
            head["state"] = state
            b.took()
        else:
            head["state"] = values.get("state")
            b.kept("json", f"row {row_id} of table sessions: its state {error}; kept as text", line=row_id)
    return read_events(b, records, head)


__all__ = ["KEY", "database_threads", "is_adk_database", "is_adk_db", "is_adk_db_head"]
