"""Google ADK sessions (a saved ``Session``, by field name or by alias; ``POST /run``'s array of
events; the SQLite ``session.db`` of ``SqliteSessionService``), counted from the raw bytes with
orjson and sqlite3 only, from ADK's ``Event`` model (``google/adk/events/event.py``, an
``LlmResponse`` with ``author``) and google-genai's ``Part``; every key under its field name or its
camelCase alias:

- human prompt: a ``text`` part of an event whose ``author`` is ``user`` (ADK marks no harness text);
- assistant text: a ``text`` part, not ``thought``, with something but whitespace, of any other author;
- tool call: a ``function_call`` part; return: a ``function_response`` part (ADK marks no failed
  tool: errors are not counted);
- tokens: each event's ``usage_metadata``: ``prompt_token_count`` (cached inside),
  ``candidates_token_count``, ``cached_content_token_count``."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

import orjson

from tests.wild.count import Counts, blank


def _get(obj: Any, name: str) -> Any:
    if not isinstance(obj, dict):
        return None
    if name in obj:
        return obj[name]
    head, *rest = name.split("_")
    return obj.get(head + "".join(w.capitalize() for w in rest))


def _events(path: Path) -> list[Any]:
    data = path.read_bytes()
    if data[:16] == b"SQLite format 3\x00":
        conn = sqlite3.connect(path.resolve().as_uri() + "?immutable=1", uri=True)
        try:
            return [orjson.loads(row[0]) for row in conn.execute("SELECT event_data FROM events ORDER BY rowid")]
        finally:
            conn.close()
    value = orjson.loads(data)
    return value if isinstance(value, list) else value["events"]


def google_adk(path: Path) -> Counts:
    c = Counts(tool_errors=None)
    for event in _events(path):
        content = event.get("content") if isinstance(event, dict) else None
        parts = content.get("parts") if isinstance(content, dict) else None
        for part in parts if isinstance(parts, list) else []:
            if isinstance(_get(part, "function_call"), dict):
                c.tool_calls = (c.tool_calls or 0) + 1
            elif isinstance(_get(part, "function_response"), dict):
                c.tool_returns = (c.tool_returns or 0) + 1
            elif isinstance(part, dict) and isinstance(part.get("text"), str) and part.get("thought") is not True:
                if event.get("author") == "user":
                    c.human_prompts = (c.human_prompts or 0) + 1
                elif not blank(part["text"]):
                    c.assistant_texts = (c.assistant_texts or 0) + 1
        usage = _get(event, "usage_metadata")
        if isinstance(usage, dict):
            c.add_tokens(_get(usage, "prompt_token_count"), _get(usage, "candidates_token_count"), _get(usage, "cached_content_token_count"))
    return c
