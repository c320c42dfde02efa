"""What ``codex exec --json`` prints: JSON Lines of events, one run of the Codex CLI in scripts
and CI (no spec; read from what Codex 0.20.0 and 0.169.0 print, see
tests/fixtures/codex_exec/). Two generations:

- **thread events** (later releases; 0.169 here): ``{"type": "thread.started", "thread_id"}``,
  ``turn.started``, ``item.started`` / ``item.updated`` / ``item.completed`` with an ``item``
  (``agent_message`` and ``reasoning`` with ``text``; ``command_execution`` with ``command``,
  ``aggregated_output``, ``exit_code``, ``status``; ``file_change`` with ``changes``;
  ``mcp_tool_call`` with ``server``, ``tool``, ``arguments``, ``result``, ``error``;
  ``web_search`` with ``query``; ``todo_list``; ``error``), ``turn.completed`` with the turn's
  ``usage`` (all its model calls together), ``turn.failed``, ``error``. The prompt is not in it.
- **protocol events** (mid-2025 releases; 0.20 here): a first line summarising the
  configuration (``model``, ``provider``, ``sandbox`` ...), ``{"prompt": ...}``, then
  ``{"id": <submission>, "msg": {"type": ...}}`` for each event of Codex's protocol
  (``agent_message``, ``agent_reasoning``, ``exec_command_begin`` / ``_output_delta`` /
  ``_end``, ``patch_apply_begin`` / ``_end``, ``mcp_tool_call_begin`` / ``_end``,
  ``web_search_begin`` / ``_end``, ``token_count`` per model response, ``turn_diff``,
  ``task_started`` / ``task_complete``, ``error`` ...).
"""

from __future__ import annotations

from typing import Any

THREAD_EVENTS = frozenset({"thread.started", "turn.started", "turn.completed", "turn.failed", "item.started", "item.updated", "item.completed", "error"})
_THREAD_EVENT_KEYS = frozenset({"type", "thread_id", "item", "usage", "error", "message"})
CONFIG_KEYS = frozenset({"model", "provider", "approval", "sandbox", "workdir", "reasoning effort", "reasoning summaries"})
# items of the thread events that are a tool call (started) and its return (completed), and the
# item fields that hold the call's arguments and the return's content
TOOL_ITEMS: dict[str, tuple[tuple[str, ...], str]] = {
    "command_execution": (("command",), "aggregated_output"),
    "file_change": (("changes",), "changes"),
    "mcp_tool_call": (("arguments",), "result"),
    "web_search": (("query",), "query"),
    "todo_list": (("items",), "items"),
}
# protocol events that begin and end a tool call: begin → (tool name, argument fields), end → content field
BEGIN_EVENTS: dict[str, tuple[str, tuple[str, ...]]] = {
    "exec_command_begin": ("command_execution", ("command", "cwd")),
    "patch_apply_begin": ("file_change", ("changes", "auto_approved")),
    "web_search_begin": ("web_search", ()),
}
END_EVENTS: dict[str, str] = {"exec_command_end": "stdout", "patch_apply_end": "stdout", "web_search_end": "query", "mcp_tool_call_end": "result"}


def is_thread_event(obj: Any) -> bool:
    return isinstance(obj, dict) and isinstance(obj.get("type"), str) and obj["type"] in THREAD_EVENTS and obj.keys() <= _THREAD_EVENT_KEYS


def is_protocol_event(obj: Any) -> bool:
    return isinstance(obj, dict) and set(obj) == {"id", "msg"} and isinstance(obj["msg"], dict) and isinstance(obj["msg"].get("type"), str)


def is_config_line(obj: Any) -> bool:
    """The protocol generation's first line: the configuration summary Codex prints."""
    return isinstance(obj, dict) and "model" in obj and len(obj.keys() & CONFIG_KEYS) >= 3 and all(isinstance(v, str) for v in obj.values())


def is_prompt_line(obj: Any) -> bool:
    return isinstance(obj, dict) and set(obj) == {"prompt"} and isinstance(obj["prompt"], str)


def exit_status(item: dict[str, Any]) -> str:
    """A command that exited non-zero, or an item whose status is failed or declined, is an error."""
    code = item.get("exit_code")
    if isinstance(code, int) and code != 0:
        return "error"
    if item.get("status") in ("failed", "declined") or item.get("error") or item.get("success") is False:
        return "error"
    result = item.get("result")
    return "error" if isinstance(result, dict) and "Err" in result else "success"
