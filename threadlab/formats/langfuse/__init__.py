"""Langfuse trace exports (JSON, JSON Lines, Parquet) → one thread per trace or session.

See ``wire.py`` for what is read (the public API's traces and observation pages, the SDK's dumps
of them, the UI's download, the blob-storage export) and ``reading.py`` for how observations
become a thread (through the span model the OpenTelemetry readers share). A reader only:
Langfuse ingests OpenTelemetry, which ``--to otel`` writes."""

from __future__ import annotations

from typing import Any

import orjson

from threadlab.core.model import Thread
from threadlab.formats.common.json_lines import HEAD, complete_lines, past_cut_first, refusal
from threadlab.formats.common.parquet import claimed
from threadlab.formats.common.source import Source
from threadlab.formats.langfuse.reading import KEY, read_threads
from threadlab.formats.langfuse.wire import is_observation, is_page, is_trace

NAME = "langfuse"
_MARKS = (b'"parentObservationId"', b'"parent_observation_id"', b'"observations"')


def detect(source: Source) -> bool:
    """Observations, traces holding them, or pages of either (see ``wire.py``)."""
    found = claimed(source, NAME)
    if found is not None:
        return found
    head = source.head(HEAD)
    # (every mark holds "bservation": a file with none, as every other format's, is passed over in one search)
    if past_cut_first(head).lstrip()[:1] not in (b"{", b"[") or b"bservation" not in head or not any(m in head for m in _MARKS):
        return False
    value = source.try_json()
    if value is None:
        lines = complete_lines(head)
        try:
            value = orjson.loads(lines[0]) if lines else None
        except orjson.JSONDecodeError:
            return False
    first = value[0] if isinstance(value, list) and value else value
    if is_page(first):
        data = first["data"]
        return bool(data) and (is_observation(data[0]) or is_trace(data[0]))
    return is_observation(first) or is_trace(first)


def to_threads(source: Source) -> list[Thread]:
    if not detect(source):
        raise refusal(source, f"is not a Langfuse export (no observations: {source.describe()})")
    return read_threads(source)


def to_documents(source: Source) -> list[tuple[Thread, dict[str, Any]]] | None:
    if not detect(source):
        return None
    return read_threads(source, documents=True)


def from_thread(thread: Thread) -> bytes:
    raise ValueError(f"threadlab does not write Langfuse exports (thread {thread.thread_id}): write OTLP JSON with --to otel, which Langfuse ingests")


__all__ = ["KEY", "NAME", "detect", "from_thread", "to_documents", "to_threads"]
