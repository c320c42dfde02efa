"""The records of a Qwen Code session file (``~/.qwen/projects/<cwd with '-'>/chats/<session id>.jsonl``).

Written by ``ChatRecordingService`` of QwenLM/qwen-code (packages/core/src/services/
chatRecordingService.ts), one JSON object a line, appended: every record carries ``uuid``,
``parentUuid`` (the record before it; a rewind re-roots the chain), ``sessionId``, ``timestamp``,
``type``, ``cwd``, ``version`` and ``gitBranch``, then by ``type``:

* ``user``: ``message`` ``{role: "user", parts}`` (Gemini API parts); ``subtype``
  ``notification`` / ``cron`` for turns the program sent (``systemPayload.displayText``);
* ``assistant``: ``model``, ``message`` ``{role: "model", parts}`` (``text``, ``text`` with
  ``thought: true``, ``functionCall``), ``usageMetadata`` (the API's ``promptTokenCount`` (cached
  inside), ``candidatesTokenCount``, ``thoughtsTokenCount``, ``cachedContentTokenCount``,
  ``totalTokenCount``), ``contextWindowSize``;
* ``tool_result``: ``message`` of ``functionResponse`` parts, ``toolCallResult`` ``{callId,
  status, resultDisplay, error?}``;
* ``system``: ``subtype`` (``ui_telemetry``, ``attribution_snapshot``, ``slash_command``,
  ``chat_compression``, ``rewind``, ``custom_title`` ...) and ``systemPayload``.

The family is Gemini CLI's (Qwen Code is its fork, and the parts are the same), but the file is
not: a chain of typed records rather than Gemini CLI's messages and ``$set`` updates, so it is a
format of its own."""

from __future__ import annotations

from typing import Any

RECORD_TYPES = frozenset({"user", "assistant", "tool_result", "system"})


def is_record(value: Any) -> bool:
    """A Qwen Code record: its envelope, and parts (not Claude Code's ``content``) in its message
    or a ``systemPayload``."""
    if type(value) is not dict or not isinstance(value.get("uuid"), str) or not isinstance(value.get("sessionId"), str):
        return False
    kind = value.get("type")
    if kind == "system":
        return "systemPayload" in value and "content" not in value
    message = value.get("message")
    return kind in RECORD_TYPES and type(message) is dict and isinstance(message.get("parts"), list) and "content" not in message
