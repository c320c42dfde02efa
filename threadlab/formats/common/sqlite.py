"""What the formats kept in SQLite share (OpenAI Agents SDK sessions, opencode, goose, Crush,
Google ADK, CrewAI): opening a database without changing a byte of it, reading its schema and
its rows so that damage costs only what cannot be read, and the file's problems.

**Opening** (``opened``): without changing a byte of any file (the database, its ``-wal``,
``-shm`` or ``-journal``) and without creating one beside it, whatever its journal mode and
whatever the folder allows.

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
have no WAL).

**Reading**: only ``SELECT`` runs, on tables named by the schema, quoted, of the columns the
schema lists by name: the ordinary (stored) columns, never ``*``, which would take the
generated columns too, computed while reading (a 28 KB database whose table has a virtual
column ``AS (zeroblob(300000000))`` costs 300 MB a row). A damaged database costs only what
cannot be read: tables are scanned in row id order, so a scan that breaks off names the first
row id it could not read (``Damage``), the rows before it are kept; the schema
(``sqlite_master``) is read the same way."""

from __future__ import annotations

import shutil
import sqlite3
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from threadlab.core.model import Thread
from threadlab.core.problems import Problem, ThreadError

if TYPE_CHECKING:
    from threadlab.formats.common.source import Source

T = TypeVar("T")

SQLITE_MAGIC = b"SQLite format 3\x00"
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


def _quote(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


Tables = dict[str, tuple[str, ...]]  # table -> its ordinary columns, in order


def schema(conn: sqlite3.Connection, damage: list[Damage]) -> Tables:
    """Every table the schema lists, with its ordinary columns (``PRAGMA table_info``, which
    leaves out generated ones: nothing a reader needs is computed). When SQLite refuses the schema (its
    sanity checks fail on a cut file whose tables point past its end), it is read again with
    those checks off (``writable_schema``: nothing is written, the connection is read-only), so
    the tables that are whole still read; a schema that breaks off even then gives the tables
    read before the break and a ``Damage`` naming ``sqlite_master``. Text comes as bytes
    (``text_factory``), so a value that is not UTF-8 is its row's problem, not the scan's."""
    conn.text_factory = bytes
    try:
        return _schema(conn, damage, strict=True)
    except sqlite3.DatabaseError:
        conn.execute("PRAGMA writable_schema = ON")
        return _schema(conn, damage, strict=False)


def _schema(conn: sqlite3.Connection, damage: list[Damage], *, strict: bool) -> Tables:
    """One read of the schema (ordinary row id tables only: a ``WITHOUT ROWID`` or virtual table
    holds no session rows): a break raises (``strict``) or is recorded in ``damage``."""
    names = [
        _name(row["name"])
        for _, row in scan(conn, "sqlite_master", _MASTER, damage, strict=strict)
        if row.get("type") == b"table" and isinstance(row.get("name"), bytes) and _rowid_table(row.get("sql"))
    ]
    return {n: tuple(_name(r[1]) for r in conn.execute(f"PRAGMA table_info({_quote(n)})")) for n in names}


_MASTER = ("type", "name", "tbl_name", "rootpage", "sql")


def _name(value: bytes) -> str:
    return value.decode("utf-8", "replace")


def _rowid_table(sql: object) -> bool:
    text = b" ".join(sql.upper().split()) if isinstance(sql, bytes) else b""
    return text.startswith(b"CREATE TABLE") and b"WITHOUT ROWID" not in text



@dataclass
class Damage:
    """Where a damaged database stopped being readable: the table, and the first row id of it
    that could not be read (the row after the last one read; 1 when none was), and SQLite's
    message."""

    table: str
    next_row: int
    message: str

    def describe(self, name: str) -> str:
        kept = "the rows before it are kept" if self.next_row > 1 else "no row of it is read"
        return f"{name} is a damaged SQLite database: row {self.next_row} of {self.table} and the rows after it cannot be read ({self.message}); {kept}"


def cut_short(header: bytes, size: int) -> str | None:
    """What is missing when the file is shorter than its header says (page size × page count,
    when the header's count is valid: bytes 92-95 equal the change counter at 24-27)."""
    if len(header) < 100 or header[92:96] != header[24:28]:
        return None
    page_size = int.from_bytes(header[16:18], "big")
    page_size = 65536 if page_size == 1 else page_size
    want = page_size * int.from_bytes(header[28:32], "big")
    return f"is cut short: its header gives {want} bytes ({want // page_size} pages of {page_size}), the file has {size}" if size < want else None


def with_file_problems(threads: list[Thread], damage: list[Damage], name: str, header: bytes, size: int, empty: str) -> list[Thread]:
    """The threads of a database, its first holding the file's problems (a cut file, the rows
    damage made unreadable); none at all raises them (``empty``: what the file holds no
    of, when nothing is wrong with it)."""
    problems = [Problem("io", d.describe(name), source=name, line=d.next_row) for d in damage]
    cut = cut_short(header, size)
    if cut:
        problems.insert(0, Problem("truncated", f"{name} {cut}", source=name))
    if not threads:
        raise ThreadError(problems or [Problem("empty", f"{name} holds no {empty}", source=name)])
    threads[0].problems = [*threads[0].problems, *problems]
    return threads


def texts(names: tuple[str, ...], row: dict[str, Any]) -> tuple[list[Any], tuple[str, ...]]:
    """Text columns (read as bytes): decoded, or kept with backslash escapes where they are not
    UTF-8, with the names of those columns (the row's problem names them)."""
    out: list[Any] = []
    bad: list[str] = []
    for name in names:
        value = row.get(name)
        if isinstance(value, bytes):
            try:
                value = value.decode()
            except UnicodeDecodeError:
                value = value.decode("utf-8", "backslashreplace")
                bad.append(name)
        out.append(value)
    return out, tuple(bad)


def scan(conn: sqlite3.Connection, table: str, columns: tuple[str, ...], damage: list[Damage], *, strict: bool = False) -> Iterator[tuple[int, dict[str, Any]]]:
    """Whole rows (every stored column, named: damage in any column of a row is that row's), in
    row id order, as (row id, column → value); a break names the first row id not read (or
    raises, ``strict``)."""
    last = 0
    names = list(columns)
    try:
        cursor = conn.execute(f"SELECT {', '.join(['rowid', *map(_quote, names)])} FROM {_quote(table)} ORDER BY rowid")
        for row in cursor:
            last = row[0]
            yield row[0], dict(zip(names, row[1:], strict=True))
    except sqlite3.DatabaseError as exc:
        if strict:
            raise
        damage.append(Damage(table, last + 1, str(exc)))


def claims_database(path: Path | None, data: bytes | None, ours: Callable[[Tables], bool]) -> bool:
    """Whether a database's schema is a format's (``ours``), for the detectors of the formats
    kept in SQLite (goose); an unreadable file is no one's."""
    try:
        with opened(path, data) as conn:
            return ours(schema(conn, []))
    except (sqlite3.Error, OSError):
        return False


def database_threads(source: Source, sessions_of: Callable[[Path | None, bytes | None, list[Damage]], tuple[T, bool]],
                     threads_of: Callable[[T], list[Thread]], tables: str, kind: str) -> list[Thread]:
    """The threads of a coding agent's database (opencode's, Crush's): ``sessions_of`` reads its
    rows (and says whether the file has the format's ``tables`` at all), ``threads_of`` makes the
    threads; a file that cannot be opened, whose tables are missing or whose every row is
    damaged raises, naming why; damage past some rows is the first thread's problems."""
    damage: list[Damage] = []
    try:
        sessions, ok = sessions_of(source.path, None if source.path is not None else source.data, damage)
    except (sqlite3.Error, OSError) as exc:
        raise source.error("io", f"cannot be opened as an SQLite database ({exc})") from None
    if not ok and damage:
        raise ThreadError([Problem("io", d.describe(source.name), source=source.name, line=d.next_row) for d in damage])
    if not ok:
        raise source.error("format", f"is an SQLite database without {tables}")
    size = source.path.stat().st_size if source.path is not None else len(source.data)
    return with_file_problems(threads_of(sessions), damage, source.name, source.head(100), size, kind)
