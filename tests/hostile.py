"""Hostile containers for the reliability tests (issue 24 §7): zips whose members inflate to
1 GiB (deflate and zstd), an SQLite database with a column computed on read, and the peak
memory of reading a file, measured in a fresh process. Made without holding the inflated
bytes: a deflate stream of identical fully flushed blocks, a zstd stream written a block at a
time."""

from __future__ import annotations

import json
import os
import sqlite3
import struct
import subprocess
import sys
import zipfile
import zlib
from pathlib import Path

import pyarrow as pa

ROOT = Path(__file__).resolve().parent.parent
GiB = 1 << 30
_BLOCK = 1 << 20
_ZSTD = 93


def zeros_crc(size: int) -> int:
    zero, crc = bytes(_BLOCK), 0
    for _ in range(size // _BLOCK):
        crc = zlib.crc32(zero, crc)
    return crc


def deflate_bomb(size: int = GiB) -> bytes:
    """A raw deflate stream of ``size`` zero bytes (about size / 1,000 bytes): after a full
    flush every block of zeros compresses to the same bytes, so one is made and repeated."""
    packer, zero = zlib.compressobj(9, zlib.DEFLATED, -15), bytes(_BLOCK)
    first = packer.compress(zero) + packer.flush(zlib.Z_FULL_FLUSH)
    again = packer.compress(zero) + packer.flush(zlib.Z_FULL_FLUSH)
    last = packer.compress(zero) + packer.flush()
    return first + again * (size // _BLOCK - 2) + last


def zstd_bomb(size: int = GiB) -> bytes:
    sink = pa.BufferOutputStream()
    with pa.CompressedOutputStream(sink, "zstd") as out:
        zero = bytes(_BLOCK)
        for _ in range(size // _BLOCK):
            out.write(zero)
    return sink.getvalue().to_pybytes()


def zip_bytes(members: list[tuple[str, int, bytes, int, int]]) -> bytes:
    """A zip of (name, method, compressed bytes, crc, inflated size) members, as they are
    given (zipfile would compress them itself)."""
    out, central = bytearray(), bytearray()
    for name, method, packed, crc, size in members:
        encoded, offset = name.encode(), len(out)
        out += struct.pack("<IHHHHHIIIHH", 0x04034B50, 63, 0, method, 0, 0x21, crc, len(packed), size, len(encoded), 0) + encoded + packed
        central += struct.pack("<IHHHHHHIIIHHHHHII", 0x02014B50, 63, 63, 0, method, 0, 0x21, crc, len(packed), size, len(encoded), 0, 0, 0, 0, 0, offset)
        central += encoded
    start = len(out)
    out += central + struct.pack("<IHHHHIIH", 0x06054B50, 0, 0, len(members), len(members), len(central), start, 0)
    return bytes(out)


def eval_bomb(method: str, member: str, size: int = GiB) -> bytes:
    """A real Inspect log's header and first sample, and one more member (``member``: a
    sample, or a journal entry no reader needs) of ``size`` zero bytes."""
    source = zipfile.ZipFile(ROOT / "tests" / "fixtures" / "real" / "inspect_ai" / "log_streaming.eval")
    kept = []
    for info in source.infolist():
        if info.filename in ("header.json", "samples/1_epoch_1.json"):
            data = source.read(info.filename)
            kept.append((info.filename, zipfile.ZIP_DEFLATED, zlib.compress(data, 9)[2:-4], zlib.crc32(data), len(data)))
    packed = deflate_bomb(size) if method == "deflate" else zstd_bomb(size)
    kept.append((member, zipfile.ZIP_DEFLATED if method == "deflate" else _ZSTD, packed, zeros_crc(size), size))
    return zip_bytes(kept)


SESSION_SCHEMA = """
CREATE TABLE agent_sessions (session_id TEXT PRIMARY KEY, created_at TIMESTAMP, updated_at TIMESTAMP);
CREATE TABLE agent_messages (id INTEGER PRIMARY KEY AUTOINCREMENT, session_id TEXT, message_data TEXT, created_at TIMESTAMP{extra});
"""


def session_db(path: Path, *, extra_column: str = "", journal_mode: str = "delete", rows: int = 3) -> Path:
    """An Agents SDK ``SQLiteSession`` database of ``rows`` user messages; ``extra_column``
    adds a column to its messages table (``, pad BLOB AS (zeroblob(300000000)) VIRTUAL``)."""
    conn = sqlite3.connect(path)
    conn.execute(f"PRAGMA journal_mode={journal_mode}")
    conn.executescript(SESSION_SCHEMA.format(extra=extra_column))
    conn.execute("INSERT INTO agent_sessions VALUES ('s', '2026-01-01 00:00:00', '2026-01-01 00:00:00')")
    for i in range(rows):
        item = json.dumps({"role": "user", "content": f"message {i}"})
        conn.execute("INSERT INTO agent_messages (session_id, message_data, created_at) VALUES ('s', ?, '2026-01-01 00:00:00')", (item,))
    conn.commit()
    conn.close()
    return path


_MEASURE = """
import resource, sys
import threadlab as tl
try:
    threads = tl.read_all(sys.argv[1], strict=False)
    problems = [(p.rule, p.line, p.message) for t in threads for p in t.problems]
except tl.ThreadError as exc:
    threads, problems = [], [(p.rule, p.line, p.message) for p in exc.problems]
import json
print(json.dumps({"peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, "threads": len(threads),
                  "actions": sum(len(t.actions) for t in threads), "problems": problems}))
"""


def read_in_fresh_process(path: Path) -> dict:
    """``read_all(path, strict=False)`` in a new interpreter: its peak RSS in MB, the threads,
    actions and problems it gave."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run([sys.executable, "-c", _MEASURE, str(path)], capture_output=True, text=True, env=env, timeout=300, check=True)
    return json.loads(done.stdout)
