"""Vercel AI SDK (npm ``ai`` v5, v6, v7): UI message streams (SSE) and persisted ``UIMessage[]``,
both ways.

This module is the registry's ``vercel-ai-stream`` format (the SSE body of a chat response;
``threadlab.formats.vercel_ai_messages`` is the ``UIMessage[]`` JSON). Public functions:
``from_ui_stream``, ``from_ui_messages``, ``to_ui_messages``, ``to_ui_stream``."""

from __future__ import annotations

from threadlab.core.model import Thread
from threadlab.formats.source import Source
from threadlab.formats.vercel_ai.assemble import AgentOf, default_agent_of
from threadlab.formats.vercel_ai.messages import from_ui_messages
from threadlab.formats.vercel_ai.stream import UIStreamReader, from_ui_chunks, from_ui_stream
from threadlab.formats.vercel_ai.write_messages import to_ui_messages
from threadlab.formats.vercel_ai.write_stream import to_ui_stream, ui_chunks

NAME = "vercel-ai-stream"

_BOM = b"\xef\xbb\xbf"


def _sse_head(head: bytes) -> bool:
    head = head.removeprefix(_BOM).lstrip(b" \t\r\n")
    return head.startswith(b"data:") or (head.startswith(b":") and b"\ndata:" in head)


def detect(source: Source) -> bool:
    """A ``.sse`` file, or text whose first line is an SSE ``data:`` line or comment."""
    if source.is_dir:
        return False
    if source.is_object:
        obj = source.obj
        if isinstance(obj, list | tuple) and obj and isinstance(obj[0], str | bytes):
            first = obj[0] if isinstance(obj[0], bytes) else obj[0].encode()
            return _sse_head(first + b"\ndata:") if first.lstrip().startswith(b":") else _sse_head(first)
        return False
    return source.suffix == ".sse" or _sse_head(source.head(4096))


def to_threads(source: Source) -> list[Thread]:
    return [from_ui_stream(source, name=source.name)]


def from_thread(thread: Thread) -> bytes:
    return "".join(to_ui_stream(thread)).encode("utf-8")


__all__ = [
    "NAME",
    "AgentOf",
    "UIStreamReader",
    "default_agent_of",
    "detect",
    "from_thread",
    "from_ui_chunks",
    "from_ui_messages",
    "from_ui_stream",
    "to_threads",
    "to_ui_messages",
    "to_ui_stream",
    "ui_chunks",
]
