"""GitHub Copilot CLI sessions: ``~/.copilot/session-state/<session id>/events.jsonl`` → one
thread per session (and a thread back to an events file); the single-file sessions of earlier
releases, ``~/.copilot/history-session-state/*.json``, are read too (``legacy.py``).

See ``wire.py`` for the events and ``reading.py`` for how a file becomes a thread. The Copilot
home (``~/.copilot``) reads as one source: only ``session-state/`` and
``history-session-state/`` hold conversations; the settings, logs, package cache and the SQLite
session index beside them are listed as skipped, with what each is, and never opened; in a
session's folder, only ``events.jsonl`` is read."""

from __future__ import annotations

import os
from collections.abc import Sequence

from threadlab.core.finite import refuses_non_finite
from threadlab.core.model import Thread
from threadlab.formats.common.json_lines import HEAD, head_values, refusal
from threadlab.formats.common.registry import FolderPlan
from threadlab.formats.common.source import Source
from threadlab.formats.copilot_cli.legacy import read_legacy
from threadlab.formats.copilot_cli.reading import AGENT, KEY, KNOWN, read_events
from threadlab.formats.copilot_cli.wire import ENVELOPE, is_event, is_legacy, is_start
from threadlab.formats.copilot_cli.writing import write_events

NAME = "copilot-cli"
_HOME_MARKERS = frozenset({"config.json", "settings.json", "mcp-config.json", "logs", "session-store.db", "command-history-state.json", "pkg"})
_HOME_FILES = {
    "config.json": "a Copilot CLI home's config.json (managed state: first launch, trusted folders)",
    "settings.json": "a Copilot CLI home's settings.json",
    "settings.json.lock": "a Copilot CLI home's settings lock file",
    "mcp-config.json": "a Copilot CLI home's MCP server configuration",
    "logs": "a Copilot CLI home's process logs (no conversations)",
    "session-store.db": "a Copilot CLI home's SQLite session index (the sessions are read from session-state/)",
    "session-store.db-wal": "a Copilot CLI home's SQLite session index (write-ahead log)",
    "session-store.db-shm": "a Copilot CLI home's SQLite session index (shared memory)",
    "command-history-state.json": "a Copilot CLI home's prompt history (the prompts typed, repeated in the sessions)",
    "pkg": "a Copilot CLI home's package cache (the program itself)",
    "agents": "a Copilot CLI home's custom agent definitions",
    "skills": "a Copilot CLI home's skills",
}
_HOME_OTHER = "in a Copilot CLI home, beside session-state/ (only session-state/ and history-session-state/ hold conversations)"
_SESSION_MARKERS = frozenset({"workspace.yaml", "checkpoints", "rewind-file-snapshots", "files", "plan.md"})
_SESSION_FILES = {
    "workspace.yaml": "a Copilot CLI session's workspace.yaml (its folder, name and counters; the events say the same)",
    "checkpoints": "a Copilot CLI session's checkpoints (summaries written for compaction)",
    "rewind-file-snapshots": "a Copilot CLI session's file snapshots (for /rewind; no conversation)",
    "files": "a Copilot CLI session's files folder (no conversation)",
    "plan.md": "a Copilot CLI session's plan (plan.md)",
}
_SESSION_OTHER = "in a Copilot CLI session folder, beside events.jsonl (only events.jsonl holds the conversation)"
_CONVERSATIONS = frozenset({"session-state", "history-session-state"})


def detect(source: Source) -> bool:
    """JSON Lines whose first line is a ``session.start`` event of the CLI (``producer``
    ``copilot-agent``), or whose first lines are all events in the CLI's envelope (``type``,
    ``data``, ``id``, ``timestamp``, ``parentId``) of types the CLI writes (a file cut at its
    start); or a session object of the single-file generation (``sessionId``,
    ``chatMessages``)."""
    if source.is_dir or source.is_object:
        return False
    head = source.head(HEAD)
    if b'"type"' in head and b'"data"' in head:
        values = head_values(source, 3)
        if values and is_start(values[0]):
            return True
        if values and all(is_event(v) and ENVELOPE <= v.keys() and v["type"] in KNOWN for v in values):
            return True
    if b'"chatMessages"' in head and b'"sessionId"' in head and head.lstrip()[:1] == b"{":
        return is_legacy(source.try_json())
    return False


def to_threads(source: Source) -> list[Thread]:
    if not detect(source):
        raise refusal(source, f"is not a Copilot CLI session (no session.start event first: {source.describe()})")
    whole = source.try_json() if b'"chatMessages"' in source.head(HEAD) else None
    if is_legacy(whole):
        return [read_legacy(source, whole)]
    return [read_events(source)]


@refuses_non_finite
def from_thread(thread: Thread) -> bytes:
    """The thread as an ``events.jsonl`` (see ``writing.py``)."""
    return write_events(thread)


def plan_folder(folder: str, entries: Sequence[os.DirEntry[str]]) -> FolderPlan | None:
    """In the Copilot home (a ``session-state/`` folder beside its ``config.json``, ``logs/``
    ...) everything but the session folders is listed as skipped; in a session's folder (an
    ``events.jsonl`` beside ``workspace.yaml``, ``checkpoints/`` ...), everything but the
    events."""
    names = {e.name for e in entries}
    if names & _CONVERSATIONS and names & _HOME_MARKERS:
        return FolderPlan(ignore={name: _HOME_FILES.get(name, _HOME_OTHER) for name in names - _CONVERSATIONS if not name.startswith(".")})
    if "events.jsonl" in names and names & _SESSION_MARKERS:
        return FolderPlan(ignore={name: _SESSION_FILES.get(name, _SESSION_OTHER) for name in names - {"events.jsonl"} if not name.startswith(".")})
    return None


__all__ = ["AGENT", "KEY", "NAME", "detect", "from_thread", "plan_folder", "to_threads"]
