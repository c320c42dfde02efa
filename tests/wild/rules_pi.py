"""Pi coding agent sessions (``~/.pi/agent/sessions/--<cwd>--/<timestamp>_<id>.jsonl``), counted
from the raw bytes with orjson only, from Pi's ``docs/session-format.md`` (``SessionEntry``,
``AgentMessage``) and the files the real program 0.73.1 wrote:

- human prompt: a ``message`` entry of role ``user``;
- harness turn: a ``message`` of role ``custom`` / ``hookMessage`` (an extension's text sent to the
  model), ``compactionSummary`` or ``branchSummary``, a ``custom_message`` entry, and the
  ``compaction`` and ``branch_summary`` entries (the summary sent in place of the history);
- assistant text: a ``text`` part of an ``assistant`` message that is not blank;
- tool call: a ``toolCall`` part, and a ``bashExecution`` message (a shell command the person ran
  with ``!``, its output sent to the model); return: a ``toolResult`` message and a
  ``bashExecution``; error: a ``toolResult`` with ``isError`` true, a ``bashExecution`` cancelled or
  with an exit code other than 0;
- tokens: each assistant message's ``usage``: ``input`` + ``cacheRead`` + ``cacheWrite`` (Pi's
  ``input`` leaves the cache out), ``output``, ``cacheRead``, ``cacheWrite``."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson

from tests.wild.count import Counts, blank

_HARNESS_ROLES = ("custom", "hookMessage", "compactionSummary", "branchSummary")


def _bump(c: Counts, name: str) -> None:
    setattr(c, name, (getattr(c, name) or 0) + 1)


def _int(value: Any) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


def pi(path: Path) -> Counts:
    c = Counts()
    for line in path.read_bytes().splitlines():
        try:
            entry = orjson.loads(line)
        except orjson.JSONDecodeError:
            continue
        if not isinstance(entry, dict):
            continue
        if entry.get("type") in ("compaction", "branch_summary", "custom_message"):
            _bump(c, "harness_turns")
        message = entry.get("message") if entry.get("type") == "message" else None
        if not isinstance(message, dict):
            continue
        role = message.get("role")
        if role == "user":
            _bump(c, "human_prompts")
        elif role in _HARNESS_ROLES:
            _bump(c, "harness_turns")
        elif role == "toolResult":
            _bump(c, "tool_returns")
            if message.get("isError") is True:
                _bump(c, "tool_errors")
        elif role == "bashExecution":
            _bump(c, "tool_calls")
            _bump(c, "tool_returns")
            if message.get("cancelled") is True or message.get("exitCode") not in (0, None):
                _bump(c, "tool_errors")
        elif role == "assistant":
            for part in message.get("content") if isinstance(message.get("content"), list) else []:
                if isinstance(part, dict) and part.get("type") == "text" and not blank(part.get("text")):
                    _bump(c, "assistant_texts")
                elif isinstance(part, dict) and part.get("type") == "toolCall":
                    _bump(c, "tool_calls")
            usage = message.get("usage")
            if isinstance(usage, dict):
                read, write = _int(usage.get("cacheRead")), _int(usage.get("cacheWrite"))
                c.add_tokens(_int(usage.get("input")) + read + write, usage.get("output"), read, write)
    return c
