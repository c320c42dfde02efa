"""Where opencode keeps its sessions, read into one shape: sessions, each with its messages,
each message with its parts (``Record``: the value and where it came from).

- ``opencode.db`` (1.2 and later): tables ``session`` (one row a session; ``parent_id`` names
  the session that started it as a subagent), ``message`` (``id``, ``session_id``, ``data``: the
  message's JSON without its id) and ``part`` (``id``, ``message_id``, ``session_id``, ``data``).
  The database is opened read-only and nothing is written beside it (``common/sqlite.py``
  ``opened``: a WAL database with a ``-wal`` is read from a private copy);
  only the stored columns of these three tables are selected (``sqlite.schema``), in row id order.
  Its other tables (``event``: the same changes again as an event log, ``project``, ``todo``,
  accounts ...) hold no conversation and are not read.
- ``storage/`` (releases before 1.2): ``storage/session/<project>/<session id>.json``,
  ``storage/message/<session id>/<message id>.json`` and ``storage/part/<message id>/<part
  id>.json``, each one JSON object holding its own ids. The message and part folders of a
  session are found by listing ``message/`` and ``part/`` and taking the entry whose name is the
  id (paths are never built from the ids); files are read through ``read_regular`` (a FIFO or a
  device named like a message is a problem, not a hang)."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson

from threadlab.formats.common.source import read_regular
from threadlab.formats.common.sqlite import Damage, Tables, opened, scan, schema

SESSION_COLUMNS = frozenset({"id", "parent_id", "title", "time_created"})
MESSAGE_COLUMNS = frozenset({"id", "session_id", "data"})
PART_COLUMNS = frozenset({"id", "message_id", "data"})


@dataclass
class Record:
    """One input record: its value (None when it could not be read), where it is (``where``: a
    row of a table or a file), a line number for problems (a row id, else 0), and why it could
    not be read."""

    value: Any
    where: str
    line: int = 0
    error: str | None = None
    undecodable: tuple[str, ...] = ()  # text columns of its row that are not UTF-8 (kept with backslash escapes)


@dataclass
class Message:
    record: Record
    parts: list[Record] = field(default_factory=list)


@dataclass
class Session:
    record: Record
    id: str
    parent: str | None
    messages: list[Message] = field(default_factory=list)


def is_opencode_db(tables: Tables) -> bool:
    """The three tables opencode keeps conversations in, with the columns it reads."""
    return SESSION_COLUMNS <= set(tables.get("session", ())) and MESSAGE_COLUMNS <= set(tables.get("message", ())) and PART_COLUMNS <= set(tables.get("part", ()))


def _text(value: Any) -> Any:
    if isinstance(value, bytes):
        try:
            return value.decode()
        except UnicodeDecodeError:
            return value.decode("utf-8", "backslashreplace")
    return value


def _undecodable(row: dict[str, Any], names: tuple[str, ...]) -> tuple[str, ...]:
    """The text columns of ``names`` that are not UTF-8 (their row's problem names them)."""
    bad = []
    for name in names:
        value = row.get(name)
        if isinstance(value, bytes):
            try:
                value.decode()
            except UnicodeDecodeError:
                bad.append(name)
    return tuple(bad)


def _data(value: Any) -> tuple[Any, str | None]:
    try:
        data = orjson.loads(value) if isinstance(value, bytes | str) else None
    except orjson.JSONDecodeError as exc:
        return None, f"its data is not JSON ({exc})"
    if not isinstance(data, dict):
        return None, f"its data is {type(data).__name__}, not a JSON object"
    return data, None


def database_sessions(path: Path | None, data: bytes | None, damage: list[Damage]) -> tuple[list[Session], bool]:
    """Every session of an ``opencode.db`` (sessions in row id order, their messages and parts
    in row id order), and whether the file is one at all."""
    with opened(path, data) as conn:
        tables = schema(conn, damage)
        if not is_opencode_db(tables):
            return [], False
        sessions: dict[str, Session] = {}
        for row_id, row in scan(conn, "session", tables["session"], damage):
            values = {k: _text(v) for k, v in row.items()}
            sid = str(values.get("id"))
            record = Record(values, f"row {row_id} of table session", row_id, undecodable=_undecodable(row, tuple(row)))
            sessions[sid] = Session(record, sid, values.get("parent_id"))
        messages: dict[str, Message] = {}
        loose: list[Message] = []
        for row_id, row in scan(conn, "message", tables["message"], damage):
            value, error = _data(row.get("data"))
            mid, sid = _text(row.get("id")), _text(row.get("session_id"))
            record = Record({**(value or {}), "id": mid, "sessionID": sid} if value is not None else None, f"row {row_id} of table message", row_id, error, _undecodable(row, ("id", "session_id")))
            message = Message(record)
            messages[str(mid)] = message
            owner = sessions.get(str(sid))
            (owner.messages if owner is not None else loose).append(message)
        for row_id, row in scan(conn, "part", tables["part"], damage):
            value, error = _data(row.get("data"))
            pid, mid = _text(row.get("id")), _text(row.get("message_id"))
            record = Record({**(value or {}), "id": pid, "messageID": mid} if value is not None else None, f"row {row_id} of table part", row_id, error, _undecodable(row, ("id", "message_id")))
            owner_message = messages.get(str(mid))
            if owner_message is None:  # in the session the part row names, else with the orphans
                owner_message = Message(Record(None, f"message {mid!r}", 0, "no row of table message has this id"))
                messages[str(mid)] = owner_message
                owner = sessions.get(str(_text(row.get("session_id"))))
                (owner.messages if owner is not None else loose).append(owner_message)
            owner_message.parts.append(record)
    return _with_loose(list(sessions.values()), loose), True


def _with_loose(sessions: list[Session], loose: list[Message]) -> list[Session]:
    """Messages (and parts) whose session is not there: a session of their own, marked as
    missing (its record is no input record)."""
    if loose:
        sessions.append(Session(Record(None, "no session row", 0, "missing"), "orphans", None, loose))
    return sessions


def read_json(path: Path) -> Record:
    """One JSON object file of ``storage/``."""
    try:
        value = orjson.loads(read_regular(path))
    except (OSError, orjson.JSONDecodeError) as exc:
        return Record(None, str(path), 0, f"cannot be read: {exc}")
    if not isinstance(value, dict):
        return Record(None, str(path), 0, f"is a JSON {type(value).__name__}, not an object")
    return Record(value, str(path))


def _listed(folder: Path, name: Any) -> Path | None:
    """The entry of ``folder`` named ``name`` (found by listing, not by joining the name)."""
    if not isinstance(name, str) or not folder.is_dir():
        return None
    try:
        with os.scandir(folder) as entries:
            for entry in entries:
                if entry.name == name and entry.is_dir():
                    return Path(entry.path)
    except OSError:
        return None
    return None


def _json_files(folder: Path | None) -> list[Path]:
    if folder is None:
        return []
    try:
        with os.scandir(folder) as entries:
            return sorted(Path(e.path) for e in entries if e.name.endswith(".json") and not e.name.startswith("."))
    except OSError:
        return []


def storage_root(session_file: Path) -> Path | None:
    """``storage/`` of a ``storage/session/<project>/<id>.json`` file (None when the file is not
    in that layout)."""
    root = session_file.parent.parent.parent
    return root if session_file.parent.parent.name == "session" and (root / "message").is_dir() else None


def storage_session(record: Record, root: Path | None) -> Session:
    """A session file's session with its messages and their parts (sorted by file name: opencode's
    ids grow with time)."""
    value = record.value or {}
    session = Session(record, str(value.get("id")), value.get("parentID") if isinstance(value.get("parentID"), str) else None)
    if root is None:
        return session
    for message_file in _json_files(_listed(root / "message", value.get("id"))):
        message = Message(read_json(message_file))
        mid = (message.record.value or {}).get("id", message_file.stem)
        message.parts = [read_json(p) for p in _json_files(_listed(root / "part", mid))]
        session.messages.append(message)
    return session


__all__ = ["Damage", "Message", "Record", "Session", "database_sessions", "is_opencode_db", "read_json", "storage_root", "storage_session"]
