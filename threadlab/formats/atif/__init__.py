"""ATIF, Harbor's Agent Trajectory Interchange Format (``trajectory.json``, RFC 0001), v1.0 to
v1.8 read and written: one trajectory file is one thread. ``reading`` says how steps, calls,
observation results, metrics and subagent trajectories become actions; ``writing`` how any
thread becomes a trajectory. What the writer cannot hold it names in a ``WriteLoss``, found by
reading what it wrote back and comparing (a thread read from ATIF compares equal)."""

from __future__ import annotations

from pathlib import Path

import orjson

from threadlab.core.finite import refuses_non_finite
from threadlab.core.loss import report_loss
from threadlab.core.model import Thread
from threadlab.formats.atif.layout import plan_folder
from threadlab.formats.atif.reading import read_trajectory
from threadlab.formats.atif.wire import is_trajectory
from threadlab.formats.atif.writing import Layout
from threadlab.formats.common.losses import thread_losses
from threadlab.formats.common.source import Source

NAME = "atif"
REASONS = {
    "the timestamp": "an ATIF step has one time for all it holds",
    "the usage": "ATIF metrics hold prompt, completion and cached tokens only",
    "the order of": "an ATIF step holds its reasoning, message, calls and results in that order",
    "metadata '": "ATIF has no place for another format's metadata",
    "thread metadata": "ATIF keeps no thread metadata beside its own fields",
    "the thread's title": "ATIF keeps no title",
    "the thread's parent thread id": "ATIF keeps no parent thread",
    "the status": "an ATIF observation result has no error status",
    "the provider name": "ATIF keeps no provider per reasoning",
    "the signature": "ATIF keeps no reasoning signature",
    "the finish reason": "ATIF keeps no finish reason",
    "the agent identifier": "an ATIF trajectory names its agent by name, version and model",
    "the content of": "ATIF content is text or text, image and audio parts referencing files",
    "{n} tool_return actions": "an ATIF result holds text or content parts: other values are written as their JSON text, media without a path or URL is left out",
    "{n} user_message actions": "ATIF content is text or text, image and audio parts: media without a path or URL is left out",
    "{n} assistant_message actions": "ATIF content is text or text, image and audio parts: media without a path or URL is left out",
    "the agent of": "one ATIF trajectory has one agent: agents no agent_join brought in are written as the trajectory's",
    "{n} agents'": "an ATIF trajectory names its agent by name, version and model",
}


def detect(source: Source) -> bool:
    """Cheap: parsed only when the head names ``"schema_version"`` or ``"steps"``; then it must be
    a trajectory (``schema_version`` "ATIF-v…", ``agent``, ``steps``)."""
    if source.is_dir:
        return False
    if source.is_object:
        return not isinstance(source.obj, Thread) and is_trajectory(source.obj)
    head = source.head(4096)
    if b'"schema_version"' not in head and b'"steps"' not in head:
        return False
    return is_trajectory(source.try_json())


def _default_id(source: Source) -> str | None:
    name = source.path.name if source.path is not None else source.name
    return None if not name or name.startswith("<") else Path(name).name.split(".")[0] or None


def to_threads(source: Source) -> list[Thread]:
    doc = source.obj
    if not is_trajectory(doc):
        raise source.error("format", "is not an ATIF trajectory (schema_version \"ATIF-v…\", agent, steps)")
    return [read_trajectory(doc, default_id=_default_id(source), source=source.name)]


def to_atif(thread: Thread) -> dict:
    """The thread as an ATIF trajectory (a dict; ``from_thread`` gives the JSON bytes)."""
    return Layout(thread).document()


@refuses_non_finite
def from_thread(thread: Thread) -> bytes:
    """The thread as ATIF JSON; warns ``WriteLoss`` naming what the trajectory does not hold (the
    written trajectory read back and compared with the thread)."""
    wire = orjson.dumps(to_atif(thread), option=orjson.OPT_INDENT_2) + b"\n"
    (again,) = to_threads(Source(wire, name=thread.origin[0] or f"{thread.thread_id}.json"))
    report_loss(NAME, thread.thread_id, thread_losses(thread, again, REASONS))
    return wire


__all__ = ["NAME", "detect", "from_thread", "plan_folder", "to_atif", "to_threads"]
