"""Open an SQLite database for reading without changing a byte of any file (the database, its
``-wal``, ``-shm`` or ``-journal``) and without creating one beside it, whatever its journal mode
and whatever the folder allows.

Measured with Python's sqlite3 (a read-only bind mount stands for a read-only folder; bytes and
mtimes of every file of the folder compared before and after, ``tests/test_sqlite_read_only.py``):

| database | ``mode=ro`` | ``immutable=1`` |
|---|---|---|
| rollback journal (delete, truncate, persist, memory, off), hot journal too | reads, changes nothing | reads |
| WAL, no ``-wal``/``-shm`` (closed cleanly), writable folder | reads, but leaves empty ``-wal``/``-shm`` files behind | reads |
| WAL, no side files, read-only folder | "unable to open database file" | reads |
| WAL, ``-wal`` with rows not yet checkpointed, ``-shm`` present | reads them, but rewrites the ``-shm`` (a reader rebuilds the WAL index there and writes its read marks) | misses them ("no such table") |
| WAL, ``-wal`` present, ``-shm`` missing, read-only folder | "unable to open database file" | misses them |

So: a rollback-journal database opens ``mode=ro``; a WAL database with no (or an empty)
``-wal`` file opens ``immutable=1`` (no WAL to miss, no side file to create); a WAL database with
a ``-wal`` file is read from a private copy of the database and its ``-wal`` in a temporary
folder (its own ``-shm`` is made there), so the rows in the WAL are read and nothing of the
user's changes: this costs a copy of the database on the temporary folder's disk, only for a
database a writer has open or left uncheckpointed. Bytes (no file) are deserialised into
memory, a WAL database's header marked as a rollback one first (SQLite's in-memory databases
have no WAL)."""

from __future__ import annotations

import shutil
import sqlite3
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

_WAL = 2  # header bytes 18 and 19 (file format write / read version): 2 is WAL, 1 rollback


def is_wal(header: bytes) -> bool:
    return len(header) >= 20 and _WAL in (header[18], header[19])


def _side(path: Path, suffix: str) -> Path:
    return path.with_name(path.name + suffix)


def _uri(path: Path, query: str) -> str:
    return path.resolve().as_uri() + "?" + query


@contextmanager
def opened(path: Path | None, data: bytes | None) -> Iterator[sqlite3.Connection]:
    """A read-only connection to the database file at ``path`` (or to ``data`` in memory),
    closed (and any private copy removed) on exit."""
    if path is None:
        conn = _in_memory(data or b"")
        try:
            yield conn
        finally:
            conn.close()
        return
    with path.open("rb") as handle:
        header = handle.read(100)
    wal = _side(path, "-wal")
    has_wal = wal.is_file() and wal.stat().st_size > 0
    copy: Path | None = None
    if not is_wal(header):
        conn = sqlite3.connect(_uri(path, "mode=ro"), uri=True)
    elif not has_wal:
        conn = sqlite3.connect(_uri(path, "immutable=1"), uri=True)
    else:  # never the user's -shm: a reader writes to it
        copy = Path(tempfile.mkdtemp(prefix="threadlab-sqlite-"))
        shutil.copyfile(path, copy / "copy.db")
        shutil.copyfile(wal, copy / "copy.db-wal")
        conn = sqlite3.connect(_uri(copy / "copy.db", "mode=ro"), uri=True)
    try:
        yield conn
    finally:
        conn.close()
        if copy is not None:
            shutil.rmtree(copy, ignore_errors=True)


def _in_memory(data: bytes) -> sqlite3.Connection:
    if is_wal(data[:100]):
        patched = bytearray(data)
        patched[18] = patched[19] = 1
        data = bytes(patched)
    conn = sqlite3.connect(":memory:")
    conn.deserialize(data)
    return conn
