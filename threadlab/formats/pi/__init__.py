"""Pi coding agent sessions (``@mariozechner/pi-coding-agent``):
``~/.pi/agent/sessions/--<cwd>--/<timestamp>_<id>.jsonl`` → one thread per file.

See ``wire.py`` for the lines and ``reading.py`` for how a file becomes a thread. Pi's agent folder
(``~/.pi/agent``) reads as one source: only ``sessions/`` holds conversations; its settings,
credentials, models, extensions, skills and prompts beside it are listed as skipped, with what
each is, and never opened. Read only: Pi's sessions are a tree of entries a writer would have to
invent ids for."""

from __future__ import annotations

import os
from collections.abc import Sequence

from threadlab.core.model import Thread
from threadlab.formats.common.json_lines import HEAD, head_values, refusal
from threadlab.formats.common.registry import FolderPlan
from threadlab.formats.common.source import Source
from threadlab.formats.pi.reading import AGENT, KEY, read_session
from threadlab.formats.pi.wire import is_entry, is_header

NAME = "pi"
_HOME_MARKERS = frozenset({"settings.json", "auth.json", "models.json", "extensions", "skills", "prompts", "themes", "bin"})
_HOME_FILES = {
    "settings.json": "Pi's settings (settings.json: default provider, model, thinking level)",
    "auth.json": "Pi's credentials (auth.json, never opened)",
    "models.json": "Pi's custom providers and models (models.json; may hold API keys, never opened)",
    "extensions": "Pi's extensions (code, no conversations)",
    "skills": "Pi's skills (no conversations)",
    "prompts": "Pi's prompt templates (no conversations)",
    "themes": "Pi's themes",
    "bin": "Pi's downloaded programs (fd, ripgrep)",
}
_HOME_OTHER = "in Pi's agent folder, beside sessions/ (only sessions/ holds conversations)"


def detect(source: Source) -> bool:
    """JSON Lines whose first line is Pi's ``session`` header (an ``id`` and ``cwd`` or
    ``version``, no ``harness``: that is a Hugging Face session trace) and whose next lines are
    Pi entries."""
    if source.is_dir or source.is_object:
        return False
    head = source.head(HEAD)
    if b'"session"' not in head:
        return False
    values = head_values(source, 3)
    return bool(values) and is_header(values[0]) and all(is_entry(v) for v in values[1:])


def to_threads(source: Source) -> list[Thread]:
    if not detect(source):
        raise refusal(source, f"is not a Pi session (no Pi session header first: {source.describe()})")
    return [read_session(source)]


def from_thread(thread: Thread) -> bytes:
    """Pi's sessions are not written: each entry needs the tree's ids and parents, which a thread
    of another format has not."""
    raise ValueError(f"threadlab does not write Pi sessions (thread {thread.thread_id}): convert to another format, e.g. --to threadprotocol")


def _pi_sessions(folder: str) -> bool:
    """Whether ``sessions/`` holds Pi's folders, one per working folder, named ``--<path>--``
    (a Codex home has a ``sessions/`` and an ``auth.json`` too, its sessions by date)."""
    try:
        with os.scandir(folder) as found:
            return any(e.name.startswith("--") and e.name.endswith("--") and e.is_dir() for e in found)
    except OSError:
        return False


def plan_folder(folder: str, entries: Sequence[os.DirEntry[str]]) -> FolderPlan | None:
    """In Pi's agent folder (``sessions/`` of ``--<path>--`` folders beside ``settings.json``,
    ``auth.json``, ``models.json`` ...) everything but ``sessions/`` is listed as skipped."""
    names = {e.name for e in entries}
    if "sessions" in names and names & _HOME_MARKERS and _pi_sessions(os.path.join(folder, "sessions")):
        return FolderPlan(ignore={name: _HOME_FILES.get(name, _HOME_OTHER) for name in names - {"sessions"} if not name.startswith(".")})
    return None


__all__ = ["AGENT", "KEY", "NAME", "detect", "from_thread", "plan_folder", "to_threads"]
