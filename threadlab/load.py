"""``threadlab.load``: files, folders, globs or Threads → Frames, lenient by default.

A bad file costs only that file: it is listed in ``frames.problems`` with its path and reason
and everything else loads. ``strict=True`` raises with every problem listed."""

from __future__ import annotations

import glob as globlib
import os
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from threadlab.core.model import Thread
from threadlab.core.problems import Problem, ThreadError
from threadlab.formats import format_modules
from threadlab.formats.source import Source
from threadlab.frames.extract import add_problems, extract_thread, new_batch
from threadlab.frames.frames import Frames
from threadlab.reading import read_all

# files a folder walk picks up; a folder a format claims as a whole (a Claude Code project)
# is read as one source instead
DATA_SUFFIXES = (".json", ".jsonl", ".ndjson", ".sse")


def expand_sources(source: Any) -> Iterator[Any]:
    """Paths, folders and globs → the sources to read, in a stable order; Threads and other
    objects pass through."""
    items = source if isinstance(source, list | tuple) else [source]
    for item in items:
        if isinstance(item, Thread) or not isinstance(item, str | os.PathLike):
            yield item
            continue
        text = os.fspath(item)
        if any(ch in text for ch in "*?[") and not Path(text).exists():
            matches = sorted(globlib.glob(text, recursive=True))
            for match in matches:
                yield from expand_sources(match)
            continue
        path = Path(text)
        if path.is_dir():
            yield from _walk(path)
        else:
            yield path


def _claims_folder(path: Path) -> bool:
    src = Source(path)
    return any(getattr(m, "CLAIMS_FOLDERS", False) and m.detect(src) for m in format_modules())


def _walk(folder: Path) -> Iterator[Path]:
    if _claims_folder(folder):
        yield folder
        return
    for entry in sorted(folder.iterdir()):
        if entry.name.startswith("."):
            continue
        if entry.is_dir():
            yield from _walk(entry)
        elif entry.suffix.lower() in DATA_SUFFIXES:
            yield entry


def load(
    source: Any,
    *,
    format: str = "auto",
    strict: bool = False,
    progress: bool | None = None,
) -> Frames:
    """Load every thread in ``source`` (a path, folder, glob, a list of those, or Threads) into
    Frames. Lenient by default: broken files are reported in ``frames.problems``."""
    batch = new_batch()
    kept: dict[str, Thread] = {}
    failures: list[Problem] = []
    for item in _iter_progress(list(expand_sources(source)), progress):
        if isinstance(item, Thread):
            threads = [item]
        else:
            try:
                threads = read_all(item, format, strict=False)
            except ThreadError as exc:
                failures.extend(exc.problems)
                add_problems(batch, exc.problems, source=str(item))
                continue
        for thread in threads:
            name, fmt = thread.origin
            extract_thread(thread.to_dict(), batch, source=name, format=fmt, problems=thread.problems)
            failures.extend(thread.problems)
            if isinstance(item, Thread):
                kept[thread.thread_id] = thread
    if strict and failures:
        raise ThreadError(failures)
    return Frames.from_batch(batch, kept)


def _iter_progress(items: list[Any], progress: bool | None) -> Iterable[Any]:
    show = progress if progress is not None else len(items) > 8
    if not show:
        return items
    from tqdm.auto import tqdm

    return tqdm(items, desc="threadlab.load", unit="file")
