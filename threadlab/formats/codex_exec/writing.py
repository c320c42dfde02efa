"""A thread → ``codex exec --json`` output (JSON Lines of events).

A thread read from such output is written back line for line (each action's line comes back
from ``metadata["codex_exec"]`` with the action's values put back in their places), in its own
generation. Any other thread is written as thread events: ``thread.started``, then per turn
(a user message starts one) ``turn.started``, one ``item.completed`` per message and thinking,
``item.started`` / ``item.completed`` per tool call and return, and ``turn.completed`` with the
turn's usage summed. What the stream cannot hold is named in a ``WriteLoss``: the prompts (the
stream holds none), other agents than Codex's one, ``system.*`` actions of other formats, times,
usage per model response (a turn's usage is one figure) and total token counts, and tool calls
that are not Codex's own kinds (written as MCP tool calls, the stream's one generic tool item)."""

from __future__ import annotations

from collections import Counter
from typing import Any

import orjson

from threadlab.core.canonical import json_copy
from threadlab.core.derive import iter_text
from threadlab.core.loss import report_loss
from threadlab.core.model import BaseAction, Thread
from threadlab.formats.codex_exec.reading import AGENT, KEY
from threadlab.formats.codex_exec.wire import TOOL_ITEMS

NAME = "codex-exec"
_OWN_KINDS = {"command_execution": "command", "file_change": "changes", "web_search": "query", "todo_list": "items"}
_USAGE = (("input_tokens", "input_tokens"), ("cache_read_tokens", "cached_input_tokens"), ("cache_write_tokens", "cache_write_input_tokens"),
          ("output_tokens", "output_tokens"), ("thinking_tokens", "reasoning_output_tokens"))


def _memo(action: BaseAction) -> dict[str, Any]:
    value = (action.metadata or {}).get(KEY)
    return value if isinstance(value, dict) else {}


def _put(line: Any, path: list[str], value: Any) -> None:
    holder = line
    for key in path[:-1]:
        holder = holder.setdefault(key, {})
    holder[path[-1]] = value


def native_line(action: BaseAction, memo: dict[str, Any]) -> Any:
    """The line an action was read from, its values put back (None: the line is not there)."""
    if memo.get("system") or action.action_type in ("system.unknown_line", "system.unknown_item"):
        return getattr(action, "data", None)
    if not isinstance(memo.get("line"), dict):
        return None
    line = json_copy(memo["line"])
    for path, field, key in memo.get("slots") or []:
        value = getattr(action, field, None)
        if key is not None:
            if not isinstance(value, dict) or key not in value:
                continue  # the argument was removed: its field stays out of the line
            value = value[key]
        _put(line, path, value)
    return line


def write_stream(thread: Thread) -> bytes:
    native = bool(((thread.metadata or {}).get(KEY) or {}).get("generation"))
    writer = _EventWriter(thread)
    lines: list[Any] = []
    for action in thread.actions:
        memo = _memo(action)
        if memo.get("derived"):
            continue
        line = native_line(action, memo) if native else None
        if line is not None:
            lines.append(line)
        elif native:
            writer.lost[f"{action.action_type} actions added after reading"] += 1
        else:
            writer.action(action)
    lines = lines if native else writer.finish()
    report_loss(NAME, thread.thread_id, [f"{n} {what}" if n > 1 else what for what, n in sorted(writer.lost.items())])
    return b"".join(orjson.dumps(line) + b"\n" for line in lines)


class _EventWriter:
    """Thread events for a thread of another format."""

    def __init__(self, thread: Thread) -> None:
        self.thread = thread
        self.lines: list[Any] = [{"type": "thread.started", "thread_id": thread.thread_id}]
        self.lost: Counter[str] = Counter()
        self.turn: list[BaseAction] | None = None
        self.items = 0
        self.calls: dict[str, dict[str, Any]] = {}
        names = sorted({a.agent_name for a in thread.agents.values()})
        if names and names != [AGENT]:
            self.lost[f"agent names ({', '.join(names)}: the stream has one agent, {AGENT})"] += 1
        if thread.actions and (thread.metadata or {}).get("synthetic_timestamps") != len(thread.actions):
            self.lost["timestamps (the stream holds none)"] += 1

    def action(self, action: BaseAction) -> None:
        kind = action.action_type
        if kind == "user_message":
            self.close_turn()
            self.lost["user messages (the stream holds no prompt)"] += 1
            return
        if kind.startswith("system.") or kind not in ("assistant_message", "thinking", "tool_call", "tool_return"):
            self.lost[f"{kind} actions"] += 1
            return
        if self.turn is None:
            self.turn = []
            self.lines.append({"type": "turn.started"})
        self.turn.append(action)
        if kind in ("assistant_message", "thinking"):
            text = "".join(iter_text(getattr(action, "content", None)))
            item_type = "agent_message" if kind == "assistant_message" else "reasoning"
            self.lines.append({"type": "item.completed", "item": {"id": self.next_item(), "type": item_type, "text": text}})
        elif kind == "tool_call":
            self.call(action)
        else:
            self.tool_return(action)

    def next_item(self) -> str:
        self.items += 1
        return f"item_{self.items - 1}"

    def call(self, action: BaseAction) -> None:
        name, args, call_id = action.tool_name, action.args, action.tool_call_id  # type: ignore[attr-defined]
        field = _OWN_KINDS.get(name)
        if field is not None and isinstance(args, dict) and set(args) == set(TOOL_ITEMS[name][0]):
            item: dict[str, Any] = {"id": call_id, "type": name, field: args[field]}
            if name == "command_execution":
                item.update({"aggregated_output": "", "exit_code": None})
        else:
            item = {"id": call_id, "type": "mcp_tool_call", "server": "", "tool": name, "arguments": args, "result": None, "error": None}
            self.lost["tool calls written as MCP tool calls (the stream has no other generic tool item)"] += 1
        item["status"] = "in_progress"
        self.calls[call_id] = item
        self.lines.append({"type": "item.started", "item": item})

    def tool_return(self, action: BaseAction) -> None:
        call_id = action.tool_call_id  # type: ignore[attr-defined]
        if call_id not in self.calls:
            self.lost["tool returns without their call (an item is started by its call)"] += 1
        item = dict(self.calls.get(call_id) or {"id": call_id, "type": "mcp_tool_call", "server": "", "tool": action.tool_name,  # type: ignore[attr-defined]
                                                 "arguments": None, "result": None, "error": None})
        item[TOOL_ITEMS.get(item["type"], ((), "result"))[1]] = action.content  # type: ignore[attr-defined]
        item["status"] = "completed" if action.status == "success" else "failed"  # type: ignore[attr-defined]
        self.lines.append({"type": "item.completed", "item": item})

    def close_turn(self) -> None:
        if self.turn is None:
            return
        usages = [u for a in self.turn if (u := getattr(a, "usage", None)) is not None]
        line: dict[str, Any] = {"type": "turn.completed"}
        if usages:
            figures = [u if isinstance(u, dict) else u.model_dump(exclude_none=True) for u in usages]
            line["usage"] = {theirs: sum(f.get(ours) or 0 for f in figures) for ours, theirs in _USAGE}
            if len(usages) > 1:
                self.lost["usage per model response (a turn's usage is one figure)"] += 1
            if any(f.get("total_tokens") for f in figures):
                self.lost["total token counts"] += 1
        self.lines.append(line)
        self.turn = None

    def finish(self) -> list[Any]:
        self.close_turn()
        return self.lines
