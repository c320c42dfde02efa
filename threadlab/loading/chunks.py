"""One chunk of files → the five frames as Arrow tables: the work of one process-pool task
or one Dask partition (so it must be importable and picklable, and never raise for bad input)."""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pyarrow as pa

from threadlab.frames.arrow import batch_to_tables, concat_tables
from threadlab.frames.extract import BLOCK_ACTIONS, ThreadRecord, extract, new_batch
from threadlab.loading.cache import read_entry, write_entry
from threadlab.loading.files import Chunk
from threadlab.loading.reader import Item, read_items

FLUSH_ACTIONS = 50_000  # column lists are turned into Arrow this often (bounds memory on huge files)


@contextmanager
def no_gc() -> Iterator[None]:
    """Parsing builds millions of small dicts that are all alive until extracted; the cyclic
    GC would walk them again and again for nothing (it halves orjson's speed here)."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def load_chunk(chunk: Chunk, cache_dir: str | None = None) -> dict[str, pa.Table]:
    """The frames of ``chunk``: from the cache when it has them, else read (and cached)."""
    folder = Path(cache_dir) if cache_dir else None
    if folder is not None:
        cached = read_entry(folder, chunk)
        if cached is not None:
            return cached
    with no_gc():
        tables = read_chunk(chunk)
    if folder is not None:
        write_entry(folder, chunk, tables)
    return tables


def read_chunk(chunk: Chunk) -> dict[str, pa.Table]:
    """Files are parsed, checked and extracted a few thousand actions at a time (while their
    objects are still in the CPU cache); column lists become Arrow every FLUSH_ACTIONS."""
    parts: list[dict[str, pa.Table]] = []
    batch = new_batch()
    items: list[Item] = []
    pending = 0
    for ref in chunk.files:
        for item in read_items(Path(ref.path), chunk.format):
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
