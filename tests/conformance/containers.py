"""What a reader must say about a damaged container (an SQLite database, a zip), found with
sqlite3 / zipfile alone, never with threadlab's readers.

In a container a "line" is the container's own address of a record: for a database, a row id
of a table (the problem names ``row <id> of <table>``); for a zip, a member's position in the
archive, from 1 (the problem names ``member <position> (<name>)``)."""

from __future__ import annotations

import sqlite3
import zipfile
from pathlib import Path

SQLITE_MAGIC = b"SQLite format 3\x00"
ZIP_MAGIC = b"PK\x03\x04"


def container_kind(path: Path) -> str | None:
    head = path.read_bytes()[:16]
    if head.startswith(SQLITE_MAGIC):
        return "sqlite"
    if head.startswith(ZIP_MAGIC):
        return "zip"
    return None


def _scan(conn: sqlite3.Connection, table: str) -> int | None:
    """The first row id of ``table`` a row id ordered scan of whole rows (every column) cannot
    read (the row after the last read, 1 when none is), or None when every row reads."""
    last = 0
    quoted = '"' + table.replace('"', '""') + '"'
    try:
        for row_id, *_ in conn.execute(f"SELECT rowid, * FROM {quoted} ORDER BY rowid"):
            last = row_id
    except sqlite3.DatabaseError:
        return last + 1
    return None


def sqlite_breaks(path: Path) -> list[tuple[str, int]]:
    """(table, first row id not read) for each table of a damaged database that breaks off:
    the schema (``sqlite_master``, read again without SQLite's schema checks when it refuses
    them), then every ordinary row id table it lists."""
    conn = sqlite3.connect(path.resolve().as_uri() + "?immutable=1", uri=True)
    try:
        conn.text_factory = bytes
        try:
            conn.execute("SELECT count(*) FROM sqlite_master").fetchone()
        except sqlite3.DatabaseError:
            conn.execute("PRAGMA writable_schema = ON")
        broken = _scan(conn, "sqlite_master")
        if broken is not None:
            return [("sqlite_master", broken)]
        tables = []
        for name, sql in conn.execute("SELECT name, sql FROM sqlite_master WHERE type = 'table'"):
            text = b" ".join((sql or b"").upper().split())
            if text.startswith(b"CREATE TABLE") and b"WITHOUT ROWID" not in text:
                tables.append(name.decode())
        return [(t, row) for t in sorted(tables) if (row := _scan(conn, t)) is not None]
    finally:
        conn.close()


def zip_member_names(path: Path) -> list[str]:
    """The members of an intact zip, in archive order (position 1 first)."""
    with zipfile.ZipFile(path) as archive:
        return [info.filename for info in archive.infolist()]
