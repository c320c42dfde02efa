"""Claude Code session transcripts, ``claude -p --output-format stream-json`` output and Claude
Agent SDK message objects → ThreadProtocol threads (and a thread back to a transcript).

Sources read: a ``<session>.jsonl`` transcript (with its ``<session>/subagents/`` files), a
project folder, ``~/.claude/projects`` or the config root itself (one thread per session),
stream-json text or files, and lists of SDK messages (``AssistantMessage``, ``UserMessage``,
``SystemMessage``, ``ResultMessage`` ... as objects or ``asdict`` dumps). Subagents become agents
of their session's thread, linked to the parent's ``Agent``/``Task`` tool call."""

from __future__ import annotations

import os
from itertools import repeat
from operator import attrgetter, contains
from pathlib import Path
from typing import Any

import orjson

from threadlab.core.finite import refuses_non_finite
from threadlab.core.model import Thread
from threadlab.core.problems import Problem, ThreadError
from threadlab.formats.claude.agents import MAIN_AGENT
from threadlab.formats.claude.layout import is_claude_folder, plan_folder, session_files
from threadlab.formats.claude.reader import stream_threads, transcript_builder, transcript_thread
from threadlab.formats.claude.wire import (
    entries_from_objects,
    first_entry,
    is_claude_line,
    is_sdk_list,
    loglines,
    read_lines,
    sdk_to_wire,
    sniff_lines,
)
from threadlab.formats.claude.writer import thread_to_transcript
from threadlab.formats.common.json_lines import past_cut_first
from threadlab.formats.common.source import Source

NAME = "claude-code"
_RAW = attrgetter("raw")


def detect(source: Source) -> bool:
    """A Claude folder; JSON Lines whose first entry is a Claude line (transcripts with or
    without their session envelope, stream-json); a JSON array of such lines or of SDK message
    dumps; a claude.ai web export (``{"loglines": [...]}``); SDK message objects. Only what
    ``to_threads`` reads."""
    if source.is_dir:
        return source.path is not None and is_claude_folder(source.path)
    if source.is_object:
        obj = source.obj
        return is_sdk_list(obj) or sdk_to_wire(obj) is not None or loglines(obj) is not None
    head = past_cut_first(source.head(65536))  # a capture begun mid-line: the lines after it decide
    start = head.lstrip()[:1]
    if start == b"[":  # a JSON array of stream-json / transcript lines or SDK message dumps
        return (b'"type"' in head or b'"__class__"' in head) and is_sdk_list(source.try_json())
    if start != b"{":
        return False
    if b'"loglines"' in head[:4096] and loglines(source.try_json()) is not None:
        return True
    if sniff_lines(head) or is_claude_line(first_entry(head)):
        return True
    return _pretty_object(head) and is_claude_line(source.try_json())


def _pretty_object(head: bytes) -> bool:
    """A JSON object spread over lines (``jq .`` of one entry), not JSON Lines: its first line
    alone is no JSON."""
    first = head.lstrip().split(b"\n", 1)[0].strip()
    try:
        orjson.loads(first)
    except orjson.JSONDecodeError:
        return b"\n" in head.lstrip()
    return False


def to_threads(source: Source) -> list[Thread]:
    if source.is_dir and source.path is not None:
        return _folder_threads(source.path, source.name)
    items = _container(source)
    entries = entries_from_objects(items, source.name) if items is not None else read_lines(source, source.name)
    if not entries:
        raise ThreadError([Problem("empty", f"{source.name} holds no Claude Code entries or SDK messages", source=source.name)])
    if _is_stream(entries):
        return stream_threads(entries, name=source.name)
    return [transcript_thread(source, entries=entries)]


def to_documents(source: Source) -> list[tuple[Thread, dict[str, Any]]] | None:
    """The frames route (``formats/common/documents.py``): a session transcript file → its thread (without
    actions: problems and account) and its JSON object, with no model per action and, for the
    lines ``lanes.py`` reads, only the fields the frames show (so the object gives the frames
    ``to_threads`` gives, not its JSON). None for
    any other input (a folder, a stream, an array, objects), and for a file the route gives
    up on: ``to_threads`` reads those, with the same results."""
    from threadlab.formats.claude.fused import FusedConverter
    from threadlab.formats.claude.survey import Surveyed
    from threadlab.formats.common.documents import DocBuilder

    try:
        if source.is_dir or source.is_object or source.path is None or _container(source) is not None:
            return None
        entries = read_lines(source, source.name)
        if not entries or _is_stream(entries):
            return None
        return [transcript_builder(source, DocBuilder, entries=entries, convert=FusedConverter,
                                   passes=Surveyed()).build_document()]
    except Exception:  # whatever it was, the careful way meets it again and says what it is
        return None


def _is_stream(entries: list[Any]) -> bool:
    """stream-json (or SDK messages): its lines carry ``session_id`` or name the call a subagent
    line belongs to (``parent_tool_use_id``); a transcript's never do. (Asked of every line of
    every file on the frames route: the key tests are mapped in C, not a generator a line.)"""
    return any(map(contains, map(_RAW, entries), repeat("session_id"))) or any(
        map(contains, map(_RAW, entries), repeat("parent_tool_use_id")))


def _container(source: Source) -> list[Any] | None:
    """The items of a JSON array, a claude.ai export's ``loglines`` or in-memory objects (None:
    the input is JSON Lines)."""
    if source.is_object:
        obj = source.obj
        found = loglines(obj)
        return found if found is not None else (list(obj) if isinstance(obj, list | tuple) else [obj])
    head = source.head(4096).lstrip()
    if head[:1] == b"[":
        obj = source.json()
        return list(obj) if isinstance(obj, list) else [obj]
    if head[:1] == b"{" and (b'"loglines"' in head or _pretty_object(source.head(65536))):
        obj = source.try_json()
        found = loglines(obj)
        if found is not None:
            return found
        if isinstance(obj, dict):
            return [obj]
    return None


def _folder_threads(folder: Path, name: str) -> list[Thread]:
    files = session_files(folder)
    if not files:
        raise ThreadError([Problem("empty", f"{name} holds no Claude Code session transcripts (*.jsonl)", source=name)])
    threads = []
    for path in files:
        try:
            threads.extend(to_threads(Source(path)))
        except ThreadError as exc:  # one broken file never stops the folder
            broken = Thread(thread_id=path.stem)
            broken.problems = exc.problems
            threads.append(broken)
    return threads


@refuses_non_finite
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
    from threadlab.formats.common.reading import read_all

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
