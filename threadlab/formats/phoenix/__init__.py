"""Arize Phoenix span dataframes saved as Parquet or JSON → one thread per trace.

What a Phoenix user downloads: ``px.Client().get_spans_dataframe()`` written with
``to_parquet`` / ``to_json``, or a ``TraceDataset.save()`` folder's ``trace_dataset-<id>.parquet``.
The rows are OpenInference spans flattened into columns (``wire.py``); each is rebuilt into the
flat span the ``otel`` reader reads and interpreted there (``otel/conventions.py``), so agents,
model calls, tools and histories read as for an OTLP export of the same spans. A reader only:
the ``otel`` writer writes spans, which Phoenix imports.

A record is a row. Detection is by content: a Parquet file whose schema has ``context.span_id``
and ``context.trace_id`` columns, JSON rows with those keys. Any other Parquet file (threadlab's
own ``frames.to_parquet`` datasets included) is not claimed; a folder walk lists it in
``frames.skipped`` (``plan_folder``) instead of reading it."""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Any

from threadlab.core.model import Thread
from threadlab.formats.common.json_lines import HEAD, past_cut_first, refusal
from threadlab.formats.common.parquet import claimed, is_parquet, parquet_columns, read_by, read_rows
from threadlab.formats.common.registry import FolderPlan
from threadlab.formats.common.source import Source
from threadlab.formats.common.spans.documents import Failure, read_items
from threadlab.formats.otel.reading import threads_of
from threadlab.formats.otel.wire import RawSpan, flat_span, is_flat_span
from threadlab.formats.phoenix.wire import MARKS, flat_span_of, is_span_row

NAME = "phoenix"
DATASET_FILES = ("threadlab-schema.json", "actions.parquet", "threads.parquet")
NOT_SPANS = "a Parquet file of no format threadlab reads (its columns are no Phoenix span dataframe's or Langfuse observations')"
DATASET = "a threadlab frames dataset (frames.to_parquet): read it with threadlab.read_parquet"


def detect(source: Source) -> bool:
    """A Parquet file with Phoenix's span columns, or JSON rows of a span dataframe."""
    found = claimed(source, NAME)
    if found is not None:
        return found
    head = source.head(HEAD)
    if past_cut_first(head).lstrip()[:1] not in (b"{", b"[") or not all(f'"{m}"'.encode() in head for m in MARKS):
        return False
    return True


def _raws(source: Source) -> tuple[list[RawSpan], list[Failure]]:
    raws: list[RawSpan] = []

    def take(row: Any, line: int | None) -> bool:
        if not is_span_row(row):
            return False
        span = flat_span_of(row)
        if not is_flat_span(span):
            raise ValueError(f"span {str(row.get(MARKS[0]))[:40]!r} has no name")
        raws.append(flat_span(span, line))
        return True

    if is_parquet(source):
        failures = read_rows(source, take, "a span row")
    else:
        failures = read_items(source, take, "a row of a Phoenix span dataframe")
    return raws, failures


def to_threads(source: Source) -> list[Thread]:
    if not detect(source):
        raise refusal(source, f"is not a Phoenix span dataframe (no {MARKS[0]} and {MARKS[1]} columns: {source.describe()})")
    raws, failures = _raws(source)
    return threads_of(source, raws, failures)


def to_documents(source: Source) -> list[tuple[Thread, dict[str, Any]]] | None:
    if not detect(source):
        return None
    raws, failures = _raws(source)
    return threads_of(source, raws, failures, documents=True)


def from_thread(thread: Thread) -> bytes:
    raise ValueError(f"threadlab does not write Phoenix span dataframes (thread {thread.thread_id}): write OTLP JSON with --to otel, which Phoenix imports")


def plan_folder(folder: str, entries: Sequence[os.DirEntry[str]]) -> FolderPlan | None:
    """The Parquet files of a folder that hold no span dataframe, each with why it is not read:
    a folder walk reads a ``.parquet`` file only when its schema says it is Phoenix's. A
    ``frames.to_parquet`` dataset (its ``threadlab-schema.json``, or ``actions.parquet`` of
    older ones) is listed whole: it is read with ``threadlab.read_parquet``."""
    names = {e.name for e in entries}
    if DATASET_FILES[0] in names:  # a dataset folder: its schema file, its tables' part folders
        return FolderPlan(ignore=dict.fromkeys(names, DATASET))
    parquets = [e for e in entries if e.name.lower().endswith(".parquet")]
    if not parquets:
        return None
    if DATASET_FILES[1] in names:  # frames written before the schema file (one <table>.parquet each)
        return FolderPlan(ignore={e.name: DATASET for e in parquets})
    ignore: dict[str, str] = {}
    for entry in parquets:
        if read_by(parquet_columns(entry.path)) is None:
            ignore[entry.name] = NOT_SPANS
    return FolderPlan(ignore=ignore)


__all__ = ["NAME", "detect", "from_thread", "plan_folder", "to_documents", "to_threads"]
