"""``threadlab.read_parquet(url, engine="dask")``: a dataset's tables as Dask DataFrames, one
partition per part (a write or a sync's piece), read where the work runs: on a
``distributed`` cluster each worker opens its part's files itself (by path or URL, with the
``storage_options`` given), so the dataset never passes through this process.

A part's files (one per hive folder when partitioned) are read together, without the rows its
deletion lists leave out (``frames/deletions.py``), and put back in the frames' order, so
``compute()`` gives what ``read_parquet(url)`` gives."""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

import pandas as pd
import pyarrow as pa

from threadlab.core.location import Location
from threadlab.frames.dataset import part_of, read_document, read_file, warn_unknown
from threadlab.frames.dataset_read import PART_INDEX, conform, dataset_files, read_frames, read_tables
from threadlab.frames.deletions import deleted_sources, without_deleted
from threadlab.frames.frames import TABLE_NAMES, Frames
from threadlab.frames.labels import table_to_frame
from threadlab.frames.schema import COLUMNS, ROW, SCHEMA_FILE
from threadlab.frames.skipped import SCHEMA, frame_of_table
from threadlab.frames.table import empty_frame
from threadlab.loading.dask_engine import DaskFrames


def read_parquet(source: str | os.PathLike[str], *, storage_options: Mapping[str, Any] | None = None,
                 engine: Literal["pandas", "dask"] = "pandas") -> Frames | DaskFrames:
    """Frames written by ``frames.to_parquet(url)`` or ``threadlab.sync`` (a path or an fsspec
    URL: ``s3://``, ``gs://``, ``hf://``, ``memory://``; ``storage_options`` go to its
    filesystem), or the folder of five files an older threadlab wrote. ``engine="dask"``: Dask
    DataFrames, one partition per part of the dataset (``threadlab[dask]``); ``compute()``
    gives the same frames."""
    if engine == "pandas":
        return read_frames(source, storage_options=storage_options)
    if engine != "dask":
        raise ValueError(f"unknown engine {engine!r}; use 'pandas' or 'dask'")
    return read_dask(source, storage_options=storage_options)


@dataclass(frozen=True)
class PartFrame:
    """The partition function: one part's files of one table → its frame (picklable: a worker
    opens the dataset again from its URL)."""

    table: str
    target: str
    storage_options: Mapping[str, Any] = field(default_factory=dict)

    def __call__(self, job: tuple[int, tuple[str, ...], frozenset[str]]) -> pd.DataFrame:
        index, rels, gone = job
        location = Location.of(self.target, self.storage_options)
        arrow_fs = location.arrow_filesystem()
        unknown: set[str] = set()
        tables = []
        for rel in rels:
            table = conform(self.table, rel, read_file(arrow_fs, location.path(rel)), {part_of(rel): index}, unknown)
            tables.append(without_deleted(table, gone))
        if unknown:
            warn_unknown(location.url, sorted(unknown))
        table = pa.concat_tables(tables)
        if ROW in table.column_names:
            table = table.sort_by([(ROW, "ascending")]).drop_columns([ROW, PART_INDEX])
        return table_to_frame(self.table, table.select([c.name for c in COLUMNS[self.table]]))


def read_dask(source: str | os.PathLike[str], *, storage_options: Mapping[str, Any] | None = None) -> DaskFrames:
    import dask.dataframe as dd

    location = Location.of(source, storage_options)
    document = read_document(location)
    if document is None:  # an older threadlab's five files: small enough to read here
        if not location.exists("actions.parquet"):
            raise FileNotFoundError(f"{location.url} holds no {SCHEMA_FILE} and no actions.parquet")
        frames = read_frames(source, storage_options=storage_options)
        return DaskFrames(**{name: dd.from_pandas(frame, npartitions=1) for name, frame in frames.tables().items()}, skipped=frames.skipped)
    target = location.url if location.remote else location.root
    gone = deleted_sources(document, location.name(SCHEMA_FILE))
    out = {}
    for name in TABLE_NAMES:
        by_part: dict[str, list[str]] = {}
        for rel in dataset_files(location, document, name):
            by_part.setdefault(part_of(rel) or "", []).append(rel)
        jobs = [(i, tuple(by_part[part]), gone.get(part, frozenset())) for i, part in enumerate(document["parts"]) if part in by_part]
        if not jobs:
            out[name] = dd.from_pandas(empty_frame(name), npartitions=1)
            continue
        out[name] = dd.from_map(PartFrame(name, target, dict(storage_options or {})), jobs, meta=empty_frame(name),
                                label=f"threadlab-{name}", enforce_metadata=False)
    skipped = read_tables(location, document, ["skipped"])["skipped"]
    return DaskFrames(**out, skipped=frame_of_table(skipped.cast(SCHEMA)))


__all__ = ["PartFrame", "read_dask", "read_parquet"]
