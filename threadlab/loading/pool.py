"""Run chunks in a process pool (results in input order) with a tqdm progress bar.

Workers hand their frames back as Arrow files in a spool folder (``/dev/shm/threadlab-<pid>-*``
on Linux). The folder is removed on every way out of a load (an error, KeyboardInterrupt, a
worker that died); a folder whose process was killed outright (SIGKILL, a lost machine) is
removed by the next load on the machine. A worker that dies (a crash in native code, the
out-of-memory killer) costs only the file it was reading: its chunk's files are read again,
each in a process of its own, and a file that kills its worker again is an ``internal``
problem row naming it."""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import sys
import tempfile
import threading
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pyarrow as pa
import pyarrow.ipc

from threadlab.frames.arrow import SCHEMAS
from threadlab.loading.cache import read_entry
from threadlab.loading.chunks import failed_file_tables, load_chunk
from threadlab.loading.files import Chunk

if TYPE_CHECKING:
    from concurrent.futures import Future

# multiprocessing and concurrent.futures' process pool are imported when a pool starts: a load
# under SMALL_LOAD_BYTES (a first load of data/) reads in this process and never needs them

MAX_WORKERS = 16
SPOOL_PREFIX = "threadlab-"
_SPOOL_NAME = re.compile(r"threadlab-(\d+)-")


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
    import multiprocessing

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
        from concurrent.futures import ThreadPoolExecutor

        folder = Path(cache_dir)
        with ThreadPoolExecutor(max_workers=min(4, max(2, workers))) as threads:
            for i, (chunk, found) in enumerate(zip(chunks, threads.map(lambda c: read_entry(folder, c), chunks), strict=True)):
                results[i] = found
                if found is not None and on_done:
                    on_done(chunk)
    todo = [i for i, found in enumerate(results) if found is None]
    if workers <= 1 or len(todo) <= 1:
        for i in todo:
            results[i] = load_chunk(chunks[i], cache_dir, lookup=False)
            if on_done:
                on_done(chunks[i])
        return results  # type: ignore[return-value]
    context = _context()
    if context.get_start_method() == "fork":
        warm_up()
    shared = "/dev/shm" if os.path.isdir("/dev/shm") else None
    sweep_spools(shared or tempfile.gettempdir())
    spool = tempfile.mkdtemp(prefix=f"{SPOOL_PREFIX}{os.getpid()}-", dir=shared)
    try:
        while todo:
            tables, suspects = _run_pool([chunks[i] for i in todo], workers, cache_dir, on_done, context, spool)
            for i, found in zip(todo, tables, strict=True):
                results[i] = found
            for n in suspects:  # running when a worker died: which one killed it is not known
                i = todo[n]
                results[i] = _one_file_at_a_time(chunks[i], cache_dir, context, spool)
                if on_done:
                    on_done(chunks[i])
            todo = [i for i in todo if results[i] is None]  # not started when the pool broke
    finally:
        shutil.rmtree(spool, ignore_errors=True)
    return results  # type: ignore[return-value]


def sweep_spools(folder: str) -> None:
    """Remove the spool folders of loads whose process no longer exists (killed outright:
    nothing of theirs ran to remove them). Folders of live processes are left alone."""
    try:
        names = [name for name in os.listdir(folder) if name.startswith(SPOOL_PREFIX)]
    except OSError:
        return
    for name in names:
        match = _SPOOL_NAME.match(name)
        if match and not _alive(int(match.group(1))):
            shutil.rmtree(os.path.join(folder, name), ignore_errors=True)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # exists, another user's
        return True
    return True


def _one_file_at_a_time(chunk: Chunk, cache_dir: str | None, context: Any, spool: str) -> dict[str, pa.Table]:
    """A chunk whose worker died, read again one file per fresh process (so a file that kills
    its worker again is found and costs only itself)."""
    from concurrent.futures import ProcessPoolExecutor
    from concurrent.futures.process import BrokenProcessPool

    from threadlab.frames.labels import concat

    parts = []
    for n, ref in enumerate(chunk.files):
        single = Chunk((ref,), chunk.format, chunk.part)
        try:
            with ProcessPoolExecutor(max_workers=1, mp_context=context) as pool:
                parts.append(_unspool(pool.submit(_spooled, single, None, spool, n).result(), SCHEMAS))
        except BrokenProcessPool:
            parts.append(failed_file_tables(ref.path, "the process reading it died (a crash or the out-of-memory killer)"))
        except Exception as exc:  # the pool machinery itself failed on this file
            parts.append(failed_file_tables(ref.path, exc))
    tables = concat(parts)
    if cache_dir is not None:
        from threadlab.loading.cache import write_entry

        write_entry(Path(cache_dir), chunk, tables)
    return tables


def _spooled(chunk: Chunk, cache_dir: str | None, spool: str, index: int) -> str | dict[str, pa.Table]:
    """In a worker: the chunk's tables written as Arrow IPC files in ``spool`` (shared memory
    on Linux); the parent maps them instead of unpickling a copy of every string. When the
    spool cannot take them (shared memory full), the tables themselves, pickled: slower, and
    the load goes on."""
    tables = load_chunk(chunk, cache_dir, lookup=False)
    base = os.path.join(spool, f"{index:06d}-{os.getpid()}")  # (a dead worker's half-written files are its own)
    try:
        for name, table in tables.items():
            with pa.OSFile(f"{base}.{name}.arrow", "wb") as sink, pa.ipc.new_file(sink, table.schema) as writer:
                writer.write_table(table)
    except OSError:
        for name in tables:
            with contextlib.suppress(OSError):
                os.unlink(f"{base}.{name}.arrow")
        return tables
    return base


def _unspool(base: str | dict[str, pa.Table], names: Sequence[str]) -> dict[str, pa.Table]:
    if isinstance(base, dict):  # sent pickled (see _spooled)
        return base
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
) -> tuple[list[dict[str, pa.Table] | None], list[int]]:
    """Each chunk's tables, and the positions of the chunks that were running when a worker
    died (None in the tables, as are the chunks not started then: a broken pool starts none)."""
    from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
    from concurrent.futures.process import BrokenProcessPool

    results: list[dict[str, pa.Table] | None] = [None] * len(chunks)
    pool = ProcessPoolExecutor(max_workers=workers, mp_context=context)
    try:
        # keep a few tasks per worker in flight, not all: results arrive as Arrow tables and
        # a slow consumer should not make the pool race ahead holding them all
        todo = iter(enumerate(chunks))
        running: dict[Future[str | dict[str, pa.Table]], int] = {}

        def submit() -> bool:
            """Queue more chunks; False when the pool broke (a worker died since the last
            look): the chunk not queued then is read again by the caller, as are the rest."""
            for i, chunk in todo:
                try:
                    running[pool.submit(_spooled, chunk, cache_dir, spool, i)] = i
                except BrokenProcessPool:
                    return False
                if len(running) >= 3 * workers:
                    return True
            return True

        broken = not submit()
        suspects: list[int] = []
        while running:
            done, _ = wait(running, return_when=FIRST_COMPLETED)
            for future in done:
                i = running.pop(future)
                try:
                    base = future.result()
                except BrokenProcessPool:
                    broken = True
                    suspects.append(i)
                    continue
                except Exception:  # the task failed outside the chunk's own safety net: read it file by file
                    suspects.append(i)
                    continue
                results[i] = _unspool(base, SCHEMAS)
                if on_done:
                    on_done(chunks[i])
            if not broken:
                broken = not submit()
    finally:
        # on every way out (KeyboardInterrupt too): no task more starts, the running ones end
        # before the caller removes the spool they write into
        pool.shutdown(wait=True, cancel_futures=True)
    return results, sorted(suspects)


def warm_up() -> None:
    """Load once, before forking, what every worker would otherwise load itself (genai-prices'
    price data takes about half a second to import)."""
    from genai_prices import data_snapshot

    data_snapshot.get_snapshot()


class Progress:
    """A tqdm.auto bar over bytes (MB), with files counted in the postfix: a notebook widget in
    JupyterLab, a text bar in a terminal."""

    def __init__(self, total_bytes: int, total_files: int, show: bool, *, delay: float = 0.0) -> None:
        """``delay``: seconds before the bar first shows (none for a load quicker than that)."""
        self.bar = None
        self.files = 0
        self.total_files = total_files
        if show:
            from tqdm.auto import tqdm

            class Bar(tqdm):  # type: ignore[misc,valid-type]
                monitor_interval = 0  # no monitor thread: workers can still be forked

            self.bar = Bar(total=total_bytes, desc="threadlab.load", unit="B", unit_scale=True, unit_divisor=1024, dynamic_ncols=True, delay=delay)
            self.bar.set_postfix_str(f"0/{total_files} files", refresh=False)

    def advance(self, chunk: Chunk) -> None:
        if self.bar is None:
            return
        self.files += len(chunk.files) if chunk.part is None or chunk.part[0] == 0 else 0
        self.bar.set_postfix_str(f"{self.files}/{self.total_files} files", refresh=False)
        self.bar.update(chunk.size)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()
