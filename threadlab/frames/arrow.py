"""Column lists → typed Arrow tables → pandas frames with the declared dtypes.

Arrow tables are the form frames travel in between processes, sit in the Parquet cache and are
concatenated in: labels stay plain strings there (so tables from different files concatenate
without unifying dictionaries) and become pandas categoricals only once, at the end. Everything
computed from whole columns happens here, vectorised: timestamps parsed, cost priced, tool
latency, thread duration and per-thread token and cost totals."""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from threadlab.frames.columns import DTYPES, TABLES
from threadlab.frames.extract import (
    HAS_USAGE,
    MESSAGE_TYPES,
    PROVIDER,
    REPORTED_COST,
    THREAD_INDEX,
    TOKEN_KEYS,
    TOOL_ERRORS,
    Batch,
)
from threadlab.frames.pricing import price_columns

TIME = pa.timestamp("us", tz="UTC")
ARROW_TYPES: dict[str, pa.DataType] = {
    "str": pa.large_string(),
    "label": pa.large_string(),
    "int": pa.int64(),
    "float": pa.float64(),
    "time": TIME,
    "bool": pa.bool_(),
}
SCHEMAS: dict[str, pa.Schema] = {
    table: pa.schema([(c.name, ARROW_TYPES[c.kind]) for c in columns]) for table, columns in TABLES.items()
}


def parse_times(values: Sequence[Any] | pa.Array) -> pa.Array:
    """ISO 8601 text (any offset, ``Z``, or naive = UTC) → UTC microsecond timestamps."""
    array = values if isinstance(values, pa.Array) else pa.array(values, type=pa.large_string(), from_pandas=True)
    if array.type == TIME:
        return array
    try:
        return array.cast(TIME)
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError):  # naive or unusual text: pandas' ISO 8601 reader
        parsed = pd.to_datetime(pd.Series(array.to_pylist(), dtype=object), utc=True, format="ISO8601")
        return pa.array(parsed.astype(DTYPES["time"]), type=TIME)


def _array(values: list[Any], kind: str) -> pa.Array:
    if kind == "time":
        return parse_times(values)
    if kind == "float":
        return pa.array(values, type=pa.float64(), from_pandas=True)
    return pa.array(values, type=ARROW_TYPES[kind])


def _table(table: str, columns: dict[str, Any]) -> pa.Table:
    """Columns (lists or ready arrays) → a table of the frame's schema, in declared order."""
    arrays = []
    for c in TABLES[table]:
        values = columns[c.name]
        arrays.append(values if isinstance(values, pa.Array | pa.ChunkedArray) else _array(values, c.kind))
    return pa.Table.from_arrays(arrays, schema=SCHEMAS[table])


def _seconds_between(later: pa.ChunkedArray | pa.Array, earlier: pa.ChunkedArray | pa.Array) -> pa.Array:
    micros = pc.subtract(later.cast(pa.int64()), earlier.cast(pa.int64()))
    return pc.divide(micros.cast(pa.float64()), 1e6)


def _float_array(array: pa.Array | pa.ChunkedArray) -> np.ndarray:
    return pc.fill_null(array.cast(pa.float64()), float("nan")).to_numpy()


def _spread(values: pa.Array, rows: np.ndarray, n: int) -> pa.Array:
    """Values of some rows (``rows``) → a column of n rows, null elsewhere."""
    where = np.full(n, -1, dtype=np.int64)
    where[rows] = np.arange(len(rows))
    return values.take(pa.array(where, mask=where < 0))


def batch_to_tables(batch: Batch) -> dict[str, pa.Table]:
    """The five frames of ``batch`` as typed Arrow tables."""
    a = dict(batch["actions"])
    h = dict(batch["threads"])
    n, n_threads = len(a["action_type"]), len(h["thread_id"])
    thread_of = np.asarray(a.pop(THREAD_INDEX), dtype=np.int64)
    usage_rows = np.asarray(a.pop(HAS_USAGE), dtype=np.int64)
    providers = pa.array(a.pop(PROVIDER), type=pa.large_string())
    take = pa.array(thread_of)
    a["source"] = pa.array(h["source"], type=pa.large_string()).take(take)
    a["thread_id"] = pa.array(h["thread_id"], type=pa.large_string()).take(take)

    # usage: tokens were collected for the usage rows only
    used = {k: pa.array(a[k], type=pa.int64()) for k in TOKEN_KEYS}
    either = pc.or_(pc.is_valid(used["input_tokens"]), pc.is_valid(used["output_tokens"]))
    summed = pc.add(pc.fill_null(used["input_tokens"], 0), pc.fill_null(used["output_tokens"], 0))
    used["total_tokens"] = pc.if_else(pc.and_(pc.is_null(used["total_tokens"]), either), summed, used["total_tokens"])
    for key in TOKEN_KEYS:
        a[key] = _spread(used[key], usage_rows, n)
    text = pa.array(a["text"], type=pa.large_string())
    a["text"] = text
    a["n_chars"] = pc.utf8_length(text).cast(pa.int64())
    actions = _table("actions", a)

    taken = actions.take(pa.array(usage_rows))
    tokens = {k: _float_array(used[k]) for k in TOKEN_KEYS}
    cost = price_columns(taken["model_name"].to_pylist(), providers.to_pylist(), tokens)
    usage_cols: dict[str, Any] = {name: taken[name] for name in SCHEMAS["usage"].names if name in taken.column_names}
    usage_cols["provider_name"] = providers
    usage_cols["cost_usd"] = pa.array(cost, type=pa.float64(), from_pandas=True)
    usage = pa.Table.from_pydict(usage_cols, schema=SCHEMAS["usage"])

    t = dict(batch["tool_calls"])
    t["latency_s"] = pa.nulls(len(t["tool_call_id"]), pa.float64())
    tool_calls = _table("tool_calls", t)
    tool_calls = tool_calls.set_column(
        tool_calls.schema.get_field_index("latency_s"), "latency_s", _seconds_between(tool_calls["return_time"], tool_calls["call_time"])
    )
    h.update(_thread_counts(actions, thread_of, n_threads))
    h.update(_thread_totals(thread_of[usage_rows], tokens, cost, n_threads))
    h.update(_thread_cost(h["cost_usd"], h.pop(REPORTED_COST)))
    threads = _table("threads", h)
    problems = _table("problems", batch["problems"])
    return {"actions": actions, "tool_calls": tool_calls, "usage": usage, "threads": threads, "problems": problems}


def _count(thread_of: np.ndarray, mask: Any, n_threads: int) -> pa.Array:
    selected = thread_of[np.asarray(mask, dtype=bool)] if mask is not None else thread_of
    return pa.array(np.bincount(selected, minlength=n_threads).astype(np.int64))


def _thread_counts(actions: pa.Table, thread_of: np.ndarray, n_threads: int) -> dict[str, pa.Array]:
    """Per-thread counts over the actions, and each thread's first and last action time."""
    kind = actions["action_type"]
    is_error = pc.and_(pc.equal(kind, "tool_return"), pc.is_in(actions["status"], value_set=pa.array(sorted(TOOL_ERRORS), type=pa.large_string())))
    is_message = pc.is_in(kind, value_set=pa.array(sorted(MESSAGE_TYPES), type=pa.large_string()))
    times = actions["timestamp"]
    timed = np.flatnonzero(pc.is_valid(times).to_numpy(zero_copy_only=False))
    owners = thread_of[timed]
    first = np.full(n_threads, -1, dtype=np.int64)
    last = np.full(n_threads, -1, dtype=np.int64)
    have, at = np.unique(owners, return_index=True)
    first[have] = timed[at]
    have, at = np.unique(owners[::-1], return_index=True)
    last[have] = timed[::-1][at]
    columns: dict[str, Any] = {}
    for name, where in (("first_action_at", first), ("last_action_at", last)):
        columns[name] = times.take(pa.array(where, mask=where < 0))
    duration = _seconds_between(columns["last_action_at"], columns["first_action_at"])
    columns["duration_s"] = duration
    columns["n_actions"] = _count(thread_of, None, n_threads)
    columns["n_messages"] = _count(thread_of, pc.fill_null(is_message, False).to_numpy(zero_copy_only=False), n_threads)
    columns["n_tool_errors"] = _count(thread_of, pc.fill_null(is_error, False).to_numpy(zero_copy_only=False), n_threads)
    return columns


def _thread_totals(thread_of_usage: np.ndarray, tokens: dict[str, np.ndarray], cost: np.ndarray, n: int) -> dict[str, pa.Array]:
    """Per-thread sums of the usage rows (null when no row reported the count)."""
    columns = {}
    for key, values in (*tokens.items(), ("cost_usd", cost)):
        known = ~np.isnan(values)
        sums = np.bincount(thread_of_usage[known], weights=values[known], minlength=n)
        seen = np.bincount(thread_of_usage[known], minlength=n) > 0
        kind = pa.float64() if key == "cost_usd" else pa.int64()
        columns[key] = pa.array(sums if key == "cost_usd" else sums.round().astype(np.int64), type=kind, mask=~seen)
    return columns


def _thread_cost(priced: pa.Array, reported: list[float | None]) -> dict[str, pa.Array]:
    """A thread's cost: what its producer reported when it did (Claude Code's own total covers
    its subagents and what the thread's usage rows may not), else its usage rows priced; the
    two are never added, so nothing is counted twice."""
    given = pa.array(reported, type=pa.float64())
    has = pc.is_valid(given)
    cost = pc.if_else(has, given, priced)
    source = pc.if_else(has, pa.scalar("reported"), pc.if_else(pc.is_valid(priced), pa.scalar("priced"), pa.scalar(None, pa.string())))
    return {"cost_usd": cost, "cost_source": source}


def empty_tables() -> dict[str, pa.Table]:
    return {name: schema.empty_table() for name, schema in SCHEMAS.items()}


def concat_tables(parts: Sequence[dict[str, pa.Table]]) -> dict[str, pa.Table]:
    """Per-file (or per-chunk) tables → one table per frame, in order."""
    out = {}
    for name, schema in SCHEMAS.items():
        tables = [p[name] for p in parts if p[name].num_rows]
        out[name] = pa.concat_tables(tables) if tables else schema.empty_table()
    return out


def _categorical(array: pa.ChunkedArray | pa.Array) -> pd.Categorical:
    """Strings → a categorical with sorted categories (what ``pd.Categorical(strings)`` gives),
    dictionary-encoded by Arrow in one pass instead of pandas' factorize."""
    if isinstance(array, pa.ChunkedArray):
        array = array.combine_chunks() if array.num_chunks != 1 else array.chunk(0)
    encoded = pc.dictionary_encode(array.cast(pa.large_string()))
    dictionary = encoded.dictionary
    order = pc.array_sort_indices(dictionary).to_numpy()
    rank = np.empty(len(order), dtype=np.int64)
    rank[order] = np.arange(len(order), dtype=np.int64)
    rank = np.append(rank, -1)  # index -1 (a null) → code -1
    indices = pc.fill_null(encoded.indices, -1).to_numpy() if encoded.null_count else encoded.indices.to_numpy()
    codes = rank[indices]
    categories = pd.Index(pd.arrays.ArrowStringArray(dictionary.take(pa.array(order))))
    return pd.Categorical.from_codes(codes, dtype=pd.CategoricalDtype(categories))


def _series(array: pa.ChunkedArray, kind: str, name: str) -> pd.Series:
    if kind == "label":
        return pd.Series(_categorical(array), name=name)
    if kind == "str":
        return pd.Series(pd.arrays.ArrowStringArray(array.cast(pa.large_string())), name=name)
    if kind == "time":
        return pd.Series(array.to_pandas(), name=name).astype(DTYPES["time"])
    mapper = {pa.int64(): pd.Int64Dtype(), pa.float64(): pd.Float64Dtype(), pa.bool_(): pd.BooleanDtype()}
    return pd.Series(array.to_pandas(types_mapper=mapper.get), name=name).astype(DTYPES[kind])


def table_to_frame(name: str, table: pa.Table) -> pd.DataFrame:
    """A typed Arrow table → the pandas frame with each column's declared dtype."""
    return pd.DataFrame({c.name: _series(table[c.name], c.kind, c.name) for c in TABLES[name]}, copy=False)


PARALLEL_ROWS = 100_000  # bigger tables have their columns converted on a few threads


def tables_to_frames(tables: dict[str, pa.Table]) -> dict[str, pd.DataFrame]:
    """Every frame of ``tables``; the columns of big tables are converted on a few threads
    (Arrow's dictionary encoding and casts release the GIL)."""
    if sum(t.num_rows for t in tables.values()) < PARALLEL_ROWS:
        return {name: table_to_frame(name, tables[name]) for name in SCHEMAS}
    from concurrent.futures import ThreadPoolExecutor

    jobs = [(name, c) for name in SCHEMAS for c in TABLES[name]]
    with ThreadPoolExecutor(max_workers=min(4, os.cpu_count() or 1)) as pool:
        series = list(pool.map(lambda job: _series(tables[job[0]][job[1].name], job[1].kind, job[1].name), jobs))
    columns: dict[str, dict[str, pd.Series]] = {name: {} for name in SCHEMAS}
    for (name, c), values in zip(jobs, series, strict=True):
        columns[name][c.name] = values
    return {name: pd.DataFrame(columns[name], copy=False) for name in SCHEMAS}


def frame_to_table(name: str, frame: pd.DataFrame) -> pa.Table:
    """A frame (categoricals and all) → the Arrow table of its schema (labels as strings)."""
    arrays = []
    for column in TABLES[name]:
        series = frame[column.name]
        if column.kind == "label":
            series = series.astype(DTYPES["str"])
        arrays.append(pa.array(series, type=ARROW_TYPES[column.kind], from_pandas=True))
    return pa.Table.from_arrays(arrays, schema=SCHEMAS[name])
