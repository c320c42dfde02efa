"""GitHub Copilot CLI sessions (``~/.copilot/session-state/<id>/events.jsonl``, and the
single-file ``history-session-state/*.json`` of earlier releases), counted from the raw bytes
with orjson only, from the Copilot SDK's session events (``session-events.schema.json``: the
envelope ``type`` / ``data`` / ``id`` / ``timestamp`` / ``parentId``) and the events the real
program 1.0.102 wrote:

- human prompt: a ``user.message`` event (one of a subagent, whose envelope carries an
  ``agentId`` (1.0.x) or whose data a ``parentToolCallId``, is the prompt the subagent is started
  with: a harness turn);
- harness turn also: a ``session.compaction_complete`` with a ``summaryContent`` (the summary the
  model is sent in place of the history);
- assistant text: an ``assistant.message`` whose ``content`` is not blank;
- tool call: each tool call id first named by an ``assistant.message``'s ``toolRequests`` or a
  ``tool.execution_start`` (a request repeating a started call is that call);
- return: each ``tool.execution_complete``; error: one with ``success: false``;
- tokens: each ``session.usage_record``'s ``usage`` (``assistant.usage``'s ``data`` before it):
  ``inputTokens`` (cached inside), ``outputTokens``, ``cacheReadTokens``, ``cacheWriteTokens``;
  where a ``session.shutdown`` holds the CLI's own totals (``modelMetrics``: model → ``usage``),
  the last one's, summed over the models, is the session's (a usage total when it differs from
  the records' sum).

The single-file generation holds OpenAI Chat Completions messages (``chatMessages``): a ``user``
message is a prompt, an ``assistant`` message with text an assistant text, each ``tool_calls``
entry a call, each ``tool`` message a return; it holds no tokens."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson

from tests.wild.count import Counts, blank

_NAMES = {"inputTokens": "input_tokens", "outputTokens": "output_tokens", "cacheReadTokens": "cache_read_tokens", "cacheWriteTokens": "cache_write_tokens"}


def _legacy(session: dict[str, Any]) -> Counts:
    c = Counts()
    for m in session["chatMessages"]:
        if not isinstance(m, dict):
            continue
        if m.get("role") == "user":
            c.human_prompts = (c.human_prompts or 0) + 1
        elif m.get("role") == "assistant":
            if not blank(m.get("content")):
                c.assistant_texts = (c.assistant_texts or 0) + 1
            calls = m.get("tool_calls")
            c.tool_calls = (c.tool_calls or 0) + (len(calls) if isinstance(calls, list) else 0)
        elif m.get("role") == "tool":
            c.tool_returns = (c.tool_returns or 0) + 1
    return c


def copilot_cli(path: Path) -> Counts:
    data = path.read_bytes()
    try:
        whole = orjson.loads(data)
    except orjson.JSONDecodeError:
        whole = None
    if isinstance(whole, dict) and isinstance(whole.get("chatMessages"), list):
        return _legacy(whole)
    c = Counts()
    seen: set[Any] = set()
    totals: dict[str, int] = {}
    for line in data.splitlines():
        try:
            event = orjson.loads(line)
        except orjson.JSONDecodeError:
            continue
        if not isinstance(event, dict) or not isinstance(event.get("data"), dict):
            continue
        kind, d = event.get("type"), event["data"]
        if kind == "user.message":
            if event.get("agentId") or d.get("parentToolCallId"):
                c.harness_turns = (c.harness_turns or 0) + 1
            else:
                c.human_prompts = (c.human_prompts or 0) + 1
        elif kind == "assistant.message":
            if not blank(d.get("content")):
                c.assistant_texts = (c.assistant_texts or 0) + 1
            requests = d.get("toolRequests") if isinstance(d.get("toolRequests"), list) else []
            for request in requests:
                if isinstance(request, dict) and request.get("toolCallId") not in seen:
                    seen.add(request.get("toolCallId"))
                    c.tool_calls = (c.tool_calls or 0) + 1
        elif kind == "session.compaction_complete" and isinstance(d.get("summaryContent"), str) and d["summaryContent"]:
            c.harness_turns = (c.harness_turns or 0) + 1
        elif kind == "tool.execution_start" and d.get("toolCallId") not in seen:
            seen.add(d.get("toolCallId"))
            c.tool_calls = (c.tool_calls or 0) + 1
        elif kind == "tool.execution_complete":
            c.tool_returns = (c.tool_returns or 0) + 1
            if d.get("success") is False:
                c.tool_errors = (c.tool_errors or 0) + 1
        elif kind in ("session.usage_record", "assistant.usage"):
            usage = d.get("usage") if kind == "session.usage_record" else d
            if isinstance(usage, dict):
                c.add_tokens(usage.get("inputTokens"), usage.get("outputTokens"), usage.get("cacheReadTokens"), usage.get("cacheWriteTokens"))
        elif kind == "session.shutdown" and isinstance(d.get("modelMetrics"), dict):
            found: dict[str, int] = {}
            for metric in d["modelMetrics"].values():
                usage = metric.get("usage") if isinstance(metric, dict) else None
                for theirs, ours in _NAMES.items():
                    value = usage.get(theirs) if isinstance(usage, dict) else None
                    if isinstance(value, int) and not isinstance(value, bool):
                        found[ours] = found.get(ours, 0) + value
            totals = found or totals
    if totals:
        c.usage_totals = int(any(value != (getattr(c, ours) or 0) for ours, value in totals.items()))
        for ours, value in totals.items():
            setattr(c, ours, value)
    return c
