"""Google ADK sessions → one thread per session: a saved ``Session`` (by field name or by alias:
``session.model_dump_json()``, ``adk run --save_session``, ``adk api_server``'s
``GET .../sessions/<id>``), ``POST /run``'s array of events, and the SQLite ``session.db`` that
``adk web`` / ``adk run`` keep in an agent's ``.adk`` folder (and ``SqliteSessionService`` /
``DatabaseSessionService`` elsewhere). See ``wire.py`` for the JSON, ``store.py`` for the
database, ``reading.py`` for the thread. A reader only: a session is the framework's own store
(its state, invocations, actions), which no other format's thread holds."""

from __future__ import annotations

from typing import Any

from threadlab.core.builder import ThreadBuilder
from threadlab.core.model import Thread
from threadlab.formats.common.json_lines import HEAD, refusal
from threadlab.formats.common.source import Source
from threadlab.formats.google_adk.reading import Record, read_events
from threadlab.formats.google_adk.store import database_threads, is_adk_database, is_adk_db_head
from threadlab.formats.google_adk.wire import KEY, is_event_list, is_session

NAME = "google-adk"
_MARKS = (b'"invocation_id"', b'"invocationId"', b'"app_name"', b'"appName"')  # the first event's, or the session's (before a large state)


def detect(source: Source) -> bool:
    """A JSON session or event array whose head names an invocation id (the first event) or
    the app, or an SQLite database with ADK's ``sessions`` and ``events`` tables."""
    if source.is_dir or source.is_object:
        return False
    head = source.head(HEAD)
    if is_adk_db_head(head):
        return is_adk_database(source)
    if head.lstrip()[:1] not in (b"{", b"[") or not any(m in head for m in _MARKS):
        return False
    value = source.try_json()
    return is_session(value) or is_event_list(value)


def to_threads(source: Source) -> list[Thread]:
    if not source.is_dir and not source.is_object and is_adk_db_head(source.head(HEAD)):
        return database_threads(source)  # (a damaged schema is named there, not refused as no ADK database)
    if not detect(source):
        raise refusal(source, f"is not a Google ADK session (no session with events, event array or session.db: {source.describe()})")
    value = source.try_json()
    b = ThreadBuilder(None, source=source.name)
    if isinstance(value, list):
        return [read_events(b, (Record(v) for v in value), None)]
    return [read_session(b, value)]


def read_session(b: ThreadBuilder, value: dict[str, Any]) -> Thread:
    """A saved session object: its events, its other fields as the thread's metadata."""
    if isinstance(value.get("id"), str) and value["id"]:
        b.thread_id = value["id"]
    if not value["events"]:
        b.took()
    return read_events(b, (Record(v) for v in value["events"]), {k: v for k, v in value.items() if k != "events"})


def from_thread(thread: Thread) -> bytes:
    raise ValueError(f"threadlab does not write Google ADK sessions (thread {thread.thread_id}; a session is the framework's own store: state, invocations, actions): convert to another format, e.g. --to atif")


__all__ = ["KEY", "NAME", "detect", "from_thread", "to_threads"]
