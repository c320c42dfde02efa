"""Frames on disk and in DuckDB: the folder of five files an older threadlab wrote, and
``frames.to_duckdb(con)``.

``to_parquet`` writes a Parquet dataset (``frames/dataset.py``: a folder per table, a
``threadlab-schema.json``); ``read_parquet`` (``frames/dataset_read.py``, and
``loading/dask_dataset.py`` for the engines) reads one back, or the folder an older threadlab
wrote (``<table>.parquet`` for the five frames and ``skipped.parquet``: schema version 0; a
folder written before there was a ``skipped`` reads back with none). Labels come back as
categoricals, every other column with its declared dtype."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pyarrow as pa

from threadlab.core.location import Location
from threadlab.frames.arrow import SCHEMAS
from threadlab.frames.frames import TABLE_NAMES
from threadlab.frames.skipped import SCHEMA as SKIPPED_SCHEMA
from threadlab.frames.skipped import frame_of_table

if TYPE_CHECKING:
    from threadlab.frames.frames import Frames


def read_legacy(location: Location) -> Frames:
    """The five-file folder (schema version 0)."""
    from threadlab.frames.frames import Frames

    missing = [name for name in TABLE_NAMES if not location.exists(f"{name}.parquet")]
    if missing:
        raise FileNotFoundError(f"{location.url} holds no {', '.join(m + '.parquet' for m in missing)} (written by frames.to_parquet?)")
    arrow_fs = location.arrow_filesystem()
    tables = {name: _read_table(location, f"{name}.parquet", schema, arrow_fs) for name, schema in SCHEMAS.items()}
    skipped = _read_table(location, "skipped.parquet", SKIPPED_SCHEMA, arrow_fs) if location.exists("skipped.parquet") else SKIPPED_SCHEMA.empty_table()
    return Frames.from_tables(tables, skipped=frame_of_table(skipped))


def _read_table(location: Location, rel: str, schema: pa.Schema, arrow_fs: Any) -> pa.Table:
    from threadlab.frames.dataset import read_file

    table = read_file(arrow_fs, location.path(rel))
    extra = [c for c in schema.names if c not in table.column_names]
    if extra:
        raise ValueError(f"{location.name(rel)} lacks the columns {', '.join(extra)}")
    return table.select(schema.names).cast(schema)


def register_duckdb(frames: Frames, con: Any = None, *, prefix: str = "") -> Any:
    """Register each frame (and ``skipped``) as a DuckDB view (``{prefix}actions``, ...) on ``con``."""
    import duckdb

    con = con if con is not None else duckdb.connect()
    for name, frame in {**frames.tables(), "skipped": frames.skipped}.items():
        con.register(f"{prefix}{name}", frame)
    return con
