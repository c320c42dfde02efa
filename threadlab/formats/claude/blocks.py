"""Actions and content parts back into Claude content blocks (the writer's half of
``convert.py`` / ``user.py``): a block read from Claude comes back with the fields it had, a
foreign one gets the fields the Messages API gives it."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import orjson
from pydantic import BaseModel

from threadlab.core.model import BaseAction

_VALUE_KEY = {"url": "url", "binary": "data"}


def jsonable(value: Any) -> Any:
    """Content, args or data (maybe holding pydantic parts) as plain JSON values."""

    def default(obj: Any) -> Any:
        if isinstance(obj, BaseModel):
            return obj.model_dump(mode="json", exclude_unset=True)
        raise TypeError(type(obj).__name__)

    return orjson.loads(orjson.dumps(value, default=default))


def _fields(part: Any) -> dict[str, Any]:
    """A part's own fields: what was set on it (a part read from Claude: the block's keys)."""
    if isinstance(part, BaseModel):
        return part.model_dump(mode="json", exclude_unset=True)
    return dict(part) if isinstance(part, Mapping) else {"value": part}


def user_blocks(content: Any) -> Any:
    """A message's content as user content: a string stays one, parts become blocks."""
    if isinstance(content, str):
        return content
    return [user_block(part) for part in content or ()]


def user_block(part: Any) -> Any:
    fields = _fields(part)
    if "claude_block" in fields:  # a block read from Claude that no part could stand for
        return fields["claude_block"]
    kind = fields.get("type")
    if "content_type" in fields and "media_category" in fields:
        return _media_block(fields)
    if kind == "image" and ("image_url" in fields or "image_base64" in fields):  # ThreadProtocol 1.0 image part
        source = ({"type": "url", "url": fields["image_url"]} if fields.get("image_url")
                  else {"type": "base64", "media_type": fields.get("media_type") or "image/png", "data": fields.get("image_base64")})
        return {"type": "image", "source": source}
    if kind == "text" or (kind is None and "text" in fields):
        return {"type": "text", **fields}
    return fields


def _media_block(fields: dict[str, Any]) -> dict[str, Any]:
    key = _VALUE_KEY.get(fields.get("content_type"), "data")
    claude = (fields.get("metadata") or {}).get("claude") if isinstance(fields.get("metadata"), Mapping) else None
    if isinstance(claude, Mapping):
        rest = {k: v for k, v in claude.items() if k not in ("type", "source")}
        source = dict(claude.get("source") or {})
        source[key] = fields.get(key)
        return {"type": claude.get("type", "image"), "source": source, **rest}
    kind = "image" if fields.get("media_category") == "image" else "document"
    if key == "url":
        return {"type": kind, "source": {"type": "url", "url": fields.get("url")}}
    return {"type": kind, "source": {"type": "base64", "media_type": fields.get("media_type"), "data": fields.get("data")}}


def assistant_block(action: BaseAction, kept: Any) -> Any:
    """An assistant_message, thinking, tool_call or tool_return as the content block it came
    from (``kept``: the block's other fields as the reader kept them, None for a foreign
    action)."""
    rest = dict(kept) if isinstance(kept, Mapping) else {}
    kind = action.action_type
    if kind == "assistant_message":
        content = action.content  # type: ignore[attr-defined]
        text = content if isinstance(content, str) else "".join(t for t in (getattr(p, "text", None) for p in content) if isinstance(t, str))
        if kept == "string":
            return text
        return {"type": "text", "text": text, **rest}
    if kind == "thinking":
        block: dict[str, Any] = {"type": "thinking", **rest}
        if action.content is not None:  # type: ignore[attr-defined]
            block["thinking"] = action.content  # type: ignore[attr-defined]
        if action.signature is not None:  # type: ignore[attr-defined]
            block["signature"] = action.signature  # type: ignore[attr-defined]
        return block
    if kind == "tool_call":
        absent = rest.pop("input_absent", False)
        block = {"type": "tool_use", "id": action.tool_call_id, "name": action.tool_name, **rest}  # type: ignore[attr-defined]
        if block.pop("id_absent", False):  # a call its file gave no id: the reader made one
            del block["id"]
        if not absent:
            block["input"] = jsonable(action.args)  # type: ignore[attr-defined]
        return block
    absent = rest.pop("content_absent", False)  # tool_return
    block = {"type": "tool_result", **rest, "tool_use_id": action.tool_call_id}  # type: ignore[attr-defined]
    if block.pop("tool_use_id_absent", False):  # a result its file said nothing of the call of: the reader paired it
        del block["tool_use_id"]
    if not absent:
        block["content"] = jsonable(action.content)  # type: ignore[attr-defined]
    return block


def wire_usage(usage: Any) -> dict[str, int] | None:
    """threadlab usage → Anthropic usage (input without the cached part)."""
    if usage is None:
        return None
    get = (lambda k: getattr(usage, k, None) or 0) if not isinstance(usage, Mapping) else (lambda k: usage.get(k) or 0)
    read, write = get("cache_read_tokens"), get("cache_write_tokens")
    return {"input_tokens": max(get("input_tokens") - read - write, 0), "cache_creation_input_tokens": write,
            "cache_read_input_tokens": read, "output_tokens": get("output_tokens")}
