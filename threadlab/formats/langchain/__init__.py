"""LangChain / LangGraph messages → one thread per message list (and a thread back).

Read: a JSON array of messages in any of LangChain's spellings (``messages_to_dict``,
``dumpd``, ``model_dump``; see ``reading.py``), a LangGraph state holding them (``{"messages":
[...], ...}``, or a thread state ``{"values": {"messages": [...]}, ...}`` as the LangGraph API
returns it), and JSON Lines of messages (what ``FileChatMessageHistory`` and the SQL chat
histories keep, one a row), and LangGraph stream captures (``graph.stream(..., stream_mode=[...])``
parts saved as a JSON array or JSON Lines: ``stream.py``). Checkpoint databases are not read: their values are msgpack that
LangGraph's own loader may turn into arbitrary objects, which is not safe on a file of unknown
origin. A record is a message."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import orjson

from threadlab.core.finite import refuses_non_finite
from threadlab.core.model import Thread
from threadlab.formats.common.json_lines import parsed_lines, past_cut_first
from threadlab.formats.common.source import Source
from threadlab.formats.langchain.reading import LangChainReader, is_message
from threadlab.formats.langchain.stream import is_stream, records_of, stream_part
from threadlab.formats.langchain.wire import KEY
from threadlab.formats.langchain.writing import write_langchain

NAME = "langchain"
_MARKERS = (b'"data"', b'"kwargs"', b'"additional_kwargs"', b'"response_metadata"', b'"tool_call_id"')


def _messages_in(value: Any) -> tuple[list[Any], list[str], dict[str, Any]] | None:
    """(messages, the keys leading to them, the document around them) of a parsed value."""
    if isinstance(value, list):
        return (value, [], {}) if value and all(is_message(m) for m in value[:3]) else None
    if not isinstance(value, Mapping) or "actions" in value:
        return None
    for path in (["messages"], ["values", "messages"]):
        inner: Any = value
        for key in path:
            inner = inner.get(key) if isinstance(inner, Mapping) else None
        if isinstance(inner, list) and inner and all(is_message(m) for m in inner[:3]):
            around = {k: v for k, v in value.items() if k != path[0]}
            if len(path) == 2:
                around[path[0]] = {k: v for k, v in value[path[0]].items() if k != path[1]}
            return inner, path, around
    return None


def detect(source: Source) -> bool:
    if source.is_dir:
        return False
    if source.is_object:
        return _messages_in(source.obj) is not None
    head = past_cut_first(source.head(65536))  # a capture begun mid-line: the lines after it decide
    if head.lstrip()[:1] not in (b"{", b"[") or not any(m in head for m in _MARKERS):
        return False
    value = source.try_json()
    if value is not None:
        return _messages_in(value) is not None or is_stream(value)
    try:
        first = orjson.loads(head.lstrip().split(b"\n", 1)[0])
    except orjson.JSONDecodeError:
        return False
    return is_message(first) or stream_part(first) is not None


def to_threads(source: Source) -> list[Thread]:
    stem = Path(source.name).stem if source.name and not source.name.startswith("<") else "messages"
    reader = LangChainReader(stem, source.name)
    value = source.try_json()
    if is_stream(value):
        return [_stream(reader, [(item, k, None) for k, item in enumerate(value)])]
    if value is None:
        lines = list(parsed_lines(source, reader.b))
        if lines and stream_part(lines[0][1]) is not None:
            return [_stream(reader, [(item, k, number) for k, (number, item) in enumerate(lines)], "jsonl")]
    if value is not None:
        found = _messages_in(value)
        if found is None:
            raise source.error("format", f"holds no LangChain messages ({source.describe()})")
        messages, path, around = found
        for i, message in enumerate(messages):
            reader.add(message, i, None)
        meta: dict[str, Any] = {"container": "json", "path": path}
        if path:
            meta["shell"] = around
        return [reader.build(meta)]
    for index, (number, message) in enumerate(lines):
        reader.add(message, index, number)
    return [reader.build({"container": "jsonl"})]


def _stream(reader: LangChainReader, items: list[tuple[Any, int, int | None]], container: str = "json") -> Thread:
    """A LangGraph stream capture (``stream.py``): the chosen mode's messages; the other parts
    repeat them; an item that is no stream part is kept as it came."""
    parts = []
    for item, k, line in items:
        part = stream_part(item)
        if part is None:
            where = f"item {k + 1}" + (f" (line {line})" if line is not None else "")
            reader.b.kept("unknown-type", f"{where} is no LangGraph stream part ({str(item)[:80]}); kept as system.unknown_part", line=line)
            reader.b.add("system.unknown_part", data=item, metadata={KEY: {"item": k}})
        else:
            parts.append(part)
    mode, messages, others = records_of(parts)
    for index, (message, n) in enumerate(messages):
        reader.add(message, index, None)
        reader.b.took(n - 1)  # the chunks joined into it
    reader.b.took(others)
    return reader.build({"container": "stream", "stream": container, "mode": mode, "parts": len(parts)})


@refuses_non_finite
def from_thread(thread: Thread) -> bytes:
    """The messages in the container and spellings they were read from; other threads as
    ``messages_to_dict`` output (see ``writing.py``)."""
    return write_langchain(thread)


__all__ = ["KEY", "NAME", "detect", "from_thread", "to_threads"]
