"""``threadlab.load``: files, folders, globs or Threads → Frames; fast, parallel, cached.

Lenient by default: a bad file costs only that file (it is listed in ``frames.problems`` with
its path and reason) and everything else loads. ``strict=True`` raises with every problem."""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Literal

import pandas as pd
import pyarrow as pa

from threadlab.core.model import Thread
from threadlab.core.problems import NOTE_RULES, Problem, ThreadError
from threadlab.formats.common.source import Source
from threadlab.formats.common.walk import Skipped
from threadlab.frames.arrow import batch_to_tables
from threadlab.frames.batch import ThreadRecord
from threadlab.frames.extract import extract
from threadlab.frames.frames import Frames
from threadlab.frames.labels import concat
from threadlab.frames.skipped import skipped_frame
from threadlab.loading.cache import cache_folder, writable_cache
from threadlab.loading.chunks import failed_file_tables, no_gc
from threadlab.loading.files import CHUNK_BYTES, Chunk, FileRef, file_refs, make_chunks
from threadlab.loading.pool import MAX_WORKERS, Progress, default_workers, run_chunks
from threadlab.loading.reader import careful
from threadlab.loading.remote import has_url, named_by_url, staged_sources
from threadlab.loading.split import split_chunks

if TYPE_CHECKING:
    from threadlab.loading.dask_engine import DaskFrames

HANDFUL = 8  # more files than this and a progress bar is shown (unless progress=False)
# below this, files are read in this process: starting a pool (whose workers each import the
# converters their files need, on every load) costs more than the second core saves
SMALL_LOAD_BYTES = 8 << 20
MIN_CHUNK_BYTES = 1 << 20
MAX_CHUNK_BYTES = 32 << 20


def load(
    source: Any,
    *,
    format: str = "auto",
    strict: bool = False,
    progress: bool | float | None = None,
    workers: int | None = None,
    cache: bool | str | os.PathLike[str] | None = None,
    engine: Literal["pandas", "dask"] = "pandas",
    storage_options: Mapping[str, Any] | None = None,
) -> Frames | DaskFrames:
    """Load every thread in ``source`` (a path, folder, glob, a list of those, or Threads and
    other in-memory objects) into Frames.

    ``workers``: processes that parse files (default: one per core, no more than there are
    chunks of files, capped at 16; under 8 MB of files, this process only; 1 = in this process;
    results keep the input order). ``progress``: a tqdm bar (files and
    MB), shown by default for more than a handful of files; a number of seconds: the bar shows
    only once the load has taken that long (``threadlab summary`` waits a second, so a quick
    load prints no bar). ``cache``: True (``./.threadlab-cache``) or a folder where the frames
    of unchanged files are kept (``loading/cache.py``: uncompressed Arrow IPC files, each checked
    against its XXH3-128 checksum before it is read). ``strict``: raise
    ``ThreadError`` listing every problem instead of reporting them in ``frames.problems``.
    ``engine="dask"``: Dask DataFrames, one partition per chunk of files (``threadlab[dask]``).

    Files a folder holds that are not read (a README, a picture, a Codex home's config, hidden
    files) are listed in ``frames.skipped`` with the reason; they are not problems (``strict``
    does not raise for them).

    A source may be an fsspec URL (``s3://bucket/runs/``, ``gs://``, ``hf://``, ``memory://``,
    ``file://``; ``storage_options`` go to its filesystem, credentials come from where it looks):
    read as the same folder on disk would be, the frames naming the URL (``loading/remote.py``)."""
    if has_url(source):
        if engine == "dask":
            from threadlab.loading.dask_engine import load_dask_urls

            return load_dask_urls(source, load, format=format, workers=workers, cache=cache, storage_options=storage_options)
        with staged_sources(source, storage_options=storage_options, cache=cache_folder(cache)) as (local, mirrors):
            frames = load(local, format=format, strict=strict, progress=progress, workers=workers, cache=cache)
            return named_by_url(frames, mirrors)  # type: ignore[arg-type]
    with no_gc():  # a FileRef per file, none in a cycle: a collection would walk them all for nothing
        items = list(file_refs(source))
    skipped = skipped_frame(item for item in items if isinstance(item, Skipped))
    if len(skipped):
        items = [item for item in items if not isinstance(item, Skipped)]
    folder = writable_cache(cache_folder(cache))
    cache_dir = str(folder) if folder is not None else None
    files = [item for item in items if isinstance(item, FileRef)]
    total = sum(f.size for f in files if f.size > 0)
    # with a cache, chunk boundaries must not depend on the machine (they key the entries)
    stable = cache_dir is not None
    target = CHUNK_BYTES if stable else _adaptive_target(total, len(files), workers)
    if engine == "dask":
        found = [item for item in items if isinstance(item, Problem)]  # a FIFO, a symlink loop
        if len(files) + len(found) != len(items):
            raise TypeError("engine='dask' loads files only; pass paths, folders or globs")
        from threadlab.loading.dask_engine import load_dask

        chunks = split_chunks(make_chunks(files, format, target_bytes=target, stable=stable), target, workers=_part_workers(workers, stable))
        return load_dask(chunks, cache_dir=cache_dir, strict=strict, skipped=skipped, problems=found)
    if engine != "pandas":
        raise ValueError(f"unknown engine {engine!r}; use 'pandas' or 'dask'")

    segments = _segments(items, format, target, stable=stable, workers=_part_workers(workers, stable))
    chunks = [c for seg in segments if isinstance(seg, list) for c in seg]
    n_workers = workers if workers is not None else 1 if total < SMALL_LOAD_BYTES else default_workers(len(chunks))
    timed = isinstance(progress, int | float) and not isinstance(progress, bool)  # seconds before the bar shows
    show = True if timed else progress if progress is not None else len(files) > HANDFUL
    delay = float(progress) if timed else 0.0  # type: ignore[arg-type]
    bar = Progress(total, len(files), show, delay=delay)
    try:
        results = iter(run_chunks(chunks, workers=n_workers, cache_dir=cache_dir, on_done=bar.advance))
    finally:
        bar.close()
    parts: list[dict[str, pa.Table]] = []
    kept: dict[str, Thread] = {}
    for seg in segments:
        if isinstance(seg, list):
            parts.extend(next(results) for _ in seg)
        else:
            parts.append(_object_tables(seg, format, kept))
    with no_gc():
        frames = Frames.from_tables(concat(parts), kept, skipped=skipped)
    if strict:
        broken = frames.problems[~frames.problems["rule"].isin(NOTE_RULES)]
        if len(broken):
            raise ThreadError(problems_of(broken))
    return frames


def _adaptive_target(total: int, n_files: int, workers: int | None) -> int:
    """Without a cache, chunk size is free: about eight chunks per worker (so the last ones
    leave little idle time on the other cores), 1-32 MB each."""
    n = workers or default_workers(n_files)
    return int(min(MAX_CHUNK_BYTES, max(MIN_CHUNK_BYTES, total / max(1, 8 * n))))


def _part_workers(workers: int | None, stable: bool) -> int | None:
    """The workers a large file is shared out for (``split.py``); None: the parts of a cached load."""
    return None if stable else workers or default_workers(MAX_WORKERS)


def _segments(items: list[Any], format: str, target: int, *, stable: bool, workers: int | None) -> list[list[Chunk] | Any]:
    """Runs of files (as chunks; a large file that can be shared out, as its parts) and
    in-memory objects, in input order."""
    out: list[list[Chunk] | Any] = []
    run: list[FileRef] = []
    for item in items:
        if isinstance(item, FileRef):
            run.append(item)
            continue
        if run:
            out.append(split_chunks(make_chunks(run, format, target_bytes=target, stable=stable), target, workers=workers))
            run = []
        out.append(item)
    if run:
        out.append(split_chunks(make_chunks(run, format, target_bytes=target, stable=stable), target, workers=workers))
    return out


def _object_tables(item: Any, format: str, kept: dict[str, Thread]) -> dict[str, pa.Table]:
    """A Thread, a problem the walk found (a FIFO, a symlink loop), or any in-memory input
    ``read_all`` understands (read in this process; one that breaks a converter is an
    ``internal`` problem row, as a file would be)."""
    if isinstance(item, Problem):
        return batch_to_tables(extract([item]))
    try:
        if isinstance(item, Thread):
            name, fmt = item.origin
            tables = batch_to_tables(extract([ThreadRecord(item.to_dict(), name, fmt, item.problems, item.account)]))
            kept[item.thread_id] = item
            return tables
        return batch_to_tables(extract(list(careful(Source(item), format))))
    except Exception as exc:
        return failed_file_tables(f"<{type(item).__name__}>", exc)


def problems_of(frame: pd.DataFrame) -> list[Problem]:
    """The rows of a problems frame as Problem objects (for ThreadError)."""

    def value(v: Any) -> Any:
        return None if v is None or v is pd.NA or (isinstance(v, float) and v != v) else v

    return [
        Problem(
            str(row.rule),
            str(row.message),
            value(row.thread_id),
            None if value(row.sequence) is None else int(row.sequence),
            None if value(row.source) is None else str(row.source),
            None if value(row.line) is None else int(row.line),
        )
        for row in frame.itertuples(index=False)
    ]
