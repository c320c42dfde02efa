"""How many input records a file holds, counted from the raw bytes without threadlab: what each
format's reader must account for (``thread.account.records``, ``frames.threads.n_records``).

One counter per format; each says what a record of its format is. A reader's account is
checked against these counts on every fixture, so a reader that drops a line, message, part or
chunk fails. Counters use only the standard library and orjson, never threadlab's readers."""

from __future__ import annotations

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
    """A record is a saved item (a ``new_messages`` list of a run result counts its items)."""
    items = _whole_or_lines(path)
    if len(items) == 1 and isinstance(items[0], dict) and isinstance(items[0].get("new_messages"), list):
        items = items[0]["new_messages"]
    return len(items)


def aitp(path: Path) -> int:
    """A record is a message (of ``messages`` or an OpenAI list page's ``data``)."""
    items = _whole_or_lines(path)
    if len(items) == 1 and isinstance(items[0], dict):
        for key in ("messages", "data"):
            if isinstance(items[0].get(key), list):
                return len(items[0][key])
    return len(items)


def _otel_items(value: Any) -> int:
    """Spans of one OTLP document (``resourceSpans``/``resource_spans`` → scope → spans); any
    other object is one record (a flat span, or a line that is no span)."""
    if isinstance(value, list):
        return sum(_otel_items(v) for v in value)
    if isinstance(value, dict):
        resource_spans = value.get("resourceSpans", value.get("resource_spans"))
        if isinstance(resource_spans, list):
            return sum(
                len(ss.get("spans") or [])
                for rs in resource_spans
                if isinstance(rs, dict)
                for ss in (rs.get("scopeSpans") or rs.get("scope_spans") or rs.get("instrumentationLibrarySpans") or [])
                if isinstance(ss, dict)
            )
    return 1


def otel(path: Path) -> int:
    """A record is a span (OTLP documents count their spans; a line that is not JSON is one).
    Concatenated pretty-printed span objects (ConsoleSpanExporter) are decoded one by one."""
    data = path.read_bytes()
    try:
        return _otel_items(orjson.loads(data))
    except orjson.JSONDecodeError:
        pass
    first = next((ln for ln in data.splitlines() if ln.strip()), b"")
    try:
        orjson.loads(first)
    except orjson.JSONDecodeError:
        import json

        text, pos, n, decoder = data.decode(), 0, 0, json.JSONDecoder()
        while True:
            while pos < len(text) and text[pos].isspace():
                pos += 1
            if pos >= len(text):
                return n
            value, pos = decoder.raw_decode(text, pos)
            n += _otel_items(value)
    return sum(1 if item is _BAD else _otel_items(item) for item in _json_lines(data))


def openai_agents_trace(path: Path) -> int:
    """A record is a trace or span object (a JSON Lines line, or an element of a JSON array)."""
    return len(_whole_or_lines(path))


COUNTERS: dict[str, Counter] = {
    "threadprotocol": threadprotocol,
    "pydantic-ai": pydantic_ai,
    "vercel-ai-messages": vercel_ai_messages,
    "vercel-ai-stream": vercel_ai_stream,
    "claude-code": claude_code,
    "agency-swarm": agency_swarm,
    "aitp": aitp,
    "otel": otel,
    "openai-agents-trace": openai_agents_trace,
}
