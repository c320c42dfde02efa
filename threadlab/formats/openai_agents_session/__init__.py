"""OpenAI Agents SDK sessions → one thread per session (and a thread back to a session).

Read: a ``SQLiteSession`` database file (``.db`` / ``.sqlite``; every session in it is a
thread; opened read-only, nothing in it is executed) and JSON Lines of session items (one
Responses-API input item a line, what ``await session.get_items()`` returns). JSON arrays of
items and request bodies (``{"input": [...]}``) are provider message lists, not sessions; items
tagged with agency-swarm's ``agent`` / ``callerAgent`` are agency-swarm's."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

import orjson

from threadlab.core.model import Thread
from threadlab.core.problems import Problem, ThreadError
from threadlab.formats.openai_agents_session.opening import opened
from threadlab.formats.openai_agents_session.reading import KEY, SessionReader, read_items
from threadlab.formats.openai_agents_session.store import (
    SESSIONS_TABLE,
    SQLITE_MAGIC,
    Damage,
    Session,
    cut_short,
    message_tables,
    schema,
    sessions,
)
from threadlab.formats.openai_agents_session.writing import write_session
from threadlab.formats.source import Source

NAME = "openai-agents-session"
_ITEM_TYPES = frozenset({"message", "function_call", "function_call_output", "reasoning", "custom_tool_call", "custom_tool_call_output",
                         "computer_call", "computer_call_output", "web_search_call", "file_search_call", "local_shell_call",
                         "local_shell_call_output", "mcp_call", "mcp_list_tools", "image_generation_call", "code_interpreter_call",
                         "item_reference", "compaction"})
_OTHER_FORMATS_KEYS = frozenset({"callerAgent", "agent", "parts", "sessionId", "payload", "part_kind", "kind", "action_type"})


def detect(source: Source) -> bool:
    if source.is_dir or source.is_object:
        return False
    head = source.head(65536)
    if head.startswith(SQLITE_MAGIC):
        try:
            with opened(source.path, None if source.path is not None else source.data) as conn:
                return bool(message_tables(schema(conn, [])))
        except (sqlite3.Error, OSError):
            return False
    return _is_item_line(head)


def _is_item_line(head: bytes) -> bool:
    """JSON Lines whose first line is a session item (a Responses input item, no other
    format's keys)."""
    lines = [line for line in head.split(b"\n") if line.strip()]
    if not lines or (len(lines) < 2 and not head.endswith(b"\n")):
        return False
    try:
        first = orjson.loads(lines[0])
    except orjson.JSONDecodeError:
        return False
    if not isinstance(first, dict) or first.keys() & _OTHER_FORMATS_KEYS:
        return False
    kind = first.get("type")
    if kind is None:  # an easy input message: {"role": ..., "content": ...}
        return first.get("role") in ("user", "assistant", "system", "developer") and "content" in first and set(first) <= {"role", "content", "id", "status"}
    return kind in _ITEM_TYPES and ("role" in first or "call_id" in first or kind == "reasoning" or "id" in first)


def to_threads(source: Source) -> list[Thread]:
    head = source.head(64)
    if head.startswith(SQLITE_MAGIC) or source.suffix in (".db", ".sqlite", ".sqlite3"):
        return _database_threads(source)
    stem = Path(source.name).stem if source.name and not source.name.startswith("<") else "session"
    return [read_items(source.lines(), stem, source.name)]


def _database_threads(source: Source) -> list[Thread]:
    threads: list[Thread] = []
    damage: list[Damage] = []
    try:
        with opened(source.path, None if source.path is not None else source.data) as conn:
            tables = schema(conn, damage)
            if not tables and not damage:
                raise source.error("format", "is an SQLite database with no tables")
            if tables and not message_tables(tables):
                raise source.error("format", "is an SQLite database with no Agents SDK session table (session_id, message_data columns)")
            for session in sessions(conn, tables, damage):
                threads.append(_session_thread(session, source.name))
    except (sqlite3.Error, OSError) as exc:
        raise source.error("io", f"cannot be opened as an SQLite database ({exc})") from None
    problems = [Problem("io", d.describe(source.name), source=source.name, line=d.next_row) for d in damage]
    cut = cut_short(source.head(100), source.path.stat().st_size if source.path is not None else len(source.data))
    if cut:
        problems.insert(0, Problem("truncated", f"{source.name} {cut}", source=source.name))
    if not threads:
        raise ThreadError(problems or [Problem("empty", f"{source.name} holds no session items", source=source.name)])
    threads[0].problems = [*threads[0].problems, *problems]
    return threads


def _session_thread(session: Session, name: str) -> Thread:
    meta: dict[str, Any] = {"container": "sqlite", "table": session.table, "created_at": session.created_at, "updated_at": session.updated_at}
    reader = SessionReader(session.session_id, name, {k: v for k, v in meta.items() if v is not None})
    if session.undecodable:
        reader.b.problem("schema", f"the {SESSIONS_TABLE} row of session {session.session_id!r}: {', '.join(session.undecodable)} not UTF-8; kept with backslash escapes")
    for row in session.rows:
        where = f"row {row.row_id} of {session.table}"
        if row.undecodable:
            reader.b.problem("schema", f"{where}: {', '.join(row.undecodable)} not UTF-8; kept with backslash escapes", line=row.row_id)
        reader.add(row.message_data, where=where, line=row.row_id, stamp=row.created_at, memo={"row": row.row_id})
    return reader.build()


def from_thread(thread: Thread, container: str | None = None) -> bytes:
    """The thread as a session: a ``SQLiteSession`` database (``container="sqlite"``) or JSON
    Lines of items (``"jsonl"``); see ``writing.py``."""
    return write_session(thread, container)


__all__ = ["KEY", "NAME", "detect", "from_thread", "to_threads"]
