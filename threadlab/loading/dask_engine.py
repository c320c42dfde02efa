"""``threadlab.load(..., engine="dask")``: the same five frames as Dask DataFrames.

Each frame is ``dask.dataframe.from_map`` over the same chunks of files (one partition per
chunk of about 8 MB), so a corpus too big for one machine is analysed on a Dask cluster with
the same code. Parsing a chunk yields all five frames at once; a worker keeps the last few
chunks it parsed, so computing several frames together mostly parses each chunk once (on a
cluster, pass ``cache=<shared folder>`` to make that certain)."""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass, fields
from typing import Any

import pandas as pd
import pyarrow as pa

from threadlab.frames.frames import TABLE_NAMES, Frames
from threadlab.frames.labels import table_to_frame
from threadlab.frames.table import empty_frame
from threadlab.loading.chunks import load_chunk
from threadlab.loading.files import Chunk

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
    """The five frames as Dask DataFrames; ``compute()`` gives ordinary Frames."""

    actions: Any
    tool_calls: Any
    usage: Any
    threads: Any
    problems: Any

    def tables(self) -> dict[str, Any]:
        return {f.name: getattr(self, f.name) for f in fields(self)}

    def compute(self, **kwargs: Any) -> Frames:
        """All five frames in one Dask computation (each chunk read once per worker)."""
        import dask

        computed = dask.compute(*self.tables().values(), **kwargs)
        return Frames(**{name: frame.reset_index(drop=True) for name, frame in zip(TABLE_NAMES, computed, strict=True)})

    def __repr__(self) -> str:
        parts = ", ".join(f"{name}={frame.npartitions} partitions" for name, frame in self.tables().items())
        return f"DaskFrames({parts})"


def load_dask(chunks: list[Chunk], *, cache_dir: str | None, strict: bool = False) -> DaskFrames:
    import dask.dataframe as dd

    if strict:
        raise ValueError("strict=True needs every problem before returning; with engine='dask' check frames.problems instead")
    if not chunks:
        return DaskFrames(**{name: dd.from_pandas(empty_frame(name), npartitions=1) for name in TABLE_NAMES})
    frames = {
        name: dd.from_map(ChunkFrame(name, cache_dir), chunks, meta=empty_frame(name), label=f"threadlab-{name}", enforce_metadata=False)
        for name in TABLE_NAMES
    }
    return DaskFrames(**frames)
