"""One chunk of files → the five frames as Arrow tables: the work of one process-pool task
or one Dask partition (so it must be importable and picklable, and never raise for bad input).

Every file's own failures are problem rows already (``reader.read_items``, ``frames.typed``);
should a chunk fail anyway (a bug), it is read again file by file, so the files that can be
read are, and the one that cannot is an ``internal`` problem row naming it."""

from __future__ import annotations

from pathlib import Path

import pyarrow as pa

from threadlab.core.nogc import no_gc
from threadlab.core.problems import Problem, failure
from threadlab.frames.arrow import batch_to_tables, concat_tables
from threadlab.frames.batch import ThreadRecord, new_batch
from threadlab.frames.extract import BLOCK_ACTIONS, extract
from threadlab.frames.labels import compact
from threadlab.frames.memory import arrow_memory
from threadlab.loading.cache import read_entry, write_entry
from threadlab.loading.files import Chunk
from threadlab.loading.reader import Item, read_items

__all__ = ["FLUSH_ACTIONS", "failed_file_tables", "load_chunk", "no_gc", "read_chunk"]
FLUSH_ACTIONS = 50_000  # column lists are turned into Arrow this often (bounds memory on huge files)


def load_chunk(chunk: Chunk, cache_dir: str | None = None, *, lookup: bool = True) -> dict[str, pa.Table]:
    """The frames of ``chunk``, label columns dictionary-encoded (``frames/labels.py``: done
    here, in the worker, so the loading process only merges small dictionaries): from the
    cache when it has them, else read (and cached). ``lookup=False``: the caller has just
    looked in the cache and missed."""
    folder = Path(cache_dir) if cache_dir else None
    if folder is not None and lookup:
        cached = read_entry(folder, chunk)
        if cached is not None:
            return cached
    with no_gc(), arrow_memory():
        tables = compact(_read_or_split(chunk))
    if folder is not None:
        write_entry(folder, chunk, tables)
    return tables


def _read_or_split(chunk: Chunk) -> dict[str, pa.Table]:
    try:
        return read_chunk(chunk)
    except Exception as exc:
        if len(chunk.files) == 1:
            return failed_file_tables(chunk.files[0].path, exc)
    parts = []
    for ref in chunk.files:
        try:
            parts.append(read_chunk(Chunk((ref,), chunk.format)))
        except Exception as exc:
            parts.append(failed_file_tables(ref.path, exc))
    return concat_tables(parts)


def failed_file_tables(path: str, error: BaseException | str | None) -> dict[str, pa.Table]:
    """The frames of a file that could not be loaded: one ``internal`` problem row naming it."""
    why = error if isinstance(error, str) else failure(error) if error is not None else "unknown failure"
    return batch_to_tables(extract([Problem("internal", f"{path} could not be loaded: {why}", source=path)]))


def read_chunk(chunk: Chunk) -> dict[str, pa.Table]:
    """Files are parsed, checked and extracted a few thousand actions at a time (while their
    objects are still in the CPU cache); column lists become Arrow every FLUSH_ACTIONS."""
    parts: list[dict[str, pa.Table]] = []
    batch = new_batch()
    items: list[Item] = []
    pending = 0
    for ref in chunk.files:
        for item in read_items(Path(ref.path), chunk.format, chunk.part):
            items.append(item)
            if isinstance(item, ThreadRecord):
                pending += len(item.doc.get("actions") or ())
            if pending >= BLOCK_ACTIONS:
                extract(items, batch)
                items, pending = [], 0
                if len(batch["actions"]["action_type"]) >= FLUSH_ACTIONS:
                    parts.append(batch_to_tables(batch))
                    batch = new_batch()
    extract(items, batch)
    if batch["threads"]["thread_id"] or batch["problems"]["rule"] or not parts:
        parts.append(batch_to_tables(batch))
    return parts[0] if len(parts) == 1 else concat_tables(parts)
