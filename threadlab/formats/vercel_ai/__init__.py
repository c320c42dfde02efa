"""Vercel AI SDK (npm ``ai`` v5, v6, v7): UI message streams (SSE) and persisted ``UIMessage[]``,
both ways.

This module is the registry's ``vercel-ai-stream`` format (the SSE body of a chat response;
``threadlab.formats.vercel_ai_messages`` is the ``UIMessage[]`` JSON). Public functions:
``from_ui_stream``, ``from_ui_messages``, ``to_ui_messages``, ``to_ui_stream``."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from threadlab._lazy import lazy_getattr
from threadlab.core.finite import refuses_non_finite
from threadlab.core.model import Thread
from threadlab.formats.common.source import Source
from threadlab.formats.vercel_ai import sniff

if TYPE_CHECKING:  # pydantic-ai is imported on first use, not when the registry sniffs a file
    from threadlab.formats.vercel_ai.assemble import AgentOf, default_agent_of
    from threadlab.formats.vercel_ai.messages import from_ui_messages
    from threadlab.formats.vercel_ai.stream import UIStreamReader, from_ui_chunks, from_ui_stream
    from threadlab.formats.vercel_ai.write_messages import to_ui_messages
    from threadlab.formats.vercel_ai.write_stream import to_ui_stream, ui_chunks

_PUBLIC = {
    **dict.fromkeys(("AgentOf", "default_agent_of"), ".assemble"),
    **dict.fromkeys(("from_ui_messages",), ".messages"),
    **dict.fromkeys(("UIStreamReader", "from_ui_chunks", "from_ui_stream"), ".stream"),
    **dict.fromkeys(("to_ui_messages",), ".write_messages"),
    **dict.fromkeys(("to_ui_stream", "ui_chunks"), ".write_stream"),
}
__getattr__ = lazy_getattr(globals(), _PUBLIC)

NAME = "vercel-ai-stream"

def detect(source: Source) -> bool:
    """An SSE body, JSON array or JSON Lines whose first chunks are AI SDK UI message chunks
    (see ``sniff``): other tools' ``data: {...}`` streams and a bare ``.sse`` suffix are not."""
    if source.is_dir:
        return False
    if source.is_object:
        return _object_is_stream(source.obj)
    head = source.head(sniff.HEAD)
    if head.removeprefix(sniff.BOM).lstrip()[:1] == b"[":
        value = source.try_json()
        if isinstance(value, list):
            return sniff.looks_like_chunks(value)
    return sniff.head_is_stream(head, whole=len(head) < sniff.HEAD)


def _object_is_stream(obj: Any) -> bool:
    """Chunks as dicts, or SSE lines (str/bytes) as ``response.iter_lines()`` gives them."""
    if not isinstance(obj, list | tuple) or not obj:
        return False
    if all(isinstance(item, str | bytes) for item in obj[: sniff.SAMPLE * 4]):
        lines = [item if isinstance(item, bytes) else item.encode() for item in obj[: sniff.SAMPLE * 4]]
        return sniff.head_is_stream(b"\n".join(line.rstrip(b"\r\n") for line in lines), whole=True)
    return sniff.looks_like_chunks(obj)


def to_threads(source: Source) -> list[Thread]:
    from threadlab.formats.vercel_ai.stream import from_ui_stream

    return [from_ui_stream(source, name=source.name)]


@refuses_non_finite
def from_thread(thread: Thread) -> bytes:
    from threadlab.formats.vercel_ai.write_stream import to_ui_stream

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
