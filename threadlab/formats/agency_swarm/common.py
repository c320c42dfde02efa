"""What the agency-swarm modules share: metadata keys and how an item list is recognised."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import timedelta
from typing import Any

from threadlab.core.builder import EPOCH
from threadlab.core.model import Thread
from threadlab.core.timefmt import parse_timestamp

META = "agency_swarm"  # key of the kept item fields in action metadata
USER = "USER"  # the user side of a pair key, as the seed spells it
SEND_MESSAGE = "send_message"
_ASSISTANT_ITEMS = ("reasoning", "function_call")


def is_item(value: Any) -> bool:
    """An item of the saved list: agency-swarm tags every one with agent and callerAgent."""
    return isinstance(value, Mapping) and "agent" in value and "callerAgent" in value and ("type" in value or "role" in value)


def items_of(obj: Any) -> list[Any] | None:
    """The saved item list inside ``obj``: the list itself, or the FastAPI response/request
    body (``new_messages`` / ``chat_history``)."""
    if isinstance(obj, list):
        return obj if obj and all(is_item(x) for x in obj[:3]) else None
    if isinstance(obj, Mapping) and "actions" not in obj:
        for key in ("new_messages", "chat_history", "messages"):
            items = obj.get(key)
            if isinstance(items, list) and items and all(is_item(x) for x in items[:3]):
                return items
    return None


def is_model_output(item: Mapping[str, Any]) -> bool:
    """True for what a model response produced (assistant text, reasoning, calls), False for
    its inputs (user messages, call outputs)."""
    kind = item.get("type")
    if kind == "message":
        return item.get("role") == "assistant"
    return kind in _ASSISTANT_ITEMS or (isinstance(kind, str) and kind.endswith("_call"))


def entry_agent(thread: Thread) -> str:
    """The name of the first agent that acts: who the user talks to when nothing else says."""
    for action in thread.actions:
        name = thread.agent_name(getattr(action, "agent_id", None))
        if name:
            return name
    return next((a.agent_name for a in thread.agents.values()), "Assistant")


def micros(stamp: Any) -> Any:
    """agency-swarm's integer microseconds as an exact datetime (a float would round them)."""
    if isinstance(stamp, int) and not isinstance(stamp, bool):
        return EPOCH + timedelta(microseconds=stamp) if stamp > 10**14 else parse_timestamp(stamp)
    return stamp
