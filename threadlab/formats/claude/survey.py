"""The frames route's passes over a session's streams (``reader.Passes``): the chain order, the
tool calls and the usage of each message found in one pass a stream, not three (and, for the
session's own file, its lines' agent and times too).

Why: a Claude Code load is about nine Python passes a line (``docs/DEVELOPING.md``), and most of
them only read: ``split_sidechains`` (which lines are a subagent's), ``chain.order_chain`` (is
the file already in chain order?), ``assign_times``, ``reader._tool_uses`` (the calls a
subagent may have been launched by) and ``usage.collect_responses`` (each message's final
usage, and which of its blocks carries it). For a stream that is in chain order (nearly every
file Claude Code writes: ``chain.in_file_order``), holds no stream events and, for the session's
file, no sidecar or sidechain line, one loop gives all of them, each decided by the same code or
test as its own pass (``usage.take_message``; ``in_file_order``'s keys; ``assign_times``' rule).
Any other stream is read by ``reader.Passes`` (the walk, a pass each), and when any stream was,
or two share a message id, the converter collects the usage as before (``Converter``): so the
multi-pass way stays the fallback and the referee (``tests/test_claude_fused.py``)."""

from __future__ import annotations

import heapq
import itertools
from bisect import bisect_right
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from itertools import islice
from operator import attrgetter, itemgetter, le
from typing import Any

from threadlab.core.builder import ThreadBuilder
from threadlab.formats.claude.agents import MAIN_AGENT
from threadlab.formats.claude.chain import own_time
from threadlab.formats.claude.reader import AGENT_METADATA, TOOL_USES, Passes, report_dangling
from threadlab.formats.claude.usage import Response, take_message
from threadlab.formats.claude.wire import UNREAD, Entry

_FILE = attrgetter("file")
_ENTRY = itemgetter(5)
_iso = datetime.fromisoformat
_FIRST = float("-inf")


@dataclass(slots=True)
class Survey:
    """One stream read once: in chain order as it stands (``ordered``, a copy), the entries whose
    parent is not in it, each message's usage (None: the stream holds stream events, which
    ``collect_responses`` reads in the merged order) and its tool calls, in order."""

    ordered: list[Entry]
    dangling: list[Entry]
    responses: dict[str, Response] | None
    calls: list[tuple[str, Entry, Mapping[str, Any]]]
    moments: list[float] | None = None  # (a session file's) each entry's time as the merge's key reads it


def survey(entries: list[Entry], session: bool = False) -> Survey | None:
    """``order_chain``'s shortcut, ``collect_responses`` and ``_tool_uses`` of one stream in one
    pass; None when the stream is not in chain order (a uuid repeated, a child before its
    parent, a time going back: the walk orders it). ``session``: the lines of a session's own
    file, which also get the main agent and their times (``split_sidechains``,
    ``assign_times``), or None when one is a sidecar or a sidechain's line (each entry's agent
    is then left unset, as read)."""
    by_uuid: dict[str, Entry] = {}
    keys: dict[str, float] = {}  # (``in_file_order``'s: the line's time, else its parent's)
    later: list[Entry] = []  # whose parent came before none of them: dangling, unless it comes after
    last = _FIRST
    responses: dict[str, Response] = {}
    calls: list[tuple[str, Entry, Mapping[str, Any]]] = []
    events = False
    current = None  # (``assign_times``': the time so far; the entries before the first take it)
    current_at = 0.0
    leading: list[Entry] = []
    moments: list[float] = []
    for entry in entries:
        raw = entry.raw
        kind = entry.type
        if session:
            side = raw.get("isSidechain")
            if side is True or kind == AGENT_METADATA or entry.agent is not None or (side is None and isinstance(raw.get("agentId"), str)):
                return _unset(entries)
            entry.agent = MAIN_AGENT
        stamp = entry.stamp
        if stamp is UNREAD:  # ``own_time``; Claude Code's ``...SS.mmmZ`` read here (``parse_timestamp`` gives it as ``fromisoformat`` does)
            value = raw.get("timestamp")
            try:
                stamp = _iso(value) if type(value) is str and len(value) == 24 and value[23] == "Z" else None
            except ValueError:
                stamp = None
            if stamp is not None and stamp.tzinfo is UTC:
                entry.stamp = stamp
            else:
                stamp = own_time(entry)
        stamp_at = stamp.timestamp() if stamp is not None else _FIRST
        uuid = entry.uuid
        if uuid is not None:
            if uuid in by_uuid:
                return _unset(entries) if session else None
            by_uuid[uuid] = entry
            parent = raw.get("parentUuid")
            at = _FIRST
            if isinstance(parent, str):
                if parent != uuid and parent in keys:
                    at = keys[parent]
                else:
                    later.append(entry)
            if stamp is not None:
                at = stamp_at
            if at < last:
                return _unset(entries) if session else None
            keys[uuid] = last = at
        if session:
            if stamp is not None and (current is None or stamp > current):
                current_at = stamp_at
                if current is None:  # the first time: the one the entries before it take
                    for n, early in enumerate(leading):
                        early.time = stamp
                        moments[n] = current_at
                current = stamp
            elif current is None:
                leading.append(entry)
            entry.time = current
            moments.append(current_at)
        message = raw.get("message")
        if type(message) is dict or (message is not None and isinstance(message, Mapping)):
            content = message.get("content")
            if kind == "assistant":
                take_message(responses, message, entry.line)
            if type(content) is list:
                for block in content:
                    if (type(block) is dict or isinstance(block, Mapping)) and block.get("type") in TOOL_USES and isinstance(block.get("id"), str):
                        calls.append((block["id"], entry, block))
        if kind == "stream_event":
            events = True
    dangling = []
    for entry in later:
        parent = entry.raw["parentUuid"]
        if parent != entry.uuid and parent in by_uuid:  # a child before its parent
            return _unset(entries) if session else None
        dangling.append(entry)
    return Survey(list(entries), dangling, None if events else responses, calls, moments if session else None)


def _unset(entries: list[Entry]) -> None:
    """A session file the survey gives up on: its entries' agents as read (none), for ``split_sidechains``."""
    for entry in entries:
        entry.agent = None


class Surveyed(Passes):
    """``reader.Passes`` by ``survey``, each stream's survey kept for its tool calls and usage."""

    def __init__(self) -> None:
        self.surveys: dict[int, Survey] = {}  # id of a stream in order → its survey
        self.walked = False  # some stream was not surveyed

    def session(self, lines: list[Entry], builder: ThreadBuilder) -> tuple[dict[str, Entry], list[Entry], dict[str, list[Entry]]]:
        found = survey(lines, session=True)
        if found is None:  # sidecars, sidechains or a file out of chain order: a pass each
            return super().session(lines, builder)
        report_dangling(found.dangling, builder, frozenset())
        self.surveys[id(found.ordered)] = found
        return {}, found.ordered, {}

    def chain(self, entries: list[Entry], builder: ThreadBuilder, outside: frozenset[str] | set[str] = frozenset()) -> list[Entry]:
        found = survey(entries)
        if found is None:
            self.walked = True
            return super().chain(entries, builder, outside)
        report_dangling(found.dangling, builder, outside)
        self.surveys[id(found.ordered)] = found
        return found.ordered

    def tool_uses(self, entries: list[Entry], agent: str) -> dict[str, tuple[Entry, Mapping[str, Any], str]]:
        found = self.surveys.get(id(entries))
        if found is None:
            return super().tool_uses(entries, agent)
        return {call_id: (entry, block, agent) for call_id, entry, block in found.calls}

    def merge(self, streams: list[list[Entry]]) -> list[Entry]:
        """``chain.merge_by_time``: the same order, with fewer keys built. The session's own
        stream (the first), surveyed, is one file in time order whose keys' times the survey
        kept: a subagent's entry goes after exactly its entries of no later time (on a tie the
        earlier file goes first, and the session's file is the first of all), found by
        bisection; the subagents' streams are merged among themselves by their keys."""
        if len(streams) == 1:
            return list(streams[0])
        files = [dict.fromkeys(map(_FILE, stream)) for stream in streams]
        rank: dict[str, int] = {}
        for names in files:
            for file in names:
                rank.setdefault(file, len(rank))
        main = streams[0]
        found = self.surveys.get(id(main))
        times = found.moments if found is not None else None
        if not main or times is None or any(main[0].file in names for names in files[1:]):
            return _by_keys(streams, rank, 0)
        out: list[Entry] = []
        done = 0
        for entry in _by_keys(streams[1:], rank, 1):
            at = bisect_right(times, entry.time.timestamp() if entry.time else 0.0, done)
            out.extend(main[done:at])
            out.append(entry)
            done = at
        out.extend(main[done:])
        return out

    def responses(self) -> dict[str, Any] | None:
        if self.walked:
            return None
        out: dict[str, Response] = {}
        for found in self.surveys.values():
            if found.responses is None:
                return None
            for mid, response in found.responses.items():
                if mid in out:  # a message in two streams: collected in the merged order
                    return None
                out[mid] = response
        return out


def _by_keys(streams: list[list[Entry]], rank: dict[str, int], first: int) -> list[Entry]:
    """Streams (numbered from ``first``) merged by ``merge_by_time``'s keys, compared as tuples
    (no key function, no slice an item; ``(index, pos)`` tells any two apart, so the entries are
    never compared). Streams each in the order of their keys (nearly always) merge as one sort,
    in C; others as ``heapq.merge`` takes them, an item at a time."""
    keyed = [[(e.time.timestamp() if e.time else 0.0, rank[e.file], e.line, index, pos, e) for pos, e in enumerate(stream)]
             for index, stream in enumerate(streams, first)]
    if all(all(map(le, items, islice(items, 1, None))) for items in keyed):
        return list(map(_ENTRY, sorted(itertools.chain.from_iterable(keyed))))
    return list(map(_ENTRY, heapq.merge(*keyed)))
