"""A Cline task's ``ui_messages.json`` (the chat panel's log), read alone or beside its api history.

Read alone (a task folder whose api history is not there, or the file by itself), each record
is one action, in order, at its ``ts``:

- ``say: task`` / ``say: user_feedback`` → the person's ``user_message`` (its ``images``, data
  URLs, as image parts);
- ``say: text`` / ``say: completion_result``, ``ask: followup`` / ``plan_mode_respond`` →
  ``assistant_message``; ``say: reasoning`` → ``thinking``;
- ``say``/``ask: tool`` → a ``tool_call`` named by its JSON's ``tool`` (args: that JSON);
  ``say``/``ask: command`` → an ``execute_command`` call, and the ``command_output`` after it
  its ``tool_return`` (the panel holds no other tool's result);
- ``say: api_req_started`` → ``system.api_request`` (its JSON; the usage of the request on it,
  its ``cost`` added to the thread's ``cost_usd``);
- anything else (checkpoints, task progress, errors, retries, resume asks ...) →
  ``system.cline_ui`` holding the record.

Call ids are the panel's: ``ui-<ts>``. Read beside the api history (``reading.py``), the
records the history already holds are taken as repeats and only the rest are actions
(``UI_ONLY``)."""

from __future__ import annotations

from typing import Any

from threadlab.core.builder import ThreadBuilder
from threadlab.formats.cline.usage import cost_of, request_usage
from threadlab.formats.cline.wire import AGENT, KEY, UI, is_ui_record, json_text

# what the api history holds again (a model's text, a tool it called, the person's feedback)
REPEATS = frozenset({
    "say:task", "say:text", "say:reasoning", "say:user_feedback", "say:user_feedback_diff", "say:tool", "say:command",
    "say:command_output", "say:completion_result", "say:browser_action", "say:browser_action_result",
    "say:use_mcp_server", "say:mcp_server_response", "say:mcp_server_request_started", "say:subagent",
    "ask:tool", "ask:command", "ask:command_output", "ask:followup", "ask:plan_mode_respond", "ask:act_mode_respond",
    "ask:completion_result", "ask:use_mcp_server", "ask:browser_action_launch", "ask:use_subagents",
})
_ASSISTANT = frozenset({"say:text", "say:completion_result", "ask:followup", "ask:plan_mode_respond"})
_HUMAN = frozenset({"say:task", "say:user_feedback"})


def kind_of(record: dict[str, Any]) -> str:
    return f"{record['type']}:{record[record['type']]}"


def model_of(record: dict[str, Any]) -> dict[str, str]:
    info = record.get("modelInfo")
    if isinstance(info, dict) and isinstance(info.get("modelId"), str) and isinstance(info.get("providerId"), str):
        return {"model_name": info["modelId"], "provider_name": info["providerId"]}
    return {}


def seconds(ms: Any) -> float | None:
    return ms / 1000 if isinstance(ms, int | float) and not isinstance(ms, bool) else None


class UiReader:
    """Adds a task's UI records to a builder (all of them, or only those no history holds)."""

    def __init__(self, b: ThreadBuilder, agent: str) -> None:
        self.b = b
        self.agent = agent
        self.cost = 0.0
        self.command: str | None = None  # the open execute_command call

    def request(self, record: dict[str, Any], position: int) -> None:
        """``api_req_started`` as an action of its own, with its usage."""
        info = json_text(record)
        usage = request_usage(self.b, info, f"record {position} of {UI}", position) if info is not None else None
        if info is not None and cost_of(info) is not None:
            self.cost += cost_of(info) or 0.0
        action = self.b.add("system.api_request", timestamp=seconds(record.get("ts")), data=record, metadata={KEY: {"ui": position}, **model_of(record)})
        if usage is not None:
            action.usage = usage.model_dump(exclude_none=True)  # type: ignore[attr-defined]

    def other(self, record: dict[str, Any], position: int) -> None:
        self.b.add("system.cline_ui", timestamp=seconds(record.get("ts")), data=record, metadata={KEY: {"ui": position}})

    def record(self, record: Any, position: int) -> None:
        """One record of a log read alone (``position`` from 1)."""
        if not is_ui_record(record):
            self.b.failed("schema", f"record {position} of {UI} is no say/ask record with a ts", line=position)
            return
        self.b.took()
        kind = kind_of(record)
        at = seconds(record["ts"])
        text = record.get("text")
        meta: dict[str, Any] = {KEY: {"ui": position}}
        if kind in _HUMAN:
            images = [{"type": "image", "image_url": u} for u in record.get("images") or [] if isinstance(u, str)]
            content: Any = [{"type": "text", "text": text or ""}, *images] if images else (text or "")
            self.b.add("user_message", timestamp=at, content=content, metadata=meta)
        elif kind in _ASSISTANT and isinstance(text, str):
            self.b.add("assistant_message", timestamp=at, agent_id=self.agent, content=text, metadata={**meta, **model_of(record)})
        elif kind == "say:reasoning" and isinstance(text, str):
            model = model_of(record)
            self.b.add("thinking", timestamp=at, agent_id=self.agent, content=text, provider_name=model.get("provider_name", AGENT), metadata={**meta, **model})
        elif kind in ("say:tool", "ask:tool"):
            args = json_text(record)
            name = args.get("tool") if args is not None and isinstance(args.get("tool"), str) else "tool"
            self.b.add("tool_call", timestamp=at, agent_id=self.agent, tool_name=name, tool_call_id=f"ui-{record['ts']}", args=args if args is not None else text, metadata=meta)
        elif kind in ("say:command", "ask:command"):
            self.command = f"ui-{record['ts']}"
            self.b.add("tool_call", timestamp=at, agent_id=self.agent, tool_name="execute_command", tool_call_id=self.command, args={"command": text}, metadata=meta)
        elif kind in ("say:command_output", "ask:command_output") and self.command is not None:
            self.b.add("tool_return", timestamp=at, tool_call_id=self.command, tool_name="execute_command", content=text, metadata=meta)
            self.command = None
        elif kind == "say:api_req_started":
            self.request(record, position)
        else:
            self.other(record, position)

    def beside(self, record: Any, position: int, used: bool) -> None:
        """One record of a log read with its api history: a repeat, or an action of its own.
        ``used``: an ``api_req_started`` whose usage went on its assistant message."""
        if not is_ui_record(record):
            self.b.failed("schema", f"record {position} of {UI} is no say/ask record with a ts", line=position)
            return
        self.b.took()
        kind = kind_of(record)
        if kind == "say:api_req_started":
            if used:
                info = json_text(record) or {}
                self.cost += cost_of(info) or 0.0
            else:
                self.request(record, position)
        elif kind not in REPEATS:
            self.other(record, position)
