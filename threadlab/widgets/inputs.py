"""What every widget accepts: a Thread, several Threads, or Frames."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import numpy as np
import pandas as pd

from threadlab.core.model import Thread
from threadlab.frames.frames import Frames, frames_from_threads

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


def thread_ids(frames: Frames) -> list[str]:
    return [str(t) for t in frames.threads["thread_id"].tolist()]


def pick_thread_id(frames: Frames, thread_id: str | None) -> str:
    """The thread a single-thread widget shows: the one asked for, else the first."""
    ids = thread_ids(frames)
    if not ids:
        raise ValueError("these frames hold no thread")
    if thread_id is None:
        return ids[0]
    if thread_id not in ids:
        raise KeyError(f"no thread {thread_id!r} in these frames (have {len(ids)}: {', '.join(ids[:5])}…)")
    return thread_id


def as_thread(data: Any, thread_id: str | None = None) -> Thread:
    """The Thread behind ``data`` (for Frames: the chosen or first thread)."""
    if isinstance(data, Thread):
        return data
    frames = as_frames(data)
    return frames.thread(pick_thread_id(frames, thread_id))


def rows_of(table: pd.DataFrame, thread_id: str, frames: Frames) -> pd.DataFrame:
    """Rows of one thread (no copy when the frames hold only that thread)."""
    if len(frames.threads) <= 1:
        return table
    return table[table["thread_id"].astype(object) == thread_id]


def objects(series: pd.Series) -> np.ndarray:
    """A column as a numpy object array with None for missing values (pd.NA is not a bool)."""
    values = series.astype(object).to_numpy().copy()
    missing = series.isna().to_numpy()
    if missing.any():
        values[missing] = None
    return values


def subset(frames: Frames, ids: Iterable[str]) -> Frames:
    """The frames of some threads only (every table filtered on thread_id)."""
    keep = set(ids)
    tables = {name: df[df["thread_id"].astype(object).isin(keep).to_numpy()] for name, df in frames.tables().items()}
    return Frames(**tables, _threads={k: v for k, v in frames._threads.items() if k in keep})
