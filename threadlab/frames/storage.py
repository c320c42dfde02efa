"""Frames on disk and in DuckDB: ``frames.to_parquet(folder)``, ``threadlab.read_parquet(folder)``
and ``frames.to_duckdb(con)``.

A folder holds ``<table>.parquet`` for the five frames; labels are stored dictionary-encoded
and come back as categoricals, every other column with its declared dtype."""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pyarrow.parquet as pq

from threadlab.frames.arrow import SCHEMAS
from threadlab.frames.frames import TABLE_NAMES

if TYPE_CHECKING:
    from threadlab.frames.frames import Frames


def write_frames(frames: Frames, folder: str | os.PathLike[str]) -> Path:
    target = Path(folder)
    target.mkdir(parents=True, exist_ok=True)
    for name, table in frames.to_arrow().items():
        pq.write_table(table, target / f"{name}.parquet", compression="zstd")
    return target


def read_parquet(folder: str | os.PathLike[str]) -> Frames:
    """Frames written by ``frames.to_parquet(folder)`` (or a ``threadlab.load`` cache entry)."""
    from threadlab.frames.frames import Frames

    source = Path(folder)
    missing = [name for name in TABLE_NAMES if not (source / f"{name}.parquet").is_file()]
    if missing:
        raise FileNotFoundError(f"{source} holds no {', '.join(m + '.parquet' for m in missing)} (written by frames.to_parquet?)")
    tables = {}
    for name, schema in SCHEMAS.items():
        table = pq.read_table(source / f"{name}.parquet")
        extra = [c for c in schema.names if c not in table.column_names]
        if extra:
            raise ValueError(f"{source / (name + '.parquet')} lacks the columns {', '.join(extra)}")
        tables[name] = table.select(schema.names).cast(schema)
    return Frames.from_tables(tables)


def register_duckdb(frames: Frames, con: Any = None, *, prefix: str = "") -> Any:
    """Register each frame as a DuckDB view (``{prefix}actions``, ...) on ``con``."""
    import duckdb

    con = con if con is not None else duckdb.connect()
    for name, frame in frames.tables().items():
        con.register(f"{prefix}{name}", frame)
    return con
