"""Facts derived from a thread's actions, used by converters, frames and widgets alike.

Pending state is derived, never stored (RC2): a tool_call with no later tool_return is pending."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Literal

from threadlab.core.model import BaseAction, Thread, ToolCall, ToolReturn
from threadlab.core.nogc import no_gc

PairStatus = Literal["success", "error", "validation_error", "pending", "orphan_return"]


@dataclass(frozen=True, slots=True)
class ToolPair:
    """A tool call with its return; ``call`` is None for an orphan return, ``ret`` None while
    the call is pending."""

    tool_call_id: str
    call: ToolCall | None
    ret: ToolReturn | None

    @property
    def status(self) -> PairStatus:
        if self.call is None:
            return "orphan_return"
        if self.ret is None:
            return "pending"
        return self.ret.status

    @property
    def tool_name(self) -> str:
        return self.call.tool_name if self.call is not None else self.ret.tool_name  # type: ignore[union-attr]

    @property
    def latency_s(self) -> float | None:
        if self.call is None or self.ret is None:
            return None
        return (self.ret.timestamp - self.call.timestamp).total_seconds()


def tool_pairs(thread: Thread) -> list[ToolPair]:
    """Every tool call with its return, in call order; orphan returns where they stand.

    A return pairs with the most recent unanswered call of its id (ids may be reused across
    turns by some producers)."""
    with no_gc():  # one pair object per call: a million on a big thread, none in a cycle
        return _tool_pairs(thread)


def _tool_pairs(thread: Thread) -> list[ToolPair]:
    pairs: list[ToolPair | None] = []
    open_calls: dict[str, int] = {}
    for action in thread.actions:
        if isinstance(action, ToolCall):
            open_calls[action.tool_call_id] = len(pairs)
            pairs.append(ToolPair(action.tool_call_id, action, None))
        elif isinstance(action, ToolReturn):
            index = open_calls.pop(action.tool_call_id, None)
            if index is None:
                pairs.append(ToolPair(action.tool_call_id, None, action))
            else:
                pairs[index] = ToolPair(action.tool_call_id, pairs[index].call, action)  # type: ignore[union-attr]
    return [p for p in pairs if p is not None]


def pending_tool_calls(thread: Thread) -> list[ToolCall]:
    """Tool calls still waiting for a return (approval, external execution, or a cut run)."""
    return [p.call for p in tool_pairs(thread) if p.ret is None and p.call is not None]


def actions_of_agent(thread: Thread, agent_id: str) -> list[BaseAction]:
    """The actions an agent took itself (messages, thinking, tool calls), plus the returns of
    its own tool calls."""
    own_calls = {a.tool_call_id for a in thread.actions if isinstance(a, ToolCall) and a.agent_id == agent_id}
    return [
        a
        for a in thread.actions
        if getattr(a, "agent_id", None) == agent_id or (isinstance(a, ToolReturn) and a.tool_call_id in own_calls)
    ]


def tool_call_owner(thread: Thread) -> dict[str, str]:
    """tool_call_id -> agent_id of the agent that made the call."""
    return {a.tool_call_id: a.agent_id for a in thread.actions if isinstance(a, ToolCall)}


def iter_text(content: object) -> Iterator[str]:
    """The text pieces of a MessageContent (string or list of parts)."""
    if isinstance(content, str):
        yield content
    elif isinstance(content, list):
        for part in content:
            text = part.get("text") if isinstance(part, dict) else getattr(part, "text", None)
            if isinstance(text, str):
                yield text
