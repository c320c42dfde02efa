"""Causal order of agency-swarm's saved list: sub-agent blocks under the calls that started them."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from threadlab.core.builder import ThreadBuilder
from threadlab.formats.agency_swarm.common import is_model_output


def causal_order(items: list[Any], builder: ThreadBuilder | None = None, starts: dict[int, int] | None = None) -> list[int]:
    """Indices of ``items`` in causal order: each sub-agent block (items whose
    ``parent_run_id`` is a call's ``call_id``) right after that call. A block whose parent call
    is missing stays where it was saved, and is reported on ``builder``. ``starts`` (when given)
    gets the first index of each block placed under its call → that call's index."""
    call_positions: dict[str, list[int]] = {}
    for index, item in enumerate(items):
        if isinstance(item, Mapping) and isinstance(item.get("call_id"), str) and is_model_output(item):
            call_positions.setdefault(item["call_id"], []).append(index)
    children: dict[str, list[list[int]]] = {}
    for index, item in enumerate(items):
        parent = item.get("parent_run_id") if isinstance(item, Mapping) else None
        if not isinstance(parent, str):
            continue
        blocks = children.setdefault(parent, [])
        # one delegation starts with the caller's message; a reused call_id starts another
        opens = isinstance(item, Mapping) and item.get("role") == "user" and item.get("type", "message") == "message"
        if not blocks or (opens and blocks[-1] and len(call_positions.get(parent, ())) > len(blocks)):
            blocks.append([])
        blocks[-1].append(index)
    attached: dict[int, list[int]] = {}  # call index -> its child block
    orphan_first: dict[int, list[int]] = {}  # first index of an orphan block -> block
    for parent, blocks in children.items():
        positions = call_positions.get(parent, [])
        for number, block in enumerate(blocks):
            if number < len(positions):
                attached[positions[number]] = block
                if starts is not None:
                    starts[block[0]] = positions[number]
                continue
            orphan_first[block[0]] = block
            if builder is not None:
                first = items[block[0]]
                builder.problem(
                    "agency-parent",
                    f"items #{block[0] + 1}..#{block[-1] + 1} (agent {first.get('agent')!r}, called by {first.get('callerAgent')!r}) "
                    f"name parent_run_id {parent!r}, but no send_message call has that call_id; kept where they were saved",
                )
    in_block = {i for blocks in children.values() for block in blocks for i in block}
    order: list[int] = []
    placed: set[int] = set()

    def emit(index: int) -> None:
        if index in placed:
            return
        placed.add(index)
        order.append(index)
        for child in attached.get(index, ()):
            emit(child)

    for index in range(len(items)):
        if index in orphan_first:
            for member in orphan_first[index]:
                emit(member)
        elif index not in in_block:
            emit(index)
    for index in range(len(items)):  # blocks of calls that form a cycle: keep them, in saved order
        if index not in placed:
            emit(index)
    return order


def monotonic_times(items: list[Any], order: list[int]) -> dict[int, Any]:
    """Each item's time, pulled back to the next item's time where the saved stamp (taken at
    persist time) is later than what causally follows it."""
    times: dict[int, Any] = {}
    later: int | None = None
    for index in reversed(order):
        item = items[index]
        stamp = item.get("timestamp") if isinstance(item, Mapping) else None
        if isinstance(stamp, int) and not isinstance(stamp, bool):
            if later is not None and stamp > later:
                stamp = later
            later = stamp
        times[index] = stamp
    return times
