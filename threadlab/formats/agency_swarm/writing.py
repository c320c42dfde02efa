"""A Thread → agency-swarm's flat saved list (what ``load_threads_callback`` returns).

Items read from agency-swarm come back exactly, in their saved order: the shared Responses
mapping's default item for each action (``responses.items.action_item``), corrected by the memo
the reader kept, with agency-swarm's ``agent`` / ``callerAgent`` tags put back. Other actions are
written as the items agency-swarm would have saved, attributed to their agent. What an item list
has no place for is named in a ``WriteLoss``."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Mapping
from typing import Any

from threadlab.core.loss import report_loss
from threadlab.core.model import Thread, ToolCall
from threadlab.formats.agency_swarm.common import DERIVED, META, TAGS, entry_agent
from threadlab.formats.common.responses.items import action_item

NAME = "agency-swarm"
_WRITTEN = ("system.unknown_item", "system.message", "system.item_reference", "user_message", "assistant_message", "thinking", "tool_call", "tool_return")
_READ_THREAD_KEYS = frozenset({META, "synthetic_timestamps"})  # thread metadata a reader derives from the items
_RUN_USAGE_KEYS = frozenset({"usage", "cost_usd", "request_count"})  # from the FastAPI body's usage, beside the list


def to_agency_swarm(thread: Thread) -> list[dict[str, Any]]:
    """The flat saved list (what ``load_threads_callback`` returns). Items read from
    agency-swarm come back exactly, in their saved order; other actions are written as the
    Responses items agency-swarm would have saved, attributed to their agent. Warns
    ``WriteLoss`` naming what the list cannot hold (tool return statuses, usage and model names
    of other formats, system actions, media that is not an image URL, the thread's title)."""
    entry = entry_agent(thread)
    lost: Counter[str] = Counter()
    calls = {a.tool_call_id: a for a in thread.actions if isinstance(a, ToolCall)}
    rows: list[tuple[Any, dict[str, Any]]] = []
    for action in thread.actions:
        item = _item_of(thread, action, entry, calls, lost)
        if item is not None:
            rows.append((item.pop("index", None), item))
    if rows and all(isinstance(index, int) for index, _ in rows):  # all read from one saved list
        rows.sort(key=lambda row: row[0])
    _thread_losses(thread, lost)
    report_loss(NAME, thread.thread_id, [f"{n} {what}" for what, n in lost.items()])
    return [item for _, item in rows]


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


def _item_of(thread: Thread, action: Any, entry: str, calls: dict[str, ToolCall], lost: Counter[str]) -> dict[str, Any] | None:
    meta = action.metadata or {}
    kept = meta[META] if isinstance(meta.get(META), Mapping) else None
    kind = action.action_type
    if kept is not None and (kept.get(DERIVED) is not None or kept.get("hosted_result")):
        return None  # made by the reader (a delegation, a handoff, a hosted call's result)
    if kind == "system.unknown_item" and isinstance(action.data, Mapping):
        if kept is None:  # another format's item (a Codex line it did not know): no agency-swarm item, untagged
            lost["system.unknown_item actions (items of another format)"] += 1
            return None
        return {**action.data, **({"index": kept["index"]} if "index" in kept else {})}
    if kept is not None and "index" in kept:  # read from a saved list: the item as it came
        item = action_item(action, META)
        if item is None:
            lost[f"{kind} actions"] += 1
            return None
        return {**item, **{k: kept[k] for k in TAGS if k in kept}, "index": kept["index"]}
    item = action_item(action, META, memo=False) if kind in _WRITTEN else None
    if item is None:
        lost[f"{kind} actions"] += 1
        return None
    _fresh_losses(action, calls, lost)
    return _fresh_item(thread, action, item, entry, calls, lost)


def _fresh_item(thread: Thread, action: Any, item: dict[str, Any], entry: str, calls: dict[str, ToolCall], lost: Counter[str]) -> dict[str, Any]:
    """What agency-swarm would have saved for an action of another format: the Responses item
    with its tags (agent, a null callerAgent, the history protocol, a microsecond timestamp)."""
    kind = action.action_type
    agent = thread.agent_name(getattr(action, "agent_id", None))
    if kind == "tool_return":
        owner = calls.get(action.tool_call_id)
        agent = thread.agent_name(owner.agent_id) if owner is not None else None
    if kind == "user_message":
        item["content"] = action.content if isinstance(action.content, str) else _wire_parts(action.content, "input_text", lost)
    elif kind == "assistant_message":
        text = action.content if isinstance(action.content, str) else None
        item["content"] = [{"annotations": [], "text": text, "type": "output_text"}] if text is not None else _wire_parts(action.content, "output_text", lost)
        item.update(id=action.action_id or f"msg_{action.sequence}", status="completed")
    elif kind == "thinking":
        item.setdefault("id", f"rs_{action.sequence}")
    elif kind == "tool_call":
        item["status"] = "completed"
    elif kind == "tool_return":
        item["output"] = _output_text(action.content)
    tags = {"agent": agent or entry, "callerAgent": None, "history_protocol": "responses", "timestamp": int(action.timestamp.timestamp() * 1_000_000)}
    return {**item, **tags}


def _output_text(content: Any) -> Any:
    """A function_call_output's output is a string (or a list of input parts): other values
    as the JSON the SDK would have sent."""
    return content if content is None or isinstance(content, str | list) else json.dumps(content)


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
