"""Codex CLI sessions: ``~/.codex/sessions/YYYY/MM/DD/rollout-<time>-<uuid>.jsonl`` → one thread
per rollout (and a thread back to a rollout).

A rollout is JSON Lines of ``{"timestamp", "type", "payload"}`` (or, in mid-2025 releases, a
header line and bare Responses items); see ``wire.py``. The sessions folder, a day's folder or
the Codex home itself (``~/.codex``) read as one source each, rollout by rollout: in the home,
only ``sessions/`` and ``archived_sessions/`` hold conversations (the configuration, the
credentials file and the prompt history beside them are never opened)."""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Any

from threadlab.core.finite import refuses_non_finite
from threadlab.core.model import Thread
from threadlab.formats.codex.reading import AGENT, KEY, read_rollout
from threadlab.formats.codex.wire import LINE_TYPES, is_bare_header, is_envelope, is_state_marker
from threadlab.formats.codex.writing import write_rollout
from threadlab.formats.common.json_lines import head_values, refusal
from threadlab.formats.common.registry import FolderPlan
from threadlab.formats.common.source import Source

NAME = "codex"
_HOME_MARKERS = frozenset({"config.toml", "auth.json", "history.jsonl", "version.json", "session_index.jsonl"})
_HOME_KEEP = frozenset({"sessions", "archived_sessions"})
_HOME_FILES = {
    "config.toml": "a Codex home's config.toml",
    "auth.json": "a Codex home's credentials (auth.json, never opened)",
    "history.jsonl": "a Codex home's prompt history (history.jsonl)",
    "session_index.jsonl": "a Codex home's session index",
    "version.json": "a Codex home's version.json",
}
_HOME_OTHER = "in a Codex home, beside the sessions (only sessions/ and archived_sessions/ hold conversations)"


def detect(source: Source) -> bool:
    """A file whose first line is a rollout line (an envelope of a known type, or the bare
    generation's header followed by a state marker or an item)."""
    if source.is_dir or source.is_object:
        return False
    values = head_values(source)
    if not values:
        return False
    first, *after = values
    if is_envelope(first):
        return first["type"] in LINE_TYPES
    if is_bare_header(first):  # then a state marker or an item within two lines (one may be damaged)
        return any(is_state_marker(v) or (isinstance(v, dict) and v.get("type") in ("message", "reasoning", "function_call")) for v in after)
    return False


def to_threads(source: Source) -> list[Thread]:
    if not detect(source):
        raise refusal(source, f"is not a Codex rollout (its first line is no rollout line: {source.describe()})")
    return [read_rollout(source)]


def to_documents(source: Source) -> list[tuple[Thread, dict[str, Any]]] | None:
    """The frames route (``documents.py``): the rollout's thread without actions and its JSON
    object. None for anything but a rollout (a file or its bytes), and for one the route gives up on:
    ``to_threads`` reads those, with the same results."""
    from threadlab.formats.codex.documents import rollout_document

    if source.is_dir or source.is_object or not detect(source):
        return None
    try:
        made = rollout_document(source)
    except Exception:  # whatever it was, the careful way meets it again and says what it is
        return None
    return None if made is None else [made]


@refuses_non_finite
def from_thread(thread: Thread) -> bytes:
    """The thread as a rollout (see ``writing.py``)."""
    return write_rollout(thread)


def plan_folder(folder: str, entries: Sequence[os.DirEntry[str]]) -> FolderPlan | None:
    """In the Codex home (a ``sessions/`` folder beside its ``config.toml``, ``auth.json`` or
    ``history.jsonl``), everything but the session folders is skipped (and listed, with what
    it is)."""
    names = {e.name for e in entries}
    if "sessions" in names and names & _HOME_MARKERS and "projects" not in names and os.path.isdir(os.path.join(folder, "sessions")):
        return FolderPlan(ignore={name: _HOME_FILES.get(name, _HOME_OTHER) for name in names - _HOME_KEEP})
    return None


__all__ = ["AGENT", "KEY", "NAME", "detect", "from_thread", "plan_folder", "to_documents", "to_threads"]
