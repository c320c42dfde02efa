"""Frames: the five DataFrames (actions, tool_calls, usage, threads, problems) that loaders
produce and widgets consume, and ``skipped``: what a load's folder walk met and did not read."""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from html import escape
from pathlib import Path
from typing import Any, NamedTuple

import pandas as pd
import pyarrow as pa

from threadlab.core.model import Thread
from threadlab.core.problems import Problem
from threadlab.frames.arrow import batch_to_tables, frame_to_table
from threadlab.frames.batch import Batch, ThreadRecord
from threadlab.frames.extract import extract
from threadlab.frames.labels import tables_to_frames
from threadlab.frames.skipped import skipped_frame, summary_line

TABLE_NAMES = ("actions", "tool_calls", "usage", "threads", "problems")


class ThreadKey(NamedTuple):
    """What names one thread in a set of frames: the same conversation saved in two files (a copy,
    a run saved after each turn) has one ``thread_id`` and two sources."""

    source: str | None
    thread_id: str


class AmbiguousThreadError(LookupError):
    """A thread id held by more than one source; ``sources`` says which (pass ``source=``)."""

    def __init__(self, thread_id: str, sources: list[str | None]) -> None:
        self.thread_id, self.sources = thread_id, sources
        listed = ", ".join(repr(s) for s in sources)
        super().__init__(f"thread {thread_id!r} is in {len(sources)} sources ({listed}); pass source= to choose")


def _label(value: Any) -> str | None:
    return None if value is None or value is pd.NA or (isinstance(value, float) and value != value) else str(value)


def _keyed(threads: dict[Any, Thread] | None) -> dict[ThreadKey, Thread]:
    """Kept threads keyed by (source, thread_id); a bare thread id (as loaders pass) gets the
    thread's own origin as its source, which is what its rows in the frames say."""
    out: dict[ThreadKey, Thread] = {}
    for key, thread in (threads or {}).items():
        out[ThreadKey(*key) if isinstance(key, tuple) else ThreadKey(thread.origin[0], str(key))] = thread
    return out


@dataclass
class Frames:
    """The five frames of a load, and ``skipped``: every file (or folder) its folder walk met
    and did not read, with the reason (``path``, ``reason``, ``bytes``; see
    ``threadlab/formats/common/walk.py``). ``frames.skipped.reason.value_counts()`` says why files
    were passed over; a file that was read and gave nothing is a row of ``problems`` instead.
    ``skipped`` is not one of the five (``tables()``, iteration): it lists what is not in them."""

    actions: pd.DataFrame
    tool_calls: pd.DataFrame
    usage: pd.DataFrame
    threads: pd.DataFrame
    problems: pd.DataFrame
    _threads: dict[ThreadKey, Thread] = field(default_factory=dict, repr=False)
    skipped: pd.DataFrame = field(default_factory=skipped_frame, repr=False)
    # the last ``threadlab.scan`` of these frames (threadlab/analysis): None until one runs
    findings: pd.DataFrame | None = field(default=None, repr=False)

    @classmethod
    def from_batch(cls, batch: Batch, threads: dict[Any, Thread] | None = None) -> Frames:
        return cls.from_tables(batch_to_tables(batch), threads)

    @classmethod
    def from_tables(cls, tables: dict[str, pa.Table], threads: dict[Any, Thread] | None = None, *, skipped: pd.DataFrame | None = None) -> Frames:
        """Frames of typed Arrow tables (``threadlab.frames.arrow.SCHEMAS``, or label columns
        dictionary-encoded: ``frames/labels.py``); ``threads`` are the
        Thread objects already in memory, keyed by ``ThreadKey`` (or by bare thread id);
        ``skipped`` the walk's frame of files not read."""
        return cls(**tables_to_frames(tables), _threads=_keyed(threads), skipped=skipped if skipped is not None else skipped_frame())

    def to_arrow(self) -> dict[str, pa.Table]:
        """Each frame as an Arrow table (labels as plain strings)."""
        return {name: frame_to_table(name, frame) for name, frame in self.tables().items()}

    def to_parquet(self, target: str | os.PathLike[str], *, partition_by: tuple[str, ...] | str | None = None, mode: str = "write",
                   storage_options: Mapping[str, Any] | None = None) -> Path | str:
        """Write a Parquet dataset: a folder per table (the five frames, ``skipped`` and the
        derived ``agent_usage``) and ``threadlab-schema.json`` (the schema version, every
        column's type and meaning; ``frames/dataset.py``). ``target``: a folder or an fsspec
        URL (``s3://bucket/runs``, ``memory://x``; ``storage_options`` go to its filesystem).
        ``partition_by``: columns of ``threads`` (``("format",)``) to split every table by, in
        hive folders. ``mode="append"`` adds these frames to the dataset there; ``"write"``
        replaces it. Read back with ``threadlab.read_parquet``."""
        from threadlab.frames.dataset import write_dataset

        return write_dataset(self, target, partition_by=partition_by, mode=mode, storage_options=storage_options)

    def to_duckdb(self, con: Any = None, *, prefix: str = "") -> Any:
        """Register the five frames and ``skipped`` as DuckDB tables (``actions``,
        ``tool_calls``, ...) on ``con`` (a new in-memory connection by default) and return the
        connection."""
        from threadlab.frames.storage import register_duckdb

        return register_duckdb(self, con, prefix=prefix)

    def keys(self) -> list[ThreadKey]:
        """Every thread of these frames as (source, thread_id), in the threads table's order."""
        sources = self.threads["source"].astype(object).to_numpy()
        ids = self.threads["thread_id"].astype(object).to_numpy()
        return [ThreadKey(_label(s), str(t)) for s, t in zip(sources, ids, strict=True)]

    def key(self, thread_id: str | ThreadKey, source: str | None = None) -> ThreadKey:
        """The one thread ``thread_id`` names (``source=`` chooses when two sources hold it).

        Raises KeyError when no thread has that id (in that source) and AmbiguousThreadError,
        naming the sources, when several do and no source was given."""
        if isinstance(thread_id, tuple):
            source, thread_id = thread_id
        t = self.threads
        rows = (t["thread_id"].astype(object) == thread_id).to_numpy()
        sources = list(dict.fromkeys(_label(s) for s in t["source"].astype(object).to_numpy()[rows]))
        if source is not None:
            if source not in sources:
                held = f" (it is in {', '.join(repr(s) for s in sources)})" if sources else ""
                raise KeyError(f"no thread {thread_id!r} from source {source!r} in these frames{held}")
            return ThreadKey(source, thread_id)
        if not sources:
            raise KeyError(f"no thread {thread_id!r} in these frames")
        if len(sources) > 1:
            raise AmbiguousThreadError(thread_id, sources)
        return ThreadKey(sources[0], thread_id)

    def thread(self, thread_id: str | ThreadKey, source: str | None = None) -> Thread:
        """The Thread behind a row of these frames (re-read from its source when needed).

        ``thread_id`` may be a ``ThreadKey``; when two sources hold the same id, ``source=``
        says which one (without it, AmbiguousThreadError lists them)."""
        key = self.key(thread_id, source)
        if key in self._threads:
            return self._threads[key]
        t = self.threads
        rows = t[((t["thread_id"].astype(object) == key.thread_id) & (t["source"].astype(object) == key.source)).to_numpy()]
        if key.source is None or rows.empty:
            raise KeyError(f"thread {key.thread_id!r} is not in memory and has no source to read it from")
        from threadlab.formats.common.reading import read_all

        fmt = rows.iloc[0]["format"]
        for thread in read_all(key.source, str(fmt) if fmt is not None and not pd.isna(fmt) else "auto", strict=False):
            self._threads.setdefault(ThreadKey(key.source, thread.thread_id), thread)
        if key not in self._threads:
            raise KeyError(f"{key.source!r} no longer holds thread {key.thread_id!r}")
        return self._threads[key]

    def agent_usage(self) -> pd.DataFrame:
        """Per agent per thread: actions, messages, model calls, tool calls and errors, tokens, cost,
        tool latency and active time (derived from the five frames; see ``frames/agents.py``)."""
        from threadlab.frames.agents import agent_usage

        return agent_usage(self)

    def delegations(self) -> pd.DataFrame:
        """Who started whom: one row per sub-agent start, handoff or inferred delegation, with the
        tool call behind it and what the started agent did meanwhile (``frames/agents.py``)."""
        from threadlab.frames.agents import delegations

        return delegations(self)

    def tables(self) -> dict[str, pd.DataFrame]:
        return {name: getattr(self, name) for name in TABLE_NAMES}

    def __iter__(self):
        return iter(self.tables().values())

    def __repr__(self) -> str:
        sizes = ", ".join(f"{name}={len(df)}" for name, df in self.tables().items())
        skipped = summary_line(self.skipped)
        return f"Frames({sizes}" + (f"; {skipped} (frames.skipped)" if skipped else "") + ")"

    def _repr_html_(self) -> str:
        """The sizes and the first threads, a few columns, one line per thread: a cell too long
        for its column ends in "…" and shows its whole value on hover (every column is in
        ``frames.threads``); the table scrolls sideways rather than run off a narrow page."""
        sizes = " · ".join(f"{escape(name)}: {len(df):,} rows" for name, df in self.tables().items())
        skipped = summary_line(self.skipped)
        note = f"<br>{escape(skipped)} (<code>frames.skipped</code>)" if skipped else ""
        shown = self.threads.head(REPR_ROWS)
        columns = [(c, w) for c, w in REPR_COLUMNS if c in shown.columns]
        cell = "padding:1px 6px;white-space:nowrap;overflow:hidden;text-overflow:ellipsis;"
        head = "".join(f'<th style="{cell}text-align:{"left" if w else "right"}">{escape(c)}</th>' for c, w in columns)
        rows = []
        for values in zip(*(shown[c].astype(object).to_numpy() for c, _ in columns), strict=True):
            tds = []
            for (column, width), value in zip(columns, values, strict=True):
                text, full = _repr_cell(column, value)
                style = f"{cell}max-width:{width}ch;text-align:left" if width else f"{cell}text-align:right"
                tds.append(f'<td style="{style}" title="{escape(full)}">{escape(text)}</td>')
            rows.append(f"<tr>{''.join(tds)}</tr>")
        more = len(self.threads) - len(shown)
        tail = f"<div><i>… {more:,} more threads; every column: <code>frames.threads</code></i></div>" if more else ""
        table = (f'<div style="overflow-x:auto;max-width:100%"><table style="table-layout:auto;border-collapse:collapse;margin:4px 0;font-size:12px">'
                 f"<thead><tr>{head}</tr></thead><tbody>{''.join(rows)}</tbody></table></div>")
        return f"<div><b>threadlab Frames</b> — {sizes}{note}{table}{tail}</div>"


REPR_ROWS = 20
# the threads columns the HTML repr shows: (column, width in characters; 0 for a number)
REPR_COLUMNS: tuple[tuple[str, int], ...] = (
    ("source", 16), ("format", 12), ("thread_id", 19), ("title", 30), ("agents", 20), ("n_actions", 0), ("n_tool_calls", 0),
    ("total_tokens", 0), ("cost_usd", 0),
)


def _repr_cell(column: str, value: Any) -> tuple[str, str]:
    """(what a repr cell shows, its whole value for the hover): a source by its file name."""
    if value is None or value is pd.NA or (isinstance(value, float) and value != value):
        return "", ""
    if column == "cost_usd":
        return f"${float(value):,.4f}", str(value)
    if isinstance(value, int | float) or (hasattr(value, "dtype") and str(getattr(value, "dtype", "")).startswith(("int", "float"))):
        return f"{value:,}", str(value)
    full = " ".join(str(value).split())
    if column == "source":
        return full.replace("\\", "/").rstrip("/").rsplit("/", 1)[-1] or full, full
    return full, full


def frames_from_threads(threads: Iterable[Thread], *, problems: Iterable[Problem] = ()) -> Frames:
    """Frames of in-memory threads (each thread's own problems included)."""
    threads = list(threads)
    kept = {ThreadKey(t.origin[0], t.thread_id): t for t in threads}
    records = [ThreadRecord(t.to_dict(), t.origin[0], t.origin[1], t.problems, t.account) for t in threads]
    return Frames.from_batch(extract([*records, *problems]), kept)


__all__ = ["TABLE_NAMES", "AmbiguousThreadError", "Frames", "ThreadKey", "frames_from_threads"]
