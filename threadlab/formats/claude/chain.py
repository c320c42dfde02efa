"""Ordering: the ``parentUuid`` chain of a transcript, and the merge of the main session with its
subagents by time.

Claude Code links every chain entry to its parent. The chain forks where tool results arrive in
parallel (each result points at its own ``tool_use`` entry), so the order is a walk of a tree:
a child never comes before its parent and, among entries that are ready, the earliest goes
first. Entries without a ``uuid`` (queue operations, api-request records, cost-state ...) stay
right after the chain entry they followed in the file; a line repeating an earlier line's
``uuid`` (a resumed session copies lines) stays right after that line. So ordering a file
already in this order changes nothing, and a thread written back reads back the same. Timestamps are made monotonic (an
attachment is sometimes stamped a millisecond before its parent); the original stays in the
raw entry kept in the action's metadata."""

from __future__ import annotations

import heapq
from collections import defaultdict
from datetime import datetime

from threadlab.core.timefmt import parse_timestamp
from threadlab.formats.claude.wire import UNREAD, Entry


def own_time(entry: Entry) -> datetime | None:
    """The line's own time (None: it has none that reads), parsed once: ordering and the
    effective times both ask for it."""
    stamp = entry.stamp
    if stamp is UNREAD:
        value = entry.raw.get("timestamp")
        stamp = None
        if isinstance(value, str):
            try:
                stamp = parse_timestamp(value)
            except ValueError:
                pass
        entry.stamp = stamp
    return stamp


def order_chain(entries: list[Entry]) -> tuple[list[Entry], list[Entry]]:
    """(entries in chain order, entries whose ``parentUuid`` names no entry of the file)."""
    by_uuid: dict[str, Entry] = {}
    repeated = False
    for entry in entries:
        uuid = entry.uuid
        if uuid is not None:
            if uuid in by_uuid:
                repeated = True
            else:
                by_uuid[uuid] = entry
    if not repeated:
        dangling = in_file_order(by_uuid)
        if dangling is not None:  # (nearly every file: no walk, no tree built)
            return list(entries), dangling
    return _walk(entries)


def _walk(entries: list[Entry]) -> tuple[list[Entry], list[Entry]]:
    """``order_chain`` by walking the tree: children after their parent, the earliest ready first."""
    by_uuid: dict[str, Entry] = {}
    followers: dict[str | None, list[Entry]] = defaultdict(list)
    previous: str | None = None
    for entry in entries:
        uuid = entry.uuid
        if uuid is None:
            followers[previous].append(entry)
        elif uuid in by_uuid:
            followers[uuid].append(entry)
        else:
            by_uuid[uuid] = entry
            previous = uuid
    children: dict[str, list[Entry]] = defaultdict(list)
    roots: list[Entry] = []
    dangling: list[Entry] = []
    for entry in by_uuid.values():
        parent = entry.raw.get("parentUuid")
        if isinstance(parent, str) and parent in by_uuid and parent != entry.uuid:
            children[parent].append(entry)
        else:
            roots.append(entry)
            if isinstance(parent, str):
                dangling.append(entry)
    key: dict[int, float] = {}

    def push(heap: list[tuple[float, int, int]], entry: Entry, inherited: float) -> None:
        stamp = own_time(entry)
        key[id(entry)] = stamp.timestamp() if stamp is not None else inherited
        heapq.heappush(heap, (key[id(entry)], entry.line, id(entry)))

    objects = {id(e): e for e in by_uuid.values()}
    heap: list[tuple[float, int, int]] = []
    for root in roots:
        push(heap, root, float("-inf"))
    # (lists looked up with .get: indexing the defaultdicts would add an empty list per entry)
    none: tuple[Entry, ...] = ()
    after, below = followers.get, children.get
    ordered: list[Entry] = list(after(None, none))
    while heap:
        _, _, ident = heapq.heappop(heap)
        entry = objects.pop(ident)
        ordered.append(entry)
        ordered.extend(after(entry.uuid, none))
        for child in below(entry.uuid or "", none):
            push(heap, child, key[ident])
    for entry in objects.values():  # unreachable (a parentUuid cycle): kept, in file order
        dangling.append(entry)
        ordered.append(entry)
        ordered.extend(after(entry.uuid, none))
    return ordered, dangling


def in_file_order(by_uuid: dict[str, Entry]) -> list[Entry] | None:
    """The entries whose ``parentUuid`` names no entry (the dangling ones, in file order), when
    the walk above would give the file's own order: every parent comes before its children and
    the walk's keys (the line's time, else its parent's) never go backwards, so the entry ready
    next is always the file's next (ties go to the earlier line). None when it would not. A
    file Claude Code wrote nearly always is; the walk (a heap push and pop a line) is then not
    needed."""
    keys: dict[str, float] = {}
    dangling: list[Entry] = []
    last = float("-inf")
    for uuid, entry in by_uuid.items():
        parent = entry.raw.get("parentUuid")
        inherited = float("-inf")
        if isinstance(parent, str) and parent != uuid and parent in by_uuid:
            if parent not in keys:  # a child before its parent
                return None
            inherited = keys[parent]
        elif isinstance(parent, str):
            dangling.append(entry)
        stamp = own_time(entry)
        at = stamp.timestamp() if stamp is not None else inherited
        if at < last:
            return None
        keys[uuid] = last = at
    return dangling


def assign_times(entries: list[Entry], floor: datetime | None = None) -> None:
    """Give every entry a non-decreasing effective time (its own when it has one and it does not
    go backwards; otherwise the previous entry's), never earlier than ``floor``."""
    current = floor
    if current is None:
        current = next((s for s in map(own_time, entries) if s is not None), None)
    for entry in entries:
        stamp = entry.stamp
        if stamp is UNREAD:  # (nearly always read by the ordering already: no call a line)
            stamp = own_time(entry)
        if stamp is not None and (current is None or stamp > current):
            current = stamp
        entry.time = current


def merge_by_time(streams: list[list[Entry]]) -> list[Entry]:
    """The streams (each already in order, with effective times) interleaved by time. On a tie
    the entry of the earlier file goes first (the session's own file before subagent files),
    and of two entries of one file the earlier line: so sidechains written inline come back in
    the order they were written."""
    if len(streams) == 1:  # (most sessions launch no subagent: nothing to interleave)
        return list(streams[0])
    rank: dict[str, int] = {}
    for stream in streams:
        for entry in stream:
            rank.setdefault(entry.file, len(rank))
    keyed = [[(e.time.timestamp() if e.time else 0.0, rank[e.file], e.line, index, pos, e) for pos, e in enumerate(stream)]
             for index, stream in enumerate(streams)]
    return [item[-1] for item in heapq.merge(*keyed, key=lambda t: t[:5])]
