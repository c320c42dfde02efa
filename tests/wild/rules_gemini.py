"""Gemini CLI session files (``~/.gemini/tmp/<project>/chats/session-*.json[l]``), counted from
the raw bytes with orjson only, from gemini-cli's ``chatRecordingService.ts``: a record with an
``id`` is a message (a later record with the same id is the message as it now is); a
``{"$set": {"messages": [...]}}`` names the history again, adding only messages no record named
before; ``$rewindTo`` takes nothing away (the messages happened); the JSON generation is one object
with its ``messages``.

- human prompt: a ``user`` message with text (or no parts) that is not the CLI's
  ``<session_context>``; harness turn: that context message;
- assistant text: a ``gemini`` message with text (or with nothing at all: no text, thought or
  call);
- tool call: each ``toolCalls`` entry and each ``functionCall`` part, once per id; return: each
  entry with a ``result`` and each ``functionResponse`` part of a ``user`` message, once per call
  id; error: an entry with a result whose ``status`` is not ``success``;
- tokens: each ``gemini`` message's ``tokens``: ``input`` (cached inside), ``output``, ``cached``."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson

from tests.wild.count import Counts

CONTEXT = "<session_context>"


def _messages(path: Path) -> list[dict[str, Any]]:
    data = path.read_bytes()
    try:
        whole = orjson.loads(data)
    except orjson.JSONDecodeError:
        whole = None
    records: list[Any]
    if isinstance(whole, dict) and isinstance(whole.get("messages"), list):
        records = whole["messages"]
    else:
        records = []
        for line in data.splitlines():
            try:
                records.append(orjson.loads(line))
            except orjson.JSONDecodeError:
                continue
    by_id: dict[str, dict[str, Any]] = {}
    for record in records:
        if not isinstance(record, dict):
            continue
        if isinstance(record.get("id"), str) and "type" in record:
            by_id[record["id"]] = record
        elif isinstance(record.get("$set"), dict) and isinstance(record["$set"].get("messages"), list):
            for message in record["$set"]["messages"]:
                if isinstance(message, dict) and isinstance(message.get("id"), str) and message["id"] not in by_id:
                    by_id[message["id"]] = message
    return list(by_id.values())


def _parts(content: Any) -> list[Any]:
    return [{"text": content}] if isinstance(content, str) else content if isinstance(content, list) else []


def gemini_cli(path: Path) -> Counts:
    c = Counts()
    called: set[Any] = set()
    returned: set[Any] = set()
    for m in _messages(path):
        parts = _parts(m.get("content"))
        if m.get("type") == "user":
            for part in parts:
                response = part.get("functionResponse") if isinstance(part, dict) else None
                if isinstance(response, dict) and response.get("id") not in returned:
                    returned.add(response.get("id"))
                    c.tool_returns = (c.tool_returns or 0) + 1
            others = [p for p in parts if not (isinstance(p, dict) and "functionResponse" in p)]
            if others or not parts:
                text = "".join(p.get("text", "") for p in others if isinstance(p, dict) and isinstance(p.get("text"), str))
                if text.lstrip().startswith(CONTEXT):
                    c.harness_turns = (c.harness_turns or 0) + 1
                else:
                    c.human_prompts = (c.human_prompts or 0) + 1
        elif m.get("type") == "gemini":
            text = "".join(p["text"] for p in parts if isinstance(p, dict) and isinstance(p.get("text"), str) and not p.get("thought"))
            calls = [p["functionCall"] for p in parts if isinstance(p, dict) and isinstance(p.get("functionCall"), dict)]
            entries = m.get("toolCalls") if isinstance(m.get("toolCalls"), list) else []
            thoughts = m.get("thoughts") if isinstance(m.get("thoughts"), list) else []
            if text or not (calls or entries or thoughts):
                c.assistant_texts = (c.assistant_texts or 0) + 1
            for call in calls:
                if call.get("id") not in called:
                    called.add(call.get("id"))
                    c.tool_calls = (c.tool_calls or 0) + 1
            for entry in entries:
                c.tool_calls = (c.tool_calls or 0) + 1
                if isinstance(entry, dict):
                    called.add(entry.get("id"))
                    if entry.get("result") is not None and entry.get("id") not in returned:
                        returned.add(entry.get("id"))
                        c.tool_returns = (c.tool_returns or 0) + 1
                        if entry.get("status") not in ("success", None):
                            c.tool_errors = (c.tool_errors or 0) + 1
            tokens = m.get("tokens")
            if isinstance(tokens, dict):
                c.add_tokens(tokens.get("input"), tokens.get("output"), tokens.get("cached"))
    return c
