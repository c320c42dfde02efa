"""What the agency-swarm modules share: metadata keys and how a saved list is recognised
(every item tagged with ``agent`` and ``callerAgent``; the same items without the tags are an
Agents SDK item list, read by ``openai-agents-session``)."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime, timedelta
from typing import Any

from threadlab.core.builder import EPOCH
from threadlab.core.model import Thread
from threadlab.core.timefmt import parse_timestamp

META = "agency_swarm"  # key of the kept item fields in action metadata
USER = "USER"  # the user side of a pair key, as the seed spells it
SEND_MESSAGE = "send_message"
DERIVED = "derived"  # key in META of an action the reader made (a delegation, a handoff): never written as an item
_ASSISTANT_ITEMS = ("reasoning", "function_call")
# what agency-swarm adds to the Responses items it saves: who spoke and who called, its run ids,
# the persist time (kept under META as they came; the rest of an item is the shared mapping's)
TAGS = ("agent", "callerAgent", "timestamp", "agent_run_id", "parent_run_id", "run_trace_id", "history_protocol", "message_origin")


def is_item(value: Any) -> bool:
    """An item of agency-swarm's saved list: agency-swarm tags every one with agent and callerAgent."""
    return isinstance(value, Mapping) and "agent" in value and "callerAgent" in value and ("type" in value or "role" in value)


def items_of(obj: Any) -> list[Any] | None:
    """The saved item list inside ``obj``: the list itself, or the FastAPI response/request
    body (``new_messages`` / ``chat_history``). Its first items must carry agency-swarm's tags
    (a list of untagged Agents SDK items is ``openai-agents-session``'s)."""
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
    if kind in (None, "message"):
        return item.get("role") == "assistant"
    return kind in _ASSISTANT_ITEMS or (isinstance(kind, str) and kind.endswith(("_call", "hosted_tool_call")))


def entry_agent(thread: Thread) -> str:
    """The name of the first agent that acts: who the user talks to when nothing else says."""
    for action in thread.actions:
        name = thread.agent_name(getattr(action, "agent_id", None))
        if name:
            return name
    return next((a.agent_name for a in thread.agents.values()), "Assistant")


def micros(stamp: Any) -> datetime | None:
    """agency-swarm's integer microseconds as an exact datetime (a float would round them);
    milliseconds (its docs' examples) and seconds too, by size. Raises ValueError for a value
    that is no time."""
    if stamp is None:
        return None
    if isinstance(stamp, int) and not isinstance(stamp, bool):
        try:
            if stamp > 10**14:
                return EPOCH + timedelta(microseconds=stamp)
            if stamp > 10**11:
                return EPOCH + timedelta(milliseconds=stamp)
        except OverflowError as exc:
            raise ValueError(f"timestamp {stamp} is out of range") from exc
    try:
        return parse_timestamp(stamp)
    except (OverflowError, OSError) as exc:
        raise ValueError(f"timestamp {stamp!r} is out of range") from exc


def time_of(stamp: Any) -> datetime | None:
    """``micros`` that gives None for a value that is no time (the reader reports it once)."""
    try:
        return micros(stamp)
    except ValueError:
        return None
