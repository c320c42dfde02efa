"""Who acted: Claude Code's main session agent and its subagents.

A subagent is known from its transcript file (``subagents/agent-<id>.jsonl`` with a
``.meta.json`` sidecar in 2.1, ``agent-<id>.jsonl`` beside the session before), from inline
``isSidechain`` lines of the session file, or (stream-json) from a ``system/task_started`` line
and the ``parent_tool_use_id`` of the lines it produced. Each becomes an agent of the session's
thread, joined (``system.agent_join``) before its first action and linked to the Agent/Task
tool call that launched it (``metadata.parent_tool_call_id``)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

from threadlab.core.builder import ThreadBuilder, slug
from threadlab.formats.claude.wire import Entry

if TYPE_CHECKING:
    from threadlab.core.model import BaseAction


class Converter(Protocol):
    """What the agents ask of the converter feeding them (``convert.Converter``): adding an
    action and a line's own fields (declared here so that agents.py does not import convert.py,
    which imports it)."""

    def emit(self, kind: str, entry: Entry | None, meta: dict[str, Any] | None, **fields: Any) -> BaseAction: ...

    def own(self, entry: Entry, drop: tuple[str, ...]) -> dict[str, Any]: ...

MAIN_AGENT = "main"


@dataclass(slots=True)
class SubagentInfo:
    """What is known of a subagent before its lines are read: its sidecar (``meta``: the
    ``.meta.json`` or an inline ``agent_metadata`` entry) and the launching call's input."""

    agent_type: str | None = None
    description: str | None = None
    model: str | None = None
    name: str | None = None
    meta: dict[str, Any] | None = None
    parent: str | None = None  # the agent that launched it, when another subagent did

    def label(self) -> str:
        kind = self.agent_type or "subagent"
        return self.name or (f"{kind}: {self.description}" if self.description else kind)


@dataclass(slots=True)
class Agents:
    b: ThreadBuilder
    known: dict[str, SubagentInfo] = field(default_factory=dict)
    links: dict[str, str] = field(default_factory=dict)  # subagent id → the Agent/Task tool_use id
    task_agents: dict[str, str] = field(default_factory=dict)  # Agent/Task tool_use id → subagent id (stream-json)
    joined: set[str] = field(default_factory=set)

    def main(self, entry: Entry | None = None, model: str | None = None) -> str:
        known = self.b.agents.get(MAIN_AGENT)  # (asked on every line: once registered, nothing to do unless a new model comes)
        if known is not None and (not model or (known.metadata or {}).get("model_name") == model):
            return MAIN_AGENT
        meta = {"model_name": model} if model else None
        return self.b.agent("main", agent_id=MAIN_AGENT, identifier="claude-code", created_at=entry.time if entry else None, metadata=meta)

    def rename_main(self, entry: Entry, name: str) -> None:
        """An ``agent-name`` entry names the session's agent (``claude --agent``, a rename)."""
        self.main(entry)
        self.b.agents[MAIN_AGENT].agent_name = name

    def of(self, entry: Entry, conv: Converter) -> str:
        """Whose action a line is: the stream's agent (transcripts), or (stream-json) the
        subagent launched by the ``parent_tool_use_id`` call, or an inline sidechain's
        ``agentId``."""
        raw = entry.raw
        if entry.agent is not None:
            agent = entry.agent
        elif isinstance(raw.get("parent_tool_use_id"), str):
            tool_use_id = raw["parent_tool_use_id"]
            agent = self.task_agents.get(tool_use_id) or raw.get("agent_id") or raw.get("parent_agent_id") or f"task-{tool_use_id[-12:]}"
            self.links.setdefault(agent, tool_use_id)
        elif isinstance(raw.get("agentId"), str) and raw.get("isSidechain"):
            agent = raw["agentId"]
        else:
            agent = MAIN_AGENT
        if agent == MAIN_AGENT:
            return self.main(entry)
        if agent not in self.joined:
            info = self.known.get(agent) or SubagentInfo(
                agent_type=_str(raw.get("subagent_type")) or _str(raw.get("attributionAgent")), description=_str(raw.get("task_description"))
            )
            self.join(agent, entry, info, None)
        return agent

    def join(self, agent: str, entry: Entry, info: SubagentInfo, line: dict[str, Any] | None, conv: Converter | None = None) -> None:
        """Register a subagent (once) and emit its ``system.agent_join`` (from the line that
        announced it, or made up before its first action when no line did)."""
        link = self.links.get(agent)
        meta = {k: v for k, v in {"model_name": info.model, "agent_type": info.agent_type, "description": info.description,
                                  "parent_tool_call_id": link, "claude_meta": info.meta}.items() if v is not None}
        self.b.agent(info.label(), agent_id=agent, identifier=slug(info.agent_type or "subagent"), created_at=entry.time, metadata=meta)
        if agent in self.joined:
            return
        self.joined.add(agent)
        data = {"agent_id": agent, "invited_by": info.parent or MAIN_AGENT, "tool_call_id": link,
                "agent_type": info.agent_type, "description": info.description}
        data = {k: v for k, v in data.items() if v is not None}
        if line is not None and conv is not None:
            conv.emit("system.agent_join", entry, {"claude": line}, data=data)
        else:  # nothing in the input but the agent's own lines: no record of its own, no stream events
            self.b.add("system.agent_join", timestamp=entry.time, data=data)

    def task_started(self, entry: Entry, conv: Converter) -> None:
        """stream-json ``system/task_started``: a subagent starts, launched by ``tool_use_id``."""
        raw = entry.raw
        task = raw["task_id"]
        tool_use_id = _str(raw.get("tool_use_id"))
        if tool_use_id:
            self.task_agents[tool_use_id] = task
            self.links.setdefault(task, tool_use_id)
        info = SubagentInfo(agent_type=_str(raw.get("subagent_type")), description=_str(raw.get("description")))
        self.join(task, entry, info, conv.own(entry, ()), conv)


def _str(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def launched_by(call: Mapping[str, Any] | None) -> dict[str, Any]:
    """The launching Agent/Task call's input (subagent_type, description, prompt)."""
    value = call.get("input") if isinstance(call, Mapping) else None
    return value if isinstance(value, Mapping) else {}  # type: ignore[return-value]
