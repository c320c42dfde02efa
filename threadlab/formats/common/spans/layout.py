"""Thread → the spans a span writer writes, independent of the wire (``otel`` writes them as
OTLP JSON in the GenAI conventions, ``openai-agents-trace`` as the Agents SDK's span objects).

Each agent's actions make runs: a run starts at the agent's first action and at each of its
``system.agent_join`` actions (a delegated run goes under the tool span of the call that
started it). In a run, each maximal group of the agent's own outputs (thinking, messages, tool
calls) is one model call whose input is the run's history so far; each answered tool call is a
tool span from the call to the return; each ``system.handoff`` a handoff span. Messages are in
the GenAI conventions' shape (``{role, parts}``), which each writer converts."""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from threadlab.core.canonical import model_to_dict
from threadlab.core.model import Thread, Usage
from threadlab.core.timefmt import unix_nanos

_OUTPUT = ("assistant_message", "thinking", "tool_call")


def nanos(moment: datetime) -> int:
    return unix_nanos(moment)


@dataclass
class ModelStep:
    span_id: str
    start: datetime
    end: datetime
    history: list[dict[str, Any]]
    output: dict[str, Any]
    usage: Usage | None
    model: str | None
    provider: str | None


@dataclass
class ToolStep:
    span_id: str
    call: Any
    ret: Any


@dataclass
class HandoffStep:
    span_id: str
    at: datetime
    from_name: str
    to_name: str


@dataclass
class Run:
    agent_id: str
    name: str
    span_id: str
    parent: str | None
    system: list[str]
    actions: list[Any] = field(default_factory=list)
    steps: list[Any] = field(default_factory=list)

    @property
    def start(self) -> datetime:
        return min(a.timestamp for a in self.actions)

    @property
    def end(self) -> datetime:
        return max(a.timestamp for a in self.actions)


class Layout:
    def __init__(self, thread: Thread) -> None:
        self.thread = thread
        self.n = 0
        self.calls: dict[str, Any] = {}
        self.tool_spans: dict[str, str] = {}
        self.runs: list[Run] = []
        self._split()
        for run in self.runs:
            self._steps(run)

    def span_id(self) -> str:
        self.n += 1
        return hashlib.sha256(f"{self.thread.thread_id}:{self.n}".encode()).hexdigest()[:16]

    def agent_of(self, action: Any) -> str | None:
        agent = getattr(action, "agent_id", None)
        if agent is None and action.action_type == "user_message":
            agent = (action.metadata or {}).get("to_agent_id")
        if agent is None and action.action_type == "tool_return":
            call = self.calls.get(action.tool_call_id)
            agent = call.agent_id if call is not None else None
        if agent is None and action.action_type == "system.agent_join" and isinstance(getattr(action, "data", None), Mapping):
            agent = action.data.get("agent_id")
        return agent or next(iter(self.thread.agents), None) or "assistant"

    def _split(self) -> None:
        current: dict[str, Run] = {}
        for action in self.thread.actions:
            if action.action_type == "tool_call":
                self.calls[action.tool_call_id] = action
                self.tool_spans[action.tool_call_id] = self.span_id()
            agent = self.agent_of(action)
            join = action.action_type == "system.agent_join"
            if agent not in current or join:
                data = action.data if join and isinstance(action.data, Mapping) else {}
                parent_call = data.get("tool_call_id") or (action.metadata or {}).get("parent_tool_call_id")
                config = self.thread.agents.get(agent)
                system = list((config.metadata or {}).get("system_instructions") or []) if config else []
                run = Run(agent, config.agent_name if config else agent, self.span_id(),
                          self.tool_spans.get(parent_call) if parent_call else None, system)
                self.runs.append(run)
                current[agent] = run
            current[agent].actions.append(action)

    def _steps(self, run: Run) -> None:
        history: list[dict[str, Any]] = []
        pending: list[Any] = []
        group: list[Any] = []
        for action in [*run.actions, None]:
            if action is not None and action.action_type in _OUTPUT and getattr(action, "agent_id", None) == run.agent_id:
                group.append(action)
                continue
            if group:
                run.steps.append(self._model_step(history, pending, group))
                pending, group = [], []
            if action is None:
                break
            if action.action_type == "system.handoff" and isinstance(action.data, Mapping):
                names = [self.thread.agent_name(action.data.get(k)) or str(action.data.get(k)) for k in ("from_agent_id", "to_agent_id")]
                run.steps.append(HandoffStep(self.span_id(), action.timestamp, *names))
            elif action.action_type in ("user_message", "tool_return"):
                pending.append(action)
                history.append(message(action))
                call = self.calls.get(action.tool_call_id) if action.action_type == "tool_return" else None
                if call is not None:
                    run.steps.append(ToolStep(self.tool_spans[call.tool_call_id], call, action))

    def _model_step(self, history: list[dict[str, Any]], pending: list[Any], group: list[Any]) -> ModelStep:
        output = response(group)
        end = next((a.timestamp for a in group if a.action_type != "tool_call"), group[0].timestamp)
        start = min([a.timestamp for a in pending] or [end])
        meta = next((a.metadata for a in group if a.metadata), None) or {}
        usage = next((a.usage for a in group if getattr(a, "usage", None) is not None), None)
        if isinstance(usage, Mapping):  # kept as a plain object on an action of another format
            usage = Usage.model_validate(usage)
        step = ModelStep(self.span_id(), start, end, list(history), output, usage, meta.get("model_name"), meta.get("provider_name"))
        history.append(output)
        return step


def plain(value: Any) -> Any:
    if hasattr(value, "model_dump"):
        return model_to_dict(value)
    if isinstance(value, list):
        return [plain(v) for v in value]
    if isinstance(value, dict):
        return {k: plain(v) for k, v in value.items()}
    return value


def parts(content: Any) -> list[dict[str, Any]]:
    if isinstance(content, str):
        return [{"type": "text", "content": content}]
    out = []
    for part in content or []:
        raw = plain(part)
        if raw.get("type") == "text":
            out.append({"type": "text", "content": raw.get("text", "")})
        elif raw.get("content_type") == "url":
            out.append({"type": "uri", "uri": raw.get("url"), "mime_type": raw.get("media_type"), "modality": raw.get("media_category")})
        elif raw.get("content_type") == "binary":
            out.append({"type": "blob", "content": raw.get("data"), "mime_type": raw.get("media_type"), "modality": raw.get("media_category")})
        elif raw.get("type") == "image" and raw.get("image_url"):
            out.append({"type": "image_url", "image_url": {"url": raw["image_url"]}})
        else:
            out.append(raw)
    return out


def message(action: Any) -> dict[str, Any]:
    if action.action_type == "user_message":
        return {"role": "user", "parts": parts(action.content)}
    return {"role": "tool", "parts": [{"type": "tool_call_response", "id": action.tool_call_id, "name": action.tool_name,
                                       "result": plain(action.content)}]}


def response(group: list[Any]) -> dict[str, Any]:
    out: list[dict[str, Any]] = []
    finish = None
    for action in group:
        if action.action_type == "thinking":
            out.append({"type": "reasoning", "content": action.content or ""})
        elif action.action_type == "assistant_message":
            out += parts(action.content)
            finish = action.finish_reason or finish
        else:
            out.append({"type": "tool_call", "id": action.tool_call_id, "name": action.tool_name, "arguments": plain(action.args)})
    msg: dict[str, Any] = {"role": "assistant", "parts": out}
    if finish:
        msg["finish_reason"] = finish
    return msg
