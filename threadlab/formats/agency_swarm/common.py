"""What the agency-swarm modules share: metadata keys and how an item list is recognised.

Two kinds of list are read: agency-swarm's saved list (every item tagged with ``agent`` and
``callerAgent``) and a plain OpenAI Agents SDK item list (``session.get_items()``,
``result.to_input_list()``: Responses-API input items with no agency tags)."""

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
# where a call item keeps what it was asked (function, custom tool, hosted tools, apply_patch)
ARG_KEYS = ("arguments", "input", "action", "queries", "code", "operation")
_ROLES = ("user", "assistant", "system", "developer")
# Responses-API content part types: what tells an Agents SDK message from a Chat Completions or
# Anthropic one (those say "text", "image_url", "tool_use" ...)
_PART_TYPES = frozenset(
    {"input_text", "output_text", "input_image", "input_file", "input_audio", "refusal", "summary_text", "reasoning_text"}
)
# item types that only the Responses API has (a plain {"role", "content": "..."} message does not say which API it is)
_ITEM_TYPES = frozenset({"function_call", "function_call_output", "function_call_result", "reasoning", "item_reference", "compaction"})


def is_item(value: Any) -> bool:
    """An item of agency-swarm's saved list: agency-swarm tags every one with agent and callerAgent."""
    return isinstance(value, Mapping) and "agent" in value and "callerAgent" in value and ("type" in value or "role" in value)


def _responses_parts(content: Any) -> bool:
    return (
        isinstance(content, list)
        and bool(content)
        and all(isinstance(p, Mapping) and p.get("type") in _PART_TYPES for p in content)
    )


def sdk_item_kind(value: Any) -> str | None:
    """How an OpenAI Agents SDK item (a Responses-API input item) looks: "strong" when only the
    Responses API has it (a function_call, reasoning, a message with input_text/output_text
    parts, a hosted ``*_call``), "weak" for a bare ``{"role", "content": "..."}`` message, None
    for anything else (a Chat Completions message with ``tool_calls``, a pydantic-ai or AI SDK
    message with ``parts``, a Claude Code line ...)."""
    if not isinstance(value, Mapping) or "parts" in value or "tool_calls" in value or "kind" in value:
        return None
    kind = value.get("type")
    if kind is None or kind == "message":
        if value.get("role") not in _ROLES or "content" not in value:
            return None
        if _responses_parts(value["content"]) or (kind == "message" and isinstance(value["content"], str)):
            return "strong"
        return "weak" if kind is None and isinstance(value["content"], str) else None
    if not isinstance(kind, str):
        return None
    if kind in _ITEM_TYPES or (kind.endswith(("_call", "_call_output", "_call_result")) and ("call_id" in value or "callId" in value or "id" in value)):
        return "strong"
    return None


def is_sdk_list(items: Any) -> bool:
    """A plain Agents SDK item list: every item is a Responses-API input item, at least one of
    them of a kind only that API has."""
    if not isinstance(items, list) or not items:
        return False
    kinds = [sdk_item_kind(x) for x in items]
    return None not in kinds and "strong" in kinds


def items_of(obj: Any) -> list[Any] | None:
    """The saved item list inside ``obj``: the list itself (agency-swarm's, or a plain Agents SDK
    item list), or the FastAPI response/request body (``new_messages`` / ``chat_history``)."""
    if isinstance(obj, list):
        if obj and all(is_item(x) for x in obj[:3]):
            return obj
        return obj if is_sdk_list(obj) else None
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
