"""LangChain messages on the wire: the metadata key and default agent, and one message's actions
as the fields of its message (``default_data``), which the reader needs too (the default its
memo corrects) and the writer gives back."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import orjson

from threadlab.core.model import BaseAction

KEY = "langchain"
AGENT = "assistant"


def _encode_content(content: Any) -> Any:
    if content is None or isinstance(content, str):
        return content or ""
    out = []
    for part in content:
        data = part if isinstance(part, Mapping) else part.model_dump(exclude_none=True)
        if data.get("type") == "text":
            out.append({"type": "text", "text": data.get("text", "")})
        elif data.get("type") == "image" and data.get("image_url"):
            out.append({"type": "image_url", "image_url": {"url": data["image_url"]}})
        else:
            out.append(dict(data))
    return out


def default_data(actions: list[BaseAction], agents: Mapping[str, Any], kind: str) -> dict[str, Any]:
    """The fields of the message one message's actions make (the rule the reader's memo
    corrects)."""
    first = actions[0]
    if first.action_type == "system.message":
        data = first.data if isinstance(first.data, Mapping) else {}  # type: ignore[attr-defined]
        return {"content": data.get("content"), "type": kind}
    if first.action_type == "system.remove_message":
        return {"id": (first.data or {}).get("id"), "type": kind}  # type: ignore[attr-defined]
    if first.action_type == "user_message":
        return {"content": _encode_content(first.content), "type": kind}  # type: ignore[attr-defined]
    if first.action_type == "tool_return":
        out = {"content": _encode_content(first.content) if isinstance(first.content, str | list) else orjson.dumps(first.content).decode(),  # type: ignore[attr-defined]
               "type": kind, "name": first.tool_name, "tool_call_id": first.tool_call_id}  # type: ignore[attr-defined]
        if first.status != "success":  # type: ignore[attr-defined]
            out["status"] = "error"
        return out
    text = next((a for a in actions if a.action_type == "assistant_message"), None)
    thinking = [a for a in actions if a.action_type == "thinking"]
    content = _encode_content(text.content) if text is not None else ""  # type: ignore[attr-defined]
    if thinking:
        blocks = [{"type": "thinking", "thinking": t.content or "", **({"signature": t.signature} if t.signature else {})} for t in thinking]  # type: ignore[attr-defined]
        content = [*blocks, *([{"type": "text", "text": content}] if isinstance(content, str) and content else content if isinstance(content, list) else [])]
    out: dict[str, Any] = {"content": content, "type": kind}
    agent = agents.get(getattr(first, "agent_id", "")) if agents else None
    if agent is not None and agent.agent_name != AGENT:
        out["name"] = agent.agent_name
    calls = [a for a in actions if a.action_type == "tool_call"]
    out["tool_calls"] = [{"name": c.tool_name, "args": c.args, "id": c.tool_call_id, "type": "tool_call"} for c in calls if isinstance(c.args, Mapping)]  # type: ignore[attr-defined]
    invalid = [c for c in calls if not isinstance(c.args, Mapping)]  # type: ignore[attr-defined]
    if invalid:  # arguments that are no object (a model's unparsed JSON): LangChain keeps them as text here
        out["invalid_tool_calls"] = [{"name": c.tool_name, "args": _args_text(c.args), "id": c.tool_call_id, "error": None, "type": "invalid_tool_call"} for c in invalid]  # type: ignore[attr-defined]
    usage = next((getattr(a, "usage", None) for a in actions if getattr(a, "usage", None) is not None), None)
    if usage is not None:
        u = usage if isinstance(usage, Mapping) else usage.model_dump(exclude_none=True)
        out["usage_metadata"] = {"input_tokens": u.get("input_tokens", 0), "output_tokens": u.get("output_tokens", 0), "total_tokens": u.get("total_tokens", 0)}
    return out


def _args_text(args: Any) -> str | None:
    return args if isinstance(args, str) or args is None else orjson.dumps(args).decode()
