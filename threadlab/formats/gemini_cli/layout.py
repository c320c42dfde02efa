"""Where a Gemini CLI session's records are: its file, and the files a resume left beside it.

``gemini --resume`` first starts a file of its own for the session it resumes
(``session-<its start minute>-<id8>.jsonl``: the same session id, a metadata line and the
``<session_context>`` message again), then goes on writing in the session's own file. When the
minute differs from the session's, that first file is left behind in ``chats/``: same ``id8``,
a later name. It is the same session, so it is read with the session's first file, not as a
thread of its own (a folder walk lists it as that file's companion)."""

from __future__ import annotations

import os
import re
from collections.abc import Iterable

_SESSION_FILE = re.compile(r"^session-.+-([0-9a-f]{8})\.jsonl$")


def resumed_parts(names: Iterable[str]) -> dict[str, tuple[str, ...]]:
    """Of the names in a ``chats/`` folder: each session's first file → the later files of the
    same ``id8`` (only sessions with such files)."""
    groups: dict[str, list[str]] = {}
    for name in sorted(names):
        found = _SESSION_FILE.match(name)
        if found:
            groups.setdefault(found.group(1), []).append(name)
    return {group[0]: tuple(group[1:]) for group in groups.values() if len(group) > 1}


def later_parts(path: os.PathLike[str] | str) -> list[str]:
    """The paths of the files a resume left beside ``path`` when it is its session's first file
    in a ``chats/`` folder (else none)."""
    folder, name = os.path.split(os.fspath(path))
    if os.path.basename(folder) != "chats" or not _SESSION_FILE.match(name):
        return []
    try:
        names = os.listdir(folder)
    except OSError:
        return []
    return [os.path.join(folder, part) for part in resumed_parts(names).get(name, ())]
