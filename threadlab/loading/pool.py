"""Run chunks in a process pool (results in input order) with a tqdm progress bar."""

from __future__ import annotations

import multiprocessing
import os
import shutil
import sys
import tempfile
import threading
from collections.abc import Callable, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, ThreadPoolExecutor, wait
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.ipc

from threadlab.frames.arrow import SCHEMAS
from threadlab.loading.cache import read_entry
from threadlab.loading.chunks import load_chunk
from threadlab.loading.files import Chunk

MAX_WORKERS = 16


def default_workers(n_chunks: int) -> int:
    """One process per core, no more than there are chunks, capped."""
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
    return max(1, min(cores, n_chunks, MAX_WORKERS))


def _context() -> Any:
    """How workers start. fork starts one in milliseconds with threadlab already imported, but
    forking while other Python threads run (a Jupyter kernel's heartbeat and IO threads, a
    test runner's) can copy a lock one of them holds, and the worker then waits on it forever.
    So fork only when no other Python thread runs (Arrow's and jemalloc's native threads guard
    themselves with at-fork handlers); otherwise forkserver, a clean parent that imported
    threadlab once; spawn where neither exists (Windows)."""
    methods = multiprocessing.get_all_start_methods()
    if "fork" in methods and sys.platform == "linux" and _single_threaded():
        return multiprocessing.get_context("fork")
    if "forkserver" in methods:
        context = multiprocessing.get_context("forkserver")
        context.set_forkserver_preload(["threadlab.loading.worker_preload"])
        return context
    return multiprocessing.get_context("spawn")


def _single_threaded() -> bool:
    return threading.active_count() == 1


def run_chunks(
    chunks: Sequence[Chunk],
    *,
    workers: int,
    cache_dir: str | None,
    on_done: Callable[[Chunk], None] | None = None,
) -> list[dict[str, pa.Table]]:
    """``load_chunk`` over ``chunks``; results in the order of ``chunks``. Cached chunks are
    read here (on a few threads); the rest go to the pool."""
    results: list[dict[str, pa.Table] | None] = [None] * len(chunks)
    if cache_dir is not None:
        # entries are read on a few threads (Feather decoding releases the GIL): the reads of
        # one entry are too small to keep the cores busy on their own
        folder = Path(cache_dir)
        with ThreadPoolExecutor(max_workers=min(4, max(2, workers))) as threads:
            for i, (chunk, found) in enumerate(zip(chunks, threads.map(lambda c: read_entry(folder, c), chunks), strict=True)):
                results[i] = found
                if found is not None and on_done:
                    on_done(chunk)
    todo = [i for i, found in enumerate(results) if found is None]
    if workers <= 1 or len(todo) <= 1:
        for i in todo:
            results[i] = load_chunk(chunks[i], cache_dir)
            if on_done:
                on_done(chunks[i])
        return results  # type: ignore[return-value]
    context = _context()
    if context.get_start_method() == "fork":
        warm_up()
    spool = tempfile.mkdtemp(prefix="threadlab-", dir="/dev/shm" if os.path.isdir("/dev/shm") else None)
    try:
        for i, tables in zip(todo, _run_pool([chunks[i] for i in todo], workers, cache_dir, on_done, context, spool), strict=True):
            results[i] = tables
    finally:
        shutil.rmtree(spool, ignore_errors=True)
    return results  # type: ignore[return-value]


def _spooled(chunk: Chunk, cache_dir: str | None, spool: str, index: int) -> str:
    """In a worker: the chunk's tables written as Arrow IPC files in ``spool`` (shared memory
    on Linux); the parent maps them instead of unpickling a copy of every string."""
    tables = load_chunk(chunk, cache_dir)
    base = os.path.join(spool, f"{index:06d}")
    for name, table in tables.items():
        with pa.OSFile(f"{base}.{name}.arrow", "wb") as sink, pa.ipc.new_file(sink, table.schema) as writer:
            writer.write_table(table)
    return base


def _unspool(base: str, names: Sequence[str]) -> dict[str, pa.Table]:
    tables = {}
    for name in names:
        path = f"{base}.{name}.arrow"
        with pa.memory_map(path) as source:
            tables[name] = pa.ipc.open_file(source).read_all()
        os.unlink(path)  # the mapping stays valid until the table is freed
    return tables


def _run_pool(
    chunks: Sequence[Chunk],
    workers: int,
    cache_dir: str | None,
    on_done: Callable[[Chunk], None] | None,
    context: Any,
    spool: str,
) -> list[dict[str, pa.Table]]:
    results: list[dict[str, pa.Table] | None] = [None] * len(chunks)
    with ProcessPoolExecutor(max_workers=workers, mp_context=context) as pool:
        # keep a few tasks per worker in flight, not all: results arrive as Arrow tables and
        # a slow consumer should not make the pool race ahead holding them all
        todo = iter(enumerate(chunks))
        running: dict[Future[str], int] = {}

        def submit() -> None:
            for i, chunk in todo:
                running[pool.submit(_spooled, chunk, cache_dir, spool, i)] = i
                if len(running) >= 3 * workers:
                    return

        submit()
        while running:
            done, _ = wait(running, return_when=FIRST_COMPLETED)
            for future in done:
                i = running.pop(future)
                results[i] = _unspool(future.result(), SCHEMAS)
                if on_done:
                    on_done(chunks[i])
            submit()
    return results  # type: ignore[return-value]


def warm_up() -> None:
    """Load once, before forking, what every worker would otherwise load itself (genai-prices'
    price data takes about half a second to import)."""
    from genai_prices import data_snapshot

    data_snapshot.get_snapshot()


class Progress:
    """A tqdm.auto bar over bytes (MB), with files counted in the postfix: a notebook widget in
    JupyterLab, a text bar in a terminal."""

    def __init__(self, total_bytes: int, total_files: int, show: bool) -> None:
        self.bar = None
        self.files = 0
        self.total_files = total_files
        if show:
            from tqdm.auto import tqdm

            class Bar(tqdm):  # type: ignore[misc,valid-type]
                monitor_interval = 0  # no monitor thread: workers can still be forked

            self.bar = Bar(total=total_bytes, desc="threadlab.load", unit="B", unit_scale=True, unit_divisor=1024, dynamic_ncols=True)
            self.bar.set_postfix_str(f"0/{total_files} files", refresh=False)

    def advance(self, chunk: Chunk) -> None:
        if self.bar is None:
            return
        self.files += len(chunk.files)
        self.bar.set_postfix_str(f"{self.files}/{self.total_files} files", refresh=False)
        self.bar.update(chunk.size)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()
