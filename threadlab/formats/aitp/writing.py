"""Thread → AITP spec JSON or a NEAR AI hub export."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Mapping
from typing import Any

from threadlab.core.canonical import model_to_dict
from threadlab.core.loss import report_loss
from threadlab.core.model import Thread
from threadlab.formats.aitp.reading import agent_name_of
from threadlab.formats.aitp.shapes import ABSENT, CARRIED, META, kept_head, source_shape

NAME = "aitp"


def to_aitp(thread: Thread, *, shape: str = "aitp") -> dict[str, Any]:
    """The thread as AITP JSON: ``shape="aitp"`` (default) is the spec's thread
    ``{id, messages, metadata: {parent_id, actors}}`` with ``content: list[str]``; ``shape="hub"``
    is the NEAR AI hub export ``{"thread": ..., "messages": [...]}`` (OpenAI Assistants shape,
    string metadata). A thread read from the same shape is written back as it came. Warns
    ``WriteLoss`` naming what AITP has no place for (sub-second times of messages, usage and
    model names, media that is no image URL, attachments of other formats)."""
    if shape not in ("aitp", "hub"):
        raise ValueError(f"to_aitp: shape must be 'aitp' or 'hub', got {shape!r}")
    origin_shape = source_shape(thread)
    head = kept_head(thread)
    lost: Counter[str] = Counter()
    messages = [_message(thread, action, shape, lost) for action in thread.actions]
    if origin_shape is None and any(agent.metadata and not agent.metadata.get("aitp_actor") for agent in thread.agents.values()):
        lost["agent metadata (model names, descriptions)"] += 1
    if origin_shape is None and set(thread.metadata or {}) - {"synthetic_timestamps", "child_thread_ids", "agent_ids", "owner_id"}:
        lost["thread metadata"] += 1
    report_loss(NAME, thread.thread_id, [f"{n} {what}" for what, n in lost.items()])
    if shape == "hub":
        thread_obj = head if origin_shape == "hub" else _hub_thread(thread)
        return {"thread": thread_obj, "messages": messages}
    if origin_shape == "aitp":
        return {**head, "messages": messages}
    metadata: dict[str, Any] = {}
    if thread.parent_thread_id:
        metadata["parent_id"] = thread.parent_thread_id
    if thread.title:
        metadata["topic"] = thread.title
    metadata["actors"] = [_actor(agent) for agent in thread.agents.values()]
    return {"id": thread.thread_id, "messages": messages, "metadata": metadata}


def _actor(agent: Any) -> dict[str, Any]:
    """The spec's actor; its ``name`` when the id does not give it (``ceo`` for "CEO")."""
    meta = agent.metadata or {}
    extra = {k: v for k, v in meta.items() if k != "aitp_actor"} if meta.get("aitp_actor") else {}
    if agent.agent_name != agent_name_of(agent.agent_id):
        extra.setdefault("name", agent.agent_name)
    return {"id": agent.agent_id, "capabilities": extra.pop("capabilities", []), **extra}


def _hub_thread(thread: Thread) -> dict[str, Any]:
    """The hub's thread object; its metadata values are strings, as OpenAI's API requires."""
    meta: dict[str, Any] = {}
    if isinstance(kept_head(thread).get("metadata"), Mapping):
        meta.update(kept_head(thread)["metadata"])
    agent_ids = [k for k, a in thread.agents.items() if not (a.metadata or {}).get("aitp_actor") or any(getattr(x, "agent_id", None) == k for x in thread.actions)]
    if agent_ids:
        meta.setdefault("agent_ids", ",".join(agent_ids))
    names = {k: thread.agents[k].agent_name for k in agent_ids if thread.agents[k].agent_name != agent_name_of(k)}
    if names:
        meta.setdefault("agent_names", json.dumps(names))
    if thread.title:
        meta.setdefault("topic", thread.title)
    if thread.parent_thread_id:
        meta.setdefault("parent_id", thread.parent_thread_id)
    children = (thread.metadata or {}).get("child_thread_ids")
    if children:
        meta.setdefault("child_thread_ids", json.dumps(children))
    created = thread.created_at or (thread.actions[0].timestamp if thread.actions else None)
    return {
        "id": thread.thread_id,
        "created_at": int(created.timestamp()) if created else 0,
        "metadata": {k: v if isinstance(v, str) else json.dumps(v) for k, v in meta.items()},
        "object": "thread",
        "tool_resources": None,
    }


def _wire_content(content: Any, shape: str, lost: Counter[str]) -> list[Any]:
    parts = [content] if isinstance(content, str) else list(content or [])
    out: list[Any] = []
    for part in parts:
        raw = part if isinstance(part, str | Mapping) else model_to_dict(part)
        if isinstance(raw, str):
            text: str | None = raw
        elif raw.get("type") == "text":
            text = raw.get("text")
        elif raw.get("type") == "aitp":
            text = json.dumps(raw.get("data"))
        elif shape == "hub" and raw.get("type") == "image" and raw.get("image_url"):
            out.append({"type": "image_url", "image_url": {"url": raw["image_url"]}})
            continue
        else:
            lost["media or other content parts (written as JSON text or raw blocks)"] += 1
            text = None if shape == "hub" else json.dumps(raw)
            if text is None:
                out.append(dict(raw))
                continue
        out.append(text if shape == "aitp" else {"text": {"annotations": [], "value": text or ""}, "type": "text"})
    return out


def _message(thread: Thread, action: Any, shape: str, lost: Counter[str]) -> dict[str, Any]:
    meta = action.metadata or {}
    kept = dict(meta.get(META) or {}) if isinstance(meta.get(META), Mapping) else None
    kind = action.action_type
    created = int(action.timestamp.timestamp())
    if kind in ("user_message", "assistant_message"):
        role = "user" if kind == "user_message" else "assistant"
        actor = meta.get("actor") if kind == "user_message" else action.agent_id
        content = action.content
        extra: dict[str, Any] = {}
    elif kind.startswith("system.") and isinstance(action.data, Mapping) and "text" in action.data and kept is not None:
        role = action.data.get("role") or "assistant"
        actor = action.data.get("agent_id")
        content = action.data.get("content", action.data.get("text"))
        extra = {"message_type": action.data["message_type"]} if action.data.get("message_type") else {}
    else:
        return _carrier(thread, action, created, shape, lost)
    if kept is None:
        _fresh_losses(action, lost)
    if kept is not None and shape == _kept_shape(thread):
        absent = kept.pop(ABSENT, [])
        message = {"role": role, "created_at": created, **kept}
        if "content" not in kept:
            message["content"] = _wire_content(content, shape, lost)
        for key in absent if isinstance(absent, list) else []:
            message.pop(key, None)
        return _ordered(message, shape)
    metadata = dict(extra)
    if actor and (shape == "aitp" or role == "user"):  # the hub names assistants by assistant_id
        metadata["actor"] = actor
    message = {"created_at": created, "thread_id": thread.thread_id, "content": _wire_content(content, shape, lost), "role": role, "metadata": metadata}
    if kept and kept.get("attachments"):  # both shapes have attachments [{file_id, ...}]
        message["attachments"] = kept["attachments"]
    if shape == "hub":
        message.update(
            id=action.action_id or f"msg_{action.sequence:024d}",
            object="thread.message",
            assistant_id=actor if role == "assistant" else None,
            status="completed",
            metadata=metadata or None,
        )
    return _ordered(message, shape)


def _kept_shape(thread: Thread) -> str | None:
    shape = source_shape(thread)
    return None if shape is None else "aitp" if shape == "aitp" else "hub"


def _ordered(message: dict[str, Any], shape: str) -> dict[str, Any]:
    return dict(sorted(message.items())) if shape == "hub" else message


def _fresh_losses(action: Any, lost: Counter[str]) -> None:
    """What a message of another format has that an AITP message cannot hold."""
    if action.timestamp.microsecond:
        lost["sub-second message times (created_at is whole seconds)"] += 1
    if getattr(action, "usage", None) is not None:
        lost["usage figures"] += 1
    if (action.metadata or {}).get("model_name") or (action.metadata or {}).get("provider_name"):
        lost["model/provider names"] += 1
    if getattr(action, "finish_reason", None) is not None:
        lost["finish reasons"] += 1
    if getattr(action, "attachments", None):
        lost["message attachments"] += 1


def _carrier(thread: Thread, action: Any, created: int, shape: str, lost: Counter[str]) -> dict[str, Any]:
    """An ``agent:log`` message carrying an action AITP has no place for (thinking, tool calls
    and returns, system actions), readable as text and restored exactly on reading (its time
    to the second, as every AITP message's)."""
    data = {k: v for k, v in model_to_dict(action).items() if k not in ("sequence", "timestamp")}  # created_at holds the time
    agent = getattr(action, "agent_id", None)
    summary = {
        "tool_call": lambda: f"tool call: {action.tool_name}({json.dumps(action.args)})",
        "tool_return": lambda: f"tool result ({action.tool_name}, {action.status}): {action.content if isinstance(action.content, str) else json.dumps(action.content)}",
        "thinking": lambda: f"thinking: {action.content or ''}",
    }.get(action.action_type, lambda: f"{action.action_type}: {json.dumps(data.get('data'))}")()
    if action.timestamp.microsecond:
        lost["sub-second message times (created_at is whole seconds)"] += 1
    metadata: dict[str, Any] = {"message_type": "agent:log", CARRIED: data}
    if agent and shape == "aitp":
        metadata["actor"] = agent
    message = {"created_at": created, "thread_id": thread.thread_id, "content": _wire_content(summary, shape, lost), "role": "assistant", "metadata": metadata}
    if shape == "hub":
        message.update(id=f"msg_{action.sequence:024d}", object="thread.message", assistant_id=agent, status="completed")
    return _ordered(message, shape)


