"""Frames: the five DataFrames (actions, tool_calls, usage, threads, problems) that loaders
produce and widgets consume."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from html import escape

import pandas as pd

from threadlab.core.model import Thread
from threadlab.core.problems import Problem
from threadlab.frames.extract import Columns, extract_thread, merge_batches, new_batch
from threadlab.frames.table import assemble

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
    def from_batch(cls, batch: dict[str, Columns], threads: dict[str, Thread] | None = None) -> Frames:
        return cls(**{name: assemble(name, batch[name]) for name in TABLE_NAMES}, _threads=dict(threads or {}))

    def thread(self, thread_id: str) -> Thread:
        """The Thread behind a row of these frames (re-read from its source when needed)."""
        if thread_id in self._threads:
            return self._threads[thread_id]
        rows = self.threads[self.threads["thread_id"] == thread_id]
        if rows.empty:
            raise KeyError(f"no thread {thread_id!r} in these frames")
        from threadlab.reading import read_all

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
    batch = new_batch()
    kept: dict[str, Thread] = {}
    for thread in threads:
        source, fmt = thread.origin
        extract_thread(thread.to_dict(), batch, source=source, format=fmt, problems=thread.problems)
        kept[thread.thread_id] = thread
    from threadlab.frames.extract import add_problems

    add_problems(batch, list(problems), source=None)
    return Frames.from_batch(batch, kept)


__all__ = ["TABLE_NAMES", "Frames", "frames_from_threads", "merge_batches"]
