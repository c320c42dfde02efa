"""A Thread → agency-swarm's flat saved list (what ``load_threads_callback`` returns).

Items read from agency-swarm (or a plain Agents SDK list) come back exactly, in their saved
order; other actions are written as the Responses items agency-swarm would have saved,
attributed to their agent. What an item list has no place for is named in a ``WriteLoss``."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Mapping
from typing import Any

from threadlab.core.loss import report_loss
from threadlab.core.model import Thread, ToolCall
from threadlab.formats.agency_swarm.common import ARG_KEYS, DERIVED, META, entry_agent

NAME = "agency-swarm"
_SYSTEM_WRITTEN = ("system.unknown_item", "system.message", "system.item_reference")
_WRITTEN = (*_SYSTEM_WRITTEN, "user_message", "assistant_message", "thinking", "tool_call", "tool_return")
_READ_THREAD_KEYS = frozenset({META, "synthetic_timestamps"})  # thread metadata a reader derives from the items
_RUN_USAGE_KEYS = frozenset({"usage", "cost_usd", "request_count"})  # from the FastAPI body's usage, beside the list


def dumps_arguments(value: Any) -> str:
    """JSON the way the OpenAI Agents SDK writes arguments (``json.dumps`` defaults)."""
    return json.dumps(value)


def to_agency_swarm(thread: Thread) -> list[dict[str, Any]]:
    """The flat saved list (what ``load_threads_callback`` returns). Items read from
    agency-swarm come back exactly, in their saved order; other actions are written as the
    Responses items agency-swarm would have saved, attributed to their agent. Warns
    ``WriteLoss`` naming what the list cannot hold (tool return statuses, usage and model names
    of other formats, system actions, media that is not an image URL, the thread's title)."""
    entry = entry_agent(thread)
    lost: Counter[str] = Counter()
    calls = {a.tool_call_id: a for a in thread.actions if isinstance(a, ToolCall)}
    hosted = {a.tool_call_id for a in thread.actions if a.action_type == "tool_return" and _derived(a) == "hosted_call_result"}
    rows: list[tuple[Any, dict[str, Any]]] = []
    for action in thread.actions:
        item = _item_of(thread, action, entry, calls, hosted, lost)
        if item is not None:
            rows.append((item.pop("index", None), item))
    if rows and all(isinstance(index, int) for index, _ in rows):  # all read from one saved list
        rows.sort(key=lambda row: row[0])
    _thread_losses(thread, lost)
    report_loss(NAME, thread.thread_id, [f"{n} {what}" for what, n in lost.items()])
    return [item for _, item in rows]


def _derived(action: Any) -> Any:
    kept = (action.metadata or {}).get(META)
    return kept.get(DERIVED) if isinstance(kept, Mapping) else None


def _thread_losses(thread: Thread, lost: Counter[str]) -> None:
    if any(agent.metadata for agent in thread.agents.values()):
        lost["agent metadata (model names, descriptions)"] += 1
    if thread.title:
        lost["thread title"] += 1
    keys = set(thread.metadata or {}) - _READ_THREAD_KEYS
    kept = (thread.metadata or {}).get(META)
    if isinstance(kept, Mapping) and "body" in kept:  # the FastAPI body is written back, its usage in it
        keys -= _RUN_USAGE_KEYS
    if keys & _RUN_USAGE_KEYS:
        lost["run usage totals (the FastAPI body's usage, not the list)"] += 1
    if keys - _RUN_USAGE_KEYS:
        lost[f"thread metadata keys ({', '.join(sorted(keys - _RUN_USAGE_KEYS))})"] += 1


def _item_of(thread: Thread, action: Any, entry: str, calls: dict[str, ToolCall], hosted: set[str], lost: Counter[str]) -> dict[str, Any] | None:
    meta = action.metadata or {}
    kept = dict(meta[META]) if isinstance(meta.get(META), Mapping) else None
    kind = action.action_type
    if _derived(action) is not None:  # made by the reader (a delegation, a handoff, a hosted call's result)
        return None
    if kind == "system.unknown_item" and isinstance(action.data, Mapping):
        return {**action.data, **({"index": kept["index"]} if kept and "index" in kept else {})}
    fresh = kept is None
    if fresh:
        if kind not in _WRITTEN:
            lost[f"{kind} actions"] += 1
            return None
        kept = _fresh_item_fields(thread, action, entry, calls)
        _fresh_losses(action, calls, lost)
    if kind == "user_message":
        kept.setdefault("content", action.content if isinstance(action.content, str) else _wire_parts(action.content, "input_text", lost))
    elif kind == "assistant_message":
        if "content" not in kept:
            text = action.content if isinstance(action.content, str) else None
            kept["content"] = [{"annotations": [], "text": text, "type": "output_text"}] if text is not None else _wire_parts(action.content, "output_text", lost)
    elif kind == "thinking":
        if fresh:  # a read reasoning item keeps its summary (or its lack of one) as it came
            kept["summary"] = [{"text": action.content, "type": "summary_text"}] if action.content else []
        if action.signature is not None:
            kept.setdefault("encrypted_content", action.signature)
    elif kind == "tool_call":
        if action.tool_call_id not in hosted and "callId" not in kept:  # a hosted call (web search ...) has an id and no call_id
            kept["call_id"] = action.tool_call_id
        if fresh and not any(k in kept for k in ARG_KEYS):
            kept["arguments"] = dumps_arguments(action.args if action.args is not None else {})
        if fresh:
            kept["name"] = action.tool_name
    elif kind == "tool_return":
        if "callId" not in kept:  # the JS SDK's function_call_result keeps callId and its output object
            kept["call_id"] = action.tool_call_id
        if "output" not in kept:
            kept["output"] = action.content if not fresh or isinstance(action.content, str) else _output_text(action.content)
    elif kind == "system.message" and isinstance(action.data, Mapping):
        kept.setdefault("content", action.data.get("content"))
    elif kind == "system.item_reference" and isinstance(action.data, Mapping):
        kept.setdefault("id", action.data.get("id"))
    else:
        lost[f"{kind} actions"] += 1
        return None
    if fresh:
        kept["timestamp"] = int(action.timestamp.timestamp() * 1_000_000)
    return kept


def _output_text(content: Any) -> Any:
    """A function_call_output's output is a string (or a list of input parts): other values
    as the JSON the SDK would have sent."""
    return content if content is None or isinstance(content, list) else json.dumps(content)


def _fresh_losses(action: Any, calls: dict[str, ToolCall], lost: Counter[str]) -> None:
    """What an action of another format has that an agency-swarm item cannot hold."""
    kind = action.action_type
    meta = action.metadata or {}
    if getattr(action, "usage", None) is not None or (kind not in ("assistant_message", "thinking") and meta.get("usage")):
        lost["usage figures (items carry none)"] += 1
    if meta.get("model_name") or meta.get("provider_name"):
        lost["model/provider names"] += 1
    if kind == "tool_return":
        if action.status != "success":
            lost[f"tool return statuses ({action.status}: function_call_output has no status)"] += 1
        call = calls.get(action.tool_call_id)
        if call is None:
            lost["tool names of returns without a call (an output names only its call_id)"] += 1
        if action.content is not None and not isinstance(action.content, str | list):
            lost["structured tool results (written as JSON text)"] += 1
    if kind == "thinking" and action.provider_name != "openai":
        lost["thinking provider names (a reasoning item is OpenAI's)"] += 1
    if kind in ("user_message", "assistant_message") and getattr(action, "attachments", None):
        lost["message attachments"] += 1


def _fresh_item_fields(thread: Thread, action: Any, entry: str, calls: dict[str, ToolCall]) -> dict[str, Any]:
    """agency-swarm's item fields for an action that did not come from agency-swarm."""
    agent = thread.agent_name(getattr(action, "agent_id", None))
    if action.action_type == "tool_return":
        owner = calls.get(action.tool_call_id)
        agent = thread.agent_name(owner.agent_id) if owner is not None else None
    fields: dict[str, Any] = {
        "type": {"user_message": "message", "assistant_message": "message", "thinking": "reasoning", "tool_call": "function_call", "tool_return": "function_call_output"}.get(
            action.action_type, "message"
        ),
        "agent": agent or entry,
        "callerAgent": None,
        "history_protocol": "responses",
    }
    if action.action_type in ("user_message", "assistant_message"):
        fields["role"] = "user" if action.action_type == "user_message" else "assistant"
    if action.action_type == "system.message" and isinstance(action.data, Mapping):
        fields["role"] = action.data.get("role", "system")
    if action.action_type == "system.item_reference":
        fields["type"] = "item_reference"
    if action.action_type == "assistant_message":
        fields.update(id=action.action_id or f"msg_{action.sequence}", status="completed")
    if action.action_type == "tool_call":
        fields["status"] = "completed"
    if action.action_type == "thinking":
        fields["id"] = action.thinking_id or f"rs_{action.sequence}"
    return fields


def _wire_parts(content: Any, text_type: str, lost: Counter[str]) -> list[Any]:
    parts = []
    for part in content or []:
        raw = part.model_dump(exclude_none=True) if hasattr(part, "model_dump") else part
        if isinstance(raw, Mapping) and raw.get("type") == "text":
            parts.append({"type": text_type, "text": raw.get("text"), **({"annotations": []} if text_type == "output_text" else {})})
        elif isinstance(raw, Mapping) and raw.get("type") == "image" and raw.get("image_url"):
            parts.append({"type": "input_image", "image_url": raw["image_url"]})
        elif isinstance(raw, Mapping) and raw.get("type") in ("input_text", "output_text", "input_image", "input_file", "refusal"):
            parts.append(dict(raw))  # a Responses part kept as it came
        else:
            lost["media or other content parts that are no text or image URL"] += 1
    return parts
