"""Thread → session trace lines (the inverse of ``reading``).

A user message is a ``user`` line, a ``system.message`` a ``system`` one, a tool return a
``tool`` line; an agent's turn (its reasoning, its text, its calls, until a return, a second
text or reasoning, or another agent) one ``assistant`` line. Text parts are joined (the format's
content is text); other actions have no line. A thread read from a session trace is written from
what its actions kept (``metadata["sts"]``), so it comes back as it came."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import orjson

from threadlab.core.derive import iter_text
from threadlab.core.loss import nothing_to_write
from threadlab.core.model import Thread
from threadlab.formats.sts.reading import META, dump_arguments, render_time

_ORDER = ("role", "content", "reasoningContent", "toolCalls", "toolCallId", "timestamp", "model")


def _text(content: Any) -> str:
    if content is None or isinstance(content, str):
        return content or ""
    if isinstance(content, list):
        return "".join(iter_text(content))
    return orjson.dumps(content, default=str).decode()


def _own(action: Any) -> dict[str, Any]:
    own = (action.metadata or {}).get(META)
    return dict(own) if isinstance(own, Mapping) else {}


class _Line:
    def __init__(self, role: str, action: Any, own: dict[str, Any]) -> None:
        self.message: dict[str, Any] = {"role": role}
        self.rest = dict(own.get("line") or {})
        self.absent = list(own.get("line_absent") or [])
        self.envelope = dict(own.get("envelope") or {})
        self.when = action.timestamp
        self.agent = getattr(action, "agent_id", None)
        self.model = (action.metadata or {}).get("model_name")

    def free_for(self, kind: str, agent: Any) -> bool:
        m = self.message
        if m["role"] != "assistant" or agent != self.agent:
            return False
        if kind == "thinking":
            return "reasoningContent" not in m and "content" not in m and "toolCalls" not in m
        if kind == "assistant_message":
            return "content" not in m and "toolCalls" not in m
        return True

    def dict(self, synthetic: bool) -> dict[str, Any]:
        m = dict(self.message)
        m.setdefault("content", "")
        if not synthetic:
            m["timestamp"] = render_time(self.when)
        if isinstance(self.model, str):
            m["model"] = self.model
        m.update(self.rest)
        for key in self.absent:
            m.pop(key, None)
        m = {**{k: m[k] for k in _ORDER if k in m}, **{k: v for k, v in m.items() if k not in _ORDER}}
        return {"type": "message", "message": m, **self.envelope}


def to_sts_lines(thread: Thread) -> list[dict[str, Any]]:
    from_sts = isinstance((thread.metadata or {}).get(META), Mapping)
    header = (thread.metadata or {})[META].get("session") if from_sts else None
    if not isinstance(header, Mapping):
        first = next((a.agent_id for a in thread.actions if isinstance(getattr(a, "agent_id", None), str)), None)
        harness = thread.agents[first].agent_name if first in thread.agents else "threadlab"
        header = {"type": "session", "harness": harness, "id": thread.thread_id, **({"name": thread.title} if thread.title else {})}
    lines: list[_Line] = []
    for action in thread.actions:
        own = _own(action)
        kind = action.action_type
        marked = "line" in own
        current = lines[-1] if lines else None
        if kind in ("thinking", "assistant_message", "tool_call"):
            if marked or current is None or not current.free_for(kind, action.agent_id):
                lines.append(_Line("assistant", action, own))
            line = lines[-1]
            if kind == "thinking":
                line.message["reasoningContent"] = action.content or ""
            elif kind == "assistant_message":
                line.message["content"] = _text(action.content)
            else:
                line.message.setdefault("toolCalls", []).append(_call(action, own))
        elif kind in ("user_message", "system.message", "tool_return", "system.tool_message"):
            role = {"user_message": "user", "system.message": "system"}.get(kind, "tool")
            lines.append(_Line(role, action, own))
            data = getattr(action, "data", None)
            content = action.content if kind in ("user_message", "tool_return") else data.get("content") if isinstance(data, Mapping) else None
            lines[-1].message["content"] = _text(content)
            if role == "tool":
                lines[-1].message["toolCallId"] = action.tool_call_id if kind == "tool_return" else data.get("toolCallId")  # type: ignore[union-attr]
        elif kind == "system.unknown_part" and isinstance(getattr(action, "data", None), Mapping) and "tool_call" in action.data and current is not None:
            current.message.setdefault("toolCalls", []).append(action.data["tool_call"])
        elif kind == "system.unknown_line" and isinstance(getattr(action, "data", None), Mapping) and "line" in action.data:
            lines.append(_Line("raw", action, {}))
            lines[-1].envelope = {"raw": action.data["line"]}
    if not lines:
        raise nothing_to_write("hf-session-trace", thread)
    synthetic = bool((thread.metadata or {}).get("synthetic_timestamps")) and from_sts
    return [dict(header), *(line.envelope["raw"] if line.message["role"] == "raw" else line.dict(synthetic and "timestamp" in line.absent) for line in lines)]


def _call(action: Any, own: dict[str, Any]) -> dict[str, Any]:
    arguments = action.args if own.get("raw_arguments") else own.get("arguments", dump_arguments(action.args))
    function = {"name": action.tool_name, "arguments": arguments, **(own.get("function") or {})}
    if "arguments" in (own.get("absent") or []):
        del function["arguments"]
    skip = {"raw_arguments", "arguments", "function", "absent", "line", "line_absent", "envelope"}
    return {"id": action.tool_call_id, "function": function, **{k: v for k, v in own.items() if k not in skip}}
