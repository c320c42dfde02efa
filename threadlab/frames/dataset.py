"""Frames as a Parquet dataset: one folder per table, written in parts, on disk or under a URL.

Layout (``frames.to_parquet(url)``; ``schema.py`` describes ``threadlab-schema.json``)::

    <root>/threadlab-schema.json
    <root>/actions/part-000001-3f9c0a1b.parquet          (one file per part)
    <root>/actions/format=codex/part-000001-3f9c0a1b.parquet   (partition_by=("format",))
    <root>/tool_calls/ usage/ threads/ problems/ skipped/ agent_usage/

A part is one write: ``to_parquet`` writes one (``mode="append"`` one more), ``tl.sync`` one per
chunk of files it converted. A part's files are invisible until ``threadlab-schema.json`` lists
the part, and that file is written last (whole: renamed into place on disk, one put on an object
store), so a reader sees the dataset before a write or after it, never half of one; files of
parts it does not list (a write that stopped) are removed by the next write. Label columns are
stored dictionary-encoded and come back as the same categoricals. With ``partition_by`` (columns
of ``threads``, e.g. ``("format",)``) every table but ``skipped`` is split in hive folders; a
table without the column takes its thread's value (by ``source``), and a ``_row`` column keeps
each row's place in its part, so the frames come back in their order. A part's rows of a file
that changed since can be marked deleted rather than cut out (``delete``; ``deletions.py``: the
schema document lists them, every reader drops them; ``filter_parts`` is the rewrite that cuts
them out). One writer at a time."""

from __future__ import annotations

import os
import re
import uuid
import warnings
from collections.abc import Callable, Mapping
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import quote, unquote

import numpy as np
import orjson
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from threadlab.core.location import Location
from threadlab.frames.columns import THREADS
from threadlab.frames.deletions import recorded, without_deleted
from threadlab.frames.labels import LABEL_TYPE
from threadlab.frames.schema import COLUMNS, ROW, SCHEMA_FILE, check_document, dumps, file_schema, schema_document
from threadlab.frames.typed import ARROW_TYPES

if TYPE_CHECKING:
    from threadlab.frames.frames import Frames

PART = re.compile(r"(?:^|/)(part-(\d{6})-[0-9a-f]{8})(?:-\d+)?\.parquet$")
LEGACY_TABLES = ("actions", "tool_calls", "usage", "threads", "problems", "skipped")
NULL_PARTITION = "__HIVE_DEFAULT_PARTITION__"
PARTITIONABLE = tuple(c.name for c in THREADS if c.kind == "label")
COMPRESSION = "zstd"


class SchemaWarning(UserWarning):
    """A dataset holds columns this threadlab does not know (written by a newer minor version):
    they are left out of the frames."""


def frame_tables(frames: Frames) -> dict[str, pa.Table]:
    """Every table a dataset holds, as its files hold it (labels dictionary-encoded)."""
    frames_by_name = {**frames.tables(), "skipped": frames.skipped, "agent_usage": frames.agent_usage()}
    return {name: file_table(name, frame) for name, frame in frames_by_name.items()}


def file_table(name: str, frame: Any) -> pa.Table:
    arrays = []
    for column in COLUMNS[name]:
        series = frame[column.name]
        if column.kind == "label":
            array = pa.array(series.astype("category") if series.dtype != "category" else series)
            arrays.append(array.cast(LABEL_TYPE))
        else:
            arrays.append(pa.array(series, type=ARROW_TYPES[column.kind], from_pandas=True))
    return pa.Table.from_arrays(arrays, schema=file_schema(name))


def read_file(arrow_fs: Any, path: str) -> pa.Table:
    """One Parquet file whole. (``ParquetFile`` rather than ``pq.read_table``, which imports
    ``pyarrow.dataset`` first: half a second, more than reading a year's archive takes.)"""
    with arrow_fs.open_input_file(path) as fh:
        return pq.ParquetFile(fh).read()


def read_document(location: Location) -> dict[str, Any] | None:
    """The dataset's schema document (checked), None when there is none."""
    try:
        raw = location.read_bytes(SCHEMA_FILE)
    except FileNotFoundError:
        return None
    try:
        document = orjson.loads(raw)
    except orjson.JSONDecodeError as exc:
        raise ValueError(f"{location.name(SCHEMA_FILE)} is not JSON: {exc}") from None
    return check_document(document, location.name(SCHEMA_FILE))


def is_legacy(location: Location) -> bool:
    """The five-file folder ``to_parquet`` wrote before datasets (schema version 0)."""
    return location.exists("actions.parquet") and not location.exists(SCHEMA_FILE)


def part_of(rel: str) -> str | None:
    found = PART.search(rel)
    return found.group(1) if found else None


class DatasetWriter:
    """Parts written to a dataset, made visible together by ``commit``.

    ``mode="write"``: the dataset holds only what this writer adds (the parts it had are
    removed after the commit); ``"append"``: added to the parts it has (a five-file folder of
    an older threadlab is read and becomes the first part)."""

    def __init__(self, location: Location, *, mode: str = "write", partition_by: tuple[str, ...] | None = None) -> None:
        if mode not in ("write", "append"):
            raise ValueError(f"mode must be 'write' or 'append', not {mode!r}")
        self.location = location
        document = read_document(location)
        legacy = document is None and is_legacy(location)
        if document is None and not legacy:
            _refuse_foreign(location)
        held = tuple(document.get("partition_by") or ()) if document is not None else ()
        if mode == "append" and document is not None:
            if partition_by is not None and tuple(partition_by) != held:
                raise ValueError(f"{location.url} is partitioned by {list(held) or 'nothing'}; append with the same partition_by")
            partition_by = held
        self.partition_by = _checked_partitions(tuple(partition_by or ()))
        self.parts: list[str] = list(document["parts"]) if document is not None and mode == "append" else []
        self.document = document
        self.legacy = legacy
        # what other writers keep in the document (tl.sync's manifest of sources) stays with an append
        self.kept = {k: v for k, v in (document or {}).items() if k == "sources"} if mode == "append" else {}
        # part → {source: bytes}: rows the dataset's files hold that no longer count (deletions.py)
        self.deleted: dict[str, dict[str, int]] = recorded(document, location.name(SCHEMA_FILE)) if mode == "append" else {}
        self._next = 1 + max((int(p.split("-")[1]) for p in (document or {}).get("parts", ())), default=0)
        self._files: dict[str, list[str]] | None = None
        self._arrow_fs = location.arrow_filesystem()
        if legacy and mode == "append":
            from threadlab.frames.storage import read_legacy

            self.add(frame_tables(read_legacy(location)))

    # --- parts ------------------------------------------------------------------------------
    def new_part(self) -> str:
        part = f"part-{self._next:06d}-{uuid.uuid4().hex[:8]}"
        self._next += 1
        return part

    def add(self, tables: Mapping[str, pa.Table], *, before: str | None = None) -> str:
        """Write ``tables`` (every table of ``COLUMNS``; missing ones are empty) as a new part,
        listed at the end (or in the place of ``before``). Returns the part's id."""
        part = self.new_part()
        threads = tables.get("threads")
        for name in COLUMNS:
            table = tables.get(name)
            if table is not None and table.num_rows:
                self._write(name, _conformed(name, table), part, threads)
        if before is not None and before in self.parts:
            self.parts.insert(self.parts.index(before), part)
        else:
            self.parts.append(part)
        return part

    def delete(self, part: str, sources: Mapping[str, int]) -> dict[str, int]:
        """Mark the rows of ``sources`` (each with its file's size) in ``part`` as no longer
        counting; the part's files stay as they are. Returns every source the part has marked."""
        marked = self.deleted.setdefault(part, {})
        marked.update(sources)
        return marked

    def filter_parts(self, keeps: Mapping[str, Callable[[str, pa.Table], pa.Array | None]]) -> dict[str, str | None]:
        """Replace each part by a new part holding the rows its ``keep(table_name, table)`` keeps
        (a boolean mask; None keeps the whole table) and its deletion lists count (the compaction
        of a part: ``keep`` None); a part left with no row is dropped. A new
        part takes the old one's place, so the frames keep their order. The parts' files are
        read, filtered and written in threads (Arrow's Parquet reading and writing leave the
        interpreter free): a sync that grew 1% of a year's sessions touches many parts. Returns
        each part's new id (None: dropped)."""
        news = {part: self.new_part() for part in keeps}
        for part in keeps:
            self.files_of(part)  # the listing, once, before the threads use it
        if len(keeps) > 1:
            with ThreadPoolExecutor(max_workers=min(len(keeps), os.cpu_count() or 1)) as pool:
                wrote = dict(zip(keeps, pool.map(lambda part: self._rewrite(part, news[part], keeps[part]), keeps), strict=True))
        else:
            wrote = {part: self._rewrite(part, news[part], keep) for part, keep in keeps.items()}
        out: dict[str, str | None] = {}
        for part in keeps:
            index = self.parts.index(part)
            if wrote[part]:
                self.parts[index] = news[part]
                out[part] = news[part]
            else:
                del self.parts[index]
                out[part] = None
        return out

    def _rewrite(self, part: str, new: str, keep: Callable[[str, pa.Table], pa.Array | None]) -> bool:
        """Write ``part``'s kept rows as part ``new``; whether any row was kept."""
        wrote = False
        gone = frozenset(self.deleted.get(part, ()))
        for rel in self.files_of(part):
            name = rel.split("/", 1)[0]
            table = read_file(self._arrow_fs, self.location.path(rel))
            mask = keep(name, table)
            if mask is not None:
                table = table.filter(mask)
            table = counted(rel, table, gone)
            if table.num_rows:
                self._write_file(rel.rsplit("/", 1)[0] + "/" + rel.rsplit("/", 1)[1].replace(part, new, 1), table)
                wrote = True
        return wrote

    def files_of(self, part: str) -> list[str]:
        if self._files is None:
            self._files = {name: self.location.files(name) for name in COLUMNS}
        return [rel for files in self._files.values() for rel in files if part_of(rel) == part]

    def commit(self, extra: Mapping[str, Any] | None = None) -> None:
        """List the parts in ``threadlab-schema.json`` (the moment they become the dataset), then
        remove every file of a part it does not list (and an older threadlab's five files)."""
        listed = set(self.parts)
        document = schema_document(self.parts, self.partition_by, {p: s for p, s in self.deleted.items() if p in listed})
        document.update(self.kept)
        document.update(extra or {})
        self.location.write_bytes(SCHEMA_FILE, dumps(document))
        for name in COLUMNS:
            for rel in self.location.files(name):
                if part_of(rel) not in listed:
                    self.location.remove(rel)
            self.location.prune_folders(name)
        if self.legacy:
            for name in LEGACY_TABLES:
                self.location.remove(f"{name}.parquet")

    # --- files ------------------------------------------------------------------------------
    def _write(self, name: str, table: pa.Table, part: str, threads: pa.Table | None) -> None:
        if not self.partition_by or name == "skipped":
            self._write_file(f"{name}/{part}.parquet", table)
            return
        table = table.append_column(ROW, pa.array(np.arange(table.num_rows, dtype=np.int64)))
        labels, codes = zip(*(_partition_codes(table, threads, column) for column in self.partition_by), strict=True)
        combined = np.zeros(table.num_rows, dtype=np.int64)
        for values, code in zip(labels, codes, strict=True):
            combined = combined * (len(values) + 1) + code
        stored = table.drop_columns([c for c in self.partition_by if c in table.column_names])
        keys, inverse = np.unique(combined, return_inverse=True)
        order = np.argsort(inverse, kind="stable")
        bounds = np.searchsorted(inverse[order], np.arange(len(keys) + 1))
        for group in range(len(keys)):
            rows = order[bounds[group]:bounds[group + 1]]
            first = int(rows[0])
            combo = [values[int(code[first])] if code[first] < len(values) else None for values, code in zip(labels, codes, strict=True)]
            folder = "/".join(f"{c}={quote(str(v), safe='') if v is not None else NULL_PARTITION}" for c, v in zip(self.partition_by, combo, strict=True))
            self._write_file(f"{name}/{folder}/{part}.parquet", stored.take(pa.array(rows)))

    def _write_file(self, rel: str, table: pa.Table) -> None:
        path = self.location.path(rel)
        if not self.location.remote:
            os.makedirs(os.path.dirname(path), exist_ok=True)
        pq.write_table(table, path, filesystem=self._arrow_fs, compression=COMPRESSION)


def hive_value(rel: str, column: str) -> str | None:
    """The value of ``column`` a file's hive folder gives all its rows (None: none, or null)."""
    for segment in rel.split("/")[1:-1]:
        name, sep, value = segment.partition("=")
        if sep and name == column:
            return None if value == NULL_PARTITION else unquote(value)
    return None


def counted(rel: str, table: pa.Table, gone: frozenset[str]) -> pa.Table:
    """The rows of file ``rel`` that count, its part's deleted sources ``gone`` left out: by each
    row's ``source``, or by its folder's when the dataset is partitioned by ``source``."""
    if not gone or "source" in table.column_names:
        return without_deleted(table, gone)
    return table.slice(0, 0) if hive_value(rel, "source") in gone else table


def _conformed(name: str, table: pa.Table) -> pa.Table:
    """``table`` with the dataset's columns and types (a chunk reader's plain or compact table)."""
    schema = file_schema(name)
    arrays = []
    for field in schema:
        column = table[field.name]
        if field.type == LABEL_TYPE and column.type != LABEL_TYPE:
            column = pc.dictionary_encode(column.cast(pa.large_string()))
        arrays.append(column.cast(field.type) if column.type != field.type else column)
    return pa.Table.from_arrays(arrays, schema=schema)


def _partition_codes(table: pa.Table, threads: pa.Table | None, column: str) -> tuple[list[Any], np.ndarray]:
    """(values, each row's index into them; len(values) for none): the partition value of each
    row, from its own column or its thread's (by ``source``), worked out per dictionary value."""
    if column in table.column_names:
        own = _dictionary(table[column])
        values = own.dictionary.to_pylist()
        return values, _codes(own, len(values))
    if "source" not in table.column_names:
        return [], np.zeros(table.num_rows, dtype=np.int64)
    mapping: dict[Any, Any] = {}
    if threads is not None and threads.num_rows:
        for source, value in zip(threads["source"].to_pylist(), threads[column].to_pylist(), strict=True):
            if value is not None:
                mapping.setdefault(source, value)
    sources = _dictionary(table["source"])
    values = sorted({v for v in mapping.values()})
    index = {v: i for i, v in enumerate(values)}
    per_source = np.array([index.get(mapping.get(s), len(values)) for s in sources.dictionary.to_pylist()] + [len(values)], dtype=np.int64)
    return values, per_source[_codes(sources, len(sources.dictionary))]


def _dictionary(column: pa.ChunkedArray) -> pa.DictionaryArray:
    """One dictionary array of a column (a plain one encoded, chunks unified)."""
    if not pa.types.is_dictionary(column.type):
        return pc.dictionary_encode(column.combine_chunks().cast(pa.large_string()))
    return column.unify_dictionaries().combine_chunks()


def _codes(array: pa.DictionaryArray, missing: int) -> np.ndarray:
    """The indices as int64, a null as ``missing``."""
    return np.asarray(array.indices.fill_null(missing), dtype=np.int64)


def _checked_partitions(columns: tuple[str, ...]) -> tuple[str, ...]:
    if isinstance(columns, str):
        columns = (columns,)
    unknown = [c for c in columns if c not in PARTITIONABLE]
    if unknown:
        raise ValueError(f"partition_by takes label columns of threads ({', '.join(PARTITIONABLE)}), not {', '.join(unknown)}")
    return columns


def _refuse_foreign(location: Location) -> None:
    """Never write into a folder whose table folders hold files no threadlab dataset wrote."""
    for name in COLUMNS:
        if location.files(name):
            raise FileExistsError(f"{location.name(name)} holds files, and {location.url} is no threadlab dataset (no {SCHEMA_FILE}); choose another folder")


def write_dataset(frames: Frames, target: str | os.PathLike[str], *, partition_by: tuple[str, ...] | str | None = None, mode: str = "write",
                  storage_options: Mapping[str, Any] | None = None) -> Path | str:
    location = Location.of(target, storage_options)
    writer = DatasetWriter(location, mode=mode, partition_by=(partition_by,) if isinstance(partition_by, str) else partition_by)
    writer.add(frame_tables(frames))
    writer.commit()
    return location.url if location.remote else Path(location.root)


def warn_unknown(where: str, columns: list[str]) -> None:
    warnings.warn(f"{where} holds columns this threadlab does not know ({', '.join(columns)}: a newer threadlab wrote them); they are left out",
                  SchemaWarning, stacklevel=4)


__all__ = ["DatasetWriter", "SchemaWarning", "counted", "file_table", "frame_tables", "hive_value", "is_legacy", "part_of", "read_document", "read_file", "write_dataset"]
