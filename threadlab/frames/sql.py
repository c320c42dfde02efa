"""``threadlab.sql(query, source)``: SQL over frames, a dataset folder or a dataset's URL.

DuckDB answers it; each table is a view named after it (``actions``, ``tool_calls``, ``usage``,
``threads``, ``problems``, ``skipped``, ``agent_usage``). A dataset's views read its Parquet
files where they are, the files of the parts ``threadlab-schema.json`` lists and no others (a
stopped write's files are no part of it), so a query reads only the columns and row groups it
needs and nothing is loaded first. The views leave out the rows the document's deletion lists
say no longer count (``deletions.py``: an anti join on each row's file and source, in the views
of a dataset that has some), which a glob of the files of one's own would show. A URL's files
are read through its fsspec filesystem (registered on the connection), with the credentials that
filesystem finds. Frames are registered as they are (no copy)."""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from threadlab.core.location import Location
from threadlab.frames.dataset import NULL_PARTITION, PARTITIONABLE, part_of, read_document
from threadlab.frames.dataset_read import dataset_files
from threadlab.frames.deletions import deleted_sources
from threadlab.frames.frames import Frames
from threadlab.frames.schema import COLUMNS, ROW, SCHEMA_FILE, file_schema

if TYPE_CHECKING:
    import duckdb

FILE_COLUMN = "__threadlab_file"  # the file a row comes from, for the deletion lists' anti join


def sql(query: str, source: Frames | str | os.PathLike[str], *, con: duckdb.DuckDBPyConnection | None = None,
        storage_options: Mapping[str, Any] | None = None) -> duckdb.DuckDBPyRelation:
    """Run ``query`` over ``source`` (Frames, a dataset written by ``frames.to_parquet`` or
    ``tl.sync``, as a folder or an fsspec URL) and return the DuckDB relation (``.df()``,
    ``.arrow()``, ``.show()``). ``con``: a connection to define the views on (a new in-memory one
    by default)."""
    con = connect(source, con=con, storage_options=storage_options)
    return con.sql(query)


def connect(source: Frames | str | os.PathLike[str], *, con: duckdb.DuckDBPyConnection | None = None,
            storage_options: Mapping[str, Any] | None = None) -> duckdb.DuckDBPyConnection:
    """A DuckDB connection with a view per table of ``source``."""
    import duckdb

    con = con if con is not None else duckdb.connect()
    if isinstance(source, Frames):
        for name, frame in {**source.tables(), "skipped": source.skipped, "agent_usage": source.agent_usage()}.items():
            con.register(name, frame)
        return con
    location = Location.of(source, storage_options)
    document = read_document(location)
    if location.remote:
        con.register_filesystem(location.fs)
    if document is None:
        if not location.exists("actions.parquet"):
            raise FileNotFoundError(f"{location.url} holds no {SCHEMA_FILE} (a dataset written by frames.to_parquet or tl.sync) and no actions.parquet")
        for name in COLUMNS:  # the five-file folder of an older threadlab
            if location.exists(f"{name}.parquet"):
                _view(con, name, [_address(location, f"{name}.parquet")], hive=False)
        return con
    hive = bool(document.get("partition_by"))
    gone = deleted_sources(document, location.name(SCHEMA_FILE))
    for name in COLUMNS:
        rels = dataset_files(location, document, name)
        deleted = [(_address(location, rel), source) for rel in rels for source in sorted(gone.get(part_of(rel) or "", ()))]
        _view(con, name, [_address(location, rel) for rel in rels], hive=hive and name != "skipped",
              deleted=deleted if "source" in (c.name for c in COLUMNS[name]) else [])
    return con


def _address(location: Location, rel: str) -> str:
    """A file as DuckDB opens it: a path, or the URL the registered filesystem serves."""
    return location.fs.unstrip_protocol(location.path(rel)) if location.remote else location.path(rel)


def _view(con: duckdb.DuckDBPyConnection, name: str, files: list[str], *, hive: bool, deleted: Sequence[tuple[str, str]] = ()) -> None:
    """``name`` as a view over ``files`` with the declared columns (a column an older dataset
    lacks is empty; the row-order column of a partitioned one is left out), without the rows of
    ``deleted`` (file, source): an anti join on the file each row comes from and its source."""
    if not files:
        con.register(f"__empty_{name}", file_schema(name).empty_table())
        con.execute(f'create or replace view "{name}" as select * from "__empty_{name}"')
        return
    listed = ", ".join(_quoted(f) for f in files)
    options = "union_by_name = true" + (", hive_partitioning = true, hive_types_autocast = false" if hive else ", hive_partitioning = false")
    scan = f"read_parquet([{listed}], {options})"
    held = {row[0] for row in con.execute(f"describe select * from {scan}").fetchall()}
    columns = ", ".join(_column(c.name, held, hive) for c in COLUMNS[name] if c.name != ROW)
    if deleted:  # the deletion lists (frames/deletions.py): these files' rows of these sources no longer count
        pairs = ", ".join(f"({_quoted(file)}, {_quoted(source)})" for file, source in deleted)
        scan = (f"read_parquet([{listed}], {options}, filename = '{FILE_COLUMN}') "
                f"anti join (values {pairs}) as __deleted({FILE_COLUMN}, source) using ({FILE_COLUMN}, source)")
    con.execute(f'create or replace view "{name}" as select {columns} from {scan}')


def _quoted(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


def _column(name: str, held: set[str], hive: bool) -> str:
    if name not in held:
        return f'null as "{name}"'
    if hive:  # a hive folder's spelling of a null partition value
        return f'nullif("{name}", \'{NULL_PARTITION}\') as "{name}"' if name in PARTITIONABLE else f'"{name}"'
    return f'"{name}"'


__all__ = ["connect", "sql"]
