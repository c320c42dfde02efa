"""A Thread → agency-swarm's flat saved list (what ``load_threads_callback`` returns)."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from threadlab.core.model import Thread, ToolCall
from threadlab.formats.agency_swarm.common import META, entry_agent


def dumps_arguments(value: Any) -> str:
    """JSON the way the OpenAI Agents SDK writes arguments (``json.dumps`` defaults)."""
    return json.dumps(value)


def to_agency_swarm(thread: Thread) -> list[dict[str, Any]]:
    """The flat saved list (what ``load_threads_callback`` returns). Items read from
    agency-swarm come back exactly, in their saved order; other actions are written as the
    Responses items agency-swarm would have saved, attributed to their agent."""
    entry = entry_agent(thread)
    rows: list[tuple[Any, dict[str, Any]]] = []
    for action in thread.actions:
        item = _item_of(thread, action, entry)
        if item is not None:
            rows.append((item.pop("index", None), item))
    if rows and all(isinstance(index, int) for index, _ in rows):  # all read from one saved list
        rows.sort(key=lambda row: row[0])
    return [item for _, item in rows]


def _item_of(thread: Thread, action: Any, entry: str) -> dict[str, Any] | None:
    meta = action.metadata or {}
    kept = dict(meta[META]) if isinstance(meta.get(META), Mapping) else None
    kind = action.action_type
    if kind == "system.unknown_item" and isinstance(action.data, Mapping):
        return {**action.data, **({"index": kept["index"]} if kept and "index" in kept else {})}
    if kept is None:
        kept = _fresh_item_fields(thread, action, entry)
    stamp = kept.get("timestamp")
    if kind == "user_message":
        kept.setdefault("content", action.content if isinstance(action.content, str) else _wire_parts(action.content, "input_text"))
    elif kind == "assistant_message":
        if "content" not in kept:
            text = action.content if isinstance(action.content, str) else None
            kept["content"] = [{"annotations": [], "text": text, "type": "output_text"}] if text is not None else _wire_parts(action.content, "output_text")
    elif kind == "thinking":
        if "summary" not in kept:
            kept["summary"] = [{"text": action.content, "type": "summary_text"}] if action.content else []
        if action.signature is not None:
            kept.setdefault("encrypted_content", action.signature)
    elif kind == "tool_call":
        kept["call_id"] = action.tool_call_id
        if not any(k in kept for k in ("arguments", "input", "action")):
            kept["arguments"] = dumps_arguments(action.args if action.args is not None else {})
        kept.setdefault("name", action.tool_name)
    elif kind == "tool_return":
        kept["call_id"] = action.tool_call_id
        kept["output"] = action.content
    elif kind == "system.message" and isinstance(action.data, Mapping):
        kept.setdefault("content", action.data.get("content"))
    else:
        return None
    if stamp is None:
        kept["timestamp"] = int(action.timestamp.timestamp() * 1_000_000)
    return kept


def _fresh_item_fields(thread: Thread, action: Any, entry: str) -> dict[str, Any]:
    """agency-swarm's item fields for an action that did not come from agency-swarm."""
    agent = thread.agent_name(getattr(action, "agent_id", None))
    if action.action_type == "tool_return":
        owner = next((a.agent_id for a in thread.actions if isinstance(a, ToolCall) and a.tool_call_id == action.tool_call_id), None)
        agent = thread.agent_name(owner)
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
    if action.action_type == "assistant_message":
        fields.update(id=action.action_id or f"msg_{action.sequence}", status="completed")
    if action.action_type == "tool_call":
        fields["status"] = "completed"
    if action.action_type == "thinking":
        fields["id"] = action.thinking_id or f"rs_{action.sequence}"
    return fields


def _wire_parts(content: Any, text_type: str) -> list[Any]:
    parts = []
    for part in content or []:
        raw = part.model_dump(exclude_none=True) if hasattr(part, "model_dump") else part
        if isinstance(raw, Mapping) and raw.get("type") == "text":
            parts.append({"type": text_type, "text": raw.get("text"), **({"annotations": []} if text_type == "output_text" else {})})
        elif isinstance(raw, Mapping) and raw.get("type") == "image" and raw.get("image_url"):
            parts.append({"type": "input_image", "image_url": raw["image_url"]})
        else:
            parts.append(raw)
    return parts
