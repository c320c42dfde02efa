"""opencode sessions (``opencode.db`` and the ``storage/`` JSON folders of releases before 1.2),
counted from the raw rows and files with sqlite3 and orjson only, from opencode's
``session/message-v2.ts`` part types. A session file brings its messages, their parts and the
sessions beside it whose ``parentID`` leads to it (its subagents); a database, every session.

- human prompt: a ``text`` part of a ``user`` message not marked ``synthetic``; harness turn: one
  marked so;
- assistant text: a ``text`` part of an ``assistant`` message;
- tool call: each ``tool`` part; return: one whose ``state.status`` is ``completed`` or
  ``error``; error: ``error``;
- tokens: each ``step-finish`` part's ``tokens`` (a message with none: the message's own):
  input is ``input`` + ``cache.read`` + ``cache.write`` (opencode's ``input`` leaves the cached
  tokens out), output ``output`` + ``reasoning``, cache read and write."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

import orjson

from tests.wild.count import Counts


def _database(path: Path) -> list[tuple[dict[str, Any], list[dict[str, Any]]]]:
    conn = sqlite3.connect(path.resolve().as_uri() + "?immutable=1", uri=True)
    try:
        messages = {mid: (orjson.loads(data), []) for mid, data in conn.execute("SELECT id, data FROM message ORDER BY rowid")}
        for mid, data in conn.execute("SELECT message_id, data FROM part ORDER BY rowid"):
            if mid in messages:
                messages[mid][1].append(orjson.loads(data))
    finally:
        conn.close()
    return list(messages.values())


def _storage(path: Path) -> list[tuple[dict[str, Any], list[dict[str, Any]]]]:
    storage = path.parent.parent.parent
    sessions = [orjson.loads(p.read_bytes()) for p in path.parent.glob("*.json")]
    wanted = {orjson.loads(path.read_bytes())["id"]}
    while more := {s["id"] for s in sessions if s.get("parentID") in wanted} - wanted:
        wanted |= more
    out = []
    for sid in wanted:
        folder = storage / "message" / sid
        for file in sorted(folder.glob("*.json")) if folder.is_dir() else []:
            message = orjson.loads(file.read_bytes())
            parts = storage / "part" / message["id"]
            out.append((message, [orjson.loads(p.read_bytes()) for p in sorted(parts.glob("*.json"))] if parts.is_dir() else []))
    return out


def _tokens(c: Counts, tokens: Any) -> None:
    if not isinstance(tokens, dict):
        return
    cache = tokens.get("cache") if isinstance(tokens.get("cache"), dict) else {}
    read, write = cache.get("read") or 0, cache.get("write") or 0
    c.add_tokens(tokens.get("input", 0) + read + write, tokens.get("output", 0) + (tokens.get("reasoning") or 0), read, write)


def opencode(path: Path) -> Counts:
    c = Counts()
    messages = _database(path) if path.read_bytes()[:16] == b"SQLite format 3\x00" else _storage(path)
    for message, parts in messages:
        role = message.get("role")
        for part in parts:
            kind = part.get("type")
            if kind == "text" and role == "user":
                if part.get("synthetic"):
                    c.harness_turns = (c.harness_turns or 0) + 1
                else:
                    c.human_prompts = (c.human_prompts or 0) + 1
            elif kind == "text":
                c.assistant_texts = (c.assistant_texts or 0) + 1
            elif kind == "tool":
                c.tool_calls = (c.tool_calls or 0) + 1
                status = (part.get("state") or {}).get("status")
                if status in ("completed", "error"):
                    c.tool_returns = (c.tool_returns or 0) + 1
                    c.tool_errors = (c.tool_errors or 0) + (status == "error")
            elif kind == "step-finish":
                _tokens(c, part.get("tokens"))
        if role == "assistant" and not any(p.get("type") == "step-finish" for p in parts) and parts:
            _tokens(c, message.get("tokens"))
    return c
