"""AITP / NEAR AI threads, both shapes, both ways.

1. The NEAR AI hub's archived export: an OpenAI-Assistants thread (``object: "thread"``, string
   metadata where ``agent_ids`` is comma-joined and ``child_thread_ids`` a JSON-encoded list) and
   its ``thread.message`` objects (content blocks ``{type: "text", text: {value, annotations}}``,
   ``assistant_id`` = ``namespace/name/version``, ``metadata.message_type`` marking logs and
   output files that the hub hides from the model).
2. The AITP "Chat Threads" spec shape: ``{id, messages, metadata: {parent_id, actors: [{id,
   capabilities: [{schema}]}]}}`` with messages ``{created_at, thread_id, content: list[str],
   attachments, role, metadata: {actor}}``.

Actors (spec actors, ``metadata.actor``, ``assistant_id``, the thread's ``agent_ids``) become
agents; content strings that are JSON capability payloads (an object with ``$schema``) become
structured ``{"type": "aitp", ...}`` parts; log messages become ``system.log`` actions.
Whatever has no ThreadProtocol field is kept under ``metadata["aitp"]`` so writing back gives the
same JSON. AITP has no tool calls: writing a thread that has them turns each into an ``agent:log``
message that carries the action itself in ``metadata.threadlab_action``, so reading it back
restores it."""

from __future__ import annotations

from typing import Any

import orjson

from threadlab.core.finite import refuses_non_finite
from threadlab.core.model import Thread
from threadlab.formats.aitp.reading import build_thread, from_aitp
from threadlab.formats.aitp.shapes import CARRIED, META, kept_head, source_shape, split_document
from threadlab.formats.aitp.writing import to_aitp
from threadlab.formats.common.source import Source

NAME = "aitp"


def detect(source: Source) -> bool:
    """Cheap: parsed only when the head names ``"messages"`` or ``"thread.message"``; then it
    must be a thread + messages document without ThreadProtocol's ``actions``."""
    if source.is_dir:
        return False
    if source.is_object:
        return not isinstance(source.obj, Thread) and split_document(source.obj) is not None
    head = source.head(4096)
    if b'"messages"' not in head and b'"thread.message"' not in head:
        return False
    return split_document(source.try_json()) is not None


def to_threads(source: Source) -> list[Thread]:
    parts = split_document(source.obj)
    if parts is None:
        raise source.error("format", "is not an AITP / NEAR AI thread (thread + messages)")
    default_id = source.path.stem if source.path is not None else None
    return [build_thread(*parts, default_id=default_id, source=source.name)]


@refuses_non_finite
def from_thread(thread: Thread, *, shape: str | None = None) -> bytes:
    """The thread in the shape it was read from (hub export, OpenAI list page, bare message list
    or AITP spec thread); the AITP spec shape for threads from other formats. ``shape`` ("aitp"
    or "hub") chooses instead."""
    origin_shape = source_shape(thread) if shape is None else shape
    doc: Any = to_aitp(thread, shape="aitp" if origin_shape in (None, "aitp") else "hub")
    if origin_shape == "list":
        doc = {**kept_head(thread), "data": doc["messages"]}
    elif origin_shape == "messages":
        doc = doc["messages"]
    return orjson.dumps(doc, option=orjson.OPT_INDENT_2) + b"\n"


__all__ = ["CARRIED", "META", "NAME", "detect", "from_aitp", "from_thread", "to_aitp", "to_threads"]
