"""Counts taken from raw Claude Code files with orjson and the standard library only (no threadlab
code): tool calls and returns, who wrote each turn, and token usage by the rule ccusage follows
once its output-token bug is fixed. ``tests/test_claude_real.py`` holds threadlab's reading to
them.

Who wrote a turn, as a reader of the raw lines sees it (``threadlab/formats/claude/authorship.py``
documents the same mapping; this is written again from the lines, not imported):

- a person: a user line that is none of the below (in the session, not a subagent's file);
  a slash command (``<command-name>``, ``system/local_command``) and a prompt queued mid-turn
  (``queued_command`` attachment) are the person's too, but no prompt of the thread's;
- the harness: ``isMeta``, ``isSynthetic`` (stream-json) and ``isCompactSummary`` lines, command output, task notifications,
  interrupt markers, a message of ``<system-reminder>`` blocks only or of hook feedback, the
  compaction agent's prompt, ``stop_hook_summary`` lines, attachments (hook output included);
- an agent: the prompt a subagent's file starts with (its launching call's; in stream-json the
  user line whose ``parent_tool_use_id`` names the Task call), a peer's queued message.

Usage (ccusage's rule, its issues #901 and #938 fixed): one API message is counted once, keyed by
``message.id``; its input and cache tokens are the same on every line of the message, its output
tokens grow as the response streams, so the final snapshot (the line with a ``stop_reason``,
else the last line) is the one counted. ccusage keeps the first snapshot (``ccusage_usage``).
An assistant line without a message id counts on its own (ccusage also skips its dedup when
``requestId`` is missing, which double counts: its issue #976; threadlab keys by message id)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from tests.conformance.records import _whole_or_lines as whole_or_lines

INTERRUPTS = frozenset({"[Request interrupted by user]", "[Request interrupted by user for tool use]"})
_HARNESS_WRAPPERS = ("<local-command-stdout>", "<local-command-stderr>", "<task-notification>")
_COMMANDS = ("<command-name>", "<command-message>")
_HOOK = re.compile(r"\s*(?:<system-reminder>\s*)?[A-Za-z]+(?::\S*)? hook (?:additional context|blocking error|feedback|success|error)\b")
_TOKEN_KEYS = ("input_tokens", "output_tokens", "cache_read_input_tokens", "cache_creation_input_tokens")
_CALLS = ("tool_use", "server_tool_use", "mcp_tool_use")


def raw_items(path: Path) -> list[Any]:
    """Every entry of a file (the conformance suite's reading: a JSON array's items, or JSON Lines
    with a marker for a line that is no JSON), a claude.ai export's ``loglines`` unwrapped."""
    items = whole_or_lines(path)
    if len(items) == 1 and isinstance(items[0], dict) and isinstance(items[0].get("loglines"), list):
        return items[0]["loglines"]
    return items


def session_files(path: Path) -> list[Path]:
    """The session and its subagents: ``<id>/subagents/**/agent-*.jsonl`` and, before 2.1,
    ``agent-*.jsonl`` beside it whose first line names the session."""
    files = [path, *sorted((path.parent / path.stem / "subagents").rglob("agent-*.jsonl"))]
    for other in sorted(path.parent.glob("agent-*.jsonl")):
        first = next(iter(raw_items(other)), None)
        if other != path and isinstance(first, dict) and first.get("sessionId") == path.stem:
            files.append(other)
    return files


def blocks(item: Any) -> list[Any]:
    message = item.get("message") if isinstance(item, dict) else None
    content = message.get("content") if isinstance(message, dict) else None
    return content if isinstance(content, list) else []


def _turn_of_user_line(item: dict[str, Any], subagent: str | None) -> str | None:
    message = item.get("message")
    if not isinstance(message, dict) or "content" not in message:
        return None
    content = message["content"]
    parts = [b for b in content if not (isinstance(b, dict) and b.get("type") == "tool_result")] if isinstance(content, list) else [content]
    if isinstance(content, list) and not parts:
        return None  # tool results only
    if item.get("isMeta") or item.get("isCompactSummary"):
        return "harness"
    texts = [p if isinstance(p, str) else p.get("text") if isinstance(p, dict) and p.get("type") == "text" else None for p in parts]
    joined = "".join(p.get("text", "") if isinstance(p, dict) and isinstance(p.get("text"), str) else p if isinstance(p, str) else "" for p in parts)
    if joined.lstrip().startswith(_COMMANDS):
        return "person"
    if joined.lstrip().startswith(_HARNESS_WRAPPERS):
        return "harness"
    if texts and all(isinstance(t, str) for t in texts):
        if all(t.strip() in INTERRUPTS for t in texts):
            return "interrupt"
        if _HOOK.match("".join(texts)) or all(t.strip().startswith("<system-reminder>") and t.strip().endswith("</system-reminder>") for t in texts):
            return "harness"
    if item.get("isSynthetic") is True:
        return "harness"
    if subagent is not None:
        return "harness" if subagent.startswith("acompact") or joined.strip() == "Warmup" else "agent"
    return "prompt"


def turn_of(item: Any, subagent: str | None = None) -> str | None:
    """Who wrote a line, if it is a turn: ``prompt`` (a person's prompt), ``person`` (their
    command or queued prompt), ``interrupt``, ``harness``, ``agent``; None for anything else."""
    if not isinstance(item, dict):
        return None
    kind = item.get("type")
    if subagent is None and (item.get("isSidechain") is True):
        subagent = item.get("agentId") if isinstance(item.get("agentId"), str) else "sidechain"
    if subagent is None and isinstance(item.get("parent_tool_use_id"), str):  # stream-json: a subagent's line names its Task call
        subagent = item.get("agent_id") if isinstance(item.get("agent_id"), str) else "stream-json"
    if kind == "user":
        return _turn_of_user_line(item, subagent)
    if kind == "system" and item.get("subtype") == "stop_hook_summary":
        return "harness"
    if kind == "system" and item.get("subtype") == "local_command":
        content = item.get("content")
        return "person" if isinstance(content, str) and content.lstrip().startswith(_COMMANDS) else "harness"
    if kind == "attachment":
        attachment = item.get("attachment") if isinstance(item.get("attachment"), dict) else {}
        if attachment.get("type") != "queued_command":
            return "harness"
        if attachment.get("commandMode") == "task-notification":
            return "harness"
        origin = attachment.get("origin") if isinstance(attachment.get("origin"), dict) else {}
        return "agent" if origin.get("kind") == "peer" else "person"
    return None


def _subagent_of(path: Path, session: Path) -> str | None:
    return None if path == session else path.stem.removeprefix("agent-")


def _tool_counts(items: list[Any]) -> tuple[int, int, int]:
    """Tool calls (a block without ``id`` too), returns (a ``tool_result`` without
    ``tool_use_id`` too when exactly one call of the conversation is open) and the returns
    marked ``is_error``, of one file (one agent's conversation)."""
    calls = returns = errors = 0
    open_calls: dict[Any, None] = {}
    for n, item in enumerate(items):
        for index, block in enumerate(blocks(item)):
            if not isinstance(block, dict):
                continue
            if block.get("type") in _CALLS and (isinstance(block.get("id"), str) or "id" not in block):
                calls += 1
                open_calls[block.get("id", (n, index))] = None
            elif isinstance(block.get("tool_use_id"), str):
                returns += 1
                errors += block.get("type") == "tool_result" and block.get("is_error") is True
                open_calls.pop(block["tool_use_id"], None)
            elif block.get("type") == "tool_result" and "tool_use_id" not in block and len(open_calls) == 1:
                returns += 1
                errors += block.get("is_error") is True
                open_calls.clear()
    return calls, returns, errors


def _texts(items: list[Any]) -> int:
    """Assistant texts: a ``text`` block with something other than whitespace; an early SDK's
    string content."""
    texts = 0
    for item in items:
        if not isinstance(item, dict) or item.get("type") != "assistant":
            continue
        message = item.get("message")
        if isinstance(message, dict) and isinstance(message.get("content"), str):
            texts += bool(message["content"].strip())
        texts += sum(1 for b in blocks(item) if isinstance(b, dict) and b.get("type") == "text" and isinstance(b.get("text"), str) and b["text"].strip())
    return texts


def final_usage(items: list[Any]) -> dict[str, int]:
    """Token totals, one final snapshot per API message (see the module doc)."""
    by_id: dict[str, dict[str, Any]] = {}
    final: set[str] = set()
    loose: list[dict[str, Any]] = []
    for item in items:
        message = item.get("message") if isinstance(item, dict) and item.get("type") == "assistant" else None
        if not isinstance(message, dict) or not isinstance(message.get("usage"), dict):
            continue
        mid = message.get("id")
        if not isinstance(mid, str):
            loose.append(message["usage"])
            continue
        if mid not in final:
            by_id[mid] = message["usage"]
        if message.get("stop_reason"):
            final.add(mid)
    used = [*by_id.values(), *loose]
    return {k: sum(u.get(k) if isinstance(u.get(k), int) and not isinstance(u.get(k), bool) else 0 for u in used) for k in _TOKEN_KEYS}


def ccusage_usage(items: list[Any]) -> dict[str, int]:
    """What ccusage counts: the first line of each ``message.id:requestId`` (every line without
    either)."""
    seen: set[str] = set()
    used = []
    for item in items:
        message = item.get("message") if isinstance(item, dict) and item.get("type") == "assistant" else None
        if not isinstance(message, dict) or not isinstance(message.get("usage"), dict):
            continue
        mid, request = message.get("id"), item.get("requestId")
        if isinstance(mid, str) and isinstance(request, str):
            if f"{mid}:{request}" in seen:
                continue
            seen.add(f"{mid}:{request}")
        used.append(message["usage"])
    return {k: sum(u.get(k) or 0 for u in used) for k in _TOKEN_KEYS}


def raw_counts(path: Path) -> dict[str, Any]:
    """Everything the tests compare, for a session file and its subagents' files."""
    files = session_files(path)
    items = [item for f in files for item in raw_items(f)]
    turns = [turn_of(item, _subagent_of(f, path)) for f in files for item in raw_items(f)]
    calls, returns, errors = (sum(n) for n in zip(*(_tool_counts(raw_items(f)) for f in files), strict=True))
    texts = _texts(items)
    return {"calls": calls, "returns": returns, "texts": texts, "errors": errors, "prompts": turns.count("prompt"), "interrupts": turns.count("interrupt"),
            "harness": turns.count("harness") + turns.count("interrupt"), "agent_prompts": turns.count("agent"), "usage": final_usage(items)}

