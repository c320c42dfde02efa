"""What to read as the loader sees it: files with their size and mtime (``FileRef``) and files →
chunks (the unit of work of a process-pool task, a Dask partition and a cache entry)."""

from __future__ import annotations

import math
import os
import zlib
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NamedTuple

from threadlab.core.problems import Problem
from threadlab.formats.common.walk import Found, Skipped, walk

CHUNK_BYTES = 8 << 20  # a cache entry / Dask partition holds about this much JSON


def file_refs(source: Any) -> Iterator[FileRef | Problem | Skipped | Any]:
    """The walk (``threadlab.formats.common.walk``) as the loader needs it: each file as a FileRef
    (path, size, mtime, its companions' included), a walked file's made from its folder listing
    (no pathlib object per file: on 27,000 files that was a second of a cached reload);
    problems (special files, symlink loops), what the walk does not read (``Skipped``) and
    in-memory objects pass through."""
    for item in walk(source):
        yield FileRef.of_found(item) if isinstance(item, Found) else item


class FileRef(NamedTuple):
    """A file as the cache sees it: a changed size or mtime means changed content. For a file
    read with companions (a Claude Code session and its subagent transcripts) size and mtime
    cover them all. (A named tuple: a walk makes one per file, and a frozen dataclass costs
    several times more to make.)"""

    path: str
    size: int
    mtime_ns: int

    @classmethod
    def of(cls, path: Path) -> FileRef:
        return cls.of_found(Found(str(path)))

    @classmethod
    def of_found(cls, found: Found) -> FileRef:
        try:
            info = found.entry.stat() if found.entry is not None else os.stat(found.path)
        except OSError:  # reading it will say what is wrong
            return cls(found.path, -1, -1)
        if not found.companions:
            return cls(found.path, info.st_size, info.st_mtime_ns)
        size, mtime = info.st_size, info.st_mtime_ns
        for companion in found.companions:
            for path in _files_under(companion):
                try:
                    more = os.stat(path)
                except OSError:
                    continue
                size += more.st_size
                mtime = max(mtime, more.st_mtime_ns)
        return cls(found.path, size, mtime)


def _files_under(path: str) -> Iterator[str]:
    if not os.path.isdir(path):
        yield path
        return
    for folder, _, names in os.walk(path):
        for name in names:
            yield os.path.join(folder, name)


@dataclass(frozen=True, slots=True)
class Chunk:
    """Files read together by one task, in order; or, with ``part`` (k, n), part k of n of one
    large file that a format shares out (an Inspect ``.eval``, by sample: ``split.py``)."""

    files: tuple[FileRef, ...]
    format: str = "auto"
    part: tuple[int, int] | None = None

    @property
    def size(self) -> int:
        size = sum(max(f.size, 0) for f in self.files)
        return size if self.part is None else size // self.part[1] + (self.part[0] < size % self.part[1])


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
