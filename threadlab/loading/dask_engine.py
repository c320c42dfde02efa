"""``threadlab.load(..., engine="dask")``: the same five frames as Dask DataFrames.

Each frame is ``dask.dataframe.from_map`` over the same chunks of files (one partition per
chunk of about 8 MB), so a corpus too big for one machine is analysed on a Dask cluster with
the same code. Parsing a chunk yields all five frames at once; a worker keeps the last few
chunks it parsed, so computing several frames together mostly parses each chunk once (on a
cluster, pass ``cache=<shared folder>`` to make that certain)."""

from __future__ import annotations

import weakref
from collections import OrderedDict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import pandas as pd
import pyarrow as pa

from threadlab.core.problems import Problem
from threadlab.frames.arrow import batch_to_tables
from threadlab.frames.extract import extract
from threadlab.frames.frames import TABLE_NAMES, Frames
from threadlab.frames.labels import table_to_frame
from threadlab.frames.skipped import skipped_frame, summary_line
from threadlab.frames.table import empty_frame
from threadlab.loading.cache import cache_folder
from threadlab.loading.chunks import load_chunk
from threadlab.loading.files import Chunk
from threadlab.loading.remote import UrlNames, staged_sources

_RECENT: OrderedDict[tuple[Chunk, str | None], dict[str, pa.Table]] = OrderedDict()
_KEEP = 4


def _chunk_tables(chunk: Chunk, cache_dir: str | None) -> dict[str, pa.Table]:
    key = (chunk, cache_dir)
    tables = _RECENT.get(key)
    if tables is None:
        tables = load_chunk(chunk, cache_dir)
        _RECENT[key] = tables
        while len(_RECENT) > _KEEP:
            _RECENT.popitem(last=False)
    return tables


@dataclass(frozen=True)
class ChunkFrame:
    """The partition function: one chunk → one frame (picklable, for remote workers)."""

    table: str
    cache_dir: str | None

    def __call__(self, chunk: Chunk) -> pd.DataFrame:
        return table_to_frame(self.table, _chunk_tables(chunk, self.cache_dir)[self.table])


@dataclass
class DaskFrames:
    """The five frames as Dask DataFrames; ``compute()`` gives ordinary Frames. ``skipped`` (the
    files the walk did not read) is a pandas frame already: the walk ran in this process."""

    actions: Any
    tool_calls: Any
    usage: Any
    threads: Any
    problems: Any
    skipped: pd.DataFrame = field(default_factory=skipped_frame)
    mirrors: tuple[Any, ...] = field(default=(), repr=False)  # a URL load's files mirrored on disk (``close`` removes them)

    def tables(self) -> dict[str, Any]:
        return {name: getattr(self, name) for name in TABLE_NAMES}

    def compute(self, **kwargs: Any) -> Frames:
        """All five frames in one Dask computation (each chunk read once per worker)."""
        import dask

        computed = dask.compute(*self.tables().values(), **kwargs)
        return Frames(**{name: frame.reset_index(drop=True) for name, frame in zip(TABLE_NAMES, computed, strict=True)}, skipped=self.skipped)

    def close(self) -> None:
        """Remove the temporary mirror of a URL load now (else it goes with these frames)."""
        _close_all(self.mirrors)

    def __repr__(self) -> str:
        parts = ", ".join(f"{name}={frame.npartitions} partitions" for name, frame in self.tables().items())
        skipped = summary_line(self.skipped)
        return f"DaskFrames({parts}" + (f"; {skipped} (frames.skipped)" if skipped else "") + ")"


def load_dask(
    chunks: list[Chunk],
    *,
    cache_dir: str | None,
    strict: bool = False,
    skipped: pd.DataFrame | None = None,
    problems: Sequence[Problem] = (),
) -> DaskFrames:
    """``problems``: what the walk found that is no file to read (a FIFO, a symlink loop): one
    more partition of ``problems``, after the chunks'."""
    import dask.dataframe as dd

    if strict:
        raise ValueError("strict=True needs every problem before returning; with engine='dask' check frames.problems instead")
    skipped = skipped if skipped is not None else skipped_frame()
    if not chunks:
        frames = {name: dd.from_pandas(empty_frame(name), npartitions=1) for name in TABLE_NAMES}
    else:
        frames = {
            name: dd.from_map(ChunkFrame(name, cache_dir), chunks, meta=empty_frame(name), label=f"threadlab-{name}", enforce_metadata=False)
            for name in TABLE_NAMES
        }
    if problems:
        walked = table_to_frame("problems", batch_to_tables(extract(list(problems)))["problems"])
        frames["problems"] = dd.concat([frames["problems"], dd.from_pandas(walked, npartitions=1)])
    return DaskFrames(**frames, skipped=skipped)


def load_dask_urls(source: Any, load: Callable[..., Any], *, format: str, workers: int | None, cache: Any,
                   storage_options: Mapping[str, Any] | None) -> DaskFrames:
    """``load(url, engine="dask")``: the URLs' files mirrored on this machine (in the cache
    folder with ``cache=``, else in a temporary folder removed once the DaskFrames are gone),
    loaded lazily as a folder on disk is, each partition naming its files by their URLs where it
    is computed. The workers read the mirror: those of this machine (a LocalCluster's) can; for
    a cluster of other machines, write a dataset and read it with
    ``threadlab.read_parquet(url, engine="dask")``."""
    with staged_sources(source, storage_options=storage_options, cache=cache_folder(cache), keep=True) as (local, mirrors):
        try:
            frames = load(local, format=format, workers=workers, cache=cache, engine="dask")
        except BaseException:
            for staged in mirrors:
                staged.close()
            raise
    named = tuple(mirrors)
    renamed = DaskFrames(
        **{name: getattr(frames, name).map_partitions(UrlNames(name, named), meta=getattr(frames, name)._meta) for name in TABLE_NAMES},
        skipped=UrlNames("skipped", named)(frames.skipped),
        mirrors=named,
    )
    weakref.finalize(renamed, _close_all, named)
    return renamed


def _close_all(mirrors: tuple[Any, ...]) -> None:
    for staged in mirrors:
        staged.close()
