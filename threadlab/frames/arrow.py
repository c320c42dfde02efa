"""Column lists → typed Arrow tables → pandas frames with the declared dtypes.

Arrow tables are the form frames travel in between processes, sit in the Parquet cache and are
concatenated in: labels stay plain strings there (so tables from different files concatenate
without unifying dictionaries) and become pandas categoricals only once, at the end. Everything
computed from whole columns happens here, vectorised: timestamps parsed, cost priced, tool
latency, thread duration and per-thread token and cost totals.

Nothing in a batch can make this fail: a value a column cannot hold is kept as text or left
empty (``typed.py``) and reported as a ``frame-value`` problem row naming its file, thread and
sequence, so one odd file in a chunk costs only its odd cells."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from threadlab.core.authors import INTERRUPT
from threadlab.core.problems import Problem
from threadlab.frames.batch import (
    CALL_ROW,
    HAS_USAGE,
    MESSAGE_TYPES,
    PROVIDER,
    REPORTED_COST,
    REPORTED_TOKENS,
    RETURN_ROW,
    THREAD_INDEX,
    TOKEN_KEYS,
    TOOL_ERRORS,
    Batch,
)
from threadlab.frames.columns import DTYPES, TABLES, Column
from threadlab.frames.extract import add_problems
from threadlab.frames.pricing import price_columns
from threadlab.frames.totals import thread_tokens
from threadlab.frames.typed import ARROW_TYPES, TIME, Report, parse_times, text_and_lengths, typed_array

__all__ = [
    "ARROW_TYPES",
    "SCHEMAS",
    "TIME",
    "batch_to_tables",
    "concat_tables",
    "parse_times",
    "table_to_frame",
]
SCHEMAS: dict[str, pa.Schema] = {
    table: pa.schema([(c.name, ARROW_TYPES[c.kind]) for c in columns]) for table, columns in TABLES.items()
}


class OddValues:
    """Problem rows (rule ``frame-value``) for values a frame column could not hold as they
    came, each naming the file, thread and sequence of its row."""

    def __init__(self, batch: Batch, thread_of: np.ndarray) -> None:
        self.threads = batch["threads"]
        self.sequences = batch["actions"]["sequence"]
        self.thread_of = thread_of
        self.problems: list[Problem] = []
        self.per_thread: Counter[int] = Counter()

    def _add(self, thread: int, message: str, sequence: Any = None, rule: str = "frame-value") -> None:
        thread_id = self.threads["thread_id"][thread]
        self.problems.append(
            Problem(
                rule,
                message,
                thread_id if isinstance(thread_id, str) else None,
                sequence,
                self.threads["source"][thread],
            )
        )
        self.per_thread[thread] += 1

    def action(self, column: str, rows: Sequence[int] | None = None) -> Report:
        """Report for a column of action rows (``rows`` maps its positions to action rows)."""

        def report(position: int, why: str) -> None:
            row = rows[position] if rows is not None else position
            self._add(int(self.thread_of[row]), f"actions.{column} {why}", self.sequences[row])

        return report

    def once(self, column: str) -> Report:
        """Report for a column of action rows that says one thing once per file (its first
        row's value; the file's others are alike)."""
        said: set[Any] = set()

        def report(row: int, why: str) -> None:
            thread = int(self.thread_of[row])
            if self.threads["source"][thread] not in said:
                said.add(self.threads["source"][thread])
                self._add(thread, f"actions.{column} {why} (this file's first such time; its others alike)", self.sequences[row], rule="time-precision")

        return report

    def thread(self, column: str) -> Report:
        return lambda row, why: self._add(row, f"threads.{column} {why}")

    def thread_problem(self, row: int, rule: str, message: str) -> None:
        """A problem row of another rule about a thread's row (``usage-total``)."""
        self._add(row, message, rule=rule)


def _table(table: str, columns: dict[str, Any], report: Any = None) -> pa.Table:
    """Columns (lists or ready arrays) → a table of the frame's schema, in declared order.
    ``report(column)`` gives the Report for a column's odd values (None: not reported, as for
    the tool_calls frame, whose values are the actions' and were reported there)."""
    arrays = [typed_array(columns[c.name], c.kind, report(c.name) if report is not None else None) for c in TABLES[table]]
    return pa.Table.from_arrays(arrays, schema=SCHEMAS[table])


def _seconds_between(later: pa.ChunkedArray | pa.Array, earlier: pa.ChunkedArray | pa.Array) -> pa.Array:
    micros = pc.subtract(later.cast(pa.int64()), earlier.cast(pa.int64()))
    # unsafe: beyond 2**53 µs (285 years) a float rounds, which a duration in seconds may do
    return pc.divide(micros.cast(pa.float64(), safe=False), 1e6)


def _float_array(array: pa.Array | pa.ChunkedArray) -> np.ndarray:
    return pc.fill_null(array.cast(pa.float64(), safe=False), float("nan")).to_numpy()  # (beyond 2**53 a float rounds)


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
    odd = OddValues(batch, thread_of)
    providers = typed_array(a.pop(PROVIDER), "label", odd.action("provider_name", usage_rows))
    take = pa.array(thread_of)
    a["source"] = typed_array(h["source"], "label").take(take)
    a["thread_id"] = typed_array(h["thread_id"], "label").take(take)

    # usage: tokens were collected for the usage rows only
    used = {k: typed_array(a[k], "int", odd.action(k, usage_rows)) for k in TOKEN_KEYS}
    used["total_tokens"] = _totals(used, usage_rows, odd)
    for key in TOKEN_KEYS:
        a[key] = _spread(used[key], usage_rows, n)
    a["text"], a["n_chars"] = text_and_lengths(a["text"], odd.action("text"))
    actions = _table("actions", a, lambda column: odd.once(column) if column == "timestamp" else odd.action(column))

    taken = actions.select([name for name in SCHEMAS["usage"].names if name in actions.column_names]).take(pa.array(usage_rows))  # (not the text)
    tokens = {k: _float_array(used[k]) for k in TOKEN_KEYS}
    cost = price_columns(taken["model_name"].to_pylist(), providers.to_pylist(), tokens)
    usage_cols: dict[str, Any] = {name: taken[name] for name in SCHEMAS["usage"].names if name in taken.column_names}
    usage_cols["provider_name"] = providers
    usage_cols["cost_usd"] = pa.array(cost, type=pa.float64(), from_pandas=True)
    usage = pa.Table.from_pydict(usage_cols, schema=SCHEMAS["usage"])

    tool_calls = _tool_calls(actions, batch["tool_calls"])
    h.update(_thread_counts(actions, thread_of, n_threads))
    totals = _thread_totals(thread_of[usage_rows], tokens, cost, n_threads, used)
    h.update(totals)
    h.update(thread_tokens({k: totals[k] for k in TOKEN_KEYS}, h.pop(REPORTED_TOKENS), odd.thread_problem))
    h.update(_thread_cost(h["cost_usd"], h.pop(REPORTED_COST)))
    # (a time finer than a microsecond is said once per file, by the actions' timestamps)
    h.update({c.name: typed_array(h[c.name], c.kind, odd.thread(c.name) if c.kind != "time" else None) for c in TABLES["threads"] if c.name != "n_problems"})
    if odd.problems:
        h["n_problems"] = [count + odd.per_thread[i] for i, count in enumerate(h["n_problems"])]
        problem_columns = {name: list(values) for name, values in batch["problems"].items()}
        add_problems({"problems": problem_columns}, odd.problems, source=None)
    else:
        problem_columns = batch["problems"]
    threads = _table("threads", h)
    problems = _table("problems", problem_columns)
    return {"actions": actions, "tool_calls": tool_calls, "usage": usage, "threads": threads, "problems": problems}


def _tool_calls(actions: pa.Table, rows: dict[str, list[int | None]]) -> pa.Table:
    """The tool_calls frame taken from the actions table by row: each pair's call and return
    rows (``CALL_ROW``, ``RETURN_ROW``), so its values are the actions' as typed (and reported)
    there. A pair's status is its call's (the return's own, or pending), ``orphan_return``
    without a call."""
    calls = pa.array(rows[CALL_ROW], type=pa.int64())
    rets = pa.array(rows[RETURN_ROW], type=pa.int64())
    either = pc.coalesce(calls, rets)
    call_time, return_time = actions["timestamp"].take(calls), actions["timestamp"].take(rets)
    status = pc.if_else(pc.is_valid(calls), actions["status"].take(calls), pa.scalar("orphan_return", pa.large_string()))
    columns = {
        "source": actions["source"].take(either),
        "thread_id": actions["thread_id"].take(either),
        "tool_call_id": actions["tool_call_id"].take(either),
        "agent_id": actions["agent_id"].take(calls),
        "agent_name": actions["agent_name"].take(calls),
        "tool_name": actions["tool_name"].take(either),
        "call_sequence": actions["sequence"].take(calls),
        "return_sequence": actions["sequence"].take(rets),
        "call_time": call_time,
        "return_time": return_time,
        "latency_s": _seconds_between(return_time, call_time),
        "status": status,
        "args": actions["text"].take(calls),
        "result": actions["text"].take(rets),
    }
    return pa.Table.from_arrays([columns[name] for name in SCHEMAS["tool_calls"].names], schema=SCHEMAS["tool_calls"])


def _totals(used: dict[str, pa.Array], usage_rows: np.ndarray, odd: OddValues) -> pa.Array:
    """total_tokens as reported, else input + output (a sum beyond 64 bits is left empty and
    reported, never wrapped round)."""
    either = pc.or_(pc.is_valid(used["input_tokens"]), pc.is_valid(used["output_tokens"]))
    inputs, outputs = pc.fill_null(used["input_tokens"], 0), pc.fill_null(used["output_tokens"], 0)
    try:
        summed = pc.add_checked(inputs, outputs)
    except pa.ArrowInvalid:
        report = odd.action("total_tokens", usage_rows)
        sums = []
        for row, (x, y) in enumerate(zip(inputs.to_pylist(), outputs.to_pylist(), strict=True)):
            fits = -(2**63) <= x + y < 2**63
            if not fits and not used["total_tokens"][row].is_valid:
                report(row, f"input_tokens + output_tokens ({x + y}) does not fit a 64-bit integer; left empty")
            sums.append(x + y if fits else None)
        summed = pa.array(sums, type=pa.int64())
    return pc.if_else(pc.and_(pc.is_null(used["total_tokens"]), either), summed, used["total_tokens"])


def _count(thread_of: np.ndarray, mask: Any, n_threads: int) -> pa.Array:
    selected = thread_of[np.asarray(mask, dtype=bool)] if mask is not None else thread_of
    return pa.array(np.bincount(selected, minlength=n_threads).astype(np.int64))


def _thread_counts(actions: pa.Table, thread_of: np.ndarray, n_threads: int) -> dict[str, pa.Array]:
    """Per-thread counts over the actions, and each thread's first and last action time."""
    kind = actions["action_type"]
    is_error = pc.and_(
        pc.equal(kind, "tool_return"),
        pc.is_in(actions["status"], value_set=pa.array(sorted(TOOL_ERRORS), type=pa.large_string())),
    )
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
    author = actions["author"]
    is_prompt = pc.and_(pc.equal(kind, "user_message"), pc.equal(author, "human"))
    for name, mask in (
        ("n_human_prompts", is_prompt),
        ("n_harness_turns", pc.equal(author, "harness")),
        ("n_interrupts", pc.equal(actions["harness_kind"], INTERRUPT)),
    ):
        columns[name] = _count(thread_of, pc.fill_null(mask, False).to_numpy(zero_copy_only=False), n_threads)
    return columns


def _thread_totals(
    thread_of_usage: np.ndarray, tokens: dict[str, np.ndarray], cost: np.ndarray, n: int, exact: dict[str, pa.Array]
) -> dict[str, pa.Array]:
    """Per-thread sums of the usage rows (null when no row reported the count). Token sums are
    summed as floats, which is exact below 2**53; above that they are summed again as Python
    integers (``exact``: the int64 columns), and a sum beyond 64 bits is left empty."""
    columns = {}
    for key, values in (*tokens.items(), ("cost_usd", cost)):
        known = ~np.isnan(values)
        sums = np.bincount(thread_of_usage[known], weights=values[known], minlength=n)
        seen = np.bincount(thread_of_usage[known], minlength=n) > 0
        if key == "cost_usd":
            columns[key] = pa.array(sums, type=pa.float64(), mask=~seen)
        elif len(sums) and np.abs(values[known]).sum() >= 2**53:
            columns[key] = _exact_sums(thread_of_usage, exact[key].to_pylist(), n)
        else:
            columns[key] = pa.array(sums.round().astype(np.int64), type=pa.int64(), mask=~seen)
    return columns


def _exact_sums(thread_of_usage: np.ndarray, values: list[int | None], n: int) -> pa.Array:
    sums: list[int | None] = [None] * n
    for thread, value in zip(thread_of_usage.tolist(), values, strict=True):
        if value is not None:
            sums[thread] = (sums[thread] or 0) + value
    return pa.array([s if s is None or -(2**63) <= s < 2**63 else None for s in sums], type=pa.int64())


def _thread_cost(priced: pa.Array, reported: list[float | None]) -> dict[str, pa.Array]:
    """A thread's cost: what its producer reported when it did (Claude Code's own total covers
    its subagents and what the thread's usage rows may not), else its usage rows priced; the
    two are never added, so nothing is counted twice."""
    given = pa.array(reported, type=pa.float64())
    has = pc.is_valid(given)
    cost = pc.if_else(has, given, priced)
    source = pc.if_else(
        has, pa.scalar("reported"), pc.if_else(pc.is_valid(priced), pa.scalar("priced"), pa.scalar(None, pa.string()))
    )
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
    return frame_of(TABLES[name], table)


def frame_of(columns: Sequence[Column], table: pa.Table) -> pd.DataFrame:
    """The frame of ``table`` with ``columns``' names and declared dtypes."""
    return pd.DataFrame({c.name: _series(table[c.name], c.kind, c.name) for c in columns}, copy=False)


def frame_to_table(name: str, frame: pd.DataFrame) -> pa.Table:
    """A frame (categoricals and all) → the Arrow table of its schema (labels as strings)."""
    return table_of(TABLES[name], SCHEMAS[name], frame)


def table_of(columns: Sequence[Column], schema: pa.Schema, frame: pd.DataFrame) -> pa.Table:
    """``frame``'s ``columns`` as the Arrow table of ``schema`` (labels as strings)."""
    arrays = []
    for column in columns:
        series = frame[column.name]
        if column.kind == "label":
            series = series.astype(DTYPES["str"])
        arrays.append(pa.array(series, type=ARROW_TYPES[column.kind], from_pandas=True))
    return pa.Table.from_arrays(arrays, schema=schema)
