"""The frames as numpy arrays in thread order: what every analysis pass starts from.

A corpus of 30,000 threads is 1.4M action rows; the analysis functions answer in a few vectorised
passes over columns, never a Python step per action. Label columns are categoricals, so a column
is compared through its integer codes; each row of a table is tied to its row of the threads
table (``thread_rows``) through the few distinct (source, thread_id) pairs the table holds, not
row by row. What is computed once per table (the thread of each row, the thread order of the
actions) is kept for as long as that table object lives, so the scanners of one ``scan`` share it."""

from __future__ import annotations

import weakref
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any, TypeVar

import numpy as np
import pandas as pd
import pyarrow as pa

from threadlab.core.model import Thread
from threadlab.frames.frames import Frames, frames_from_threads

T = TypeVar("T")
_CACHE: dict[tuple[str, int], tuple[weakref.ref[Any], int, Any]] = {}


def as_frames(data: Any) -> Frames:
    """Frames of ``data``: Frames pass through, a Thread or an iterable of Threads is extracted."""
    if isinstance(data, Frames):
        if not isinstance(data.actions, pd.DataFrame):
            raise TypeError("these frames are not pandas frames (a Dask load?): compute them first (threadlab.load(..., engine='pandas'))")
        return data
    if isinstance(data, Thread):
        return frames_from_threads([data])
    if isinstance(data, Iterable) and not isinstance(data, str | bytes | dict | pd.DataFrame):
        threads = list(data)
        if all(isinstance(t, Thread) for t in threads):
            return frames_from_threads(threads)
    raise TypeError(f"expected threadlab Frames, a Thread or Threads, got {type(data).__name__}")


def cached(kind: str, table: pd.DataFrame, make: Callable[[], T]) -> T:
    """``make()`` once per table object (and length): the table is held weakly, so the value goes
    with it; a table replaced or grown is a new key."""
    key = (kind, id(table))
    hit = _CACHE.get(key)
    if hit is not None and hit[0]() is table and hit[1] == len(table):
        return hit[2]
    value = make()
    _CACHE[key] = (weakref.ref(table, lambda _ref, key=key: _CACHE.pop(key, None)), len(table), value)
    return value


def codes(series: pd.Series) -> tuple[np.ndarray, np.ndarray]:
    """(codes, categories): each row's integer code (-1 when missing) and the values coded."""
    if isinstance(series.dtype, pd.CategoricalDtype):
        return series.cat.codes.to_numpy().astype(np.int64, copy=False), series.cat.categories.to_numpy(dtype=object)
    coded, uniques = pd.factorize(series.astype(object), use_na_sentinel=True)
    return coded.astype(np.int64, copy=False), np.asarray(uniques, dtype=object)


def code_of(series: pd.Series, values: Iterable[Any]) -> np.ndarray:
    """Boolean mask of the rows whose value is one of ``values`` (compared on the codes)."""
    coded, categories = codes(series)
    wanted = {str(v) for v in values}
    hit = np.fromiter((str(c) in wanted for c in categories), dtype=bool, count=len(categories))
    return np.append(hit, False)[coded] if len(coded) else np.zeros(0, dtype=bool)


def objects(series: pd.Series) -> np.ndarray:
    """A column as an object array with None for missing values."""
    values = series.astype(object).to_numpy(copy=True)
    missing = series.isna().to_numpy()
    if missing.any():
        values[missing] = None
    return values


def ints(series: pd.Series, missing: int = -1) -> np.ndarray:
    """A nullable integer column as int64, ``missing`` where empty."""
    return series.fillna(missing).to_numpy(dtype=np.int64) if len(series) else np.zeros(0, dtype=np.int64)


def floats(series: pd.Series) -> np.ndarray:
    """A nullable numeric column as float64, NaN where empty."""
    return series.astype("Float64").to_numpy(dtype=np.float64, na_value=np.nan) if len(series) else np.zeros(0)


def thread_rows(frames: Frames, table: pd.DataFrame) -> np.ndarray:
    """For each row of ``table`` (one of the frames), the row of ``frames.threads`` it belongs
    to (-1: none), matched on (source, thread_id) through the pairs the table holds."""
    return cached("thread_rows", table, lambda: _thread_rows(frames.threads, table))


def _thread_rows(threads: pd.DataFrame, table: pd.DataFrame) -> np.ndarray:
    if not len(table):
        return np.zeros(0, dtype=np.int64)
    lookup = {(s, str(t)): i for i, (s, t) in enumerate(zip(objects(threads["source"]), threads["thread_id"].astype(object), strict=True))}
    s_codes, s_values = codes(table["source"])
    t_codes, t_values = codes(table["thread_id"])
    width = len(t_values) + 1
    pairs = (s_codes + 1) * width + (t_codes + 1)
    inverse, uniques = pd.factorize(pairs)
    mapped = np.fromiter(
        (lookup.get((s_values[u // width - 1] if u // width else None, str(t_values[u % width - 1]) if u % width else None), -1)
         for u in uniques.tolist()), dtype=np.int64, count=len(uniques))
    return mapped[inverse]


@dataclass(frozen=True)
class ThreadOrder:
    """The actions table in thread order: ``order`` the row positions of ``frames.actions``,
    thread after thread, each thread's rows in the order the table gives them (the thread's own
    action order); ``thread`` each ordered row's row of the threads table; ``starts`` where each
    thread's run of ordered rows begins (``starts[k]``..``starts[k+1]``); ``step`` each ordered
    row's position in its thread (0, 1, 2 ...)."""

    order: np.ndarray
    thread: np.ndarray
    starts: np.ndarray
    step: np.ndarray
    identity: bool  # the table is in thread order already (``order`` is 0, 1, 2 ...)

    def take(self, series: pd.Series) -> pd.Series:
        """A column of ``frames.actions`` in this order."""
        return series if self.identity else series.iloc[self.order]

    def run_of(self, thread_row: int) -> tuple[int, int]:
        """The (start, stop) of one thread's ordered rows (empty when it has none)."""
        k = np.searchsorted(self.thread[self.starts[:-1]], thread_row) if len(self.starts) > 1 else 0
        if k < len(self.starts) - 1 and self.thread[self.starts[k]] == thread_row:
            return int(self.starts[k]), int(self.starts[k + 1])
        return 0, 0


def thread_order(frames: Frames) -> ThreadOrder:
    return cached("thread_order", frames.actions, lambda: _thread_order(frames))


def _thread_order(frames: Frames) -> ThreadOrder:
    rows = thread_rows(frames, frames.actions)
    n = len(rows)
    grouped = n == 0 or bool((np.diff(rows) >= 0).all())
    order = np.arange(n, dtype=np.int64) if grouped else np.argsort(rows, kind="stable")
    thread = rows[order]
    change = np.flatnonzero(thread[1:] != thread[:-1]) + 1 if n else np.zeros(0, dtype=np.int64)
    starts = np.concatenate(([0], change, [n])).astype(np.int64) if n else np.zeros(1, dtype=np.int64)
    lengths = np.diff(starts)
    step = np.arange(n, dtype=np.int64) - np.repeat(starts[:-1], lengths)
    return ThreadOrder(order, thread, starts, step, grouped)


def runs(keys: np.ndarray) -> np.ndarray:
    """Where each run of equal consecutive ``keys`` starts (positions, the first is 0)."""
    if not len(keys):
        return np.zeros(0, dtype=np.int64)
    return np.concatenate(([0], np.flatnonzero(keys[1:] != keys[:-1]) + 1)).astype(np.int64)


def arrow_strings(series: pd.Series) -> pa.ChunkedArray:
    """A text column as an Arrow array (no copy for the frames' pyarrow-backed strings)."""
    array = series.array
    if hasattr(array, "__arrow_array__"):
        value = array.__arrow_array__()
        if pa.types.is_string(value.type) or pa.types.is_large_string(value.type):
            return value if isinstance(value, pa.ChunkedArray) else pa.chunked_array([value])
    return pa.chunked_array([pa.array(series.astype(object).where(series.notna(), None).tolist(), type=pa.large_string())])


def values_at(series: pd.Series, rows: np.ndarray) -> np.ndarray:
    """The values of ``series`` at the positions ``rows`` as objects (None where empty).

    A text column is Arrow chunks, and an Arrow ``take`` over chunks joins them first (most of a
    second over the actions' text); a boolean filter works chunk by chunk, so the rows are taken
    in position order and put back in the order asked."""
    rows = np.asarray(rows, dtype=np.int64)
    if not len(rows):
        return np.zeros(0, dtype=object)
    if isinstance(series.dtype, pd.CategoricalDtype) or not pd.api.types.is_string_dtype(series.dtype) \
            or not hasattr(series.array, "__arrow_array__"):
        return objects(series.iloc[rows])
    unique, inverse = np.unique(rows, return_inverse=True)
    mask = np.zeros(len(series), dtype=bool)
    mask[unique] = True
    picked = np.asarray(arrow_strings(series).filter(pa.array(mask)).to_pylist(), dtype=object)
    return picked[inverse]
