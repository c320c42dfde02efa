"""Where OpenAI Agents SDK sessions are kept: a ``SQLiteSession`` database (or any database
with its two tables) and JSON Lines of session items.

``SQLiteSession(session_id, db_path)`` (``agents/memory/sqlite_session.py``) creates::

    agent_sessions(session_id TEXT PRIMARY KEY, created_at TIMESTAMP, updated_at TIMESTAMP)
    agent_messages(id INTEGER PRIMARY KEY AUTOINCREMENT, session_id TEXT, message_data TEXT,
                   created_at TIMESTAMP)

``message_data`` is one Responses-API input item as JSON (``json.dumps``). The table names can be
changed (``sessions_table=`` / ``messages_table=``): any table with ``session_id`` and
``message_data`` columns is read. The database is opened read-only, nothing written beside it
(``opening.py``); only ``SELECT`` runs, on tables named by the schema, quoted, of the columns
the schema lists by name: the ordinary (stored) columns, never ``*``, which would take the
generated columns too, computed while reading (a 28 KB database whose table has a virtual
column ``AS (zeroblob(300000000))`` costs 300 MB a row).

A damaged database costs only what cannot be read: tables are scanned in row id order, so a
scan that breaks off names the first row id it could not read (``Damage``), the rows before it
are kept; the schema (``sqlite_master``) is read the same way."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from threadlab.core.model import Thread
from threadlab.core.problems import Problem, ThreadError
from threadlab.formats.openai_agents_session.opening import opened

if TYPE_CHECKING:
    from threadlab.formats.common.source import Source

if TYPE_CHECKING:
    from threadlab.formats.common.source import Source

T = TypeVar("T")

SQLITE_MAGIC = b"SQLite format 3\x00"
SESSIONS_TABLE = "agent_sessions"
MESSAGES_TABLE = "agent_messages"


@dataclass(frozen=True, slots=True)
class Row:
    row_id: int
    session_id: Any
    message_data: Any
    created_at: Any
    undecodable: tuple[str, ...] = ()  # text columns that are not UTF-8 (kept with backslash escapes)


@dataclass(frozen=True, slots=True)
class Session:
    session_id: str
    created_at: Any
    updated_at: Any
    rows: list[Row]
    table: str
    undecodable: tuple[str, ...] = ()  # columns of its agent_sessions row that are not UTF-8


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
        for _, row in _scan(conn, "sqlite_master", _MASTER, damage, strict=strict)
        if row.get("type") == b"table" and isinstance(row.get("name"), bytes) and _rowid_table(row.get("sql"))
    ]
    return {n: tuple(_name(r[1]) for r in conn.execute(f"PRAGMA table_info({_quote(n)})")) for n in names}


_MASTER = ("type", "name", "tbl_name", "rootpage", "sql")


def _name(value: bytes) -> str:
    return value.decode("utf-8", "replace")


def _rowid_table(sql: object) -> bool:
    text = b" ".join(sql.upper().split()) if isinstance(sql, bytes) else b""
    return text.startswith(b"CREATE TABLE") and b"WITHOUT ROWID" not in text


def message_tables(tables: Tables) -> list[str]:
    """Tables holding session items (``session_id`` and ``message_data`` columns), the SDK's
    default first."""
    found = [n for n, columns in tables.items() if {"session_id", "message_data"} <= set(columns)]
    return sorted(found, key=lambda n: (n != MESSAGES_TABLE, n))


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


def _texts(names: tuple[str, ...], row: dict[str, Any]) -> tuple[list[Any], tuple[str, ...]]:
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


def _scan(conn: sqlite3.Connection, table: str, columns: tuple[str, ...], damage: list[Damage], *, strict: bool = False) -> Iterator[tuple[int, dict[str, Any]]]:
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


def sessions(conn: sqlite3.Connection, tables: Tables, damage: list[Damage]) -> Iterator[Session]:
    """Every session of every message table, rows in insertion order (row id). The other
    tables are scanned too, so damage anywhere in the file's rows is named."""
    info: dict[str, tuple[Any, Any, tuple[str, ...]]] = {}
    read = set(message_tables(tables))
    if {"session_id", "created_at", "updated_at"} <= set(tables.get(SESSIONS_TABLE, ())):
        read.add(SESSIONS_TABLE)
        for _, row in _scan(conn, SESSIONS_TABLE, tables[SESSIONS_TABLE], damage):
            (sid, created, updated), bad = _texts(("session_id", "created_at", "updated_at"), row)
            info[str(sid)] = (created, updated, bad)
    for table in message_tables(tables):
        rows: dict[str, list[Row]] = {}
        for row_id, row in _scan(conn, table, tables[table], damage):
            (sid, created), bad = _texts(("session_id", "created_at"), row)
            rows.setdefault(str(sid), []).append(Row(row_id, sid, row["message_data"], created, bad))
        for sid in sorted(rows):
            created, updated, bad = info.get(sid, (None, None, ()))
            yield Session(sid, created, updated, rows[sid], table, bad)
    for table in sorted(set(tables) - read):  # the other tables (sqlite_sequence ...): is any damaged?
        for _ in _scan(conn, table, tables[table], damage):
            pass


def database_bytes(session_id: str, items: list[tuple[Any, str, Any]], created: Any, updated: Any) -> bytes:
    """A ``SQLiteSession`` database holding one session (its schema, verbatim), as bytes."""
    conn = sqlite3.connect(":memory:")
    conn.executescript(
        f"""
        CREATE TABLE {SESSIONS_TABLE} (
            session_id TEXT PRIMARY KEY,
            created_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP,
            updated_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP
        );
        CREATE TABLE {MESSAGES_TABLE} (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            session_id TEXT NOT NULL,
            message_data TEXT NOT NULL,
            created_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP,
            FOREIGN KEY (session_id) REFERENCES {SESSIONS_TABLE} (session_id) ON DELETE CASCADE
        );
        CREATE INDEX idx_{MESSAGES_TABLE}_session_id ON {MESSAGES_TABLE} (session_id, id);
        """
    )
    conn.execute(f"INSERT INTO {SESSIONS_TABLE} (session_id, created_at, updated_at) VALUES (?, ?, ?)", (session_id, created, updated))
    rows = [(i, session_id, d, t) for i, d, t in items]  # (row id or None, message_data, created_at)
    conn.executemany(f"INSERT INTO {MESSAGES_TABLE} (id, session_id, message_data, created_at) VALUES (?, ?, ?, ?)", rows)
    conn.commit()
    data = conn.serialize()
    conn.close()
    return bytes(data)


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
