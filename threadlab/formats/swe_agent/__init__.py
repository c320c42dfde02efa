"""SWE-agent trajectories (``<instance_id>.traj``) → one thread per file. See ``wire.py`` for the
file and ``reading.py`` for the thread. A reader only: a trajectory is SWE-agent's record of a
run (history and steps, environment, replay config) that no other format's thread holds."""

from __future__ import annotations

from threadlab.core.model import Thread
from threadlab.formats.common.json_lines import HEAD, refusal
from threadlab.formats.common.source import Source
from threadlab.formats.swe_agent.reading import AGENT, KEY, read_trajectory
from threadlab.formats.swe_agent.wire import is_trajectory

NAME = "swe-agent"


def detect(source: Source) -> bool:
    """One JSON object with a ``history`` of SWE-agent messages beside its ``trajectory`` steps."""
    if source.is_dir or source.is_object:
        return False
    head = source.head(HEAD)
    if head.lstrip()[:1] != b"{" or (b'"history"' not in head and b'"trajectory"' not in head and b'"attempts"' not in head):
        return False
    return is_trajectory(source.try_json())


def to_threads(source: Source) -> list[Thread]:
    if not detect(source):
        raise refusal(source, f"is not a SWE-agent trajectory (no history of SWE-agent messages: {source.describe()})")
    return read_trajectory(source, source.try_json())


def from_thread(thread: Thread) -> bytes:
    raise ValueError(f"threadlab does not write SWE-agent trajectories (thread {thread.thread_id}; a trajectory is SWE-agent's own record of a run: history, steps, environment, replay config): convert to another format, e.g. --to atif")


__all__ = ["AGENT", "KEY", "NAME", "detect", "from_thread", "to_threads"]
