"""Goose sessions (block/goose): the SQLite ``sessions.db`` of Goose 1.10 and later and the
``sessions/<id>.jsonl`` files of earlier releases → one thread per session.

See ``store.py`` for both layouts and ``reading.py`` for the message parts. Read only: a session
is rows of two tables of a database Goose keeps open. Goose's data folder
(``~/.local/share/goose``: ``sessions/`` beside ``logs/``, ``projects.json`` ...) reads through
its ``sessions/`` folder; ``sessions.db``'s ``-wal`` / ``-shm`` are read with it, never written."""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Any

from threadlab.core.builder import ThreadBuilder
from threadlab.core.model import Thread
from threadlab.formats.common.json_lines import head_values, parsed_lines, refusal
from threadlab.formats.common.registry import FolderPlan
from threadlab.formats.common.source import Source
from threadlab.formats.common.sqlite import SQLITE_MAGIC, claims_database, database_threads
from threadlab.formats.goose.reading import AGENT, KEY, MessageReader
from threadlab.formats.goose.store import Session, database_sessions, is_goose_db

NAME = "goose"
_TOTALS = (("input_tokens", "accumulated_input_tokens", "input_tokens"), ("output_tokens", "accumulated_output_tokens", "output_tokens"), ("total_tokens", "accumulated_total_tokens", "total_tokens"))
_PARTS = frozenset({"text", "image", "toolRequest", "toolResponse", "thinking", "redactedThinking", "frontendToolRequest", "toolConfirmationRequest", "actionRequired", "systemNotification"})
_HOME = {
    "sessions.db-wal": None,
    "sessions.db-shm": None,
}
_SESSIONS_OTHER = "in Goose's sessions folder, beside sessions.db (backups and imports; sessions.db holds the sessions)"


def is_header(value: Any) -> bool:
    """A legacy session file's first line: the session's fields, no message."""
    return isinstance(value, dict) and "role" not in value and isinstance(value.get("working_dir"), str) and ("description" in value or "message_count" in value)


def is_message(value: Any) -> bool:
    content = value.get("content") if isinstance(value, dict) else None
    return (
        isinstance(value, dict) and value.get("role") in ("user", "assistant") and isinstance(value.get("created"), int)
        and isinstance(content, list) and bool(content) and all(isinstance(p, dict) and p.get("type") in _PARTS for p in content)
    )


def detect(source: Source) -> bool:
    """An SQLite database with Goose's ``sessions`` and ``messages`` tables, or JSON Lines whose
    first line is a legacy session header (``working_dir``, ``description``) or whose first lines
    are Goose messages (``role``, ``created`` in seconds, ``content`` parts of Goose's types)."""
    if source.is_dir or source.is_object:
        return False
    head = source.head(4096)
    if head.startswith(SQLITE_MAGIC):
        return claims_database(source.path, None if source.path is not None else source.data, is_goose_db)
    if b'"working_dir"' not in head and b'"created"' not in head:
        return False
    values = head_values(source, 3)
    return bool(values) and (is_header(values[0]) or all(is_message(v) for v in values))


def _thread(session: Session, source: str) -> Thread:
    fields = session.record.value if isinstance(session.record.value, dict) else {}
    title = fields.get("name") or fields.get("description") or ""
    keep = {k: v for k, v in fields.items() if v is not None and k not in ("name",)}
    b = ThreadBuilder(session.id, title=str(title), metadata={KEY: keep} if keep else None, source=source)
    totals = {ours: fields[a] if isinstance(fields.get(a), int) else fields.get(b_) for ours, a, b_ in _TOTALS}
    totals = {k: v for k, v in totals.items() if isinstance(v, int) and not isinstance(v, bool)}
    if totals:
        b.metadata["usage_total"] = totals
    cost = fields.get("accumulated_cost")
    if isinstance(cost, int | float) and not isinstance(cost, bool):
        b.metadata["cost_usd"] = float(cost)
    if session.record.error == "missing":
        b.problem("schema", f"{len(session.messages)} message(s) name a session no row holds; read as a session of their own")
    elif session.record.value is None:
        b.failed("schema", f"{session.record.where} {session.record.error}", line=session.record.line)
    else:
        b.took()
    reader = MessageReader(b)
    for record in session.messages:
        if record.value is None:
            b.failed("schema", f"{record.where}: {record.error}", line=record.line)
            continue
        b.took()
        if record.error:
            b.problem("schema", f"{record.where}: {record.error}; kept as it came", line=record.line)
        if record.undecodable:
            b.problem("schema", f"{record.where}: {', '.join(record.undecodable)} not UTF-8; kept with backslash escapes", line=record.line)
        reader.message(record.value, record.where, record.line)
    return b.build()


def _database(source: Source) -> list[Thread]:
    return database_threads(source, database_sessions, lambda sessions: [_thread(s, source.name) for s in sessions],
                            "Goose's sessions and messages tables", "Goose session")


def _legacy(source: Source) -> Thread:
    stem = source.path.stem if source.path is not None else source.name
    b = ThreadBuilder(stem, source=source.name)
    reader = MessageReader(b)
    for number, value in parsed_lines(source, b):
        if is_header(value) and not b.actions:
            b.took()
            b.title = str(value.get("description") or "")
            b.metadata[KEY] = value
            totals = {ours: value.get(a) for ours, a, _ in _TOTALS if isinstance(value.get(a), int)}
            if totals:
                b.metadata["usage_total"] = totals
        elif isinstance(value, dict) and value.get("role") in ("user", "assistant") and isinstance(value.get("content"), list):
            b.took()
            reader.message(value, f"line {number}", number)
        else:
            b.failed("schema", f"line {number} is no Goose message or session header", line=number)
    return b.build()


def to_threads(source: Source) -> list[Thread]:
    if source.head(16).startswith(SQLITE_MAGIC):
        return _database(source)
    if not detect(source):
        raise refusal(source, f"is not a Goose sessions.db or session file ({source.describe()})")
    return [_legacy(source)]


def from_thread(thread: Thread) -> bytes:
    """Goose's store is rows of a database Goose keeps open, not one file of bytes."""
    raise ValueError(f"threadlab does not write Goose sessions (thread {thread.thread_id}): convert to another format, e.g. --to threadprotocol")


def plan_folder(folder: str, entries: Sequence[os.DirEntry[str]]) -> FolderPlan | None:
    """Goose's ``sessions/`` folder: ``sessions.db`` with its ``-wal`` / ``-shm`` (read with it),
    legacy ``.jsonl`` files read one by one, anything else listed."""
    names = {e.name for e in entries}
    if "sessions.db" not in names:
        return None
    side = tuple(n for n in ("sessions.db-wal", "sessions.db-shm") if n in names)
    rest = {n: _SESSIONS_OTHER for n in names - {"sessions.db", *side} if not n.endswith(".jsonl") and not n.startswith(".")}
    return FolderPlan(companions={"sessions.db": side} if side else {}, ignore=rest)


__all__ = ["AGENT", "KEY", "NAME", "detect", "from_thread", "plan_folder", "to_threads"]
