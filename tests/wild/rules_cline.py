"""Cline / Roo Code task files, counted from the raw JSON with orjson only, from Cline's own code
(``src/core/task``: the api history is the Anthropic ``MessageParam``s it sent; ``formatResponse``
wraps what the person typed in ``<task>``, ``<feedback>``, ``<answer>``, ``<user_message>`` and
answers a tool in text starting ``[<tool> ...] Result:``; ``ClineMessage`` is the UI log's record).

An ``api_conversation_history.json`` is read with the ``ui_messages.json`` of its folder:
- human prompt: a user text block in one of the tags, and an image block the person attached;
  harness turn: a ``file`` block (the CLI's ``FileContent``: a named file's text read in), any other user text block, but a ``[<tool> ...] Result:`` text whose bracket
  starts with the name of a ``tool_use`` of the assistant message before it not yet answered
  (the first such, in order), which is that call's return;
- assistant text: an assistant text block with non-whitespace text; tool call: ``tool_use``;
  return: ``tool_result`` and those texts; error: ``tool_result`` with ``is_error``;
- tokens: every ``api_req_started`` record of the UI log (input ``tokensIn`` + ``cacheReads`` +
  ``cacheWrites``, output ``tokensOut``), and the ``metrics.tokens`` (``prompt``,
  ``completion``, ``cached``) of each assistant message no record answers (a record answers the
  message two after its ``conversationHistoryIndex`` when that one is an assistant message: the
  request's user message comes first).
A CLI session's ``<id>.messages.json`` (an object with ``messages``): its messages as an api
history with no UI log, the person's text in ``<user_input>`` or unmarked (not starting with
``<``, ``[``, ``Context summary:`` or ``Files attached by the user``), tokens each assistant message's
``metrics`` (``inputTokens``, ``outputTokens``, ``cacheReadTokens``, ``cacheWriteTokens``).
A ``ui_messages.json`` by itself: human prompts ``say: task`` and ``say: user_feedback``;
assistant texts ``say: text`` / ``completion_result`` and ``ask: followup`` /
``plan_mode_respond`` with non-whitespace text; tool calls ``tool`` and ``command`` records (say
or ask); a return the first ``command_output`` after a command; tokens every
``api_req_started``."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import orjson

from tests.wild.count import Counts

_TAGS = ("<task>", "<feedback>", "<answer>", "<user_message>", "<user_input")
# a CLI session's text that starts with none of these is the person's (the mid-2026 CLI sent it unwrapped)
_CLI_MARKS = ("<", "[", "Context summary:", "Files attached by the user")
_RESULT = re.compile(r"\[([^\]\n]{1,400})\] Result:")


def _int(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _request(c: Counts, record: dict[str, Any]) -> None:
    try:
        info = orjson.loads(record.get("text") or "")
    except orjson.JSONDecodeError:
        return
    if not isinstance(info, dict):
        return
    fresh, read, write = info.get("tokensIn"), info.get("cacheReads"), info.get("cacheWrites")
    total = fresh + (read if _int(read) else 0) + (write if _int(write) else 0) if _int(fresh) else None
    c.add_tokens(total, info.get("tokensOut"), read, write)


def _ui_alone(c: Counts, records: list[Any]) -> None:
    open_command = False
    for r in records:
        kind = f"{r.get('type')}:{r.get(r.get('type'))}" if isinstance(r, dict) and r.get("type") in ("say", "ask") else None
        text = r.get("text") if isinstance(r, dict) else None
        if kind in ("say:task", "say:user_feedback"):
            c.human_prompts = (c.human_prompts or 0) + 1
        elif kind in ("say:text", "say:completion_result", "ask:followup", "ask:plan_mode_respond") and isinstance(text, str) and text.strip():
            c.assistant_texts = (c.assistant_texts or 0) + 1
        elif kind in ("say:tool", "ask:tool"):
            c.tool_calls = (c.tool_calls or 0) + 1
        elif kind in ("say:command", "ask:command"):
            c.tool_calls = (c.tool_calls or 0) + 1
            open_command = True
        elif kind in ("say:command_output", "ask:command_output") and open_command:
            c.tool_returns = (c.tool_returns or 0) + 1
            open_command = False
        elif kind == "say:api_req_started":
            _request(c, r)


def _history(c: Counts, history: list[Any], ui: list[Any], cli: bool = False) -> None:
    answered: set[int] = set()
    for r in ui:
        if isinstance(r, dict) and r.get("say") == "api_req_started" and r.get("type") == "say":
            _request(c, r)
            i = r.get("conversationHistoryIndex")
            if _int(i) and 0 <= i + 2 < len(history) and isinstance(history[i + 2], dict) and history[i + 2].get("role") == "assistant":
                answered.add(i + 2)
    calls: list[str] = []
    for index, m in enumerate(history):
        content = m.get("content")
        blocks = [{"type": "text", "text": content}] if isinstance(content, str) else content
        if m.get("role") == "assistant":
            calls = [b.get("name") or "" for b in blocks if b.get("type") == "tool_use"]
            c.tool_calls = (c.tool_calls or 0) + len(calls)
            c.assistant_texts = (c.assistant_texts or 0) + sum(1 for b in blocks if b.get("type") == "text" and str(b.get("text", "")).strip())
            metrics = m.get("metrics") if isinstance(m.get("metrics"), dict) else {}
            tokens = metrics.get("tokens")
            if index not in answered and isinstance(tokens, dict):
                c.add_tokens(tokens.get("prompt"), tokens.get("completion"), tokens.get("cached") or None)
            elif index not in answered and ("inputTokens" in metrics or "outputTokens" in metrics):  # the CLI's
                c.add_tokens(metrics.get("inputTokens"), metrics.get("outputTokens"), metrics.get("cacheReadTokens") or None, metrics.get("cacheWriteTokens") or None)
            continue
        for b in blocks:
            if b.get("type") == "image":
                c.human_prompts = (c.human_prompts or 0) + 1
            elif b.get("type") == "file" and isinstance(b.get("content"), str):  # the SDK's FileContent: a file the harness read in
                c.harness_turns = (c.harness_turns or 0) + 1
            elif b.get("type") == "tool_result":
                c.tool_returns = (c.tool_returns or 0) + 1
                c.tool_errors = (c.tool_errors or 0) + (1 if b.get("is_error") is True else 0)
            elif b.get("type") == "text":
                text = b.get("text", "").lstrip()
                match = _RESULT.match(text)
                name = next((n for n in calls if n and match and (match.group(1) == n or match.group(1).startswith(n + " "))), None)
                if text.startswith(_TAGS) or (cli and not text.startswith(_CLI_MARKS)):
                    c.human_prompts = (c.human_prompts or 0) + 1
                elif name is not None:
                    calls.remove(name)
                    c.tool_returns = (c.tool_returns or 0) + 1
                else:
                    c.harness_turns = (c.harness_turns or 0) + 1
        calls = []


def cline(path: Path) -> Counts:
    c = Counts()
    value = orjson.loads(path.read_bytes())
    if isinstance(value, dict):  # a CLI session's <id>.messages.json
        _history(c, value["messages"], [], cli=True)
    elif path.name == "api_conversation_history.json":
        ui_file = path.parent / "ui_messages.json"
        ui = orjson.loads(ui_file.read_bytes()) if ui_file.is_file() else []
        _history(c, value, ui if isinstance(ui, list) else [])
    else:
        _ui_alone(c, value)
    return c
