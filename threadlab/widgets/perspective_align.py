"""Which thread action each part of a ``perspective()`` history came from.

``threadlab.formats.pydantic_ai.perspective`` returns plain pydantic-ai ``ModelMessage`` lists,
without sequence numbers. To put two agents' histories side by side on the thread's sequence,
each part is traced back to its action, in thread order:

- tool call / tool return / retry parts: by ``tool_call_id`` (first unused match);
- the agent's own text and thinking: its next unused assistant_message / thinking action;
- user-side text behind a speaker prefix (``{agent:Name}: ``, what another agent said or did):
  the next unused action of that agent after the last one matched — ``[used tool …]`` and
  ``[tool result …]`` lines to tool returns, ``[called tool …]`` / ``[tool call …]`` to calls,
  ``[was asked] …`` to user messages, anything else to assistant messages;
- other user prompts: the next unused user message.
A part that cannot be traced keeps the sequence of the previous part (and is marked)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from threadlab.core.model import AssistantMessage, BaseAction, Thinking, Thread, ToolCall, ToolReturn, UserMessage

_PREFIX = re.compile(r"^\{agent:(?P<name>[^}]*)\}: ?(?P<rest>.*)$", re.DOTALL)


@dataclass(frozen=True, slots=True)
class AlignedPart:
    """One part of a perspective history and the thread sequence it came from."""

    sequence: int
    side: str  # "request" | "response"
    part: Any
    traced: bool  # False when the sequence is inherited from the previous part


class _Matcher:
    def __init__(self, thread: Thread, agent_id: str) -> None:
        self.thread = thread
        self.agent_id = agent_id
        self.used: set[int] = set()
        self.last_other = 0  # other agents' lines come in thread order: search after the last one
        self.by_name = {a.agent_name: a.agent_id for a in thread.agents.values()}
        self.owner = {a.tool_call_id: a.agent_id for a in thread.actions if isinstance(a, ToolCall)}

    def _next(self, test: Any, *, after: int = 0) -> int | None:
        for action in self.thread.actions:
            if isinstance(action, BaseAction) and action.sequence > after and action.sequence not in self.used and test(action):
                self.used.add(action.sequence)
                return action.sequence
        return None

    def by_call_id(self, cls: type, call_id: Any) -> int | None:
        return self._next(lambda a: isinstance(a, cls) and a.tool_call_id == call_id)

    def own(self, cls: type) -> int | None:
        return self._next(lambda a: isinstance(a, cls) and getattr(a, "agent_id", None) == self.agent_id)

    def other(self, text: str) -> int | None:
        sequence = self._other(text)
        if sequence is not None:
            self.last_other = sequence
        return sequence

    def _other(self, text: str) -> int | None:
        match = _PREFIX.match(text)
        if match is None:
            return self._next(lambda a: isinstance(a, UserMessage))
        speaker = self.by_name.get(match["name"], match["name"])
        rest = match["rest"]
        owner = self.owner
        if rest.startswith(("[used tool ", "[tool result ")):
            return self._next(lambda a: isinstance(a, ToolReturn) and owner.get(a.tool_call_id) == speaker, after=self.last_other)
        if rest.startswith(("[called tool ", "[tool call ")):
            return self._next(lambda a: isinstance(a, ToolCall) and a.agent_id == speaker, after=self.last_other)
        if rest.startswith("[was asked] "):
            return self._next(lambda a: isinstance(a, UserMessage), after=self.last_other)
        return self._next(lambda a: isinstance(a, AssistantMessage) and a.agent_id == speaker, after=self.last_other)

    def trace(self, part: Any) -> int | None:
        kind = getattr(part, "part_kind", "")
        call_id = getattr(part, "tool_call_id", None)
        if kind == "tool-call":
            return self.by_call_id(ToolCall, call_id)
        if kind in ("tool-return", "retry-prompt") and call_id:
            return self.by_call_id(ToolReturn, call_id)
        if kind == "text":
            return self.own(AssistantMessage)
        if kind == "thinking":
            return self.own(Thinking)
        if kind == "user-prompt":
            content = part.content if isinstance(part.content, str) else ""
            return self.other(content)
        return None


def align_perspective(thread: Thread, agent_id: str, messages: list[Any]) -> list[AlignedPart]:
    """Every part of ``messages`` (a perspective of ``agent_id``) with its thread sequence."""
    matcher = _Matcher(thread, agent_id)
    out: list[AlignedPart] = []
    previous = 0
    for message in messages:
        side = "response" if getattr(message, "kind", "") == "response" else "request"
        for part in message.parts:
            sequence = matcher.trace(part)
            traced = sequence is not None
            if sequence is None:
                sequence = previous
            previous = sequence
            out.append(AlignedPart(sequence, side, part, traced))
    return out
