"""The load cache: the frames of a chunk of unchanged files, kept on disk.

An entry is a folder named by a hash of the threadlab version, the entry layout, the format
asked for and every file's (path, size, mtime); it holds one Arrow IPC file (uncompressed: see
below) per frame, label columns dictionary-encoded as the chunk reader made them
(``frames/labels.py``), and a manifest with each file's size and XXH3-128 checksum. A file that
changes changes its chunk's key, so that chunk is read again; the old entry is simply never
used again.

The cache cannot lie: an entry is written in a temporary folder and renamed into place (a
reader never sees half of one), and its bytes are checked against the manifest before Arrow
sees them, so a damaged entry (a flipped bit, a torn write, a truncated file) is a miss, a
``CacheWarning`` and a re-read of its files, never wrong frames and never a crash inside
Arrow's decoder.

Entry files are memory-mapped (on POSIX; read elsewhere: Windows cannot delete a mapped file),
not read: on a cached reload of 1 GB, copying the 880 MB of entries into fresh pages was about
1 s of CPU of 2 (touching a new page is what costs, not the copy), and mapped, the frames'
strings stay in the page cache's pages. What was checked stays what the frames hold because
threadlab never writes an entry file in place: entries are written in a temporary folder and
renamed, and removed by a rename and an unlink, which a mapping outlives. The price: a file
rewritten or truncated in place by something else while frames from it are alive would change
those frames, or end the process with SIGBUS (``MAP_ENTRIES = False`` reads them instead).
A file that cannot be mapped (the process's count of mappings at its limit) is read.

XXH3-128 rather than SHA-256: the damage to catch is accidental (disks, killed writers, a stray
editor), which a 128-bit hash whose every output bit depends on every input bit catches as
surely as a cryptographic one; it ran at about 7 GB/s here against SHA-256's 1.5 GB/s (19 ms of
a 0.2 s reload of the 75 MB corpus, against 4 ms).

A cache folder that cannot be written is a ``CacheWarning`` and a load without the cache.

Arrow IPC ("Feather") rather than Parquet: the cache is read far more often than it is
written, and on the benchmark corpus reading its frames back took 0.30 s as LZ4 Feather against
1.38 s as uncompressed Parquet. Parquet is what ``Frames.to_parquet`` writes for sharing; the
cache is threadlab's own. Uncompressed rather than LZ4: reading, checking and decoding the
entries of the 75 MB corpus took 16 ms of CPU uncompressed against 47-63 ms as LZ4, a fifth
of a cached reload, for entries 2.8 times bigger (68 MB against 24.5 MB, 0.86 times the JSON
they come from). Cold from a slow disk LZ4 would read faster; a reload is most often of files
read minutes before, from the page cache."""

from __future__ import annotations

import hashlib
import os
import shutil
import tempfile
import time
import warnings
from functools import lru_cache
from pathlib import Path
from typing import Any

import orjson
import pyarrow as pa
import pyarrow.feather as feather
import pyarrow.ipc
import xxhash

from threadlab.frames.labels import COMPACT_SCHEMAS, compact
from threadlab.loading.files import Chunk

DEFAULT_FOLDER = ".threadlab-cache"
ENTRY_FORMAT = "arrow-labels-xxh3"
COMPRESSION = "uncompressed"  # (or "lz4": see above)  # part of every key: entries of another layout are never read
MANIFEST = "manifest.json"
TMP_PREFIX = ".tmp-"
# entry files are memory-mapped where a mapped file can be deleted (see above)
MAP_ENTRIES = os.name == "posix"
STALE_TMP_SECONDS = 24 * 3600  # a temporary folder this old was left by a killed process


class CacheWarning(UserWarning):
    """The cache could not be used as asked (a damaged entry, an unwritable folder); the load
    went on without it."""


def cache_folder(cache: bool | str | os.PathLike[str] | None) -> Path | None:
    """``cache=True`` → ``./.threadlab-cache``; a path → that folder; False/None → no cache."""
    if cache is None or cache is False:
        return None
    return Path(DEFAULT_FOLDER if cache is True else cache)


def writable_cache(folder: Path | None) -> Path | None:
    """``folder`` when entries can be written there (made if missing), else None with a
    CacheWarning: the load goes on without a cache. Checked once, in the loading process, by
    writing a file: workers' warnings would be lost, and a failing write per chunk is noise."""
    if folder is None:
        return None
    try:
        folder.mkdir(parents=True, exist_ok=True)
        fd, probe = tempfile.mkstemp(prefix=TMP_PREFIX, dir=folder)
        os.close(fd)
        os.unlink(probe)
    except OSError as exc:
        warnings.warn(f"threadlab cache folder {folder} cannot be written ({exc.strerror or exc}); loading without the cache", CacheWarning, stacklevel=3)
        return None
    _sweep_stale(folder)
    return folder


def _sweep_stale(folder: Path) -> None:
    """Temporary folders a killed process left (older than a day: a writer still at work is
    minutes old at most)."""
    limit = time.time() - STALE_TMP_SECONDS
    try:
        with os.scandir(folder) as listing:
            stale = [e.path for e in listing if e.name.startswith(TMP_PREFIX) and e.stat(follow_symlinks=False).st_mtime < limit]
    except OSError:
        return
    for path in stale:
        shutil.rmtree(path, ignore_errors=True)


def chunk_key(chunk: Chunk) -> str:
    from threadlab._version import __version__

    cwd = os.getcwd()
    lines = "".join([f"{_absolute(path, cwd)}\0{size}\0{mtime}\n" for path, size, mtime in chunk.files])
    part = "" if chunk.part is None else f"part {chunk.part[0]} of {chunk.part[1]}\n"
    return hashlib.sha1(f"threadlab {__version__}\n{ENTRY_FORMAT}\n{chunk.format}\n{part}{lines}".encode()).hexdigest()


def _absolute(path: str, cwd: str) -> str:
    """``os.path.abspath(path)`` (``cwd`` being the current folder), with the folder's part
    worked out once per folder; a path that is absolute and normal already is itself."""
    if path[:1] == "/" and "/." not in path and "//" not in path and os.name == "posix":
        return path
    folder, name = os.path.split(path)
    if not name or name in (".", "..") or os.name != "posix":
        return os.path.abspath(path)
    return os.path.join(_absolute_folder(folder, cwd), name)


@lru_cache(maxsize=4096)
def _absolute_folder(folder: str, cwd: str) -> str:
    return os.path.normpath(os.path.join(cwd, folder)) if folder else cwd


def read_entry(folder: Path, chunk: Chunk) -> dict[str, pa.Table] | None:
    """The cached frames of ``chunk``, or None (no entry, or a damaged one: then a
    CacheWarning, and the entry is removed so the re-read writes a good one)."""
    entry = folder / chunk_key(chunk)
    try:
        manifest = (entry / MANIFEST).read_bytes()
    except OSError:
        return None  # no entry (or an unreadable one: read the files)
    tables, damage = _checked_tables(entry, manifest)
    if damage is not None:
        warnings.warn(f"threadlab cache entry {entry} is damaged ({damage}); its files are read again", CacheWarning, stacklevel=2)
        _discard(entry)
    return tables


def _checked_tables(entry: Path, manifest: bytes) -> tuple[dict[str, pa.Table] | None, str | None]:
    """(tables, None), or (None, what is wrong). Every file's size and checksum are checked
    before its bytes reach Arrow."""
    try:
        listed = orjson.loads(manifest)
        files = listed["tables"] if listed.get("entry") == ENTRY_FORMAT else None
        expected = {name: (int(files[name]["bytes"]), str(files[name]["xxh3_128"])) for name in COMPACT_SCHEMAS}
    except (orjson.JSONDecodeError, AttributeError, KeyError, TypeError, ValueError):
        return None, "its manifest cannot be read"
    tables = {}
    for name, (size, digest) in expected.items():
        try:
            data = _contents(entry / f"{name}.feather", size)
        except OSError as exc:
            return None, f"{name}.feather cannot be read: {exc.strerror or exc}"
        if data is None or checksum(data) != digest:
            return None, f"{name}.feather does not match its checksum"
        try:
            table = pa.ipc.open_file(data).read_all()
        except (pa.ArrowException, OSError) as exc:  # checksummed but unreadable: written by a broken writer
            return None, f"{name}.feather cannot be decoded: {exc}"
        if table.schema != COMPACT_SCHEMAS[name]:
            return None, f"{name}.feather has another schema"
        tables[name] = table
    return tables, None


def _contents(path: Path, size: int) -> pa.Buffer | None:
    """The bytes of the file at ``path``, None when there are not ``size`` of them. Mapped
    where entries are (``MAP_ENTRIES``): the frames' strings then stay in the page cache's
    pages instead of a copy in fresh memory."""
    if MAP_ENTRIES and size > 0:
        try:
            with pa.memory_map(str(path)) as source:
                return source.read_buffer() if source.size() == size else None
        except OSError:
            pass  # (no such file, or no mapping to be had: reading says which)
    data = path.read_bytes()
    return pa.py_buffer(data) if len(data) == size else None


def checksum(data: bytes | pa.Buffer) -> str:
    """An entry file's checksum (XXH3, 128 bits, as hex)."""
    return xxhash.xxh3_128_hexdigest(memoryview(data))


def _discard(entry: Path) -> None:
    """Move a damaged entry aside (one rename: no reader sees it half gone) and delete it."""
    aside = entry.with_name(f"{TMP_PREFIX}damaged-{entry.name}-{os.getpid()}")
    try:
        entry.rename(aside)
    except OSError:
        return
    shutil.rmtree(aside, ignore_errors=True)


def write_entry(folder: Path, chunk: Chunk, tables: dict[str, pa.Table]) -> None:
    """Write the entry in a temporary folder and rename it into place, so a reader never sees
    half an entry (and two writers of the same entry do not collide). Never raises for the
    disk's sake (full, read-only): the frames are there, only their cache entry is not; an
    interrupted write leaves no temporary folder behind."""
    if any(ref.size < 0 for ref in chunk.files):
        return  # a missing file: nothing worth keeping
    entry = folder / chunk_key(chunk)
    if entry.is_dir():
        return
    try:
        folder.mkdir(parents=True, exist_ok=True)  # (a Dask worker may be the first on its machine)
        tmp = Path(tempfile.mkdtemp(prefix=TMP_PREFIX, dir=folder))
    except OSError:
        return
    try:
        files: dict[str, Any] = {}
        for name, table in compact(tables).items():
            sink = pa.BufferOutputStream()
            feather.write_feather(table, sink, compression=COMPRESSION)
            data = sink.getvalue()
            (tmp / f"{name}.feather").write_bytes(data)
            files[name] = {"bytes": data.size, "xxh3_128": checksum(data)}
        (tmp / MANIFEST).write_bytes(orjson.dumps({"entry": ENTRY_FORMAT, "tables": files}))
        tmp.rename(entry)
    except OSError:
        shutil.rmtree(tmp, ignore_errors=True)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
