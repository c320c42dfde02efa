"""What one agent of a thread sees, for the writers that replay a thread to a provider API
(OpenAI Chat Completions, Anthropic Messages): the rules of pydantic-ai's ``perspective()``,
format-neutral.

- the agent's own messages, thinking, tool calls and their returns: as they are;
- the user's messages and the system prompts (``system.message``): as they are;
- other agents' messages: user-side text behind ``prefix`` (``{agent:Name}: `` becomes
  ``{agent:Researcher}: ``);
- other agents' tool calls: ``others="hide"`` leaves them out, ``"summarize"`` gives one line
  per call when its result comes (``[used tool search: success]``, or ``pending``), ``"show"``
  gives the call with its arguments and the result in full;
- other agents' thinking never; other system actions are skipped."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

import orjson

from threadlab.core.agent_names import agent_id, agent_names
from threadlab.core.derive import iter_text, tool_pairs
from threadlab.core.loss import OptionNeeded
from threadlab.core.model import BaseAction, SystemAction, Thread, ToolCall, ToolReturn

OthersPolicy = Literal["summarize", "show", "hide"]
POLICIES = ("summarize", "show", "hide")


@dataclass(frozen=True)
class Said:
    """Another agent's action as the viewer sees it: a line of user-side text."""

    text: str
    action: BaseAction


def resolve_agent(thread: Thread, agent: str | None, writer: str) -> str | None:
    """The agent id ``agent`` (an id, name or identifier) names; with no ``agent``, the thread's
    only agent (None when it has none). A thread of several agents needs one: ``OptionNeeded``
    (a ValueError naming the agents)."""
    if agent is None:
        if len(thread.agents) <= 1:
            return next(iter(thread.agents), None)
        why = f"writes one agent's view; thread {thread.thread_id} has {len(thread.agents)} agents"
        raise OptionNeeded(writer, thread.thread_id, "agent", why, sorted(agent_names(thread)))
    return agent_id(thread, agent)


def _text(content: Any) -> str:
    pieces = list(iter_text(content))
    if pieces:
        return "\n".join(pieces)
    return "" if content is None else compact(content)


def compact(value: Any) -> str:
    if isinstance(value, str):
        return value
    try:
        return orjson.dumps(value, option=orjson.OPT_NON_STR_KEYS).decode()
    except TypeError:
        return str(value)


def view(thread: Thread, agent_id: str | None, others: OthersPolicy = "summarize", prefix: str = "{agent:Name}: ") -> list[BaseAction | Said]:
    """The actions ``agent_id`` sees, in order, others' as ``Said`` lines (see the module)."""
    if others not in POLICIES:
        raise ValueError(f"others must be 'summarize', 'show' or 'hide', not {others!r}")
    pairs = tool_pairs(thread)
    owner = {p.tool_call_id: p.call.agent_id for p in pairs if p.call is not None}
    answered = {p.tool_call_id for p in pairs if p.call is not None and p.ret is not None}

    def said(speaker: str | None, text: str, action: BaseAction) -> Said:
        name = thread.agent_name(speaker) or speaker or "agent"
        head = prefix.replace("{agent:Name}", "{agent:" + name + "}").replace("{name}", name).replace("{agent_id}", speaker or "")
        return Said(head + text, action)

    out: list[BaseAction | Said] = []
    for action in thread.actions:
        if isinstance(action, SystemAction):
            if action.action_type == "system.message":
                out.append(action)
            continue
        speaker = getattr(action, "agent_id", None)
        if isinstance(action, ToolReturn):
            speaker = owner.get(action.tool_call_id)
        if action.action_type == "user_message" or speaker == agent_id or (isinstance(action, ToolReturn) and speaker is None):
            out.append(action)
        elif action.action_type == "assistant_message":
            out.append(said(speaker, _text(action.content), action))  # type: ignore[attr-defined]
        elif isinstance(action, ToolCall):
            if others == "show":
                out.append(said(speaker, f"[tool call {action.tool_name}({compact(action.args)})]", action))
            elif others == "summarize" and action.tool_call_id not in answered:
                out.append(said(speaker, f"[called tool {action.tool_name}: pending]", action))
        elif isinstance(action, ToolReturn):
            if others == "show":
                out.append(said(speaker, f"[tool result {action.tool_name} ({action.status}): {compact(action.content)}]", action))
            elif others == "summarize":
                out.append(said(speaker, f"[used tool {action.tool_name}: {action.status}]", action))
    return out


def unmatched_returns(picked: list[BaseAction | Said]) -> int:
    """Tool returns of the view whose call is not in it (a provider's tool result names no
    tool: the name comes back only from the call)."""
    calls = {a.tool_call_id for a in picked if isinstance(a, ToolCall)}
    return sum(1 for a in picked if isinstance(a, ToolReturn) and a.tool_call_id not in calls)


__all__ = ["POLICIES", "OthersPolicy", "Said", "compact", "resolve_agent", "unmatched_returns", "view"]
