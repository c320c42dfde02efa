"""opencode sessions: the ``opencode.db`` SQLite database (1.2 and later) and the JSON
``storage/`` folder of earlier releases → one thread per session, its subagents' sessions in it.

See ``store.py`` for both layouts and ``reading.py`` for how a session becomes a thread. The data
folder (``~/.local/share/opencode``) reads as one source: ``opencode.db`` (its ``-wal`` and
``-shm`` read with it, never written), or, where there is no database, ``storage/``; the logs,
binaries, snapshots, credentials and tool outputs beside them are listed as skipped and never
opened. In ``storage/`` only ``session/`` is walked: each session file brings its messages and
parts (``message/``, ``part/``) and the sessions its tasks started (their files beside it)."""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Sequence
from pathlib import Path

import orjson

from threadlab.core.model import Thread
from threadlab.formats.common.json_lines import refusal
from threadlab.formats.common.registry import FolderPlan
from threadlab.formats.common.source import Source
from threadlab.formats.common.sqlite import SQLITE_MAGIC, database_threads, opened, schema
from threadlab.formats.opencode.reading import AGENT, KEY, StoreReader
from threadlab.formats.opencode.store import (
    Record,
    Session,
    database_sessions,
    is_opencode_db,
    read_json,
    storage_root,
    storage_session,
)

NAME = "opencode"
_HOME = {
    "opencode.db-wal": None,
    "opencode.db-shm": None,
    "log": "opencode's logs (no conversations)",
    "bin": "opencode's downloaded programs (language servers, ripgrep)",
    "snapshot": "opencode's file snapshots (a git store of the working folder, no conversations)",
    "auth.json": "opencode's credentials (auth.json, never opened)",
    "mcp-auth.json": "opencode's MCP credentials (never opened)",
    "tool-output": "opencode's saved long tool outputs (each is in its tool's part)",
    "storage": "the JSON storage of releases before 1.2, which opencode.db holds since opencode moved it there",
}
_HOME_OTHER = "in opencode's data folder, beside opencode.db / storage/ (only they hold conversations)"
_STORAGE_OTHER = "in opencode's storage/, beside session/ (messages and parts are read with their session's file)"


def is_session_object(value: object) -> bool:
    """A ``storage/session/<project>/<id>.json`` object: an id (``ses_...`` as opencode makes
    them, any text as other tools' samples have), its project, folder and creation time."""
    return (
        isinstance(value, dict)
        and isinstance(value.get("id"), str)
        and isinstance(value.get("projectID"), str)
        and isinstance(value.get("directory"), str)
        and isinstance(value.get("time"), dict)
        and "created" in value["time"]
    )


def detect(source: Source) -> bool:
    """An SQLite database with opencode's ``session``, ``message`` and ``part`` tables, or a
    session file of ``storage/``."""
    if source.is_dir or source.is_object:
        return False
    head = source.head(4096)
    if head.startswith(SQLITE_MAGIC):
        try:
            with opened(source.path, None if source.path is not None else source.data) as conn:
                return is_opencode_db(schema(conn, []))
        except (sqlite3.Error, OSError):
            return False
    if b'"projectID"' not in head or b'"directory"' not in head:
        return False
    return is_session_object(source.try_json())


def to_threads(source: Source) -> list[Thread]:
    if source.head(16).startswith(SQLITE_MAGIC):
        return _database(source)  # (a damaged schema is named there, not refused as no opencode database)
    if not detect(source):
        raise refusal(source, f"is not an opencode database or session file ({source.describe()})")
    if source.path is None:  # a session file in memory: no storage folder to take its messages from
        value = source.try_json()
        return StoreReader([Session(Record(value, source.name), str(value["id"]), None)], source.name).threads()
    root = storage_root(source.path)
    main = storage_session(read_json(source.path), root)
    return StoreReader([main, *_children(source.path, main.id, root)], source.name).threads()


def _children(path: Path, parent: str, root: Path | None) -> list[Session]:
    """The sessions beside the file whose ``parentID`` is ``parent``, and theirs."""
    found: list[Session] = []
    for sibling in sorted(path.parent.glob("*.json")):
        record = read_json(sibling)
        if sibling != path and isinstance(record.value, dict) and record.value.get("parentID") == parent:
            child = storage_session(record, root)
            found.extend([child, *_children(path, child.id, root)])
    return found


def _database(source: Source) -> list[Thread]:
    return database_threads(source, database_sessions, lambda sessions: StoreReader(sessions, source.name).threads(), "opencode's session, message and part tables", "opencode session")


def from_thread(thread: Thread) -> bytes:
    """opencode's store is not written (yet): a session is rows of three tables among twenty,
    or a tree of files, neither one file of bytes this interface returns."""
    raise ValueError(f"threadlab does not write opencode sessions (thread {thread.thread_id}): convert to another format, e.g. --to threadprotocol")


def _ids(path: str) -> tuple[str | None, str | None]:
    """A session file's (id, parentID), or Nones when it is no session file."""
    try:
        with open(path, "rb") as handle:
            value = orjson.loads(handle.read(1 << 20))
    except (OSError, orjson.JSONDecodeError):
        return None, None
    if not is_session_object(value):
        return None, None
    return value["id"], value.get("parentID") if isinstance(value.get("parentID"), str) else None


def plan_folder(folder: str, entries: Sequence[os.DirEntry[str]]) -> FolderPlan | None:
    """opencode's data folder (``opencode.db`` or ``storage/`` beside ``log/``, ``bin/``,
    ``snapshot/``, ``auth.json``), its ``storage/`` (``session/`` beside ``message/`` and
    ``part/``), and a project's folder of session files there (a subagent's session file is
    read with its parent's)."""
    names = {e.name for e in entries}
    if ("opencode.db" in names or "storage" in names) and names & {"log", "bin", "snapshot", "auth.json", "tool-output"}:
        keep = {"opencode.db"} if "opencode.db" in names else {"storage"}
        side = tuple(n for n in ("opencode.db-wal", "opencode.db-shm") if n in names)
        ignore = {n: _HOME.get(n) or _HOME_OTHER for n in names - keep - set(side)}
        return FolderPlan(companions={"opencode.db": side} if side and "opencode.db" in keep else {}, ignore=ignore)
    if {"session", "message", "part"} <= names and os.path.isdir(os.path.join(folder, "session")):
        return FolderPlan(ignore={n: _STORAGE_OTHER for n in names - {"session"}})
    if os.path.basename(os.path.dirname(folder)) == "session" and os.path.isdir(os.path.join(os.path.dirname(os.path.dirname(folder)), "message")):
        children: dict[str, list[str]] = {}
        read = {name: _ids(os.path.join(folder, name)) for name in sorted(names) if name.endswith(".json")}
        files = {sid: name for name, (sid, _) in read.items() if sid is not None}
        for name, (_, parent) in read.items():
            if parent in files:
                children.setdefault(files[parent], []).append(name)
        return FolderPlan(companions={k: tuple(sorted(v)) for k, v in children.items()}) if children else None
    return None


__all__ = ["AGENT", "KEY", "NAME", "detect", "from_thread", "plan_folder", "to_threads"]
