"""Parquet files a format reads row by row (Phoenix span dataframes, Langfuse's blob-storage
export): the schema from the footer alone, the rows a row group at a time, within a memory budget.

A damaged row group costs its rows (one ``ParquetRefused`` at its first row's number, the row
being the file's address of a record); a damaged footer, or a file claiming more decoded bytes
than its budget (``INFLATE_RATIO`` times its size, at least ``INFLATE_GRACE``, as
``formats/inspect_ai``'s zips), costs the file. Timestamps come as integer nanoseconds (exact)."""

from __future__ import annotations

import io
from collections.abc import Callable, Iterator
from typing import Any

from threadlab.formats.common.source import Source
from threadlab.formats.common.spans.documents import Failure

PARQUET_MAGIC = b"PAR1"
INFLATE_RATIO = 100  # a Parquet file may decode to this many times its size ...
INFLATE_GRACE = 64 << 20  # ... or to this many bytes, when that is more
# the columns that make a Parquet file one a format reads (detection by content; a folder walk
# lists any other Parquet file as skipped): a Phoenix span dataframe, Langfuse's observations export
SIGNATURES = {
    "phoenix": ("context.span_id", "context.trace_id"),
    "langfuse": ("id", "trace_id", "type", "start_time", "parent_observation_id"),
}


def read_by(columns: list[str] | None) -> str | None:
    """The format whose columns a Parquet file's schema has, if any."""
    if columns is None:
        return None
    return next((name for name, marks in SIGNATURES.items() if all(m in columns for m in marks)), None)


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


def is_parquet(source: Source) -> bool:
    return not source.is_dir and not source.is_object and source.head(4).startswith(PARQUET_MAGIC)


def claimed(source: Source, name: str) -> bool | None:
    """A detector's first step: whether a Parquet file is format ``name``'s (by its columns);
    False for a folder or an in-memory object; None for a file of another kind (its bytes decide)."""
    if source.is_dir or source.is_object:
        return False
    return read_by(parquet_columns(source.data)) == name if is_parquet(source) else None


def read_rows(source: Source, take: Callable[[dict[str, Any], int], bool], what: str) -> list[Failure]:
    """Hand every row of a Parquet ``source`` to ``take(row, number)``; what it refuses, and row
    groups that do not read, become failures. A file that does not read at all raises its
    ``ThreadError``."""
    failures: list[Failure] = []
    try:
        for number, row in parquet_rows(source.data):
            if isinstance(row, ParquetRefused):
                failures.append(Failure(number, row.rule, f"{source.name} {row}"))
                continue
            try:
                if not take(row, number):
                    failures.append(Failure(number, "schema", f"{source.name} row {number}: not {what}"))
            except (ValueError, TypeError, AttributeError, KeyError) as exc:
                failures.append(Failure(number, "schema", f"{source.name} row {number}: {exc}"))
    except ParquetRefused as exc:
        raise source.error(exc.rule, str(exc)) from None
    return failures
