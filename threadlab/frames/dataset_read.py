"""A Parquet dataset of frames read back (``threadlab.read_parquet``): the parts its
``threadlab-schema.json`` lists, in order, each table's files read on a few threads, without
the rows its deletion lists say no longer count (``deletions.py``).

A column the files lack (a dataset of an older minor schema) comes back empty with its declared
dtype; a column this threadlab does not know (a newer minor schema) is left out with a
``SchemaWarning``; a newer major schema is refused (``schema.SchemaVersionError``). A folder of
an older threadlab (``<table>.parquet``, schema version 0) is read as it always was."""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from concurrent.futures import ThreadPoolExecutor
from typing import TYPE_CHECKING, Any
from urllib.parse import unquote

import pyarrow as pa

from threadlab.core.location import Location
from threadlab.frames.dataset import NULL_PARTITION, part_of, read_document, read_file, warn_unknown
from threadlab.frames.deletions import deleted_sources, without_deleted
from threadlab.frames.frames import TABLE_NAMES
from threadlab.frames.memory import arrow_memory
from threadlab.frames.schema import COLUMNS, ROW, SCHEMA_FILE, file_schema

if TYPE_CHECKING:
    from threadlab.frames.frames import Frames

READ_THREADS = 8  # files read at once (an object store answers each request slowly, in parallel well)
PART_INDEX = "__part_index"


def dataset_files(location: Location, document: Mapping[str, Any], name: str) -> list[str]:
    """The files of table ``name`` that belong to the dataset, in the parts' order."""
    order = {part: i for i, part in enumerate(document["parts"])}
    files = [rel for rel in location.files(name) if part_of(rel) in order]
    return sorted(files, key=lambda rel: (order[part_of(rel)], rel))


def read_tables(location: Location, document: Mapping[str, Any], names: Iterable[str]) -> dict[str, pa.Table]:
    """Each named table whole (labels dictionary-encoded), rows in the frames' order."""
    names = list(names)
    jobs = [(name, rel) for name in names for rel in dataset_files(location, document, name)]
    arrow_fs = location.arrow_filesystem()
    order = {part: i for i, part in enumerate(document["parts"])}
    gone = deleted_sources(document, location.name(SCHEMA_FILE))
    unknown: set[str] = set()

    def one(job: tuple[str, str]) -> pa.Table:
        name, rel = job
        table = read_file(arrow_fs, location.path(rel))
        return without_deleted(conform(name, rel, table, order, unknown), gone.get(part_of(rel)))

    if len(jobs) > 1:
        with ThreadPoolExecutor(max_workers=min(READ_THREADS, len(jobs))) as pool:
            read = list(pool.map(one, jobs))
    else:
        read = [one(job) for job in jobs]
    if unknown:
        warn_unknown(location.url, sorted(unknown))
    out = {}
    partitioned = bool(document.get("partition_by"))
    for name in names:
        tables = [t for (n, _), t in zip(jobs, read, strict=True) if n == name]
        if not tables:
            out[name] = file_schema(name).empty_table()
            continue
        table = pa.concat_tables(tables)
        if partitioned and name != "skipped":
            table = table.sort_by([(PART_INDEX, "ascending"), (ROW, "ascending")])
        out[name] = table.select([c.name for c in COLUMNS[name]])
    return out


def conform(name: str, rel: str, table: pa.Table, order: Mapping[str, int], unknown: set[str]) -> pa.Table:
    """One file's table with the columns this threadlab declares: hive folder values put back,
    missing columns empty, unknown ones left out (and named)."""
    schema = file_schema(name)
    for segment in rel.split("/")[1:-1]:
        column, sep, value = segment.partition("=")
        if sep and column in schema.names and column not in table.column_names:
            text = None if value == NULL_PARTITION else unquote(value)
            table = table.append_column(column, pa.array([text] * table.num_rows, pa.large_string()).dictionary_encode())
    unknown.update(c for c in table.column_names if c not in schema.names and c != ROW)
    arrays = []
    for field in schema:
        if field.name in table.column_names:
            column = table[field.name]
            arrays.append(column.cast(field.type) if column.type != field.type else column)
        else:
            arrays.append(pa.nulls(table.num_rows, field.type))
    names = list(schema.names)
    if ROW in table.column_names:
        arrays += [table[ROW], pa.array([order[part_of(rel)]] * table.num_rows, pa.int64())]
        names += [ROW, PART_INDEX]
    return pa.Table.from_arrays(arrays, names=names)


def read_frames(target: str | os.PathLike[str], *, storage_options: Mapping[str, Any] | None = None) -> Frames:
    """The frames a dataset holds (``frames.to_parquet``, ``tl.sync``), or a folder of an older
    threadlab's five files."""
    from threadlab.frames.frames import Frames
    from threadlab.frames.skipped import frame_of_table
    from threadlab.frames.storage import read_legacy

    location = Location.of(target, storage_options)
    document = read_document(location)
    if document is None:
        if location.exists("actions.parquet"):
            return read_legacy(location)
        raise FileNotFoundError(f"{location.url} holds no {SCHEMA_FILE} (a dataset written by frames.to_parquet or tl.sync) and no actions.parquet")
    with arrow_memory():  # a fresh process's first read faults in every page otherwise: twice the time
        tables = read_tables(location, document, [*TABLE_NAMES, "skipped"])
        skipped = frame_of_table(tables.pop("skipped").cast(_plain_skipped()))
        return Frames.from_tables(tables, skipped=skipped)


def _plain_skipped() -> pa.Schema:
    from threadlab.frames.skipped import SCHEMA

    return SCHEMA


__all__ = ["PART_INDEX", "conform", "dataset_files", "read_frames", "read_tables"]
