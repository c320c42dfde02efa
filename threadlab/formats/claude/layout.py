"""Where Claude Code keeps its sessions on disk, and how a folder is recognised as one.

Layout (CLI 2.1.x; root ``~/.claude`` or ``$CLAUDE_CONFIG_DIR``)::

    <root>/projects/<sanitised cwd>/<sessionId>.jsonl
    <root>/projects/<sanitised cwd>/<sessionId>/subagents/agent-<agentId>.jsonl   (maybe deeper)
    <root>/projects/<sanitised cwd>/<sessionId>/subagents/agent-<agentId>.meta.json

A config root, its ``projects`` folder or one project folder are each one source that yields one
thread per session file."""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson

from threadlab.formats.claude.wire import is_claude_line

_SNIFF_FILES = 3


@dataclass(frozen=True, slots=True)
class SubagentFile:
    """A subagent transcript and its ``.meta.json`` sidecar (None when missing or unreadable)."""

    path: Path
    agent_id: str
    meta: dict[str, Any] | None
    meta_error: str | None


def projects_root(folder: Path) -> Path:
    """The folder holding project folders or session files (a config root → its ``projects``)."""
    inner = folder / "projects"
    return inner if inner.is_dir() else folder


def _candidates(root: Path) -> Iterator[Path]:
    yield from sorted(p for p in root.glob("*.jsonl") if p.is_file())
    yield from sorted(p for p in root.glob("*/*.jsonl") if p.is_file())


def is_transcript_head(head: bytes) -> bool:
    """The first line of a session transcript (camelCase envelope, not stream-json output)."""
    first = head.lstrip().split(b"\n", 1)[0]
    if first[:1] != b"{":
        return False
    try:
        obj = orjson.loads(first)
    except orjson.JSONDecodeError:
        return b'"sessionId"' in first or b'"parentUuid"' in first
    return is_claude_line(obj) and "session_id" not in obj and "__class__" not in obj


def _head(path: Path, size: int = 16384) -> bytes:
    try:
        with path.open("rb") as fh:
            return fh.read(size)
    except OSError:
        return b""


def is_claude_folder(folder: Path) -> bool:
    """True for a config root, a ``projects`` folder or a project folder: a few of its session
    files are sniffed, nothing more is read."""
    root = projects_root(folder)
    return any(is_transcript_head(_head(p)) for p in itertools.islice(_candidates(root), _SNIFF_FILES))


def session_files(folder: Path) -> list[Path]:
    """Every session transcript under ``folder`` (a project folder's own ``*.jsonl``, or those
    of every project folder under a root)."""
    root = projects_root(folder)
    direct = sorted(p for p in root.glob("*.jsonl") if p.is_file())
    return direct or sorted(p for p in root.glob("*/*.jsonl") if p.is_file())


def subagent_files(session: Path) -> list[SubagentFile]:
    """The subagent transcripts of one session, with their sidecars, in a stable order."""
    folder = session.parent / session.stem / "subagents"
    if not folder.is_dir():
        return []
    found = []
    for path in sorted(folder.rglob("agent-*.jsonl")):
        agent_id = path.stem.removeprefix("agent-")
        meta_path = path.with_name(path.stem + ".meta.json")
        meta: dict[str, Any] | None = None
        error: str | None = None
        if not meta_path.is_file():
            error = f"has no {meta_path.name} sidecar"
        else:
            try:
                value = orjson.loads(meta_path.read_bytes())
                meta = value if isinstance(value, dict) else None
                error = None if meta is not None else f"sidecar {meta_path.name} is not a JSON object"
            except (orjson.JSONDecodeError, OSError) as exc:
                error = f"sidecar {meta_path.name} cannot be read ({exc})"
        found.append(SubagentFile(path, agent_id, meta, error))
    return found
