"""Crush sessions (a project's ``.crush/crush.db``), counted with sqlite3 and orjson only, from
Crush's migrations (``internal/db/migrations/``) and its message parts
(``internal/message/message.go``: ``{type, data}`` objects):

- human prompt: a ``messages`` row of role ``user`` with a ``text``, ``image_url`` or ``binary``
  part, or with no part but ``finish`` (one holding only a ``shell_command`` is the person's
  command, no prompt);
- assistant text: a ``text`` part of an ``assistant`` message that is not blank;
- tool call: a ``tool_call`` part, and a ``shell_command`` part (a command the person ran);
  return: a ``tool_result`` part and a ``shell_command``; error: a ``tool_result`` with
  ``is_error`` true, a ``shell_command`` whose ``exit_code`` is not 0;
- tokens: Crush keeps none per message; each session's ``prompt_tokens`` / ``completion_tokens``
  are its own totals (a usage total where they are not 0, as no call's usage is in the file)."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

import orjson

from tests.wild.count import Counts, blank


def _bump(c: Counts, name: str) -> None:
    setattr(c, name, (getattr(c, name) or 0) + 1)


def _parts(text: Any) -> list[Any]:
    try:
        value = orjson.loads(text)
    except (orjson.JSONDecodeError, TypeError):
        return []
    return value if isinstance(value, list) else []


def crush(path: Path) -> Counts:
    c = Counts()
    conn = sqlite3.connect(path.resolve().as_uri() + "?immutable=1", uri=True)
    try:
        messages = conn.execute("SELECT role, parts FROM messages ORDER BY rowid").fetchall()
        sessions = conn.execute("SELECT prompt_tokens, completion_tokens FROM sessions ORDER BY rowid").fetchall()
    finally:
        conn.close()
    for role, parts in messages:
        kinds = {p.get("type") for p in _parts(parts) if isinstance(p, dict)}
        if role == "user" and (kinds & {"text", "image_url", "binary"} or kinds <= {"finish"}):
            _bump(c, "human_prompts")
        for part in _parts(parts):
            kind = part.get("type") if isinstance(part, dict) else None
            data = part.get("data") if isinstance(part, dict) and isinstance(part.get("data"), dict) else {}
            if kind == "text" and role == "assistant" and not blank(data.get("text")):
                _bump(c, "assistant_texts")
            elif kind == "tool_call":
                _bump(c, "tool_calls")
            elif kind == "tool_result":
                _bump(c, "tool_returns")
                if data.get("is_error") is True:
                    _bump(c, "tool_errors")
            elif kind == "shell_command":
                _bump(c, "tool_calls")
                _bump(c, "tool_returns")
                if data.get("exit_code") not in (0, None):
                    _bump(c, "tool_errors")
    for prompt, completion in sessions:
        if prompt or completion:
            c.add_tokens(prompt, completion)
            c.usage_totals = (c.usage_totals or 0) + 1
    return c
