"""Is this an AI SDK UI message stream? Decided by its chunks, not by its container.

A UI message stream comes as an SSE body (``data: {...}`` events, ``data: [DONE]``), or its
chunks saved as a JSON array or as JSON Lines. Many other tools write ``data: {...}`` SSE too
(OpenAI ``chat.completion.chunk`` streams, Anthropic Messages streams, ...) and JSON Lines of
objects with a ``type``: the container says nothing. So the detector parses the first few
chunks of the head and claims the input only when they are AI SDK chunk types that validate
against the chunk models (a ``.sse`` suffix alone claims nothing). The models (pydantic-ai's)
are imported only for values of a chunk type: sniffing a Claude Code transcript, whose lines
have a ``type`` too, costs no pydantic-ai import."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

import orjson
from pydantic import ValidationError

BOM = b"\xef\xbb\xbf"
SAMPLE = 16  # chunks looked at
HEAD = 1 << 15
# chunk types other producers use too: not enough on their own to call a stream an AI SDK one
_GENERIC = frozenset({"start", "finish", "error", "abort"})
# every chunk type ``chunks.chunk_models`` has a model for (a test keeps the two equal), and
# ``data-*``: what may be a chunk before the models are asked
CHUNK_TYPES = frozenset({
    "text-start", "text-delta", "text-end", "reasoning-start", "reasoning-delta", "reasoning-end", "error",
    "tool-input-start", "tool-input-delta", "tool-input-available", "tool-input-error", "tool-output-available",
    "tool-output-error", "tool-approval-request", "tool-output-denied", "source-url", "source-document", "file",
    "start-step", "finish-step", "start", "finish", "abort", "message-metadata",
    "tool-approval-response", "custom", "reasoning-file", "steering-message", "reset-step",
})


def is_v4_part(value: Any) -> bool:
    """A part of an AI SDK v4 ``Message`` (``@ai-sdk/ui-utils``, 4.2 on) with the field its type
    needs: what tells a v4 message an app saved without its ``id`` from other tools'
    ``{role, content, parts}`` messages (whose parts are of other types or shapes)."""
    if not isinstance(value, dict):
        return False
    kind = value.get("type")
    if kind == "step-start":
        return True
    if kind in ("text", "reasoning"):
        return isinstance(value.get(kind), str)
    if kind == "tool-invocation":
        call = value.get("toolInvocation")
        return isinstance(call, dict) and isinstance(call.get("toolCallId"), str) and isinstance(call.get("toolName"), str)
    if kind == "source":
        return isinstance(value.get("source"), dict)
    if kind == "file":
        return isinstance(value.get("mimeType"), str) and "data" in value
    return False


def is_chunk(value: Any) -> bool:
    """An object of an AI SDK chunk type that validates against that type's model."""
    if not isinstance(value, dict):
        return False
    kind = value.get("type")
    if not isinstance(kind, str) or (kind not in CHUNK_TYPES and not kind.startswith("data-")):
        return False
    from threadlab.formats.vercel_ai.chunks import chunk_model  # pydantic-ai's models, for a chunk type only

    model = chunk_model(kind)
    if model is None:
        return False
    try:
        model.__pydantic_validator__.validate_python(value)
    except ValidationError:
        return False
    return True


def looks_like_chunks(values: Iterable[Any]) -> bool:
    """The sampled values are AI SDK chunks: every one an object with a ``type``, at least half
    of them valid AI SDK chunks, and one of a type only the AI SDK uses (or all of them valid)."""
    sample = list(values)[:SAMPLE]
    if not sample or not all(isinstance(v, dict) and isinstance(v.get("type"), str) for v in sample):
        return False
    known = [v for v in sample if is_chunk(v)]
    if not known or 2 * len(known) < len(sample):
        return False
    return len(known) == len(sample) > 1 or any(v["type"] not in _GENERIC for v in known)


def _complete_lines(head: bytes, whole: bool) -> list[bytes]:
    lines = head.removeprefix(BOM).split(b"\n")
    if not whole:
        lines = lines[:-1]  # the head may end inside a line
    return [line.rstrip(b"\r") for line in lines]


def sse_payloads(lines: Iterable[bytes]) -> Iterator[bytes]:
    """The JSON payloads of an SSE body's ``data:`` lines (``[DONE]`` and empty ones left out)."""
    for line in lines:
        if line[:5] != b"data:":
            continue
        payload = line[5:].strip()
        if payload and payload != b"[DONE]":
            yield payload


def _parsed(payloads: Iterable[bytes]) -> Iterator[Any]:
    count = 0
    for payload in payloads:
        try:
            yield orjson.loads(payload)
        except orjson.JSONDecodeError:
            continue  # a broken line is the reader's to report; the sample goes on
        count += 1
        if count >= SAMPLE:
            return


def is_sse_head(head: bytes) -> bool:
    """The head starts like an SSE body: a ``data:`` line, or comments/fields then data."""
    text = head.removeprefix(BOM).lstrip(b" \t\r\n")
    return text.startswith((b"data:", b"event:", b"id:", b"retry:")) or (text.startswith(b":") and b"\ndata:" in text)


def head_is_stream(head: bytes, whole: bool) -> bool:
    """``head`` (the first bytes of a file; ``whole`` when it is the whole file) is a UI message
    stream: an SSE body or JSON Lines whose first chunks are AI SDK chunks."""
    text = head.removeprefix(BOM).lstrip()
    lines = _complete_lines(head, whole)
    if is_sse_head(head):
        return looks_like_chunks(_parsed(sse_payloads(lines)))
    if text[:1] == b"{":
        return looks_like_chunks(_parsed(line.strip() for line in lines if line.strip()))
    if text[:1] == b"[":  # a JSON array cut by the head: its elements one per line, if so written
        return looks_like_chunks(_parsed(array_lines(lines)))
    return False


def array_lines(lines: Iterable[bytes]) -> Iterator[bytes]:
    """The elements of a JSON array written one per line (``[`` / ``]`` / commas stripped)."""
    for line in lines:
        text = line.strip().removeprefix(b"[").removesuffix(b"]").strip().removesuffix(b",").strip()
        if text:
            yield text
