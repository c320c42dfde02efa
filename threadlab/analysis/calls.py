"""The tool calls of the frames as arrays, ordered agent by agent: what the call scanners share.

``frames.tool_calls`` has one row per call (and one per orphan return). The call scanners read
each agent's calls in the order it made them (by ``call_sequence``) as its *steps*: the k-th
call of an agent in a thread is its step k, whatever thinking, text or other agents' actions
lie between. Computed once per tool_calls table (``arrays.cached``)."""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np

from threadlab.analysis.arrays import cached, code_of, codes, ints, runs, thread_rows, values_at
from threadlab.frames.frames import Frames

FAILED = ("error", "validation_error")


@dataclass(frozen=True)
class Calls:
    """Tool calls (rows with a ``call_sequence``) sorted by thread, agent and call order.

    ``rows`` are their positions in ``frames.tool_calls``; ``thread`` the threads-table row;
    ``agent`` / ``tool`` integer codes (equal code, equal value); ``group`` where each call's
    (thread, agent) run starts; ``step`` its position among that agent's calls."""

    rows: np.ndarray
    thread: np.ndarray
    agent: np.ndarray
    tool: np.ndarray
    group: np.ndarray
    step: np.ndarray
    call_seq: np.ndarray
    return_seq: np.ndarray
    failed: np.ndarray
    pending: np.ndarray

    def __len__(self) -> int:
        return len(self.rows)

    def end_seq(self, at: np.ndarray) -> np.ndarray:
        """The last sequence a call involves: its return's, else its own."""
        return np.maximum(self.call_seq[at], self.return_seq[at])


def calls_of(frames: Frames) -> Calls:
    return cached("calls", frames.tool_calls, lambda: _calls(frames))


def _calls(frames: Frames) -> Calls:
    tc = frames.tool_calls
    call_seq = ints(tc["call_sequence"])
    thread = thread_rows(frames, tc)
    keep = np.flatnonzero((call_seq >= 0) & (thread >= 0))
    agent = codes(tc["agent_id"])[0][keep]
    order = np.lexsort((call_seq[keep], agent, thread[keep]))
    rows = keep[order]
    thread, agent = thread[rows], agent[order]
    group_key = thread * (int(agent.max(initial=0)) + 2) + agent + 1
    starts = runs(group_key)
    lengths = np.diff(np.append(starts, len(rows)))
    group = np.repeat(starts, lengths)
    return Calls(
        rows=rows, thread=thread, agent=agent, tool=codes(tc["tool_name"])[0][rows], group=group,
        step=np.arange(len(rows), dtype=np.int64) - group, call_seq=call_seq[rows], return_seq=ints(tc["return_sequence"])[rows],
        failed=code_of(tc["status"], FAILED)[rows], pending=code_of(tc["status"], ("pending",))[rows],
    )


def column(frames: Frames, calls: Calls, name: str, at: np.ndarray) -> np.ndarray:
    """Values of one tool_calls column for the ordered calls ``at`` (None where empty)."""
    return values_at(frames.tool_calls[name], calls.rows[at])


_SPACE = re.compile(r"\s+")


def short(text: object, limit: int = 80) -> str:
    """One line of at most ``limit`` characters (for messages; the frames keep the whole value)."""
    if text is None:
        return ""
    flat = _SPACE.sub(" ", str(text)).strip()
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"
