"""``codex exec --json`` output → one thread (see ``wire.py`` for the two generations).

Every line is one record and becomes one action, so the writer can give the stream back line
for line: a core action (message, thinking, tool call or return) keeps, in
``metadata["codex_exec"]``, its line with the values the action holds taken out (``line``) and
where they go back (``slots``); every other line is a ``system.<event>`` action holding the line.
Lines that repeat another's content (``item.updated``, ``exec_command_output_delta``) stay system
actions, so the transcript shows each output once.

Tool calls are named by what Codex did: ``command_execution`` (shell commands), ``file_change``
(patches), ``web_search``, ``todo_list``, and an MCP tool by its own name. Usage: the thread
events give a turn's usage once, for all its model calls together: it goes on the turn's last
assistant message (else its first model action); the protocol events give each model response's
usage (``token_count``), which goes on that response's message (else its first action).
``turn.completed``'s usage is not the turn's own but Codex's running total for the session (the
exec JSON writer fills it from the last ``token_count``'s ``total_token_usage``): a turn's row is
what it adds to the previous turn's figure in the stream, and the last figure is the thread's
``metadata.usage_total`` (``codex/usage.py``). The first turn of a resumed or forked session
therefore counts the turns before it, which the stream cannot tell apart. The
model and provider are in the protocol generation's first line only; Codex's default provider
(``openai``) stands in when the stream does not name one."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from threadlab.core.builder import ThreadBuilder, slug
from threadlab.core.canonical import json_copy
from threadlab.core.model import BaseAction, Thread, Usage
from threadlab.formats.codex.usage import TokenTotals
from threadlab.formats.codex.wire import TokenUsage
from threadlab.formats.codex_exec.wire import (
    BEGIN_EVENTS,
    END_EVENTS,
    TOOL_ITEMS,
    exit_status,
    is_config_line,
    is_prompt_line,
    is_protocol_event,
    is_thread_event,
)
from threadlab.formats.common.counts import counts_of
from threadlab.formats.common.json_lines import parsed_lines
from threadlab.formats.common.source import Source

KEY = "codex_exec"
AGENT = "Codex"
MODEL_OUTPUTS = ("assistant_message", "thinking", "tool_call")
_USAGE = {"input_tokens": "input_tokens", "cached_input_tokens": "cache_read_tokens", "cache_write_input_tokens": "cache_write_tokens",
          "output_tokens": "output_tokens", "reasoning_output_tokens": "thinking_tokens", "total_tokens": "total_tokens"}


def usage_fields(figures: Any, problems: list[str] | None = None) -> dict[str, int] | None:
    """Codex's token figures as ThreadProtocol usage (zero cache and reasoning counts left out;
    ``counts.count_of``: a float that is a whole number is a count, any other value a phrase in
    ``problems``)."""
    if not isinstance(figures, dict):
        return None
    found = counts_of({theirs: figures.get(theirs) for theirs in _USAGE}, problems if problems is not None else [], "usage.")
    out = {ours: found[theirs] for theirs, ours in _USAGE.items() if theirs in found}
    return {k: v for k, v in out.items() if v or k in ("input_tokens", "output_tokens", "total_tokens")} or None


def _take(line: dict[str, Any], path: tuple[str, ...]) -> Any:
    """The value at ``path`` in ``line``, removed from it (the line is a copy the reader keeps)."""
    holder = line
    for key in path[:-1]:
        holder = holder[key]
    return holder.pop(path[-1], None)


class StreamReader:
    def __init__(self, source: Source) -> None:
        self.source = source
        self.b = ThreadBuilder(None, source=source.name)
        self.agent_id = self.b.agent(AGENT, agent_id="codex")
        self.model: str | None = None
        self.provider = "openai"
        self.thread_id: str | None = None
        self.generation: str | None = None
        self.calls: dict[str, str] = {}  # call id → tool name
        self.turn: list[BaseAction] = []  # model outputs since the turn (thread events) or response (protocol events) began
        self.totals = TokenTotals()
        self.running: dict[str, int] | None = None  # the last turn.completed figures, as Codex's keys

    def read(self) -> Thread:
        for number, obj in parsed_lines(self.source, self.b):
            self.line(obj, number)
        provisional, self.b.thread_id = self.b.thread_id, self.thread_id or _stem(self.source)
        self.b.problems = [p if p.thread_id != provisional else replace(p, thread_id=self.b.thread_id) for p in self.b.problems]
        self.b.metadata[KEY] = {"generation": self.generation or "thread-events"}
        total = self.totals.total()
        if total is not None:
            self.b.metadata["usage_total"] = total
            if self.totals.note():
                self.b.metadata["usage_total_note"] = self.totals.note()
        return self.b.build()

    def line(self, obj: Any, number: int) -> None:
        if is_thread_event(obj):
            self.generation = self.generation or "thread-events"
            self.thread_event(obj, number)
        elif is_protocol_event(obj):
            self.generation = self.generation or "protocol-events"
            self.protocol_event(obj, number)
        elif is_config_line(obj):
            self.generation = self.generation or "protocol-events"
            self.model = obj["model"]
            self.provider = obj.get("provider") or self.provider
            self.b.agent(AGENT, agent_id=self.agent_id, metadata={"model_name": self.model, "provider_name": self.provider})
            self.system("config", obj)
        elif is_prompt_line(obj):
            self.b.add("user_message", content=obj["prompt"], metadata={KEY: {"line": {}, "slots": [[["prompt"], "content", None]]}})
            self.b.took()
        else:
            what = type(obj).__name__ if not isinstance(obj, dict) else f"an object with keys {', '.join(list(obj)[:5])}"
            self.b.kept("unknown-type", f"line {number} is {what}, no codex exec event; kept as system.unknown_line", line=number)
            self.b.add("system.unknown_line", data=obj)

    # --- thread events -----------------------------------------------------------------------
    def thread_event(self, obj: dict[str, Any], number: int) -> None:
        kind = obj["type"]
        item = obj.get("item")
        if kind == "thread.started" and isinstance(obj.get("thread_id"), str):
            self.thread_id = obj["thread_id"]
        if kind == "turn.started":
            self.turn = []
        if kind in ("item.started", "item.completed") and isinstance(item, dict) and isinstance(item.get("type"), str):
            if self.item(kind, obj, item, number):
                return
        action = self.system(slug(kind.replace(".", "_")), obj)
        if kind == "turn.completed":
            self.give_usage(self.turn_usage(self.figures(obj.get("usage"), number), number), action, whole_turn=True)

    def item(self, kind: str, obj: dict[str, Any], item: dict[str, Any], number: int) -> bool:
        """A message, reasoning or tool item as its core action; False when the line stays a
        system action (an item started that is no tool call, an error item); an unknown item type
        is kept with a problem."""
        line = json_copy(obj)
        item_type, item_id = item["type"], item.get("id")
        if item_type in ("agent_message", "reasoning"):
            if kind == "item.started":
                return False
            if not isinstance(item.get("text"), str):
                self.b.kept("schema", f"line {number}: {item_type} item with no text; kept as system.unknown_item", line=number)
                self.b.add("system.unknown_item", data=obj, metadata={KEY: {"line_type": kind}})
                return True
            text = _take(line, ("item", "text"))
            slots = [[["item", "text"], "content", None]]
            if item_type == "agent_message":
                self.output("assistant_message", line, slots, content=text)
            else:
                self.output("thinking", line, slots, content=text, provider_name=self.provider)
            return True
        if item_type not in TOOL_ITEMS or not isinstance(item_id, str):
            if item_type == "error":
                return False
            self.b.kept("unknown-type", f"line {number}: item of type {item_type!r} is not one threadlab maps; kept as system.unknown_item", line=number)
            self.b.add("system.unknown_item", data=obj, metadata={KEY: {"line_type": kind}})
            return True
        arg_fields, content_field = TOOL_ITEMS[item_type]
        name = item["tool"] if item_type == "mcp_tool_call" and isinstance(item.get("tool"), str) else item_type
        if kind == "item.started" or item_id not in self.calls:
            started = kind == "item.started"
            args = item.get("arguments") if item_type == "mcp_tool_call" else {f: item.get(f) for f in arg_fields}
            call_line = line if started else None
            slots = []
            if started:
                slots = [[["item", "arguments"], "args", None]] if item_type == "mcp_tool_call" else [[["item", f], "args", f] for f in arg_fields]
                for path, _, _ in slots:
                    _take(line, tuple(path))
            self.calls[item_id] = name
            self.output("tool_call", call_line, slots, tool_name=name, tool_call_id=item_id, args=args)
            if started:
                return True
        content = _take(line, ("item", content_field))
        self.b.add("tool_return", tool_call_id=item_id, tool_name=self.calls[item_id], content=content, status=exit_status(item),
                   metadata={KEY: {"line": line, "slots": [[["item", content_field], "content", None]]}})
        self.b.took()
        return True

    # --- protocol events ---------------------------------------------------------------------
    def protocol_event(self, obj: dict[str, Any], number: int) -> None:
        msg = obj["msg"]
        kind = msg["type"]
        line = json_copy(obj)
        call_id = msg.get("call_id")
        text_field = "message" if kind == "agent_message" else "text"
        if kind in ("agent_message", "agent_reasoning") and isinstance(msg.get(text_field), str):
            _take(line, ("msg", text_field))
            slots = [[["msg", text_field], "content", None]]
            if kind == "agent_message":
                self.output("assistant_message", line, slots, content=msg[text_field])
            else:
                self.output("thinking", line, slots, content=msg[text_field], provider_name=self.provider)
        elif (kind in BEGIN_EVENTS or kind == "mcp_tool_call_begin") and isinstance(call_id, str):
            if kind == "mcp_tool_call_begin":
                invocation = msg.get("invocation") if isinstance(msg.get("invocation"), dict) else {}
                name, args, slots = str(invocation.get("tool") or "mcp_tool_call"), invocation.get("arguments"), [[["msg", "invocation", "arguments"], "args", None]]
                if "arguments" in invocation:
                    _take(line, ("msg", "invocation", "arguments"))
                else:
                    slots = []
            else:
                name, fields = BEGIN_EVENTS[kind]
                args = {f: msg[f] for f in fields if f in msg}
                slots = [[["msg", f], "args", f] for f in args]
                for f in args:
                    _take(line, ("msg", f))
            self.calls[call_id] = name
            self.output("tool_call", line, slots, tool_name=name, tool_call_id=call_id, args=args)
        elif kind in END_EVENTS and isinstance(call_id, str):
            field = END_EVENTS[kind]
            if call_id not in self.calls:  # an end without its begin: the call is known from the end only
                self.calls[call_id] = "web_search" if kind == "web_search_end" else kind.removesuffix("_end")
                self.output("tool_call", None, [], tool_name=self.calls[call_id], tool_call_id=call_id, args=None)
            content = _take(line, ("msg", field))
            self.b.add("tool_return", tool_call_id=call_id, tool_name=self.calls[call_id], content=content, status=exit_status(msg),
                       metadata={KEY: {"line": line, "slots": [[["msg", field], "content", None]]}})
            self.b.took()
        else:
            action = self.system(slug(kind), obj)
            if kind == "token_count":
                info = msg.get("info")
                if isinstance(info, dict) and isinstance(info.get("total_token_usage"), dict):
                    self.count_total(info["total_token_usage"], info.get("last_token_usage"), number)
                figures = info.get("last_token_usage") if isinstance(info, dict) else msg
                self.give_usage(self.figures(figures, number), action, whole_turn=False)
                self.turn = []

    # --- shared ------------------------------------------------------------------------------
    def output(self, action_type: str, line: dict[str, Any] | None, slots: list[Any], **fields: Any) -> None:
        """A model output (message, thinking, tool call); ``line`` None: derived from another
        line (a tool item completed with no start seen), not written back."""
        meta: dict[str, Any] = {KEY: {"line": line, "slots": slots} if line is not None else {"derived": True}}
        if self.model:
            meta["model_name"] = self.model
        meta["provider_name"] = self.provider
        action = self.b.add(action_type, agent_id=self.agent_id, metadata=meta, **fields)
        self.turn.append(action)
        if line is not None:
            self.b.took()

    def system(self, name: str, obj: Any) -> BaseAction:
        action = self.b.add(f"system.{name}", data=obj, metadata={KEY: {"system": True}})
        self.b.took()
        return action

    def turn_usage(self, fields: dict[str, int] | None, number: int) -> dict[str, int] | None:
        """A turn's own usage: what its ``turn.completed`` running total adds to the previous
        one's (all of it for the first, or where the total started again from zero)."""
        if not fields:
            return fields
        running = {theirs: fields.get(ours, 0) for theirs, ours in _USAGE.items()}
        running["total_tokens"] = fields.get("total_tokens") or running["input_tokens"] + running["output_tokens"]
        before = self.running
        grew = before is not None and all(running[k] >= before[k] for k in running)
        delta = {k: running[k] - before[k] for k in running} if grew and before is not None else running
        self.running = running
        self.totals.add(TokenUsage(**running), TokenUsage(**delta), number)
        if not grew:
            return fields
        return {ours: delta[theirs] for theirs, ours in _USAGE.items() if ours in fields}

    def count_total(self, total: dict[str, Any], last: Any, number: int) -> None:
        """A protocol ``token_count``'s running total (figures that do not read are left out)."""
        try:
            self.totals.add(TokenUsage.model_validate(total), TokenUsage.model_validate(last) if isinstance(last, dict) else None, number)
        except ValidationError:
            return

    def figures(self, value: Any, line: int) -> dict[str, int] | None:
        """The line's token figures as usage; a figure that is no count is a ``usage`` problem."""
        problems: list[str] = []
        fields = usage_fields(value, problems)
        for phrase in problems:
            self.b.problem("usage", f"line {line}: {phrase}", line=line)
        return fields

    def give_usage(self, fields: dict[str, int] | None, action: BaseAction, *, whole_turn: bool) -> None:
        """Usage once: on the turn's last message (thread events: the turn's total) or the
        response's first message (protocol events), else its first model action, else on the
        event's own action."""
        if not fields:
            return
        messages = [a for a in self.turn if a.action_type == "assistant_message"]
        target = (messages[-1] if whole_turn else messages[0]) if messages else (self.turn[0] if self.turn else None)
        if target is None:
            action.usage = fields  # type: ignore[attr-defined]
            action.agent_id = self.agent_id  # type: ignore[attr-defined]
        elif target.action_type in ("assistant_message", "thinking"):
            target.usage = Usage(**fields)  # type: ignore[attr-defined]
        else:
            target.usage = fields  # type: ignore[attr-defined]


def _stem(source: Source) -> str:
    return Path(source.name).stem if source.name and not source.name.startswith("<") else "codex-exec"


def read_stream(source: Source) -> Thread:
    return StreamReader(source).read()
