"""Thread → AI SDK v4 ``Message`` for the messages a v4 chat was read from (see ``messages_v4``:
what v4 has beyond the actions waits under ``metadata.vercel_ai.v4`` on a message's first
action), so a v4 chat written back reads as the same thread."""

from __future__ import annotations

from typing import Any

from threadlab.core.model import AssistantMessage, BaseAction, Thinking, ToolCall, UserMessage
from threadlab.formats.vercel_ai.grouping import Response, ThreadView, media_url, vercel_of

Part = dict[str, Any]


def is_v4(response: Response) -> bool:
    return isinstance(response.head.get("v4"), dict)


def v4_message(view: ThreadView, response: Response, message_id: str) -> dict[str, Any]:
    """The v4 message ``response`` was read from."""
    head = response.head
    meta: dict[str, Any] = head["v4"]
    # a message saved without its id (``{role, content, parts}``) is written back without one
    message: dict[str, Any] = {"id": message_id} if response.message_id is not None else {}
    message["role"] = head.get("role", response.role)
    message.update(head.get("message_extra") or {})
    attachments: list[Part] = []
    if response.role == "user":
        parts, attachments = _user_parts(response.actions, meta.get("attachments", 0))
    elif message["role"] in ("system", "data"):
        parts = _system_parts(response.actions, message)
    else:
        parts = _assistant_parts(view, response)
    texts = "".join(p["text"] for p in parts if p.get("type") == "text" and isinstance(p.get("text"), str))
    if "content" in meta or "parts" in meta:
        message["content"] = texts if meta.get("content", True) is True else meta["content"]
    if "reasoning" in meta:
        reasoning = "".join(p["reasoning"] for p in parts if p.get("type") == "reasoning")
        message["reasoning"] = reasoning if meta["reasoning"] is True else meta["reasoning"]
    if "tool_invocations" in meta:
        invocations = [p["toolInvocation"] for p in parts if p.get("type") == "tool-invocation"]
        message["toolInvocations"] = invocations if meta["tool_invocations"] is True else meta["tool_invocations"]
    if "attachments" in meta:
        message["experimental_attachments"] = attachments
    if "parts" in meta:
        if meta["parts"] is not None:
            message["parts"] = meta["parts"]
    else:
        message["parts"] = parts
    return message


def _user_parts(actions: list[BaseAction], n_attachments: int) -> tuple[list[Part], list[Part]]:
    parts: list[Part] = []
    attachments: list[Part] = []
    for action in actions:
        if not isinstance(action, UserMessage):
            parts.extend(_other(action))
            continue
        content = action.content
        items = [{"type": "text", "text": content}] if isinstance(content, str) else [_dump(p) for p in content]
        if n_attachments:
            items, attached = items[:-n_attachments], items[-n_attachments:]
        else:
            attached = []
        parts.extend(_content_part(p) for p in items)
        attachments.extend(_attachment(p) for p in attached)
    return parts, attachments


def _dump(part: Any) -> Part:
    return part.model_dump(exclude_none=True) if hasattr(part, "model_dump") else dict(part)


def _attachment(part: Part) -> Part:
    v4 = (part.get("metadata") or {}).get("v4_attachment") or {}
    out: Part = {}
    if part.get("identifier") is not None:
        out["name"] = part["identifier"]
    if v4.get("contentType", True):
        out["contentType"] = part.get("media_type")
    out["url"] = media_url(part)
    out.update(v4.get("extra") or {})
    return out


def _content_part(part: Part) -> Part:
    if part.get("type") == "text":
        return {"type": "text", "text": part.get("text", "")}
    if part.get("type") == "source-url":
        source = {"id": part.get("identifier"), "url": part.get("url"), **(part.get("metadata") or {})}
        return {"type": "source", "source": {k: v for k, v in source.items() if v is not None}}
    out: Part = {"type": "file", "mimeType": part.get("media_type"), "data": part.get("data")}
    out.update((part.get("metadata") or {}).get("v4_extra") or {})
    return out


def _system_parts(actions: list[BaseAction], message: dict[str, Any]) -> list[Part]:
    for action in actions:
        data = getattr(action, "data", None)
        if action.action_type == "system.data_message" and isinstance(data, dict):
            message.update(data)
        elif isinstance(vercel_of(action).get("parts"), list):
            return list(vercel_of(action)["parts"])
        elif isinstance(data, dict) and isinstance(data.get("text"), str):
            return [{"type": "text", "text": data["text"]}]
    return []


def _assistant_parts(view: ThreadView, response: Response) -> list[Part]:
    parts: list[Part] = []
    step = 0
    for action, action_step in zip(response.actions, response.steps, strict=True):
        if action_step != step:
            if action_step > 0:
                parts.append({"type": "step-start"})
            step = action_step
        vercel = vercel_of(action)
        if isinstance(action, AssistantMessage):
            content = action.content
            new = [{"type": "text", "text": content}] if isinstance(content, str) else [_content_part(_dump(p)) for p in content]
        elif isinstance(action, Thinking):
            detail = {"type": "text", "text": action.content or "", **({"signature": action.signature} if action.signature else {})}
            new = [{"type": "reasoning", "reasoning": action.content or "", "details": vercel.get("details", [detail])}]
        elif isinstance(action, ToolCall):
            new = [{"type": "tool-invocation", "toolInvocation": _invocation(view, action, vercel)}]
        elif action.action_type == "tool_return" or action.action_type == "system.message_metadata":
            continue
        else:
            parts.extend(_other(action))
            continue
        for part in new:
            part.update(vercel.get("part_extra") or {})
            if part["type"] == "source":
                part["source"] = {**(vercel.get("v4_source") or {}), **part["source"]}
        parts.extend(new)
    return parts


def _invocation(view: ThreadView, call: ToolCall, vercel: dict[str, Any]) -> Part:
    outcome = view.outcomes.get(call.tool_call_id)
    state = vercel.get("v4_state") or ("result" if outcome is not None else "partial-call" if vercel.get("input_incomplete") else "call")
    invocation: Part = {"state": state}
    if "v4_step" in vercel:
        invocation["step"] = vercel["v4_step"]
    invocation["toolCallId"] = call.tool_call_id
    invocation["toolName"] = call.tool_name
    if not vercel.get("no_args"):
        invocation["args"] = call.args
    if outcome is not None:
        invocation["result"] = outcome.content
    invocation.update(vercel.get("invocation_extra") or {})
    return invocation


def _other(action: BaseAction) -> list[Part]:
    data = getattr(action, "data", None)
    if action.action_type == "system.unknown_part":
        return [data] if data is not None else []
    return []
