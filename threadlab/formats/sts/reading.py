"""Session trace lines → Thread.

The header gives the thread's id (``id``) and title (``name``) and its agent (the ``harness``);
a ``user`` message is a ``user_message``, a ``system`` one a ``system.message``
``{role, content}``; an ``assistant`` message is, in order, ``thinking`` (``reasoningContent``),
the ``assistant_message`` (left out when empty beside reasoning or calls) and a ``tool_call`` per
``toolCalls`` entry (``arguments``, a JSON string, parsed; a string that is no JSON kept as it
is); a ``tool`` message is the ``tool_return`` of the call its ``toolCallId`` names. ``timestamp``
(epoch milliseconds) is the message's time, ``model`` each agent action's ``metadata.model_name``.
Whatever else a line holds is kept under ``metadata["sts"]`` of its first action, so it is
written back as it came."""

from __future__ import annotations

import json
from collections.abc import Mapping
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import orjson

from threadlab.core.builder import ThreadBuilder
from threadlab.core.model import CORE_ACTION_TYPES, Thread
from threadlab.core.problems import short
from threadlab.formats.common.json_lines import parsed_lines, with_edges
from threadlab.formats.common.source import Source

META = "sts"
ROLES = ("user", "assistant", "system", "tool")
_MESSAGE = ("role", "content", "reasoningContent", "toolCalls", "toolCallId", "timestamp", "model")


def is_header(obj: Any) -> bool:
    return isinstance(obj, Mapping) and obj.get("type") == "session" and isinstance(obj.get("harness"), str) and "id" in obj


def read_session(source: Source) -> Thread:
    opening = next(with_edges(source.lines()), None)
    first = _parse(opening.line) if opening is not None else None
    header = first if is_header(first) else None
    name = source.path.name if source.path is not None else source.name
    default = None if not name or name.startswith("<") else Path(name).name.split(".")[0]
    thread_id = str(header["id"]) if header is not None else default or "session"
    title = header.get("name") if header is not None and isinstance(header.get("name"), str) else ""
    builder = ThreadBuilder(thread_id, title=title, metadata={META: {"session": header}} if header is not None else None, source=source.name)
    agent = builder.agent(header["harness"] if header is not None else "assistant")
    reader = _Lines(builder, agent)
    for number, obj in parsed_lines(source, builder):  # a torn first or last line is a ``truncated`` problem
        if header is not None and opening is not None and number == opening.number:
            builder.took()
            continue
        reader.line(number, obj)
    if opening is not None and not any(a.action_type in CORE_ACTION_TYPES for a in builder.actions):
        builder.problem("no-actions", "its lines give no message, thinking, tool call or return")
    if header is None and opening is not None:
        builder.problem("format", "its first line is no session header ({type: \"session\", harness, id})", line=opening.number)
    return builder.build()


def _parse(raw: bytes) -> Any:
    try:
        return orjson.loads(raw)
    except orjson.JSONDecodeError:
        return None


def _time(value: Any) -> datetime | None:
    if isinstance(value, int | float) and not isinstance(value, bool):
        try:
            return datetime.fromtimestamp(value / 1000, UTC)
        except (OverflowError, OSError, ValueError):
            return None
    return None


def render_time(moment: datetime) -> int:
    return round(moment.timestamp() * 1000)


def dump_arguments(args: Any) -> str:
    """Arguments as the JSON string a tool call holds (OpenAI's spacing)."""
    return json.dumps(args, ensure_ascii=False)


class _Lines:
    def __init__(self, builder: ThreadBuilder, agent: str) -> None:
        self.b, self.agent = builder, agent
        self.calls: dict[str, str] = {}

    def line(self, number: int, obj: Any) -> None:
        message = obj.get("message") if isinstance(obj, Mapping) else None
        if not (isinstance(obj, Mapping) and obj.get("type") == "message" and isinstance(message, Mapping) and message.get("role") in ROLES):
            self.b.kept("unknown-type", f"line {number} is no message line of a role the format names ({short(obj)}); kept as system.unknown_line", line=number)
            self.b.add("system.unknown_line", data={"line": obj})
            return
        _Message(self, obj, message, number).read()


class _Message:
    def __init__(self, lines: _Lines, envelope: Mapping[str, Any], message: Mapping[str, Any], number: int) -> None:
        self.lines, self.b, self.message, self.number = lines, lines.b, message, number
        self.rest: dict[str, Any] = {k: v for k, v in message.items() if k not in _MESSAGE}
        self.envelope = {k: v for k, v in envelope.items() if k not in ("type", "message")}
        self.when = _time(message.get("timestamp"))
        if "timestamp" in message and (self.when is None or render_time(self.when) != message["timestamp"] or type(message["timestamp"]) is not int):
            self.rest["timestamp"] = message["timestamp"]
        self.absent = [k for k in ("timestamp", "content") if k not in message]
        self.model = message.get("model")
        if "model" in message and not isinstance(self.model, str):
            self.rest["model"] = message["model"]
        self.actions: list[Any] = []
        self.odd: list[tuple[str, str]] = []

    def add(self, kind: str, meta: dict[str, Any] | None = None, **fields: Any) -> None:
        metadata = dict(meta or {})
        if kind in ("assistant_message", "thinking", "tool_call") and isinstance(self.model, str):
            metadata["model_name"] = self.model
        self.actions.append(self.b.add(kind, timestamp=self.when, metadata=metadata or None, **fields))

    def content(self) -> Any:
        content = self.message.get("content")
        if content is None or isinstance(content, str):
            return content if content is not None else ""
        self.rest["content"] = content
        self.odd.append(("schema", f"line {self.number} has content {short(content)}, not text; kept as it came"))
        return orjson.dumps(content).decode()

    def read(self) -> None:
        role = self.message["role"]
        if role == "user":
            self.add("user_message", content=self.content())
        elif role == "system":
            self.add("system.message", data={"role": "system", "content": self.content()})
        elif role == "tool":
            self.tool()
        else:
            self.assistant()
        self.settle()

    def assistant(self) -> None:
        reasoning = self.message.get("reasoningContent")
        if isinstance(reasoning, str):
            self.add("thinking", agent_id=self.lines.agent, content=reasoning, provider_name="sts")
        elif reasoning is not None:
            self.rest["reasoningContent"] = reasoning
        calls = self.message.get("toolCalls")
        content = self.content()
        if content != "" or not (calls or isinstance(reasoning, str)) or self.rest.get("content") is not None:
            self.add("assistant_message", agent_id=self.lines.agent, content=content)
        if calls is None:
            return
        if not isinstance(calls, list):
            self.rest["toolCalls"] = calls
            self.odd.append(("schema", f"line {self.number} has toolCalls {short(calls)}, not a list; kept as it came"))
            return
        for call in calls:
            function = call.get("function") if isinstance(call, Mapping) else None
            if not (isinstance(call.get("id"), str) and isinstance(function, Mapping) and isinstance(function.get("name"), str)):  # type: ignore[union-attr]
                self.odd.append(("missing-id", f"line {self.number} has a tool call without an id or function name ({short(call)}); kept as it came"))
                self.add("system.unknown_part", data={"tool_call": call})
                continue
            kept = {k: v for k, v in call.items() if k not in ("id", "function")}
            extra = {k: v for k, v in function.items() if k not in ("name", "arguments")}
            if extra:
                kept["function"] = extra
            raw = function.get("arguments")
            args: Any = raw
            if isinstance(raw, str):
                try:
                    args = json.loads(raw)
                except ValueError:
                    kept["raw_arguments"] = True
                else:
                    if dump_arguments(args) != raw:
                        kept["arguments"] = raw
            else:
                kept["raw_arguments"] = True
            if "arguments" not in function:
                kept["absent"] = ["arguments"]
            self.lines.calls[call["id"]] = function["name"]
            self.add("tool_call", meta={META: kept} if kept else None, agent_id=self.lines.agent, tool_name=function["name"], tool_call_id=call["id"], args=args)

    def tool(self) -> None:
        call_id = self.message.get("toolCallId")
        content = self.content()
        if isinstance(call_id, str) and call_id in self.lines.calls:
            self.add("tool_return", tool_call_id=call_id, tool_name=self.lines.calls[call_id], content=content)
            return
        self.odd.append(("unknown-id", f"line {self.number} answers tool call {short(call_id)}, which no earlier message made; kept as system.tool_message"))
        self.add("system.tool_message", data={"toolCallId": call_id, "content": content})

    def settle(self) -> None:
        first = self.actions[0]
        own = dict((first.metadata or {}).get(META) or {})
        own["line"] = self.rest
        if self.envelope:
            own["envelope"] = self.envelope
        if self.absent:
            own["line_absent"] = self.absent
        first.metadata = {**(first.metadata or {}), META: own}
        if self.odd:
            for rule, text in self.odd[1:]:
                self.b.problem(rule, text, line=self.number)
            self.b.kept(*self.odd[0], line=self.number)
        else:
            self.b.took()
