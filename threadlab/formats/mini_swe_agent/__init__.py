"""mini-swe-agent trajectories (``*.traj.json``, ``last_mini_run.traj.json``, Harbor's
``mini-swe-agent.trajectory.json``) → one thread per file. See ``wire.py`` for the file and
``reading.py`` for the thread. A reader only: the file is the agent's own record of a run (its
config, cost and submission), which no other format's thread holds."""

from __future__ import annotations

from threadlab.core.model import Thread
from threadlab.formats.common.json_lines import HEAD, refusal
from threadlab.formats.common.source import Source
from threadlab.formats.mini_swe_agent.reading import AGENT, KEY, read_trajectory
from threadlab.formats.mini_swe_agent.wire import is_trajectory

NAME = "mini-swe-agent"
_MARKS = (b"mini-swe-agent", b'"mini_version"', b'"model_stats"')
_TAIL = 4096  # the closing keys of a trajectory (trajectory_format, instance_id)


def detect(source: Source) -> bool:
    """One JSON object whose ``trajectory_format`` is mini-swe-agent's or whose ``info`` has a
    ``mini_version``. The ``info`` is written first, but its ``submission`` (a whole diff) can
    outgrow the head, so the tail, where ``trajectory_format`` is written last, is sniffed too."""
    if source.is_dir or source.is_object:
        return False
    head = source.head(HEAD)
    if head.lstrip()[:1] != b"{" or (b'"messages"' not in head and b'"info"' not in head):
        return False
    if not any(mark in part for part in (head, source.tail(_TAIL)) for mark in _MARKS):
        return False
    return is_trajectory(source.try_json())


def to_threads(source: Source) -> list[Thread]:
    if not detect(source):
        raise refusal(source, f"is not a mini-swe-agent trajectory (no trajectory_format of mini-swe-agent: {source.describe()})")
    return [read_trajectory(source, source.try_json())]


def from_thread(thread: Thread) -> bytes:
    raise ValueError(f"threadlab does not write mini-swe-agent trajectories (thread {thread.thread_id}; a trajectory is the agent's own record of a run: config, cost, submission): convert to another format, e.g. --to atif")


__all__ = ["AGENT", "KEY", "NAME", "detect", "from_thread", "to_threads"]
