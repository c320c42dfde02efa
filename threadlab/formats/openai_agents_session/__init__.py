"""OpenAI Agents SDK sessions and item lists → one thread per session (and a thread back).

Read: a ``SQLiteSession`` database file (``.db`` / ``.sqlite``; every session in it is a
thread; opened read-only, nothing in it is executed), JSON Lines of session items (one
Responses-API input item a line), and a bare JSON array of them (``json.dump(await
session.get_items())``, ``result.to_input_list()``, from the Python or the JS SDK), or the same
list in memory. The items are read with the Agents SDK's meaning (handoffs, runs, failed tools:
``common/responses/agents_sdk.py``).

Detection: a database with a table of ``session_id`` and ``message_data`` columns; a JSON array
of provider messages at least one of which only the Responses API has (a ``function_call``,
``reasoning``, a message with ``input_text`` / ``output_text`` parts or ``"type": "message"``
...: ``providers.kinds.list_kind`` says ``responses``); JSON Lines whose first lines are such
messages (plain ``{"role", "content"}`` lines too: nothing else reads those one a line), items
an app wrote itself beside them (a ``type`` or ``role`` of its own) allowed when fewer. Not
claimed: request bodies and responses (``{"input": ...}``, ``{"object": "response"}``: the
``openai-responses`` format), items tagged with agency-swarm's ``agent`` / ``callerAgent``
(``agency-swarm``), lists a Chat Completions or Anthropic field decides."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

import orjson

from threadlab.core.finite import refuses_non_finite
from threadlab.core.model import Thread
from threadlab.formats.common.json_lines import complete_lines
from threadlab.formats.common.providers.kinds import RESPONSES, list_kind, other_formats_keys
from threadlab.formats.common.source import Source
from threadlab.formats.common.sqlite import SQLITE_MAGIC, Damage, opened, schema, with_file_problems
from threadlab.formats.openai_agents_session.reading import KEY, SessionReader, from_agents_session, read_items
from threadlab.formats.openai_agents_session.store import SESSIONS_TABLE, Session, message_tables, sessions
from threadlab.formats.openai_agents_session.writing import write_session

NAME = "openai-agents-session"
_MARKERS = (b'"type"', b'"role"')  # every item has one: a head without either is no item list
_SNIFF_LINES = 50


def is_item_list(value: Any, *, lines: bool = False) -> bool:
    """Agents SDK items with no envelope: a list of Responses input items, at least one of a
    kind only the Responses API has (``lines``: JSON Lines, where plain ``{"role", "content"}``
    messages are items too). Items an app wrote itself beside them (a ``type`` of its own, a
    ``role`` of its own: the reader keeps them with a problem) do not stop it, when the standard
    items are more and one of them is a Responses-only kind."""
    if not isinstance(value, list) or not value:
        return False
    sample = value[:_SNIFF_LINES]
    if list_kind(sample, hint=RESPONSES if lines else "") == RESPONSES:
        return True
    known = [item for item in sample if list_kind([item]) is not None]
    apps = [item for item in sample if list_kind([item]) is None]
    return len(known) > len(apps) and all(_app_item(item) for item in apps) and list_kind(known) == RESPONSES


def _app_item(item: Any) -> bool:
    """An item an app wrote into its session: an object with a ``type`` or ``role`` of its own
    and no key that makes it another format's record."""
    return isinstance(item, dict) and (isinstance(item.get("type"), str) or isinstance(item.get("role"), str)) and not other_formats_keys(item)


def detect(source: Source) -> bool:
    if source.is_dir:
        return False
    if source.is_object:
        return is_item_list(source.obj)
    head = source.head(65536)
    if head.startswith(SQLITE_MAGIC):
        try:
            with opened(source.path, None if source.path is not None else source.data) as conn:
                return bool(message_tables(schema(conn, [])))
        except (sqlite3.Error, OSError):
            return False
    if not any(marker in head for marker in _MARKERS):
        return False
    if head.lstrip()[:1] == b"[":
        return is_item_list(source.try_json())
    return is_item_list(_head_lines(head), lines=True)


def _head_lines(head: bytes) -> list[Any] | None:
    """The complete JSON Lines lines of the head, parsed (None when one is not JSON, or the head
    is one line with no newline: a JSON document). A torn last line (cut by the head's end, or
    a running agent's line still being written) is left out."""
    lines = complete_lines(head)
    if not lines or b"\n" not in head:
        return None
    try:
        return [orjson.loads(line) for line in lines[:_SNIFF_LINES]]
    except orjson.JSONDecodeError:
        return None


def to_threads(source: Source) -> list[Thread]:
    stem = Path(source.name).stem if source.name and not source.name.startswith("<") else "session"
    if source.is_object:
        if not isinstance(source.obj, list):
            raise source.error("format", f"is a {type(source.obj).__name__}, not a list of Agents SDK items")
        return [from_agents_session(source.obj, session_id=stem, source=source.name)]
    head = source.head(64)
    if head.startswith(SQLITE_MAGIC) or source.suffix in (".db", ".sqlite", ".sqlite3"):
        return _database_threads(source)
    if head.lstrip()[:1] == b"[":
        value = source.try_json()
        if isinstance(value, list):
            return [from_agents_session(value, session_id=stem, source=source.name)]
        if value is not None or not _first_line_is_object(source):
            source.json()  # raises: a broken JSON document, naming its line
            raise source.error("format", "is JSON but no list of Agents SDK items")
    return [read_items(source.lines(), stem, source.name)]


def _first_line_is_object(source: Source) -> bool:
    """JSON Lines (of arrays too), not a broken JSON document: the first line is whole JSON."""
    for _, line in source.lines():
        if line.strip():
            try:
                orjson.loads(line)
                return True
            except orjson.JSONDecodeError:
                return False
    return False


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
    size = source.path.stat().st_size if source.path is not None else len(source.data)
    return with_file_problems(threads, damage, source.name, source.head(100), size, "session items")


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


@refuses_non_finite
def from_thread(thread: Thread, container: str | None = None) -> bytes:
    """The thread as a session: a ``SQLiteSession`` database (``container="sqlite"``) or JSON
    Lines of items (``"jsonl"``); see ``writing.py``."""
    return write_session(thread, container)


__all__ = ["KEY", "NAME", "detect", "from_agents_session", "from_thread", "is_item_list", "to_threads"]
