"""Frames: the five DataFrames (actions, tool_calls, usage, threads, problems) that loaders
produce and widgets consume."""

from __future__ import annotations

import os
from collections.abc import Iterable
from dataclasses import dataclass, field
from html import escape
from pathlib import Path
from typing import Any

import pandas as pd
import pyarrow as pa

from threadlab.core.model import Thread
from threadlab.core.problems import Problem
from threadlab.frames.arrow import batch_to_tables, frame_to_table, tables_to_frames
from threadlab.frames.extract import Batch, ThreadRecord, extract

TABLE_NAMES = ("actions", "tool_calls", "usage", "threads", "problems")


@dataclass
class Frames:
    actions: pd.DataFrame
    tool_calls: pd.DataFrame
    usage: pd.DataFrame
    threads: pd.DataFrame
    problems: pd.DataFrame
    _threads: dict[str, Thread] = field(default_factory=dict, repr=False)

    @classmethod
    def from_batch(cls, batch: Batch, threads: dict[str, Thread] | None = None) -> Frames:
        return cls.from_tables(batch_to_tables(batch), threads)

    @classmethod
    def from_tables(cls, tables: dict[str, pa.Table], threads: dict[str, Thread] | None = None) -> Frames:
        """Frames of typed Arrow tables (``threadlab.frames.arrow.SCHEMAS``)."""
        return cls(**tables_to_frames(tables), _threads=dict(threads or {}))

    def to_arrow(self) -> dict[str, pa.Table]:
        """Each frame as an Arrow table (labels as plain strings)."""
        return {name: frame_to_table(name, frame) for name, frame in self.tables().items()}

    def to_parquet(self, folder: str | os.PathLike[str]) -> Path:
        """Write ``<folder>/<table>.parquet`` for the five frames (read back with
        ``threadlab.read_parquet``)."""
        from threadlab.frames.storage import write_frames

        return write_frames(self, folder)

    def to_duckdb(self, con: Any = None, *, prefix: str = "") -> Any:
        """Register the five frames as DuckDB tables (``actions``, ``tool_calls``, ...) on
        ``con`` (a new in-memory connection by default) and return the connection."""
        from threadlab.frames.storage import register_duckdb

        return register_duckdb(self, con, prefix=prefix)

    def thread(self, thread_id: str) -> Thread:
        """The Thread behind a row of these frames (re-read from its source when needed)."""
        if thread_id in self._threads:
            return self._threads[thread_id]
        rows = self.threads[self.threads["thread_id"] == thread_id]
        if rows.empty:
            raise KeyError(f"no thread {thread_id!r} in these frames")
        from threadlab.formats.reading import read_all

        source, fmt = rows.iloc[0]["source"], rows.iloc[0]["format"]
        for thread in read_all(str(source), str(fmt) if fmt is not None and not pd.isna(fmt) else "auto", strict=False):
            self._threads.setdefault(thread.thread_id, thread)
        return self._threads[thread_id]

    def tables(self) -> dict[str, pd.DataFrame]:
        return {name: getattr(self, name) for name in TABLE_NAMES}

    def __iter__(self):
        return iter(self.tables().values())

    def __repr__(self) -> str:
        sizes = ", ".join(f"{name}={len(df)}" for name, df in self.tables().items())
        return f"Frames({sizes})"

    def _repr_html_(self) -> str:
        sizes = " · ".join(f"{escape(name)}: {len(df):,} rows" for name, df in self.tables().items())
        head = self.threads.head(20).to_html(escape=True, index=False, max_cols=12)
        return f"<div><b>threadlab Frames</b> — {sizes}{head}</div>"


def frames_from_threads(threads: Iterable[Thread], *, problems: Iterable[Problem] = ()) -> Frames:
    """Frames of in-memory threads (each thread's own problems included)."""
    threads = list(threads)
    kept = {thread.thread_id: thread for thread in threads}
    records = [ThreadRecord(t.to_dict(), t.origin[0], t.origin[1], t.problems, t.account) for t in threads]
    return Frames.from_batch(extract([*records, *problems]), kept)


__all__ = ["TABLE_NAMES", "Frames", "frames_from_threads"]
