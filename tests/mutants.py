"""How ``test_fuzz.py`` breaks a sample, as a hostile or broken producer (or a live file) would:
wrong types, deletions, duplications, truncations, odd numbers and times, lists where strings
belong, bombs (nesting 10,000 deep, strings of megabytes, numbers of thousands of digits or
beyond any float) and torn last lines; inside a zip, a member broken so or a member that
inflates far beyond its size; inside an SQLite database, a row's JSON broken so, a column
computed on read, or the file's bytes damaged."""

from __future__ import annotations

import sqlite3
import zipfile
from functools import cache
from io import BytesIO
from typing import Any

import orjson
from hypothesis import strategies as st

from threadlab.core.canonical import json_bytes
from threadlab.formats.inspect_ai.container import members

from .hostile import deflate_bomb, zeros_crc, zip_bytes

ODD_TIMES = [
    "2026-06-30T23:59:60Z", "2026-13-01T00:00:00Z", "2026-01-05t09:00:00z", "2026-W02-1T09:00:00Z", "not a time", "",
    "0001-01-01T00:00:00+01:00", "9999-12-31T23:59:59-01:00", "1600-01-01T00:00:00Z", "0999-06-01T00:00:00Z",
    "2026-01-05T09:00:00.123456789Z", "2026-01-05T09:00:00.123456789123Z", "2026-01-05T09:00:00", "2026-01-05 09:00:00+05:45", "1767600000",
]
ODD_NUMBERS = [2**63, 2**64, 2**100, -(2**63) - 1, -1, -10, 0, 5e-324, 1e308, -0.0, 1.5, 2.0, 60.0, True, False]
# numbers no Python value holds as written: put in the text after encoding (see ``_numbers``)
HUGE_NUMBERS = [b"1" + b"0" * 5000, b"-" + b"9" * 4400, b"1e400", b"-1e400", b"0." + b"0" * 400 + b"1", b"123456789012345678901234567890.5"]
_HUGE = "\x00huge-number-{}\x00"


def deep(levels: int, leaf: Any) -> Any:
    for n in range(levels):
        leaf = [leaf] if n % 2 else {"d": leaf}
    return leaf


def odd_value(original: Any) -> st.SearchStrategy[Any]:
    """A value of the wrong type, or of the right type at its edges, for ``original``."""
    common = st.sampled_from([None, 5, "5", [], {}, ["x"], {"x": 1}, True, 2**64, "\x00", "é" * 3, "<script>alert(1)</script>"])
    bombs = st.sampled_from(["x" * 4_000_000, "\U0001f600" * 500_000, *(_HUGE.format(i) for i in range(len(HUGE_NUMBERS)))])
    if isinstance(original, str):
        return st.one_of(st.sampled_from(ODD_TIMES), st.just([original]), st.just({"text": original}), st.sampled_from(ODD_NUMBERS), common,
                         st.text(max_size=20), st.just(original * 50), bombs)
    if isinstance(original, bool | int | float):
        return st.one_of(st.sampled_from(ODD_NUMBERS), st.just(str(original)), st.just([original]), common, bombs)
    if isinstance(original, list):
        return st.one_of(st.just(original[:1] * 3), st.just(original[::-1]), st.just({"0": original}), common)
    if isinstance(original, dict):
        return st.one_of(st.just(list(original.values())), st.just(list(original)), common)
    return st.one_of(st.sampled_from(ODD_TIMES + ODD_NUMBERS), common)


def places(value: Any, limit: int = 4000) -> list[tuple[Any, Any]]:
    """(container, key) of every value inside ``value``, breadth first (at most ``limit``)."""
    out: list[tuple[Any, Any]] = []
    todo = [value]
    while todo and len(out) < limit:
        node = todo.pop(0)
        items = node.items() if isinstance(node, dict) else enumerate(node) if isinstance(node, list) else ()
        for key, child in items:
            out.append((node, key))
            if isinstance(child, dict | list):
                todo.append(child)
    return out


def _copy(value: Any) -> Any:
    """A copy of a JSON value; one nested deeper than orjson writes is shared instead (the
    mutant is written out whole right after, so sharing a subtree changes nothing)."""
    try:
        return orjson.loads(orjson.dumps(value))
    except TypeError:
        return value


def mutate_json(value: Any, data: st.DataObject) -> Any:
    spots = places(value)
    if not spots:
        return data.draw(odd_value(value))
    container, key = spots[data.draw(st.integers(0, len(spots) - 1))]
    original = container[key]
    op = data.draw(st.sampled_from(["replace", "replace", "replace", "delete", "duplicate", "wrap", "deepen"]))
    if op == "replace":
        container[key] = data.draw(odd_value(original))
    elif op == "delete":
        del container[key]
    elif op == "duplicate":
        if isinstance(container, list):
            container.insert(key, _copy(original))
        else:
            container[f"{key}_copy"] = original
            container[key] = _copy(original)
    elif op == "wrap":
        container[key] = [original]
    else:
        container[key] = deep(data.draw(st.sampled_from([300, 600, 1100, 10_000])), original)
    return value


def _encode(value: Any) -> bytes:
    """The JSON text of a mutated value, with the huge-number markers made numbers."""
    out = json_bytes(value)
    if b"huge-number-" in out:
        for i, number in enumerate(HUGE_NUMBERS):
            out = out.replace(orjson.dumps(_HUGE.format(i)), number)
    return out


def payloads(text: bytes) -> list[tuple[int, bytes, Any]]:
    """(line index, prefix, JSON value) of each line holding JSON (JSON Lines, SSE data lines)."""
    found = []
    for index, line in enumerate(text.split(b"\n")):
        prefix = b"data: " if line.startswith(b"data: ") else b""
        try:
            found.append((index, prefix, orjson.loads(line[len(prefix):])))
        except orjson.JSONDecodeError:
            continue
    return found


def torn(data: bytes, cut: float) -> bytes:
    """``data`` with its last line cut partway (``cut`` of it kept), as a live file's writer
    leaves it; a one-line document is cut the same way."""
    body = data.rstrip(b"\n")
    start = body.rfind(b"\n") + 1
    return body[: start + int((len(body) - start) * cut)]


def mutant_text(original: bytes, data: st.DataObject) -> bytes:
    """One to three mutations of a text sample: in its JSON (the whole document, or one line of
    JSON Lines / SSE), of its bytes (truncated, a range cut out or doubled), or its last line
    torn."""
    out = original
    for _ in range(data.draw(st.integers(1, 3))):
        kind = data.draw(st.sampled_from(["json", "json", "json", "json", "truncate", "cut", "double", "torn"]))
        if kind == "torn":
            out = torn(out, data.draw(st.sampled_from([0.1, 0.5, 0.9])))
            continue
        if kind == "truncate":
            out = out[: data.draw(st.integers(0, max(0, len(out) - 1)))]
            continue
        if kind in ("cut", "double"):
            start = data.draw(st.integers(0, max(0, len(out) - 1)))
            end = min(len(out), start + data.draw(st.integers(1, 200)))
            out = out[:start] + (out[start:end] * 2 if kind == "double" else b"") + out[end:]
            continue
        try:
            whole = orjson.loads(out)
        except orjson.JSONDecodeError:
            lines = payloads(out)
            if not lines:
                continue
            index, prefix, value = lines[data.draw(st.integers(0, len(lines) - 1))]
            parts = out.split(b"\n")
            parts[index] = prefix + _encode(mutate_json(value, data))
            out = b"\n".join(parts)
        else:
            out = _encode(mutate_json(whole, data))
    return out


def _damaged_bytes(original: bytes, data: st.DataObject) -> bytes:
    kind = data.draw(st.sampled_from(["truncate", "cut", "garbage"]))
    at = data.draw(st.integers(0, max(0, len(original) - 1)))
    if kind == "truncate":
        return original[:at]
    if kind == "cut":
        return original[:at] + original[at + data.draw(st.integers(1, 4096)):]
    return original[:at] + bytes(data.draw(st.binary(min_size=1, max_size=64))) + original[at + 64:]


def mutant_zip(original: bytes, data: st.DataObject) -> bytes:
    """A member mutated as text (the archive rebuilt, deflated), a member that inflates to
    256 MiB, or the archive's bytes damaged."""
    kind = data.draw(st.sampled_from(["member", "member", "member", "bomb", "bytes"]))
    if kind == "bytes":
        return _damaged_bytes(original, data)
    found = members(original, wanted=("",))[0]
    readable = [m for m in found if m.data is not None]
    if not readable:
        return _damaged_bytes(original, data)
    if kind == "bomb":
        return zip_bomb(original, data.draw(st.sampled_from(["samples/bomb_epoch_1.json", "_journal/bomb.json", readable[-1].name])))
    target = data.draw(st.integers(0, len(readable) - 1))
    out = BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as archive:
        for i, member in enumerate(readable):
            body = bytes(member.data or b"")
            archive.writestr(member.name, mutant_text(body, data) if i == target else body)
    return out.getvalue()


def zip_bomb(original: bytes, name: str) -> bytes:
    """The archive with a member ``name`` (in place of one so named) of 1 GiB of zeros in about
    a megabyte: read whole, as before issue 24, it cost 2-3 GB."""
    found = members(original, wanted=("",))[0]
    rest = [(m.name, zipfile.ZIP_DEFLATED, _deflated(bytes(m.data)), zipfile_crc(m.data), len(m.data)) for m in found if m.data is not None and m.name != name]
    packed, crc = _gib_bomb()
    return zip_bytes([*rest, (name, zipfile.ZIP_DEFLATED, packed, crc, 1 << 30)])


@cache
def _gib_bomb() -> tuple[bytes, int]:
    return deflate_bomb(1 << 30), zeros_crc(1 << 30)  # made once (a third of a second)


def _rollback(original: bytes) -> bytes:
    """A WAL database's bytes marked as a rollback one (Crush's): in memory there is no WAL."""
    return original[:18] + b"\x01\x01" + original[20:] if len(original) >= 20 and 2 in (original[18], original[19]) else original


def sqlite_bomb(original: bytes) -> bytes:
    """The database with a column computed on read (300 MB a row) added to every table."""
    conn = sqlite3.connect(":memory:")
    try:
        conn.deserialize(_rollback(original))
        tables = [name for (name,) in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'")]
        for table in tables:
            quoted = '"' + table.replace('"', '""') + '"'
            conn.execute(f"ALTER TABLE {quoted} ADD COLUMN threadlab_fuzz_pad BLOB AS (zeroblob(300000000)) VIRTUAL")
        conn.commit()
        return bytes(conn.serialize())
    finally:
        conn.close()


def fixed_mutants(kind: str | None, original: bytes, index: int) -> list[bytes]:
    """Mutants every run makes of every sample, whatever the random ones drew: its last line (or
    its bytes) torn, and a bomb (a container's own; for text, by turns, 10,000-deep nesting, a
    string of four megabytes, a number of five thousand digits)."""
    if kind == "zip":
        return [original[: len(original) * 3 // 5], zip_bomb(original, "samples/bomb_epoch_1.json")]
    if kind == "sqlite":
        return [original[: len(original) * 3 // 5], sqlite_bomb(original)]
    bombs = [lambda v: deep(10_000, v), lambda v: [v, "x" * 4_000_000], lambda v: [v, _HUGE.format(0)]]
    lines = payloads(original)
    if not lines:
        return [torn(original, 0.5)]
    at, prefix, value = lines[0]
    parts = original.split(b"\n")
    parts[at] = prefix + _encode(bombs[index % 3](value))
    return [torn(original, 0.5), b"\n".join(parts)]


def _deflated(body: bytes) -> bytes:
    import zlib

    packer = zlib.compressobj(6, zlib.DEFLATED, -15)
    return packer.compress(body) + packer.flush()


def zipfile_crc(body: bytes | bytearray | None) -> int:
    import zlib

    return zlib.crc32(body or b"")


def mutant_sqlite(original: bytes, data: st.DataObject) -> bytes:
    """A session row's JSON mutated as text, a column that is computed on read added to every
    table, or the database's bytes damaged."""
    kind = data.draw(st.sampled_from(["row", "row", "row", "column", "bytes"]))
    if kind == "bytes":
        return _damaged_bytes(original, data)
    if kind == "column":
        return sqlite_bomb(original)
    conn = sqlite3.connect(":memory:")
    try:
        conn.deserialize(_rollback(original))
        tables = [name for (name,) in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
        quoted = ['"' + t.replace('"', '""') + '"' for t in tables]
        with_data = [q for t, q in zip(tables, quoted, strict=True) if "message_data" in {r[1] for r in conn.execute(f"PRAGMA table_info({q})")}]
        if not with_data:
            return _damaged_bytes(original, data)
        table = with_data[0]
        rows = conn.execute(f"SELECT rowid, message_data FROM {table} ORDER BY rowid").fetchall()
        row_id, text = rows[data.draw(st.integers(0, len(rows) - 1))]
        body = mutant_text(text.encode() if isinstance(text, str) else bytes(text or b""), data)
        try:
            value: str | bytes = body.decode()
        except UnicodeDecodeError:
            value = body  # stored as a BLOB: what a broken writer leaves
        conn.execute(f"UPDATE {table} SET message_data = ? WHERE rowid = ?", (value, row_id))
        conn.commit()
        return bytes(conn.serialize())
    except sqlite3.Error:
        return _damaged_bytes(original, data)
    finally:
        conn.close()
