"""Crush sessions (charmbracelet/crush, ``@charmland/crush``): the per-project SQLite database
``.crush/crush.db`` → one thread per session (a session an agent tool started names its parent
in ``parent_thread_id``).

See ``store.py`` for the tables and ``reading.py`` for how a session becomes a thread. The
database is only read: opened without changing a byte of it or its ``-wal`` / ``-shm`` and
without writing anything beside it. In the ``.crush`` folder only ``crush.db`` (with its ``-wal``
and ``-shm``) is read; the rest (``init``, logs, configuration) is listed as skipped."""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Sequence

from threadlab.core.model import Thread
from threadlab.formats.common.json_lines import refusal
from threadlab.formats.common.registry import FolderPlan
from threadlab.formats.common.source import Source
from threadlab.formats.common.sqlite import SQLITE_MAGIC, database_threads, opened, schema
from threadlab.formats.crush.reading import AGENT, KEY, read_sessions
from threadlab.formats.crush.store import database_sessions, is_crush_db

NAME = "crush"
_DB = "crush.db"
_SIDE = ("crush.db-wal", "crush.db-shm")
_FOLDER = {
    "init": "Crush's marker that the project was initialised (empty)",
    "logs": "Crush's logs (no conversations)",
    "crush.json": "Crush's project configuration",
    "commands": "Crush's custom commands",
}
_OTHER = "in Crush's .crush folder, beside crush.db (only crush.db holds conversations)"


def detect(source: Source) -> bool:
    """An SQLite database with Crush's ``sessions`` and ``messages`` tables (``parts`` on each
    message)."""
    if source.is_dir or source.is_object or not source.head(16).startswith(SQLITE_MAGIC):
        return False
    try:
        with opened(source.path, None if source.path is not None else source.data) as conn:
            return is_crush_db(schema(conn, []))
    except (sqlite3.Error, OSError):
        return False


def to_threads(source: Source) -> list[Thread]:
    if not source.head(16).startswith(SQLITE_MAGIC):
        raise refusal(source, f"is not a Crush database ({source.describe()})")
    return database_threads(source, database_sessions, lambda sessions: read_sessions(sessions, source.name), "Crush's sessions and messages tables", "Crush session")


def from_thread(thread: Thread) -> bytes:
    """Crush's database is not written: a session is rows of a project's database, not one file
    of bytes this interface returns."""
    raise ValueError(f"threadlab does not write Crush databases (thread {thread.thread_id}): convert to another format, e.g. --to threadprotocol")


def plan_folder(folder: str, entries: Sequence[os.DirEntry[str]]) -> FolderPlan | None:
    """Crush's ``.crush`` folder: ``crush.db`` read with its ``-wal`` / ``-shm``, the rest listed."""
    names = {e.name for e in entries}
    if _DB not in names or not names & {"init", "logs", *_SIDE}:
        return None
    side = tuple(n for n in _SIDE if n in names)
    return FolderPlan(companions={_DB: side} if side else {}, ignore={n: _FOLDER.get(n, _OTHER) for n in names - {_DB, *side} if not n.startswith(".")})


__all__ = ["AGENT", "KEY", "NAME", "detect", "from_thread", "plan_folder", "to_threads"]
