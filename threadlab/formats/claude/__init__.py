"""Claude Code session transcripts, ``claude -p --output-format stream-json`` output and Claude
Agent SDK message objects → ThreadProtocol threads (and a thread back to a transcript).

Sources read: a ``<session>.jsonl`` transcript (with its ``<session>/subagents/`` files), a
project folder, ``~/.claude/projects`` or the config root itself (one thread per session),
stream-json text or files, and lists of SDK messages (``AssistantMessage``, ``UserMessage``,
``SystemMessage``, ``ResultMessage`` ... as objects or ``asdict`` dumps). Subagents become agents
of their session's thread, linked to the parent's ``Agent``/``Task`` tool call."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from threadlab.core.model import Thread
from threadlab.core.problems import Problem, ThreadError
from threadlab.formats.claude.convert import MAIN_AGENT
from threadlab.formats.claude.layout import is_claude_folder, is_transcript_head, plan_folder, session_files
from threadlab.formats.claude.reader import stream_threads, transcript_thread
from threadlab.formats.claude.wire import entries_from_objects, is_sdk_list, read_lines, sdk_to_wire, sniff_lines
from threadlab.formats.claude.writer import thread_to_transcript
from threadlab.formats.source import Source

NAME = "claude-code"


def detect(source: Source) -> bool:
    """A Claude folder, a file whose first line is a Claude entry, or SDK message objects."""
    if source.is_dir:
        return source.path is not None and is_claude_folder(source.path)
    if source.is_object:
        obj = source.obj
        return is_sdk_list(obj) or sdk_to_wire(obj) is not None
    head = source.head(65536)
    if head.lstrip()[:1] == b"[":  # a JSON array of stream-json lines or SDK message dumps
        return (b'"__class__"' in head or b'"session_id"' in head) and is_sdk_list(source.try_json())
    return sniff_lines(head)


def to_threads(source: Source) -> list[Thread]:
    if source.is_dir and source.path is not None:
        return _folder_threads(source.path, source.name)
    if source.is_object or source.head(64).lstrip()[:1] == b"[":
        obj = source.json()
        items = list(obj) if isinstance(obj, list | tuple) else [obj]
        problems: list[Problem] = []
        threads = stream_threads(entries_from_objects(items, source.name, problems), name=source.name)
        _attach(threads, problems, source.name)
        return threads
    if is_transcript_head(source.head(65536)):
        return [transcript_thread(source)]
    problems = []
    threads = stream_threads(read_lines(source, source.name, None, problems), name=source.name)
    _attach(threads, problems, source.name)
    return threads


def _folder_threads(folder: Path, name: str) -> list[Thread]:
    files = session_files(folder)
    if not files:
        raise ThreadError([Problem("empty", f"{name} holds no Claude Code session transcripts (*.jsonl)", source=name)])
    threads = []
    for path in files:
        src = Source(path)
        if is_transcript_head(src.head(65536)):
            threads.append(transcript_thread(src, base=folder))
            continue
        problems: list[Problem] = []
        try:
            found = stream_threads(read_lines(src, str(path.relative_to(folder)), None, problems), name=name)
            _attach(found, problems, str(path))
        except ThreadError as exc:  # one broken file never stops the folder
            broken = Thread(thread_id=path.stem)
            broken.problems = exc.problems
            found = [broken]
        threads.extend(found)
    return threads


def _attach(threads: list[Thread], problems: list[Problem], name: str) -> None:
    """Problems of the input as a whole go on its first thread (an input with no thread at all
    is an error naming it)."""
    if not threads:
        raise ThreadError(problems or [Problem("empty", f"{name} holds no Claude Code entries or SDK messages", source=name)])
    threads[0].problems = [*threads[0].problems, *problems]


def from_thread(thread: Thread) -> bytes:
    """The thread as a Claude Code transcript (JSON Lines, one line per content block; subagent
    actions inline as ``isSidechain`` entries, the layout older CLI versions wrote)."""
    return thread_to_transcript(thread)


def from_claude(source: Any, *, strict: bool = False) -> Thread | list[Thread]:
    """Read Claude Code / Claude Agent SDK output.

    ``source`` is a transcript path, a project folder / ``~/.claude/projects`` / config root (→ a
    list of threads, one per session), stream-json text, bytes or a file, or a list of SDK message
    objects (→ one thread). Lenient by default: problems are on ``thread.problems``; with
    ``strict=True`` any problem raises ``ThreadError``."""
    from threadlab.formats.reading import read_all

    if isinstance(source, str | os.PathLike) and os.fspath(source).startswith("~"):
        source = Path(os.fspath(source)).expanduser()
    src = source if isinstance(source, Source) else Source(source)
    threads = read_all(src, NAME, strict=strict)
    if src.is_dir:
        return threads
    if len(threads) != 1:
        raise ThreadError([Problem("format", f"holds {len(threads)} sessions; use threadlab.read_all", source=src.name)])
    return threads[0]


__all__ = ["MAIN_AGENT", "NAME", "detect", "from_claude", "from_thread", "plan_folder", "to_threads"]
