"""Where Claude Code keeps its sessions on disk, and how a folder is recognised as one.

Layout (CLI 2.1.x; root ``~/.claude`` or ``$CLAUDE_CONFIG_DIR``)::

    <root>/projects/<sanitised cwd>/<sessionId>.jsonl
    <root>/projects/<sanitised cwd>/<sessionId>/subagents/agent-<agentId>.jsonl   (maybe deeper)
    <root>/projects/<sanitised cwd>/<sessionId>/subagents/agent-<agentId>.meta.json

Before 2.1, a sidechain (subagent) transcript was ``agent-<agentId>.jsonl`` beside the sessions,
its lines carrying the parent's ``sessionId`` (and no sidecar).

A config root, its ``projects`` folder or one project folder are each one source that yields one
thread per session file."""

from __future__ import annotations

import itertools
import os
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson

from threadlab.formats.claude.wire import is_transcript_entry
from threadlab.formats.common.registry import FolderPlan
from threadlab.formats.common.source import open_regular

_SNIFF_FILES = 3


@dataclass(frozen=True, slots=True)
class SubagentFile:
    """A subagent transcript and its ``.meta.json`` sidecar (None when missing or unreadable).
    ``layout`` says where it was: ``SUBAGENTS`` (2.1: ``<session>/subagents/``, which has
    sidecars) or ``BESIDE`` (before 2.1: beside the session, never with a sidecar)."""

    SUBAGENTS = "subagents"
    BESIDE = "beside"

    path: Path
    agent_id: str
    meta: dict[str, Any] | None
    meta_error: str | None
    layout: str = "subagents"


def projects_root(folder: Path) -> Path:
    """The folder holding project folders or session files (a config root → its ``projects``)."""
    inner = folder / "projects"
    return inner if inner.is_dir() else folder


def _candidates(root: Path) -> Iterator[Path]:
    yield from sorted(p for p in root.glob("*.jsonl") if p.is_file())
    yield from sorted(p for p in root.glob("*/*.jsonl") if p.is_file())


def is_transcript_head(head: bytes) -> bool:
    """The first line of a session transcript (camelCase envelope, not stream-json output)."""
    stripped = head.lstrip()
    if stripped[:1] != b"{":
        return False
    first = stripped.split(b"\n", 1)[0]
    try:
        return is_transcript_entry(orjson.loads(first))
    except orjson.JSONDecodeError:  # a first line longer than the head
        return b"\n" not in stripped and (b'"sessionId"' in first or b'"parentUuid"' in first) and b'"session_id"' not in first


def _head(path: Path, size: int = 16384) -> bytes:
    """The first bytes of a regular file (nothing for a FIFO named like a session: opening it
    would wait for a writer, and a folder walk would hang in the plan)."""
    try:
        with open_regular(path) as fh:
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
    of every project folder under a root); a pre-2.1 sidechain file of a session beside it is
    read with that session, not as one of its own."""
    root = projects_root(folder)
    direct = sorted(p for p in root.glob("*.jsonl") if p.is_file())
    found = direct or sorted(p for p in root.glob("*/*.jsonl") if p.is_file())
    return [p for p in found if not _is_companion(p)]


def _is_companion(path: Path) -> bool:
    session = sidechain_session(path) if path.name.startswith("agent-") else None
    return session is not None and (path.parent / f"{session}.jsonl").is_file()


def subagent_files(session: Path) -> list[SubagentFile]:
    """The subagent transcripts of one session, with their sidecars, in a stable order."""
    folder = session.parent / session.stem / "subagents"
    found = [_with_sidecar(p) for p in (sorted(folder.rglob("agent-*.jsonl")) if folder.is_dir() else [])]
    for path in sidechains_beside(session.parent).get(session.stem, ()):
        if path != session:
            found.append(SubagentFile(path, path.stem.removeprefix("agent-"), None, None, SubagentFile.BESIDE))
    return found


# folder → (its entries' time when listed, each agent file with its stat, session id → its files)
_BESIDE: dict[str, tuple[int, list[tuple[Path, Any]], dict[str, list[Path]]]] = {}
_SETTLED_NS = 2_000_000_000  # a listing is kept only when the folder was last changed longer ago than this (coarse clocks)


def sidechains_beside(folder: Path) -> dict[str, list[Path]]:
    """Session id → the pre-2.1 sidechain files (``agent-*.jsonl``) in ``folder`` that belong to
    it, in name order. Every session of a project folder asks, and each answer lists the folder
    and reads the head of every agent file in it (quadratic in a folder of many sessions): so it
    is worked out once and kept while the folder's entries (its time) and each agent file (time,
    size, inode) are as they were; anything changed is listed and read again."""
    try:
        listed = folder.stat().st_mtime_ns
    except OSError:
        return {}
    known = _BESIDE.get(str(folder))
    if known is not None and known[0] == listed and all(_stamp(path) == stamp for path, stamp in known[1]):
        return known[2]
    paths = sorted(folder.glob("agent-*.jsonl"))
    stamps = [(path, _stamp(path)) for path in paths]
    found: dict[str, list[Path]] = {}
    for path in paths:
        session = sidechain_session(path)
        if session is not None:
            found.setdefault(session, []).append(path)
    if time.time_ns() - listed > _SETTLED_NS:
        _BESIDE[str(folder)] = (listed, stamps, found)
    return found


def _stamp(path: Path) -> tuple[int, int, int] | None:
    try:
        st = path.stat()
    except OSError:
        return None
    return st.st_mtime_ns, st.st_size, st.st_ino


def _with_sidecar(path: Path) -> SubagentFile:
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
    return SubagentFile(path, agent_id, meta, error)


# names a Claude Code config root (~/.claude) holds beside projects/
_CONFIG_ROOT_MARKERS = frozenset({"settings.json", "settings.local.json", "todos", "statsig", "shell-snapshots", "history.jsonl", "plugins", "ide"})
_CONFIG_ROOT_FILES = {
    "settings.json": "a Claude Code settings file",
    "settings.local.json": "a Claude Code settings file",
    "history.jsonl": "a Claude Code home's prompt history (history.jsonl)",
}
_CONFIG_ROOT_OTHER = "in a Claude Code home, beside projects/ (only projects/ holds conversations)"


def plan_folder(folder: str, entries: Sequence[os.DirEntry[str]]) -> FolderPlan | None:
    """What a folder walk must not read on its own here: a session's folder (``<id>/`` beside
    ``<id>.jsonl``, holding ``subagents/`` and tool results) and pre-2.1 ``agent-*.jsonl``
    sidechains of a session in this folder are read with that session; in a config root
    (``~/.claude``) only ``projects/`` holds conversations. Everything else (other formats'
    files beside the sessions) is left to the walk."""
    names = {e.name for e in entries}
    if "projects" in names and names & _CONFIG_ROOT_MARKERS and is_claude_folder(Path(folder, "projects")):
        return FolderPlan(ignore={name: _CONFIG_ROOT_FILES.get(name, _CONFIG_ROOT_OTHER) for name in names - {"projects"}})
    sessions = {e.name[: -len(".jsonl")]: e for e in entries if e.name.endswith(".jsonl") and not e.name.startswith("agent-")}
    companions: dict[str, list[str]] = {}
    for stem, entry in sessions.items():  # a session's folder (its first line may be broken: subagents/ says so too)
        if stem in names and (is_transcript_head(_head(Path(entry.path))) or Path(folder, stem, "subagents").is_dir()):
            companions.setdefault(entry.name, []).append(stem)
    for entry in entries:
        if entry.name.startswith("agent-") and entry.name.endswith(".jsonl"):
            session = sidechain_session(Path(entry.path))
            if session is not None and session in sessions:
                companions.setdefault(f"{session}.jsonl", []).append(entry.name)
    if not companions:
        return None
    return FolderPlan(companions={k: tuple(v) for k, v in companions.items()})


def sidechain_session(path: Path) -> str | None:
    """The parent session id of a pre-2.1 sidechain transcript (``agent-*.jsonl``): the
    ``sessionId`` of its first line that has one, when its lines are sidechain lines."""
    for line in _head(path, 65536).split(b"\n")[:20]:
        try:
            obj = orjson.loads(line)
        except orjson.JSONDecodeError:
            continue
        if isinstance(obj, dict) and isinstance(obj.get("sessionId"), str):
            return obj["sessionId"] if obj.get("isSidechain") else None
    return None
