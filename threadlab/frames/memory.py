"""Which allocator Arrow uses while a chunk is turned into tables, or a dataset is read or synced.

pyarrow's default pool (mimalloc in the Linux wheels) gives freed memory back to the system
quickly, so each chunk's text column (tens of MB) is written into freshly faulted pages again,
and a load pays that in system time: on the benchmark corpora, one worker, jemalloc (as Arrow
configures it) took the system time of a load from 0.70-0.86 to 0.35 CPU s (a 100 MB Inspect
log) and from 0.44 to 0.22-0.26 (100 MB of Claude Code sessions), peak RSS 617 → 535 MB and
294 → 240 MB. So a chunk is read with the jemalloc pool when pyarrow has one; the default
pool is put back afterwards (buffers remember their pool, so tables made here outlive the
switch), and where pyarrow has no jemalloc (some platforms' wheels) nothing changes."""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Iterator
from functools import cache

import pyarrow as pa


@cache
def _retaining_pool() -> pa.MemoryPool | None:
    try:
        return pa.jemalloc_memory_pool()
    except (NotImplementedError, pa.ArrowNotImplementedError):
        return None


_lock = threading.Lock()
_inside = 0  # blocks running now (Dask's threaded scheduler reads chunks on several threads)
_previous: list[pa.MemoryPool] = []


@contextlib.contextmanager
def arrow_memory() -> Iterator[None]:
    """Arrow allocates from the jemalloc pool inside the block (see the module docstring); the
    pool in use before the first of the blocks running at once is put back after the last."""
    global _inside
    pool = _retaining_pool()
    if pool is None:
        yield
        return
    with _lock:
        if _inside == 0:
            _previous[:] = [pa.default_memory_pool()]
            pa.set_memory_pool(pool)
        _inside += 1
    try:
        yield
    finally:
        with _lock:
            _inside -= 1
            if _inside == 0:
                pa.set_memory_pool(_previous.pop())
