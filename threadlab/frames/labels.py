"""Label columns dictionary-encoded from the chunk reader to the frames ("compact" tables).

A label column (a source path, a thread id, an agent name, a status) repeats a few values over
many rows, and the frames hold it as a categorical with sorted categories. Made from plain
strings, that categorical costs a hash of every row in the loading process: on a cached reload
of the 75 MB benchmark corpus it was about 65 ms, a third of the reload. So each chunk's label
columns are dictionary-encoded where the chunk is read (in a pool worker, in parallel), and
stay so in the spool, in the cache (a quarter smaller) and through the concatenation; the
loading process only merges the chunks' small dictionaries and maps their indices
(``categorical``), a numpy take per chunk. The categorical is exactly the one
``frames.arrow.table_to_frame`` makes from the plain strings: the same categories, in the same
(sorted) order, nothing unused among them, the same codes."""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Any

import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from threadlab.frames.arrow import SCHEMAS, _series
from threadlab.frames.columns import TABLES
from threadlab.frames.filled import FIXED_WIDTH, fixed_width_array, merged_categorical

LABEL_TYPE = pa.dictionary(pa.int32(), pa.large_string())
LABELS: dict[str, frozenset[str]] = {name: frozenset(c.name for c in columns if c.kind == "label") for name, columns in TABLES.items()}
COMPACT_SCHEMAS: dict[str, pa.Schema] = {
    name: pa.schema([pa.field(f.name, LABEL_TYPE) if f.name in LABELS[name] else f for f in schema]) for name, schema in SCHEMAS.items()
}
PARALLEL_ROWS = 100_000  # bigger tables have their columns converted on a few threads


def compact(tables: dict[str, pa.Table]) -> dict[str, pa.Table]:
    """``tables`` (plain or compact) with every label column dictionary-encoded."""
    return {name: _compact_table(name, tables[name]) for name in SCHEMAS}


def _compact_table(name: str, table: pa.Table) -> pa.Table:
    if table.schema.equals(COMPACT_SCHEMAS[name]):
        return table
    arrays = []
    for field in COMPACT_SCHEMAS[name]:
        column = table[field.name]
        if field.type == LABEL_TYPE and column.type != LABEL_TYPE:
            column = pc.dictionary_encode(column.combine_chunks().cast(pa.large_string()))
        arrays.append(column)
    return pa.Table.from_arrays(arrays, schema=COMPACT_SCHEMAS[name])


def concat(parts: Sequence[dict[str, pa.Table]]) -> dict[str, pa.Table]:
    """Per-chunk tables (plain or compact) → one compact table per frame, in order (each
    chunk keeps its own dictionaries: ``categorical`` merges them)."""
    out = {}
    for name, schema in COMPACT_SCHEMAS.items():
        tables = [_compact_table(name, p[name]) for p in parts if p[name].num_rows]
        out[name] = pa.concat_tables(tables) if tables else schema.empty_table()
    return out


def categorical(column: pa.ChunkedArray | pa.Array) -> pd.Categorical:
    """A dictionary-encoded column (chunks with dictionaries of their own) → a categorical of
    the values used, sorted; nulls are code -1. The chunks' few dictionary values are merged;
    the rows cost one numpy take per chunk, into the final codes (``filled.merged_categorical``)."""
    chunks = column.chunks if isinstance(column, pa.ChunkedArray) else [column]
    if any(chunk.type != LABEL_TYPE for chunk in chunks):
        chunks = [pc.dictionary_encode(chunk.cast(pa.large_string())) for chunk in chunks]
    return merged_categorical([chunk for chunk in chunks if len(chunk)])


def _to_array(table: pa.Table, kind: str, name: str) -> Any:
    """One column as the pandas array of its dtype (an array, not a Series: pandas copies an
    array it wraps in a Series, and the frame takes the arrays as they are)."""
    column = table[name]
    if kind == "label":
        return categorical(column)
    if kind in FIXED_WIDTH:
        return fixed_width_array(column, kind)
    return _series(column, kind, name).array


def table_to_frame(name: str, table: pa.Table) -> pd.DataFrame:
    """One frame of a plain or compact table, each column with its declared dtype."""
    return pd.DataFrame({c.name: _to_array(table, c.kind, c.name) for c in TABLES[name]}, copy=False)


def tables_to_frames(tables: dict[str, pa.Table]) -> dict[str, pd.DataFrame]:
    """Every frame of ``tables`` (plain or compact); the columns of big tables are converted
    on a few threads (Arrow's kernels and numpy's takes release the GIL)."""
    jobs = [(name, c.kind, c.name) for name in SCHEMAS for c in TABLES[name]]
    if sum(t.num_rows for t in tables.values()) < PARALLEL_ROWS:
        arrays = [_to_array(tables[name], kind, column) for name, kind, column in jobs]
    else:
        from concurrent.futures import ThreadPoolExecutor

        with ThreadPoolExecutor(max_workers=min(4, os.cpu_count() or 1)) as pool:
            arrays = list(pool.map(lambda job: _to_array(tables[job[0]], job[1], job[2]), jobs))
    columns: dict[str, dict[str, Any]] = {name: {} for name in SCHEMAS}
    for (name, _, column), values in zip(jobs, arrays, strict=True):
        columns[name][column] = values
    return {name: pd.DataFrame(columns[name], copy=False) for name in SCHEMAS}


__all__ = ["COMPACT_SCHEMAS", "LABELS", "LABEL_TYPE", "categorical", "compact", "concat", "table_to_frame", "tables_to_frames"]
