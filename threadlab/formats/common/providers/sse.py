"""Server-Sent Events bodies of the provider APIs, event by event, with the line each starts on.

OpenAI (``data: {chat.completion.chunk}`` ... ``data: [DONE]``; the Responses API adds
``event: response.*`` lines) and Anthropic (``event: message_start`` / ``data: {...}``) both
send one JSON object per event. A record is a ``data:`` line (the conformance counter counts
them from the raw bytes the same way); lines that are no SSE field are reported."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import orjson

from threadlab.formats.common.json_lines import past_cut_first
from threadlab.formats.common.source import Source

_FIELDS = (b"data:", b"event:", b"id:", b"retry:")


@dataclass
class Event:
    line: int  # the line of its first data line
    name: str | None  # the ``event:`` field, if any
    data: str  # the data lines joined with newlines
    n_data: int  # how many data lines (records) it was sent in
    value: Any = None  # the parsed JSON (None for ``[DONE]`` or text that is not JSON)
    error: str | None = None  # why the data is not JSON
    torn: str | None = None  # why data that is not JSON is a torn edge of a saved stream (json_lines.torn_reason)


def is_sse(head: bytes) -> bool:
    stripped = head.lstrip()
    if stripped.startswith(b":") and (rest := past_cut_first(stripped)) is not stripped:
        return is_sse(rest)  # not a comment: a JSON Lines capture begun mid-line (``:null,...}``)
    return stripped.startswith((b"data:", b"event:", b":"))


def events(source: Source) -> Iterator[Event | tuple[int, str]]:
    """The events of an SSE body in order, and ``(line, text)`` for lines that are no SSE field."""
    name: str | None = None
    data: list[bytes] = []
    first = 0
    for number, raw in source.lines():
        if not raw.strip():
            if data:
                yield _event(first, name, data)
            name, data = None, []
            continue
        if raw.startswith(b":"):
            continue  # a comment (keep-alive)
        if raw.startswith(b"data:"):
            if not data:
                first = number
            data.append(raw[5:].removeprefix(b" "))
        elif raw.startswith(b"event:"):
            try:
                name = raw[6:].strip().decode("utf-8")
            except UnicodeDecodeError:
                name = None
                yield number, "an event: line that is not UTF-8"
        elif not raw.startswith(_FIELDS):
            yield number, raw.decode("utf-8", "replace")[:80]
    if data:
        yield _event(first, name, data)


def _event(line: int, name: str | None, data: list[bytes]) -> Event:
    text = b"\n".join(data)
    event = Event(line, name, text.decode("utf-8", "replace"), sum(1 for d in data if d.strip()) or 1)
    try:
        text.decode("utf-8")
    except UnicodeDecodeError as exc:
        event.error = f"not UTF-8 (bad byte at offset {exc.start})"
        return event
    if text.strip() == b"[DONE]":
        return event
    try:
        event.value = orjson.loads(text)
    except orjson.JSONDecodeError as exc:
        event.error = exc.msg
    return event


def first_event_value(head: bytes) -> Any:
    """The JSON of the first ``data:`` line of a head, or None."""
    for line in head.split(b"\n"):
        if line.startswith(b"data:"):
            try:
                return orjson.loads(line[5:])
            except orjson.JSONDecodeError:
                return None
    return None


def sse_bytes(events: list[tuple[str | None, Any]]) -> bytes:
    """An SSE body of ``(event name, JSON value or "[DONE]")`` pairs."""
    out = []
    for name, value in events:
        if name:
            out.append(b"event: " + name.encode())
        out.append(b"data: " + (value.encode() if isinstance(value, str) else orjson.dumps(value)))
        out.append(b"")
    return b"\n".join(out) + b"\n"


__all__ = ["Event", "events", "first_event_value", "is_sse", "sse_bytes"]
