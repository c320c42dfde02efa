"""What every widget accepts: a Thread, several Threads, or Frames; and how a widget names one
thread of them: a ``ThreadKey`` (source, thread_id), since two files may hold the same thread id."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import numpy as np
import pandas as pd

from threadlab.core.model import Thread
from threadlab.frames.frames import Frames, ThreadKey, frames_from_threads

ThreadOrFrames = Thread | Frames | Iterable[Thread]


def as_frames(data: Any) -> Frames:
    """Frames of ``data`` (Frames pass through; threads are extracted once)."""
    if isinstance(data, Frames):
        return data
    if isinstance(data, Thread):
        return frames_from_threads([data])
    if isinstance(data, Iterable) and not isinstance(data, str | bytes | dict):
        threads = list(data)
        if all(isinstance(t, Thread) for t in threads):
            return frames_from_threads(threads)
    raise TypeError(f"expected a threadlab Thread or Frames, got {type(data).__name__}")


def pick_thread(frames: Frames, thread_id: str | ThreadKey | None, source: str | None = None) -> ThreadKey:
    """The thread a single-thread widget shows: the one asked for, else the first."""
    if not len(frames.threads):
        raise ValueError("these frames hold no thread")
    if thread_id is None:
        return frames.keys()[0]
    return frames.key(thread_id, source)


def as_thread(data: Any, thread_id: str | ThreadKey | None = None, source: str | None = None) -> Thread:
    """The Thread behind ``data`` (for Frames: the chosen or first thread)."""
    if isinstance(data, Thread):
        return data
    frames = as_frames(data)
    return frames.thread(pick_thread(frames, thread_id, source))


def key_mask(table: pd.DataFrame, keys: Iterable[ThreadKey]) -> np.ndarray:
    """Rows of ``table`` that belong to any of ``keys`` (matched on source and thread_id)."""
    wanted = list(keys)
    if not wanted:
        return np.zeros(len(table), dtype=bool)
    ids = table["thread_id"].astype(object)
    mask = ids.isin({k.thread_id for k in wanted}).to_numpy().copy()
    if not mask.any():
        return mask
    sources = table["source"].astype(object).where(table["source"].notna(), None)
    pairs = set(wanted)
    hit = np.flatnonzero(mask)
    keep = [ThreadKey(s, str(t)) in pairs for s, t in zip(sources.to_numpy()[hit], ids.to_numpy()[hit], strict=True)]
    mask[hit] = np.asarray(keep, dtype=bool)
    return mask


def rows_of(table: pd.DataFrame, key: ThreadKey, frames: Frames) -> pd.DataFrame:
    """Rows of one thread (no copy when the frames hold only that thread)."""
    if len(frames.threads) <= 1:
        return table
    return table[key_mask(table, [key])]


def objects(series: pd.Series) -> np.ndarray:
    """A column as a numpy object array with None for missing values (pd.NA is not a bool)."""
    values = series.astype(object).to_numpy().copy()
    missing = series.isna().to_numpy()
    if missing.any():
        values[missing] = None
    return values


def subset(frames: Frames, keys: Iterable[ThreadKey]) -> Frames:
    """The frames of some threads only (every table filtered on source and thread_id)."""
    keep = list(keys)
    tables = {name: df[key_mask(df, keep)] for name, df in frames.tables().items()}
    wanted = set(keep)
    return Frames(**tables, _threads={k: v for k, v in frames._threads.items() if k in wanted})
