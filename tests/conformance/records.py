"""How many input records a file holds, counted from the raw bytes without threadlab: what each
format's reader must account for (``thread.account.records``, ``frames.threads.n_records``).

One counter per format; each says what a record of its format is. A reader's account is
checked against these counts on every fixture, so a reader that drops a line, message, part or
chunk fails. Counters use only the standard library and orjson, never threadlab's readers."""

from __future__ import annotations

import sqlite3
import zipfile
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

import orjson

Counter = Callable[[Path], int]
_BAD = object()


def _json_lines(data: bytes) -> list[Any]:
    """Every non-empty line parsed (``_BAD`` for a line that is not JSON)."""
    out: list[Any] = []
    for line in data.splitlines():
        if line.strip():
            try:
                out.append(orjson.loads(line))
            except orjson.JSONDecodeError:
                out.append(_BAD)
    return out


def _whole_or_lines(path: Path) -> list[Any]:
    """The items of a file: a JSON array's elements, a JSON object as one item, or JSON Lines."""
    data = path.read_bytes()
    try:
        value = orjson.loads(data)
    except orjson.JSONDecodeError:
        return _json_lines(data)
    return value if isinstance(value, list) else [value]


def _parts(messages: Iterable[Any], key: str = "parts") -> int:
    """A message's parts are its records (a message with none is one record)."""
    return sum(max(1, len(m[key])) if isinstance(m, dict) and isinstance(m.get(key), list) else 1 for m in messages)


def threadprotocol(path: Path) -> int:
    """A record is an action; a JSON Lines line that is not a thread object is one record."""
    return sum(len(doc["actions"]) if isinstance(doc, dict) and isinstance(doc.get("actions"), list) else 1 for doc in _whole_or_lines(path))


def pydantic_ai(path: Path) -> int:
    """A record is a message part (a message with no parts, or a line that is no message, is one)."""
    return _parts(_whole_or_lines(path))


def vercel_ai_messages(path: Path) -> int:
    """A record is a UIMessage part (a message with no parts is one)."""
    items = _whole_or_lines(path)
    if len(items) == 1 and isinstance(items[0], dict) and isinstance(items[0].get("messages"), list):
        items = items[0]["messages"]
    return _parts(items)


def vercel_ai_stream(path: Path) -> int:
    """A record is an SSE event's data (``data: [DONE]`` included; comments are not records), or
    a chunk object of a JSON array / JSON Lines of chunks."""
    data = path.read_bytes()
    if data.lstrip()[:1] in (b"[", b"{"):
        return len(_whole_or_lines(path))
    return sum(1 for line in data.splitlines() if line.startswith(b"data:") and line[5:].strip())


def _claude_records(item: Any) -> int:
    message = item.get("message") if isinstance(item, dict) else None
    content = message.get("content") if isinstance(message, dict) else None
    return len(content) if isinstance(content, list) and content else 1


def claude_code(path: Path) -> int:
    """A record is a content block of a line's message (a line without blocks is one); a session
    transcript counts its subagent transcripts (``<session>/subagents/agent-*.jsonl``) too."""
    files = [path]
    if path.suffix == ".jsonl":
        files += sorted((path.parent / path.stem / "subagents").rglob("agent-*.jsonl"))
    return sum(_claude_records(item) for file in files for item in _whole_or_lines(file))


def agency_swarm(path: Path) -> int:
    """A record is a saved item: an element of the JSON array, a JSON Lines line (one that is not
    JSON too), or an item of the list a FastAPI body wraps (``new_messages``, ``chat_history``)."""
    items = _whole_or_lines(path)
    if len(items) == 1 and isinstance(items[0], dict):
        for key in ("new_messages", "chat_history", "messages"):
            if isinstance(items[0].get(key), list):
                return len(items[0][key])
    return len(items)


def aitp(path: Path) -> int:
    """A record is a message (of ``messages`` or an OpenAI list page's ``data``)."""
    items = _whole_or_lines(path)
    if len(items) == 1 and isinstance(items[0], dict):
        for key in ("messages", "data"):
            if isinstance(items[0].get(key), list):
                return len(items[0][key])
    return len(items)


def _lines(path: Path) -> int:
    return sum(1 for line in path.read_bytes().splitlines() if line.strip())


def codex(path: Path) -> int:
    """A record is a rollout line (blank lines are none)."""
    return _lines(path)


def codex_exec(path: Path) -> int:
    """A record is an event line (blank lines are none)."""
    return _lines(path)


def openai_agents_session(path: Path) -> int:
    """A record is a session item: a row of a table with ``session_id`` and ``message_data``
    columns of an SQLite database, or a line of JSON Lines."""
    if not path.read_bytes()[:16] == b"SQLite format 3\x00":
        return _lines(path)
    conn = sqlite3.connect(path.resolve().as_uri() + "?mode=ro", uri=True)
    try:
        tables = [r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
        quoted = ['"' + t.replace('"', '""') + '"' for t in tables]
        return sum(
            conn.execute(f"SELECT count(*) FROM {q}").fetchone()[0]
            for q in quoted
            if {"session_id", "message_data"} <= {r[1] for r in conn.execute(f"PRAGMA table_info({q})")}
        )
    finally:
        conn.close()


def _inspect_sample_records(sample: Any) -> int:
    def events(items: Any) -> int:
        return sum(
            (e.get("event") in ("model", "tool")) + events(e.get("events"))
            for e in items or ()
            if isinstance(e, dict)
        )

    if not isinstance(sample, dict):
        return 0
    return len(sample.get("messages") or []) + events(sample.get("events"))


def inspect_ai(path: Path) -> int:
    """A record is a message of a sample's ``messages`` or one of its ``model`` / ``tool``
    events (nested ones too), over every sample of the log (``samples/*.json`` of an ``.eval``
    zip, ``samples`` of a ``.json`` log)."""
    data = path.read_bytes()
    if data[:4] != b"PK\x03\x04":
        return sum(_inspect_sample_records(s) for s in orjson.loads(data).get("samples") or [])
    with zipfile.ZipFile(path) as archive:
        names = [n for n in archive.namelist() if n.startswith("samples/")]
        return sum(_inspect_sample_records(orjson.loads(_zip_member(archive, n))) for n in names)


def _zip_member(archive: zipfile.ZipFile, name: str) -> bytes:
    """A member's bytes; Zstandard members (method 93, recent inspect_ai) through pyarrow's codec
    (Python's zipfile reads them only from 3.14)."""
    info = archive.getinfo(name)
    if info.compress_type != 93:
        return archive.read(name)
    import pyarrow as pa

    raw = archive.fp.getvalue() if hasattr(archive.fp, "getvalue") else Path(archive.filename or "").read_bytes()
    start = info.header_offset + 30 + int.from_bytes(raw[info.header_offset + 26 : info.header_offset + 28], "little") + int.from_bytes(raw[info.header_offset + 28 : info.header_offset + 30], "little")
    return pa.Codec("zstd").decompress(raw[start : start + info.compress_size], decompressed_size=info.file_size).to_pybytes()


COUNTERS: dict[str, Counter] = {
    "threadprotocol": threadprotocol,
    "pydantic-ai": pydantic_ai,
    "vercel-ai-messages": vercel_ai_messages,
    "vercel-ai-stream": vercel_ai_stream,
    "claude-code": claude_code,
    "agency-swarm": agency_swarm,
    "aitp": aitp,
    "codex": codex,
    "codex-exec": codex_exec,
    "openai-agents-session": openai_agents_session,
    "inspect-ai": inspect_ai,
}
