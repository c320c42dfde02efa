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

import io
import math
from collections.abc import Iterator, Mapping
from typing import Any

SPAN_ID = "context.span_id"
TRACE_ID = "context.trace_id"
ATTRIBUTES = "attributes."
KIND = "attributes.openinference.span.kind"
TIME_KEYS = ("start_time", "end_time")
# the columns every Phoenix span dataframe has (phoenix.trace.dsl's and TraceDataset's)
MARKS = (SPAN_ID, TRACE_ID)
PARQUET_MAGIC = b"PAR1"
INFLATE_RATIO = 100  # a Parquet file may decode to this many times its size ...
INFLATE_GRACE = 64 << 20  # ... or to this many bytes, when that is more (as formats/inspect_ai's zips)


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


class ParquetRefused(ValueError):
    """A Parquet file that is not read: (rule, message)."""

    def __init__(self, rule: str, message: str) -> None:
        super().__init__(message)
        self.rule = rule


def parquet_columns(data: bytes | str) -> list[str] | None:
    """The column names of a Parquet file's schema (bytes, or a path: its footer only is read),
    or None when it is no Parquet file or its footer does not read."""
    try:
        if isinstance(data, str):
            with open(data, "rb") as handle:
                if handle.read(4) != PARQUET_MAGIC:
                    return None
        elif not data.startswith(PARQUET_MAGIC):
            return None
        import pyarrow.parquet as pq

        return list(pq.ParquetFile(io.BytesIO(data) if isinstance(data, bytes) else data).schema_arrow.names)
    except Exception:  # a damaged footer: no span dataframe (reading the file names the damage)
        return None


def parquet_rows(data: bytes) -> Iterator[tuple[int, dict[str, Any] | ParquetRefused]]:
    """Every row of a Parquet file with its number from 1, timestamps as integer nanoseconds. A
    row group that does not read is one ``ParquetRefused`` at its first row's number (the rows of
    the other groups are read); a footer that does not read, or a file that would decode beyond
    its budget, raises ``ParquetRefused``."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    try:
        file = pq.ParquetFile(io.BytesIO(data))
        meta = file.metadata
        groups = [meta.row_group(i) for i in range(meta.num_row_groups)]
    except (pa.ArrowException, OSError, ValueError, TypeError, IndexError, OverflowError) as exc:
        raise ParquetRefused("format", f"is a Parquet file whose footer does not read ({_said(exc)})") from exc
    budget = max(INFLATE_GRACE, INFLATE_RATIO * len(data))
    claimed = sum(g.total_byte_size for g in groups)
    if claimed > budget:
        raise ParquetRefused("size-limit", f"would decode to {claimed} bytes, beyond the {budget} bytes a file of {len(data)} bytes may take; not read")
    first = 1
    for index, group in enumerate(groups):
        where = f"row group {index + 1} (rows {first}-{first + group.num_rows - 1})"
        try:
            table = file.read_row_group(index)
            columns = []
            for column in table.columns:
                if pa.types.is_timestamp(column.type):
                    column = column.cast(pa.timestamp("ns", column.type.tz)).cast(pa.int64())
                columns.append(column)
            rows = pa.Table.from_arrays(columns, names=table.column_names).to_pylist()
        except (pa.ArrowException, OSError, ValueError, TypeError, IndexError, OverflowError) as exc:
            yield first, ParquetRefused("format", f"{where} does not read ({_said(exc)}); its rows are not read")
        else:
            yield from enumerate(rows, first)
        first += group.num_rows


def _said(exc: BaseException) -> str:
    return f"{type(exc).__name__}: {' '.join(str(exc).split())[:200]}"
