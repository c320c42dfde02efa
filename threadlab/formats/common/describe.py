"""What a file's first bytes look like, in a short phrase, for the message about a file no format
reads (``Source.describe``): a known look-alike (another program's stream or trace data), or the
container shape (JSON object and first keys, array, JSON Lines, SSE, binary, text)."""

from __future__ import annotations

from typing import Any

import orjson

from threadlab.formats.common.content import binary_kind

_MISSING: Any = object()


# what common files that no threadlab format reads look like, by a marker in their head
_LOOKALIKES = (
    (b'"chat.completion.chunk"', "an OpenAI Chat Completions stream (chat.completion.chunk)"),
    (b'"chat.completion"', "an OpenAI Chat Completions response"),
    (b'"message_start"', "an Anthropic Messages stream (message_start, content_block_delta, ...)"),
    (b'"response.created"', "an OpenAI Responses stream (response.created, response.output_text.delta, ...)"),
    (b'"resourceSpans"', "OpenTelemetry OTLP trace data (resourceSpans)"),
    (b'"openinference.span.kind"', "OpenInference spans"),
    (b'"gen_ai.', "OpenTelemetry GenAI spans"),
    (b'"session_meta"', "a Codex CLI rollout"),
)
_MAGIC = (
    (b"PK\x03\x04", "a zip archive (an Inspect AI .eval log is one)"),
    (b"SQLite format 3\x00", "an SQLite database"),
)


def describe_bytes(head: bytes) -> str:
    """A short phrase saying what ``head`` (a file's first bytes) looks like: the known
    look-alike it resembles, or its container shape (JSON object and first keys, array, JSON
    Lines, SSE, binary, text)."""
    for magic, what in _MAGIC:
        if head.startswith(magic):
            return what
    binary = binary_kind(head)  # a picture, a Parquet file, an archive ... (content.py)
    if binary is not None:
        return binary
    stripped = head.removeprefix(b"\xef\xbb\xbf").lstrip()
    if not stripped:
        return "empty"
    for marker, what in _LOOKALIKES:
        if marker in head:
            return what
    if b"\x00" in head[:4096]:
        return "binary data"
    if stripped.startswith((b"data:", b"event:", b":")):
        return "a Server-Sent Events body whose chunks are of no format threadlab reads"
    first = stripped.split(b"\n", 1)[0]
    try:
        value = orjson.loads(first)
        lines = b"\n" in stripped.strip()
    except orjson.JSONDecodeError:
        value, lines = _MISSING, False
    if value is _MISSING:
        try:
            value = orjson.loads(stripped)
        except orjson.JSONDecodeError:
            return "JSON" if stripped[:1] in (b"{", b"[") else "text, not JSON"
    shape = "JSON Lines of " if lines and isinstance(value, dict) else ""
    if isinstance(value, dict):
        keys = ", ".join(list(map(str, value))[:6])
        return f"{shape}a JSON object with keys {keys}" if not shape else f"{shape}objects with keys {keys}"
    if isinstance(value, list):
        kinds = sorted({type(v).__name__ for v in value[:20]})
        first_keys = ", ".join(list(map(str, value[0]))[:6]) if value and isinstance(value[0], dict) else ""
        return f"a JSON array of {'/'.join(kinds) or 'nothing'}" + (f" (first keys {first_keys})" if first_keys else "")
    return f"a JSON {type(value).__name__}"
