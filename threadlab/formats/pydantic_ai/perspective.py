"""What one agent of a multi-agent thread would see, as a pydantic-ai message history.

The seed rules (ThreadProtocol → ModelMessages): the agent's own messages, thinking and tool
calls (with their returns) as they are; other agents' messages as user-side text behind a
prefix; other agents' tool calls hidden, summarised or shown by policy; other agents' thinking
never; system actions skipped. In a merged thread (``from_pydantic_ai_runs``) each agent's
history is private: a user prompt that belongs to another agent's history (the task it was
given) counts as that agent's, and is shown only with ``others="show"``.
"""

from __future__ import annotations

from typing import Any, Literal

import orjson
from pydantic_ai import messages as pai

from threadlab.core.derive import iter_text, tool_pairs
from threadlab.core.model import AssistantMessage, BaseAction, SystemAction, Thinking, Thread, ToolCall, ToolReturn, UserMessage
from threadlab.formats.pydantic_ai import _parts as P
from threadlab.formats.pydantic_ai.selection import agent_id_of, histories, history_of
from threadlab.formats.pydantic_ai.writing import Item, action_items, items_to_messages

OthersPolicy = Literal["summarize", "show", "hide"]
_LAST = float("inf")


def speaker_prefix(template: str, name: str, agent_id: str) -> str:
    """``{agent:Name}`` → ``{agent:<name>}``; ``{name}`` and ``{agent_id}`` are also replaced."""
    return template.replace("{agent:Name}", "{agent:" + name + "}").replace("{name}", name).replace("{agent_id}", agent_id)


def _text(content: Any) -> str:
    pieces = list(iter_text(content))
    if pieces:
        return "\n".join(pieces)
    if isinstance(content, list) and content:
        return "[" + ", ".join(str(getattr(p, "media_category", None) or getattr(p, "type", "part")) for p in content) + "]"
    return "" if content is None else P.text_of(content)


def _compact(value: Any) -> str:
    if isinstance(value, str):
        return value
    try:
        return orjson.dumps(value, option=orjson.OPT_NON_STR_KEYS).decode()
    except TypeError:
        return str(value)


class _View:
    """Decides, action by action, what ``agent_id`` sees."""

    def __init__(self, thread: Thread, agent_id: str, others: OthersPolicy, prefix: str) -> None:
        if others not in ("summarize", "show", "hide"):
            raise ValueError(f"others must be 'summarize', 'show' or 'hide', not {others!r}")
        self.thread, self.agent_id, self.others, self.prefix = thread, agent_id, others, prefix
        self.merged = bool(histories(thread))
        pairs = tool_pairs(thread)
        self.owner = {p.tool_call_id: p.call.agent_id for p in pairs if p.call is not None}
        self.answered = {p.tool_call_id for p in pairs if p.ret is not None and p.call is not None}

    def says(self, agent_id: str, text: str, when: Any) -> Item:
        name = self.thread.agent_name(agent_id) or agent_id
        part = {"part_kind": "user-prompt", "content": speaker_prefix(self.prefix, name, agent_id) + text, "timestamp": P.stamp(when)}
        return Item("request", None, [(_LAST, part)], when)

    def is_own(self, action: BaseAction) -> bool:
        if isinstance(action, UserMessage):
            return history_of(action) in (None, self.agent_id)
        if isinstance(action, ToolReturn):
            owner = self.owner.get(action.tool_call_id)
            return owner == self.agent_id or (owner is None and history_of(action) in (None, self.agent_id))
        return getattr(action, "agent_id", None) == self.agent_id

    def other(self, action: BaseAction) -> Item | None:
        """What the agent sees of another agent's action (None: nothing)."""
        if isinstance(action, AssistantMessage):
            return self.says(action.agent_id, _text(action.content), action.timestamp)
        if isinstance(action, UserMessage):  # the task another agent was given
            giver = history_of(action) or ""
            return self.says(giver, "[was asked] " + _text(action.content), action.timestamp) if self.others == "show" else None
        if isinstance(action, ToolCall):
            if self.others == "show":
                return self.says(action.agent_id, f"[tool call {action.tool_name}({_compact(action.args)})]", action.timestamp)
            if self.others == "summarize" and action.tool_call_id not in self.answered:
                return self.says(action.agent_id, f"[called tool {action.tool_name}: pending]", action.timestamp)
            return None
        if isinstance(action, ToolReturn):
            caller = self.owner.get(action.tool_call_id) or history_of(action) or ""
            if self.others == "show":
                return self.says(caller, f"[tool result {action.tool_name} ({action.status}): {_compact(action.content)}]", action.timestamp)
            if self.others == "summarize":
                return self.says(caller, f"[used tool {action.tool_name}: {action.status}]", action.timestamp)
        return None  # thinking of other agents is never shown; hidden tool activity


def perspective(
    thread: Thread,
    agent: str,
    *,
    others: OthersPolicy = "summarize",
    prefix: str = "{agent:Name}: ",
) -> list[pai.ModelMessage]:
    """The message history ``agent`` (id or name) would see of ``thread``, ready to pass as
    ``message_history`` to a pydantic-ai ``Agent``.

    - own user prompts, messages, thinking, tool calls and their returns: as they are (an own
      history read with ``from_pydantic_ai`` keeps its envelopes and part details);
    - other agents' messages: user-side text, ``prefix`` first (``{agent:Name}`` becomes
      ``{agent:Researcher}``; ``{name}`` and ``{agent_id}`` are replaced too);
    - other agents' tool calls: ``others="hide"`` drops them, ``"summarize"`` gives one line per
      call when its result comes (``[used tool search: success]``; ``pending`` if none came),
      ``"show"`` gives the call with its arguments and the result in full;
    - other agents' thinking: never; system actions: skipped.
    """
    view = _View(thread, agent_id_of(thread, agent), others, prefix)
    picked: list[BaseAction | Item] = []
    own: list[BaseAction] = []
    for action in thread.actions:
        if not isinstance(action, BaseAction) or isinstance(action, SystemAction):
            continue
        if view.is_own(action):
            own.append(action)
            picked.append(action)
        elif not isinstance(action, Thinking):
            item = view.other(action)
            if item is not None:
                picked.append(item)
    own_items = {id(item.action): item for item in action_items(own)}
    items = [p if isinstance(p, Item) else own_items[id(p)] for p in picked if isinstance(p, Item) or id(p) in own_items]
    return items_to_messages(items, thread)
