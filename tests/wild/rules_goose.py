"""Goose sessions (``sessions.db`` and the legacy ``sessions/<id>.jsonl``), counted from the raw
rows and lines with sqlite3 and orjson only, from Goose's ``MessageContent`` and ``Message``
types (``crates/goose/src/conversation/message``).

- human prompt: a ``text`` or ``image`` part of a ``user`` message Goose shows the person
  (``metadata.userVisible`` not false); harness turn: a ``text`` part of one it does not;
- assistant text: a non-blank ``text`` part of an ``assistant`` message;
- tool call: ``toolRequest`` and ``frontendToolRequest``; return: ``toolResponse``; error: one
  whose ``toolResult`` has ``status: "error"`` or ``value.isError`` true;
- tokens: Goose keeps no usage per message, only each session's totals
  (``accumulated_input_tokens`` / ``accumulated_output_tokens``, else ``input_tokens`` /
  ``output_tokens``), which the threads frame shows; each session with a total is a usage total
  no model call's usage adds up to."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

import orjson

from tests.wild.count import Counts


def _message(c: Counts, role: Any, parts: Any, metadata: Any) -> None:
    hidden = isinstance(metadata, dict) and metadata.get("userVisible") is False
    for part in parts if isinstance(parts, list) else []:
        kind = part.get("type") if isinstance(part, dict) else None
        if role == "user" and kind in ("text", "image"):
            if hidden and kind == "text":
                c.harness_turns = (c.harness_turns or 0) + 1
            else:
                c.human_prompts = (c.human_prompts or 0) + 1
        elif role == "assistant" and kind == "text" and str(part.get("text", "")).strip():
            c.assistant_texts = (c.assistant_texts or 0) + 1
        elif kind in ("toolRequest", "frontendToolRequest"):
            c.tool_calls = (c.tool_calls or 0) + 1
        elif kind == "toolResponse":
            c.tool_returns = (c.tool_returns or 0) + 1
            result = part.get("toolResult") if isinstance(part.get("toolResult"), dict) else {}
            value = result.get("value")
            if result.get("status") == "error" or (isinstance(value, dict) and value.get("isError") is True):
                c.tool_errors = (c.tool_errors or 0) + 1


def _totals(c: Counts, fields: dict[str, Any]) -> None:
    inp = fields.get("accumulated_input_tokens") if isinstance(fields.get("accumulated_input_tokens"), int) else fields.get("input_tokens")
    out = fields.get("accumulated_output_tokens") if isinstance(fields.get("accumulated_output_tokens"), int) else fields.get("output_tokens")
    if isinstance(inp, int) or isinstance(out, int):
        c.add_tokens(inp, out)
        c.usage_totals = (c.usage_totals or 0) + 1


def goose(path: Path) -> Counts:
    c = Counts(usage_totals=0)
    if path.read_bytes()[:16] == b"SQLite format 3\x00":
        conn = sqlite3.connect(path.resolve().as_uri() + "?immutable=1", uri=True)
        conn.row_factory = sqlite3.Row
        try:
            for row in conn.execute("SELECT * FROM sessions ORDER BY rowid"):
                _totals(c, dict(row))
            for row in conn.execute("SELECT role, content_json, metadata_json FROM messages ORDER BY rowid"):
                _message(c, row["role"], orjson.loads(row["content_json"]), orjson.loads(row["metadata_json"]) if row["metadata_json"] else None)
        finally:
            conn.close()
        return c
    lines = [orjson.loads(line) for line in path.read_bytes().splitlines() if line.strip()]
    for value in lines:
        if "role" in value:
            _message(c, value.get("role"), value.get("content"), value.get("metadata"))
        else:
            _totals(c, value)
    return c
