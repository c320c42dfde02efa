"""What Cline (``saoudrizwan.claude-dev``) and Roo Code (``rooveterinaryinc.roo-cline``) keep in a
task folder, ``<globalStorage>/<extension>/tasks/<task id>/``, and the marks reading goes by.

- ``api_conversation_history.json``: a JSON array of the Anthropic ``MessageParam``s the extension
  sent (``role``, ``content``: a string or blocks ``text``, ``image``, ``tool_use``,
  ``tool_result``, ``thinking``, ``redacted_thinking``); releases since 3.x add ``ts`` (ms),
  and on assistant messages ``modelInfo`` (``modelId``, ``providerId``, ``mode``) and
  ``metrics.tokens`` (``prompt``, ``completion``, ``cached``).
- ``ui_messages.json``: the chat panel's log, a JSON array of ``ClineMessage``s: ``ts`` (ms),
  ``type`` (``say`` / ``ask``), ``say`` or ``ask`` (what it is), ``text``, and
  ``conversationHistoryIndex`` (the index of the last api history message when it was said).
  ``say: api_req_started`` holds a JSON text with the request and, once answered, ``tokensIn``,
  ``tokensOut``, ``cacheWrites``, ``cacheReads``, ``cost``.
- the CLI (npm ``cline``, Cline 4): ``~/.cline/data/sessions/<id>/<id>.messages.json`` (an object:
  ``sessionId``, ``origin``, ``agent``, ``system_prompt``, ``messages``: the same messages, the
  person's text in ``<user_input>``) beside ``<id>.json`` (the run: provider, model, cwd, status).
- ``task_metadata.json``: files in context, model usage, environment history;
  ``context_history.json`` (newer releases): the context manager's truncation edits.

Cline writes the user's role itself: it wraps what the person typed in ``<task>``,
``<feedback>``, ``<answer>`` or ``<user_message>`` tags, appends ``<environment_details>``, answers
a tool in text starting ``[<tool> ...] Result:`` (its ``formatResponse.toolResult``), and adds its
own reminders; those marks, written by Cline's own code, are what ``text_kind`` reads."""

from __future__ import annotations

import re
from typing import Any

import orjson

HISTORY = "api_conversation_history.json"
UI = "ui_messages.json"
METADATA = "task_metadata.json"
CONTEXT = "context_history.json"
KEY = "cline"
AGENT = "cline"

HUMAN_TAGS = ("<task>", "<feedback>", "<answer>", "<user_message>", "<user_input")
RESULT = re.compile(r"\[([^\]\n]{1,400})\] Result:")
UI_KINDS = frozenset({"say", "ask"})


def text_kind(text: str) -> str | None:
    """None for text the person typed (Cline's human tags), ``tool_result`` for a tool's answer,
    else the harness kind of what Cline wrote."""
    head = text.lstrip()
    if head.startswith(HUMAN_TAGS):
        return None
    if RESULT.match(head):
        return "tool_result"
    if head.startswith("<environment_details>"):
        return "environment_context"
    if head.startswith(("Files attached by the user", "<file_content")):
        return "attachment"
    if head.startswith("[TASK RESUMPTION]"):
        return "meta"
    return "system_reminder"


def cli_text_kind(text: str) -> str | None:
    """In a CLI session, text ``text_kind`` leaves unmarked: the CLI of mid-2026 sent what the
    person typed as it was (no ``<user_input>``, which 3.0.65 and later SDKs write), and marks its
    own texts (``<SYSTEM_NOTICE>``, ``<mode_notice>``, ...) but its compaction summary
    (``Context summary:``)."""
    head = text.lstrip()
    if head.startswith("Context summary:"):
        return "compaction_summary"
    return "system_reminder" if head.startswith(("<", "[")) else None


def result_names(text: str) -> str | None:
    """The bracket of a ``[<tool> for '<x>'] Result:`` text (its tool's name first)."""
    match = RESULT.match(text.lstrip())
    return match.group(1) if match else None


def is_message(value: Any) -> bool:
    return isinstance(value, dict) and value.get("role") in ("user", "assistant") and isinstance(value.get("content"), str | list)


def is_history(value: Any) -> bool:
    """An api conversation history: a non-empty array of Anthropic messages, the first a user
    message, with Cline's marks: a ``ts`` on its messages, or its first user text in one of
    Cline's tags or followed by ``<environment_details>``."""
    if not isinstance(value, list) or not value or not all(is_message(m) for m in value[:4]):
        return False
    first = value[0]
    if first.get("role") != "user":
        return False
    if any(isinstance(m.get("ts"), int) for m in value[:4]):
        return True
    content = first["content"]
    texts = [content] if isinstance(content, str) else [b.get("text") for b in content if isinstance(b, dict) and isinstance(b.get("text"), str)]
    return any(t.lstrip().startswith(HUMAN_TAGS) or "<environment_details>" in t for t in texts)


def is_cli_session(value: Any) -> bool:
    """A Cline CLI session's ``<id>.messages.json`` (the CLI of 3.x on npm, and Cline 4's
    ``~/.cline/data/sessions/<id>/``): ``sessionId``, ``origin`` or ``agent``, and ``messages``,
    Anthropic messages with ``ts``, ``modelInfo`` (``id``, ``provider``) and ``metrics``
    (``inputTokens``, ``outputTokens``, ``cacheReadTokens``, ``cacheWriteTokens``)."""
    return (
        isinstance(value, dict) and isinstance(value.get("sessionId"), str) and isinstance(value.get("messages"), list)
        and ("origin" in value or "agent" in value) and all(is_message(m) for m in value["messages"][:4])
    )


def is_ui_record(value: Any) -> bool:
    return isinstance(value, dict) and isinstance(value.get("ts"), int | float) and value.get("type") in UI_KINDS and isinstance(value.get(value["type"]), str)


def is_ui_log(value: Any) -> bool:
    """A ``ui_messages.json``: a non-empty array whose first records are say/ask records."""
    return isinstance(value, list) and bool(value) and all(is_ui_record(v) for v in value[:4])


def json_text(record: dict[str, Any]) -> dict[str, Any] | None:
    """The JSON object a record's text holds (``api_req_started``: the request and its usage;
    ``tool``: ``tool``, ``path``, ``content`` ...), None when it holds none."""
    try:
        info = orjson.loads(record.get("text") or "")
    except orjson.JSONDecodeError:
        return None
    return info if isinstance(info, dict) else None

