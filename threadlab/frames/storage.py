"""Frames on disk and in DuckDB: ``frames.to_parquet(folder)``, ``threadlab.read_parquet(folder)``
and ``frames.to_duckdb(con)``.

A folder holds ``<table>.parquet`` for the five frames and ``skipped.parquet`` (the files the
load did not read: a folder written before there was one reads back with none); labels are
stored dictionary-encoded and come back as categoricals, every other column with its declared
dtype."""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pyarrow as pa
import pyarrow.parquet as pq

from threadlab.frames.arrow import SCHEMAS
from threadlab.frames.frames import TABLE_NAMES
from threadlab.frames.skipped import SCHEMA as SKIPPED_SCHEMA
from threadlab.frames.skipped import frame_of_table, table_of_frame

if TYPE_CHECKING:
    from threadlab.frames.frames import Frames


def write_frames(frames: Frames, folder: str | os.PathLike[str]) -> Path:
    target = Path(folder)
    target.mkdir(parents=True, exist_ok=True)
    for name, table in {**frames.to_arrow(), "skipped": table_of_frame(frames.skipped)}.items():
        pq.write_table(table, target / f"{name}.parquet", compression="zstd")
    return target


def read_parquet(folder: str | os.PathLike[str]) -> Frames:
    """Frames written by ``frames.to_parquet(folder)`` (or a ``threadlab.load`` cache entry)."""
    from threadlab.frames.frames import Frames

    source = Path(folder)
    missing = [name for name in TABLE_NAMES if not (source / f"{name}.parquet").is_file()]
    if missing:
        raise FileNotFoundError(f"{source} holds no {', '.join(m + '.parquet' for m in missing)} (written by frames.to_parquet?)")
    tables = {name: _read_table(source / f"{name}.parquet", schema) for name, schema in SCHEMAS.items()}
    skipped = source / "skipped.parquet"
    return Frames.from_tables(tables, skipped=frame_of_table(_read_table(skipped, SKIPPED_SCHEMA) if skipped.is_file() else SKIPPED_SCHEMA.empty_table()))


def _read_table(path: Path, schema: pa.Schema) -> pa.Table:
    table = pq.read_table(path)
    extra = [c for c in schema.names if c not in table.column_names]
    if extra:
        raise ValueError(f"{path} lacks the columns {', '.join(extra)}")
    return table.select(schema.names).cast(schema)


def register_duckdb(frames: Frames, con: Any = None, *, prefix: str = "") -> Any:
    """Register each frame (and ``skipped``) as a DuckDB view (``{prefix}actions``, ...) on ``con``."""
    import duckdb

    con = con if con is not None else duckdb.connect()
    for name, frame in {**frames.tables(), "skipped": frames.skipped}.items():
        con.register(f"{prefix}{name}", frame)
    return con
