"""Pi's session lines (``@mariozechner/pi-coding-agent``, ``docs/session-format.md``): what the
reader and the detector both need.

A session file is JSON Lines: a ``session`` header (``id``, ``timestamp``, ``cwd``; ``version``
2 or 3, none in version 1; ``parentSession`` for a fork), then entries, each with a ``type``, an
``id`` and ``parentId`` (a tree: a branch is an entry whose parent is not the entry before it;
version 1 files have neither) and an ISO ``timestamp``. ``message`` entries hold an
``AgentMessage`` by ``role``: ``user``, ``assistant`` (content parts ``text``, ``thinking``,
``toolCall``; ``usage`` with ``cost``), ``toolResult``, ``bashExecution`` (a shell command the
person ran with ``!``), ``custom`` (an extension's message), ``branchSummary``,
``compactionSummary``."""

from __future__ import annotations

from typing import Any

HEADER = "session"
ENTRY_TYPES = frozenset({"message", "model_change", "thinking_level_change", "compaction", "branch_summary", "custom", "custom_message", "label", "session_info"})
ROLES = frozenset({"user", "assistant", "toolResult", "bashExecution", "custom", "hookMessage", "branchSummary", "compactionSummary"})
# usage keys → ours; Pi's ``input`` leaves out the cache's reads and writes (``totalTokens`` is all four)
TOKENS = {"output": "output_tokens", "cacheRead": "cache_read_tokens", "cacheWrite": "cache_write_tokens", "totalTokens": "total_tokens"}


def is_header(value: Any) -> bool:
    """Pi's header: ``type`` "session", an ``id``, and none of the Hugging Face session trace's
    ``harness`` (whose header is otherwise alike)."""
    return (isinstance(value, dict) and value.get("type") == HEADER and isinstance(value.get("id"), str) and "harness" not in value
            and (isinstance(value.get("cwd"), str) or isinstance(value.get("version"), int)))


def is_entry(value: Any) -> bool:
    return isinstance(value, dict) and value.get("type") in ENTRY_TYPES


def texts(content: Any) -> str | None:
    """The text of a message's content: a string, or its ``text`` parts joined (None when
    something else is there: an image, a part of another type)."""
    if isinstance(content, str):
        return content
    if not isinstance(content, list):
        return None
    out = []
    for part in content:
        if not (isinstance(part, dict) and part.get("type") == "text" and isinstance(part.get("text"), str)):
            return None
        out.append(part["text"])
    return "".join(out)
