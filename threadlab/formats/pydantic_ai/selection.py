"""Which actions of a thread make one agent's pydantic-ai history, and what the rest is.

A pydantic-ai history is one agent's: its model requests and responses. Given a thread with
several agents and no ``agent=``, the writer writes the history of the agent the conversation
starts with (the first agent that acts and that no other agent brought in: the main agent of a
Claude Code session, agency-swarm's entry agent, the first history of a merged pydantic-ai
thread) and warns, naming the other agents and how to get theirs. Own actions are the agent's
messages, thinking and tool calls, the returns of its calls, the user messages sent to it
(``metadata.recipient_agent_id``, a merged history's own prompts; a sub-agent's task, marked by
``metadata.parent_tool_call_id``, is the sub-agent's) and the ``system.pydantic_ai.*`` parts of
its history."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from typing import Any

from threadlab.core.agent_names import agent_id
from threadlab.core.derive import tool_call_owner
from threadlab.core.model import BaseAction, SystemAction, Thread, ToolReturn, UserMessage
from threadlab.formats.pydantic_ai import _parts as P


def pai_meta(action: BaseAction) -> dict[str, Any]:
    meta = action.metadata or {}
    value = meta.get(P.KEY)
    return value if isinstance(value, dict) else {}


def history_of(action: BaseAction) -> str | None:
    return pai_meta(action).get("history")


def histories(thread: Thread) -> list[str]:
    """The agents whose own pydantic-ai history is in the thread (merged threads)."""
    found: list[str] = []
    for action in thread.actions:
        name = history_of(action) if isinstance(action, BaseAction) else None
        if name is not None and name not in found:
            found.append(name)
    return found


def agent_id_of(thread: Thread, agent: str) -> str:
    """The id of the agent called ``agent`` (its id, name or identifier); an
    ``UnknownAgentError`` (a ValueError) listing the thread's agent names otherwise."""
    return agent_id(thread, agent)


def acting_agents(thread: Thread) -> list[str]:
    """Agents with actions of their own, in the order they first act."""
    found: list[str] = []
    for action in thread.actions:
        agent_id = getattr(action, "agent_id", None) or (history_of(action) if isinstance(action, BaseAction) else None)
        if isinstance(agent_id, str) and agent_id not in found:
            found.append(agent_id)
    return found


def _brought_in(thread: Thread) -> dict[str, str | None]:
    """Agents another agent started (agent_join, handoff, or a sub-agent's parent tool call):
    agent id → the tool call that started it, when known."""
    out: dict[str, str | None] = {}
    for action in thread.actions:
        data = getattr(action, "data", None)
        if isinstance(action, SystemAction) and isinstance(data, Mapping):
            if action.action_type == "system.agent_join" and data.get("agent_id"):
                out.setdefault(str(data["agent_id"]), data.get("tool_call_id"))
            elif action.action_type == "system.handoff" and data.get("to_agent_id"):
                out.setdefault(str(data["to_agent_id"]), data.get("tool_call_id"))
        parent = (action.metadata or {}).get("parent_tool_call_id") if isinstance(action, BaseAction) else None
        agent_id = getattr(action, "agent_id", None)
        if parent and agent_id:
            out[str(agent_id)] = str(parent)
    return out


def default_agent(thread: Thread) -> str | None:
    """The agent the conversation starts with: the first that acts and that no other brought in."""
    acting = acting_agents(thread)
    brought = _brought_in(thread)
    return next((a for a in acting if a not in brought), acting[0] if acting else None)


def _user_owner(action: UserMessage, thread: Thread, root: str, started_by: dict[str, str]) -> str:
    meta = action.metadata or {}
    history = history_of(action)
    if history is not None:
        return history
    recipient = meta.get("recipient_agent_id")
    if isinstance(recipient, str) and recipient in thread.agents:
        return recipient
    parent = meta.get("parent_tool_call_id")
    if parent and parent in started_by:
        return started_by[parent]
    return root


def own_actions(thread: Thread, agent_id: str | None) -> tuple[list[BaseAction], Counter[str]]:
    """The actions of ``agent_id``'s history (every action when None), and per other agent the
    number of its actions left out."""
    actions = [a for a in thread.actions if isinstance(a, BaseAction)]
    if agent_id is None:
        return actions, Counter()
    merged = bool(histories(thread))
    root = default_agent(thread) or agent_id
    started_by = {call: agent for agent, call in _brought_in(thread).items() if call}
    owners = tool_call_owner(thread)
    own: list[BaseAction] = []
    others: Counter[str] = Counter()
    for action in actions:
        owner = _owner(action, thread, merged, root, started_by, owners)
        if owner in (agent_id, None):
            own.append(action)
        else:
            others[owner] += 1
    return own, others


def _owner(action: BaseAction, thread: Thread, merged: bool, root: str, started_by: dict[str, str], owners: dict[str, str]) -> str | None:
    """Whose history an action belongs to (None: no agent's; the writer decides what it can hold)."""
    history = history_of(action)
    if merged and history is not None:
        return history
    agent_id = getattr(action, "agent_id", None)
    if isinstance(agent_id, str) and agent_id:
        return agent_id
    if isinstance(action, UserMessage):
        return _user_owner(action, thread, root, started_by)
    if isinstance(action, ToolReturn):
        return owners.get(action.tool_call_id) or root
    if isinstance(action, SystemAction) and action.action_type.startswith(P.SYSTEM_PREFIX):
        return root
    return None
