"""The tool_calls frame's rows of one thread: each tool_return paired with the call it answers
(or the pairs the reader found), the statuses and agents that pairing gives, and the counts of
calls and pending calls on the thread's row."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from threadlab.frames.batch import CALL_ROW, RETURN_ROW, Batch


def pair_tools(
    out: Batch,
    own_status: list[Any],
    rows: list[int],
    kinds: list[Any],
    agent_ids: list[Any],
    statuses: list[Any],
    call_ids: list[Any],
    first_action: int,
) -> None:
    """One thread's tool actions (``rows``): a tool_return answers the most recent unanswered
    call of its id, as ``derive.tool_pairs`` pairs them (so two calls open under one id are two
    rows, the earlier one pending; a second return of an id is an orphan) and takes its call's
    agent; a tool_call takes its pair's status (pending until answered). The thread's rows of
    the tool_calls frame, in call order with orphan returns where they stand, go to the batch
    as the action rows of their call and return (counted from ``first_action``, the batch row
    of the block's first action). An id that is not text pairs with nothing (``validate``
    reports it)."""
    found: list[list[int | None]] = []  # [call row, return row], in order
    unanswered: dict[str, int] = {}  # call id -> its pair in ``found``
    n_calls = 0
    for i in rows:
        call_id = call_ids[i]
        if kinds[i] == "tool_call":
            n_calls += 1
            statuses[i] = "pending"
            if type(call_id) is str:
                unanswered[call_id] = len(found)
            found.append([i, None])
            continue
        at = unanswered.pop(call_id, None) if type(call_id) is str else None
        if at is None:
            agent_ids[i] = None
            found.append([None, i])
            continue
        call = found[at][0]
        found[at][1] = i
        agent_ids[i] = agent_ids[call]  # type: ignore[index]
        statuses[call] = own_status[i]  # type: ignore[index]
    t = out["tool_calls"]
    t[CALL_ROW] += [None if call is None else first_action + call for call, _ in found]
    t[RETURN_ROW] += [None if ret is None else first_action + ret for _, ret in found]
    h = out["threads"]
    h["n_tool_calls"].append(n_calls)
    h["n_pending"].append(sum(1 for call, ret in found if call is not None and ret is None))


def take_pairs(
    out: Batch,
    pairs: Sequence[Sequence[int | None]],
    start: int,
    own_status: list[Any],
    agent_ids: list[Any],
    statuses: list[Any],
    first_action: int,
) -> None:
    """``pair_tools`` for a thread whose pairs the reader found (rows of the thread's actions,
    which start at block row ``start``): the same statuses, agents and tool_calls rows."""
    calls: list[int | None] = []
    returns: list[int | None] = []
    n_pending = 0
    for call, ret in pairs:
        if ret is not None:
            ret += start
            statuses[ret] = own_status[ret]  # a tool_return's status is its own
            returns.append(first_action + ret)
        else:
            returns.append(None)
        if call is None:  # a return that answers no open call
            agent_ids[ret] = None  # type: ignore[index]
            calls.append(None)
            continue
        call += start
        calls.append(first_action + call)
        if ret is None:
            statuses[call] = "pending"
            n_pending += 1
        else:
            statuses[call] = own_status[ret]
            agent_ids[ret] = agent_ids[call]
    t = out["tool_calls"]
    t[CALL_ROW] += calls
    t[RETURN_ROW] += returns
    h = out["threads"]
    h["n_tool_calls"].append(len(pairs) - calls.count(None))
    h["n_pending"].append(n_pending)
