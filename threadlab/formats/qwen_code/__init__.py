"""Qwen Code sessions: ``~/.qwen/projects/<cwd with '-'>/chats/<session id>.jsonl`` → one thread
per file (and a thread back to a session file). See ``wire.py`` for the records and
``reading.py`` for how they become actions. The Qwen home (``~/.qwen``) reads as one source: only
``projects/`` holds conversations; its settings, debug logs and credentials are listed as skipped."""

from __future__ import annotations

import os
from collections.abc import Sequence

from threadlab.core.finite import refuses_non_finite
from threadlab.core.model import Thread
from threadlab.formats.common.json_lines import head_values, refusal
from threadlab.formats.common.registry import FolderPlan
from threadlab.formats.common.source import Source
from threadlab.formats.qwen_code.reading import AGENT, KEY, read_session
from threadlab.formats.qwen_code.wire import is_record
from threadlab.formats.qwen_code.writing import write_session

NAME = "qwen-code"
_QWEN_ONLY = frozenset({"output-language.md", "QWEN.md", "settings.json.orig"})  # (a Claude home has projects/ and settings.json too)
_HOME_FILES = {
    "settings.json": "a Qwen Code home's settings.json",
    "settings.json.orig": "a Qwen Code home's settings before migration (settings.json.orig)",
    "output-language.md": "a Qwen Code home's output-language instructions",
    "debug": "a Qwen Code home's debug logs (no conversations)",
    "oauth_creds.json": "a Qwen Code home's credentials (oauth_creds.json, never opened)",
    "installation_id": "a Qwen Code home's installation id",
    "QWEN.md": "a Qwen Code home's memory file (QWEN.md)",
}
_HOME_OTHER = "in a Qwen Code home, beside projects/ (only projects/<project>/chats/ holds conversations)"


def detect(source: Source) -> bool:
    """JSON Lines whose first line is a Qwen Code record (parts in its message, or a system
    record's payload)."""
    if source.is_dir or source.is_object:
        return False
    if b'"sessionId"' not in source.head(4096):
        return False
    values = head_values(source, 1)
    return bool(values) and is_record(values[0])


def to_threads(source: Source) -> list[Thread]:
    if not detect(source):
        raise refusal(source, f"is not a Qwen Code session (its first line is no Qwen Code record: {source.describe()})")
    return [read_session(source)]


@refuses_non_finite
def from_thread(thread: Thread) -> bytes:
    """The thread as a Qwen Code session file (see ``writing.py``)."""
    return write_session(thread)


def plan_folder(folder: str, entries: Sequence[os.DirEntry[str]]) -> FolderPlan | None:
    """In the Qwen home (``projects/`` beside ``settings.json``, ``output-language.md``,
    ``debug/`` ...), everything but ``projects/`` is listed as skipped."""
    names = {e.name for e in entries}
    if "projects" in names and names & _QWEN_ONLY and os.path.isdir(os.path.join(folder, "projects")):
        return FolderPlan(ignore={name: _HOME_FILES.get(name, _HOME_OTHER) for name in names - {"projects"}})
    return None


__all__ = ["AGENT", "KEY", "NAME", "detect", "from_thread", "plan_folder", "to_threads"]
