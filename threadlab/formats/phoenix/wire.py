"""Phoenix span dataframes as they reach disk → the flat span objects the ``otel`` reader takes.

``px.Client().get_spans_dataframe()`` (and the dataframe a ``TraceDataset`` holds and ``save()``s
as ``trace_dataset-<id>.parquet``) is OpenInference spans flattened into columns: ``name``,
``span_kind``, ``parent_id``, ``start_time``, ``end_time``, ``status_code``, ``status_message``,
``events``, ``context.span_id``, ``context.trace_id`` and one ``attributes.<dotted key>`` column
per attribute (``attributes.llm.input_messages`` a list of ``{"message.role", "message.content"}``
objects). Users keep it as Parquet (``df.to_parquet``, ``TraceDataset.save``) or JSON
(``df.to_json(orient="records")``, ``lines=True``). A row is rebuilt into the flat span
``otel/wire.flat_span`` reads (``{name, context: {trace_id, span_id}, parent_id, start_time,
end_time, status_code, attributes}``), so one interpreter reads OpenInference spans whatever
container they came in.

A dataframe holds a column for every attribute any span had: a null cell is the frame's filler
for a span that did not have it, not a value, and is left out. Times are kept exactly: Parquet
timestamps as integer nanoseconds, JSON numbers in the unit pandas wrote (seconds, ms, µs or ns,
told apart by magnitude: pandas' ``to_json`` writes epoch milliseconds by default)."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

SPAN_ID = "context.span_id"
TRACE_ID = "context.trace_id"
ATTRIBUTES = "attributes."
KIND = "attributes.openinference.span.kind"
TIME_KEYS = ("start_time", "end_time")
# the columns every Phoenix span dataframe has (phoenix.trace.dsl's and TraceDataset's)
MARKS = (SPAN_ID, TRACE_ID)


def is_span_row(item: Any) -> bool:
    return isinstance(item, Mapping) and SPAN_ID in item and TRACE_ID in item and ("name" in item or "span_kind" in item)


def flat_span_of(row: Mapping[str, Any]) -> dict[str, Any]:
    """One dataframe row as a flat span object (see the module doc)."""
    span: dict[str, Any] = {"context": {"trace_id": row.get(TRACE_ID), "span_id": row.get(SPAN_ID)}}
    attributes: dict[str, Any] = {}
    nested = row.get("attributes")
    if isinstance(nested, Mapping):  # a frame saved with attributes as one object column
        attributes.update({k: v for k, v in nested.items() if not _missing(v)})
    for key, value in row.items():
        if _missing(value) or key in MARKS:
            continue
        if key.startswith(ATTRIBUTES):
            attributes[key[len(ATTRIBUTES) :]] = value
        elif key in TIME_KEYS:
            span[key] = _time(value)
        elif key != "attributes":
            span[key] = value
    span["attributes"] = attributes
    return span


def _missing(value: Any) -> bool:
    return value is None or (isinstance(value, float) and math.isnan(value))


def _time(value: Any) -> Any:
    """A number in the unit pandas wrote, as unix nanoseconds (exact: only whole multiples)."""
    if isinstance(value, bool) or not isinstance(value, int):
        return value
    for limit, scale in ((10**11, 10**9), (10**14, 10**6), (10**17, 10**3)):
        if abs(value) < limit:
            return value * scale
    return value
