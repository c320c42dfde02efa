"""Gemini CLI sessions: ``~/.gemini/tmp/<project>/chats/session-<time>-<id>.jsonl`` (and the
``.json`` of earlier releases) → one thread per session file (and a thread back to JSON Lines).

See ``wire.py`` for both generations and ``reading.py`` for how a file becomes a thread. The
Gemini home (``~/.gemini``) reads as one source: only ``tmp/<project>/chats/`` holds
conversations; the settings, credentials, prompt logs and checkpoints beside them are listed as
skipped, with what each is, and never opened."""

from __future__ import annotations

import os
from collections.abc import Sequence

from threadlab.core.finite import refuses_non_finite
from threadlab.core.model import Thread
from threadlab.formats.common.json_lines import HEAD, head_values, refusal
from threadlab.formats.common.registry import FolderPlan
from threadlab.formats.common.source import Source
from threadlab.formats.gemini_cli.layout import later_parts, resumed_parts
from threadlab.formats.gemini_cli.reading import AGENT, KEY, read_session
from threadlab.formats.gemini_cli.wire import is_metadata, is_session_object
from threadlab.formats.gemini_cli.writing import write_session

NAME = "gemini-cli"
_HOME_MARKERS = frozenset({"settings.json", "projects.json", "installation_id", "user_id", "oauth_creds.json", "google_accounts.json", "trustedFolders.json", "GEMINI.md"})
_HOME_FILES = {
    "settings.json": "a Gemini CLI home's settings.json",
    "projects.json": "a Gemini CLI home's project list (projects.json)",
    "installation_id": "a Gemini CLI home's installation id",
    "user_id": "a Gemini CLI home's user id",
    "oauth_creds.json": "a Gemini CLI home's credentials (oauth_creds.json, never opened)",
    "google_accounts.json": "a Gemini CLI home's account list (google_accounts.json, never opened)",
    "trustedFolders.json": "a Gemini CLI home's trusted folders",
    "GEMINI.md": "a Gemini CLI home's memory file (GEMINI.md)",
    "history": "a Gemini CLI home's per-project history folders (no conversations)",
}
_HOME_OTHER = "in a Gemini CLI home, beside tmp/ (only tmp/<project>/chats/ holds conversations)"
_PROJECT_MARKERS = frozenset({".project_root", "logs.json", "shell_history", "checkpoints", "tool-outputs"})
_PROJECT_FILES = {
    ".project_root": "a Gemini CLI project folder's .project_root (the project's path)",
    "logs.json": "a Gemini CLI project's prompt log (logs.json: the prompts typed, repeated in chats/)",
    "shell_history": "a Gemini CLI project's shell-mode history",
    "checkpoints": "a Gemini CLI project's file checkpoints (no conversations)",
    "tool-outputs": "a Gemini CLI project's saved long tool outputs",
    "logs": "a Gemini CLI project's activity logs",
}
_PROJECT_OTHER = "in a Gemini CLI project folder, beside chats/ (only chats/ holds conversations)"


def detect(source: Source) -> bool:
    """A session object (``sessionId``, ``projectHash``, ``messages``) or JSON Lines whose first
    line is a session's metadata record."""
    if source.is_dir or source.is_object:
        return False
    head = source.head(HEAD)
    if b'"projectHash"' not in head or b'"sessionId"' not in head:
        return False
    values = head_values(source, 1)
    if values and is_metadata(values[0]):
        return True
    return head.lstrip()[:1] == b"{" and is_session_object(source.try_json())


def to_threads(source: Source) -> list[Thread]:
    if not detect(source):
        raise refusal(source, f"is not a Gemini CLI session (no session metadata first: {source.describe()})")
    parts = [Source(p) for p in later_parts(source.path)] if source.path is not None else []
    return read_session(source, parts)


@refuses_non_finite
def from_thread(thread: Thread) -> bytes:
    """The thread as a JSON Lines session file (see ``writing.py``)."""
    return write_session(thread)


def plan_folder(folder: str, entries: Sequence[os.DirEntry[str]]) -> FolderPlan | None:
    """In the Gemini home (a ``tmp/`` folder beside its ``settings.json``, ``projects.json``
    ...) everything but ``tmp/`` is listed as skipped; in a project's folder under it (a
    ``chats/`` folder beside ``.project_root``, ``logs.json`` ...), everything but ``chats/``."""
    names = {e.name for e in entries}
    if "tmp" in names and names & _HOME_MARKERS and os.path.isdir(os.path.join(folder, "tmp")):
        return FolderPlan(ignore={name: _HOME_FILES.get(name, _HOME_OTHER) for name in names - {"tmp"}})
    if "chats" in names and names & _PROJECT_MARKERS and os.path.isdir(os.path.join(folder, "chats")):
        return FolderPlan(ignore={name: _PROJECT_FILES.get(name, _PROJECT_OTHER) for name in names - {"chats"}})
    if os.path.basename(folder) == "chats":
        parts = resumed_parts(names)
        return FolderPlan(companions=parts) if parts else None
    return None


__all__ = ["AGENT", "KEY", "NAME", "detect", "from_thread", "plan_folder", "to_threads"]
