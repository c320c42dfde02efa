"""Qwen Code session files (``~/.qwen/projects/<project>/chats/<session id>.jsonl``), counted from
the raw bytes with orjson only, from qwen-code's ``chatRecordingService.ts``: one record a line
(records glued onto one line without their newline, each), each once, in the order written (a rewind takes nothing away: the records happened).

- human prompt: a ``user`` record with a text part and no ``subtype``; harness turn: a ``user``
  record of subtype ``notification`` or ``cron``;
- assistant text: each text part (not ``thought``) of an ``assistant`` record;
- tool call: each ``functionCall`` part; return: each ``functionResponse`` part of a
  ``tool_result`` record; error: those of a record whose ``toolCallResult.status`` is not
  ``success``;
- tokens: each ``assistant`` record's ``usageMetadata``: ``promptTokenCount`` (cached inside),
  ``candidatesTokenCount``, ``cachedContentTokenCount``."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson

from tests.conformance.records import line_records
from tests.wild.count import Counts


def _records(path: Path) -> list[dict[str, Any]]:
    out = []
    for record in (r for line in path.read_bytes().splitlines() if line.strip() for r in line_records(line)):
        try:
            value = orjson.loads(record)
        except orjson.JSONDecodeError:
            continue
        message = value.get("message") if isinstance(value, dict) else None
        if isinstance(message, dict) and isinstance(message.get("parts"), list) and isinstance(value.get("uuid"), str):
            out.append(value)
    return out


def qwen_code(path: Path) -> Counts:
    c = Counts()
    for r in _records(path):
        parts = [p for p in r["message"]["parts"] if isinstance(p, dict)]
        kind = r.get("type")
        if kind == "user" and any(isinstance(p.get("text"), str) for p in parts):
            if r.get("subtype") in ("notification", "cron"):
                c.harness_turns = (c.harness_turns or 0) + 1
            else:
                c.human_prompts = (c.human_prompts or 0) + 1
        elif kind == "assistant":
            c.assistant_texts = (c.assistant_texts or 0) + sum(1 for p in parts if isinstance(p.get("text"), str) and not p.get("thought"))
            c.tool_calls = (c.tool_calls or 0) + sum(1 for p in parts if isinstance(p.get("functionCall"), dict))
            usage = r.get("usageMetadata")
            if isinstance(usage, dict):
                c.add_tokens(usage.get("promptTokenCount"), usage.get("candidatesTokenCount"), usage.get("cachedContentTokenCount"))
        elif kind == "tool_result":
            n = sum(1 for p in parts if isinstance(p.get("functionResponse"), dict))
            c.tool_returns = (c.tool_returns or 0) + n
            result = r.get("toolCallResult")
            if isinstance(result, dict) and result.get("status") not in ("success", None):
                c.tool_errors = (c.tool_errors or 0) + n
    return c
