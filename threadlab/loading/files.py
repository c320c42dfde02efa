"""What to read: paths, folders and globs → files, in a stable order, and files → chunks (the
unit of work of a process-pool task, a Dask partition and a cache entry)."""

from __future__ import annotations

import glob as globlib
import math
import os
import zlib
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from stat import S_ISDIR
from typing import Any, NamedTuple

from threadlab.core.model import Thread
from threadlab.formats import folder_format_modules
from threadlab.formats.source import Source

# files a folder walk picks up; a folder a format claims as a whole (a Claude Code project)
# is read as one source instead
DATA_SUFFIXES = (".json", ".jsonl", ".ndjson", ".sse")
CHUNK_BYTES = 8 << 20  # a cache entry / Dask partition holds about this much JSON


def expand_sources(source: Any) -> Iterator[Any]:
    """Paths, folders and globs → the sources to read, in a stable order; Threads and other
    objects pass through."""
    for item in _found(source):
        yield Path(item.path) if isinstance(item, Found) else item


def file_refs(source: Any) -> Iterator[Any]:
    """``expand_sources`` as the loader needs it: each file as a FileRef (path, size, mtime),
    a walked file's made from its folder listing (no pathlib object per file: on 27,000 files
    that was a second of a cached reload); Threads and other objects pass through."""
    for item in _found(source):
        if not isinstance(item, Found):
            yield item
        elif item.entry is None:
            yield FileRef.of(Path(item.path))
        else:
            yield FileRef.of_entry(item.entry, item.path)


class Found(NamedTuple):
    """A file (or a folder read as one source) and, when a folder walk found it, its entry."""

    path: str
    entry: os.DirEntry[str] | None


def _found(source: Any) -> Iterator[Found | Any]:
    items = source if isinstance(source, list | tuple) else [source]
    for item in items:
        if isinstance(item, Thread) or not isinstance(item, str | os.PathLike):
            yield item
            continue
        text = os.fspath(item)
        if any(ch in text for ch in "*?[") and not Path(text).exists():
            for match in sorted(globlib.glob(text, recursive=True)):
                yield from _found(match)
            continue
        path = Path(text)
        if path.is_dir():
            yield from _walk(str(path))
        else:
            yield Found(str(path), None)


def _walk(folder: str) -> Iterator[Found]:
    # scandir: the entry's type comes with the listing, no stat per entry to tell files from folders
    with os.scandir(folder) as listing:
        entries = list(listing)
    if _claims_folder(folder, entries):
        yield Found(folder, None)
        return
    for entry in sorted((e for e in entries if not e.name.startswith(".")), key=lambda e: e.name):
        path = entry.name if folder == "." else entry.path  # as pathlib spells it: no "./"
        if entry.is_dir():
            yield from _walk(path)
        elif entry.name.lower().endswith(DATA_SUFFIXES):
            yield Found(path, entry)


def _claims_folder(folder: str, entries: list[os.DirEntry[str]]) -> bool:
    """Does a format read ``folder`` as one source? A folder-claiming module is asked only when
    the folder has a subfolder or a file of its ``SUFFIX``: a plain folder of thread files, the
    common case, costs no second listing (a module's ``detect`` globs the folder)."""
    has_subfolder = any(e.is_dir() for e in entries)
    source = None
    for module in folder_format_modules():
        suffix = getattr(module, "SUFFIX", None)
        if not has_subfolder and suffix and not any(e.name.lower().endswith(suffix) for e in entries):
            continue
        source = source or Source(Path(folder))
        if module.detect(source):
            return True
    return False


class FileRef(NamedTuple):
    """A file as the cache sees it: a changed size or mtime means changed content. (A named
    tuple: a walk makes one per file, and a frozen dataclass costs several times more to make.)"""

    path: str
    size: int
    mtime_ns: int

    @classmethod
    def of(cls, path: Path) -> FileRef:
        try:
            stat = path.stat()
        except OSError:  # reading it will say what is wrong
            return cls(str(path), -1, -1)
        if S_ISDIR(stat.st_mode):  # a folder read as one source: its files' bytes, newest mtime
            files = [p.stat() for p in path.rglob("*") if p.is_file()]
            return cls(str(path), sum(f.st_size for f in files), max((f.st_mtime_ns for f in files), default=stat.st_mtime_ns))
        return cls(str(path), stat.st_size, stat.st_mtime_ns)

    @classmethod
    def of_entry(cls, entry: os.DirEntry[str], path: str) -> FileRef:
        """A file found by a folder listing, at ``path``."""
        try:
            stat = entry.stat()
        except OSError:
            return cls(path, -1, -1)
        return cls(path, stat.st_size, stat.st_mtime_ns)


@dataclass(frozen=True, slots=True)
class Chunk:
    """Files read together by one task, in order."""

    files: tuple[FileRef, ...]
    format: str = "auto"

    @property
    def size(self) -> int:
        return sum(max(f.size, 0) for f in self.files)


def make_chunks(files: Sequence[FileRef], format: str, *, target_bytes: int = CHUNK_BYTES, stable: bool = True) -> list[Chunk]:
    """Group files into chunks of about ``target_bytes``, in order.

    ``stable`` (what the cache needs): a chunk ends after a file whose path hash is 0 modulo k
    (k = files per chunk, rounded to a power of two), so the boundaries depend on the paths
    only: adding, removing or changing one file leaves the other chunks (and their cache
    entries) as they were. A chunk never exceeds 4 × target_bytes. Otherwise a chunk ends as
    soon as it holds ``target_bytes``: even chunks, so no worker is left with a big one at the end."""
    if not files:
        return []
    if stable:
        mean = max(1, sum(max(f.size, 0) for f in files) // len(files))
        k = 2 ** max(0, round(math.log2(max(1, target_bytes / mean))))

        def closes(ref: FileRef, size: int) -> bool:
            return zlib.crc32(ref.path.encode()) % k == 0 or size >= 4 * target_bytes
    else:

        def closes(ref: FileRef, size: int) -> bool:
            return size >= target_bytes

    chunks: list[Chunk] = []
    current: list[FileRef] = []
    size = 0
    for ref in files:
        current.append(ref)
        size += max(ref.size, 0)
        if closes(ref, size):
            chunks.append(Chunk(tuple(current), format))
            current, size = [], 0
    if current:
        chunks.append(Chunk(tuple(current), format))
    return chunks
