"""Anthropic Messages on the wire: which bodies and lists are its (see
``common/providers/kinds.py``), and actions as its content blocks (``action_blocks``,
``default_message``), which the reader needs too (the default message its memo corrects) and
the writer gives back. The request's
``system`` parameter is read as a first message of role ``system`` (so a logged conversation's
requests, which repeat it, compare as one history)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import orjson
from pydantic import BaseModel

from threadlab.core.canonical import json_bytes
from threadlab.core.model import BaseAction
from threadlab.formats.common.providers.kinds import ANTHROPIC, ANTHROPIC_BLOCKS, CHAT, list_kind, request_kind, response_kind
from threadlab.formats.common.providers.parts import is_media

KEY = "anthropic_messages"  # metadata key of what the wire has and ThreadProtocol has no field for
SYSTEM = "system"
AGENT = "assistant"
PROVIDER = "anthropic"
BLANK_BLOCKS = "blank_blocks"  # key, in an action's metadata, of its message's whitespace-only text blocks: [[index, block], ...]

USER_SIDE = ("user_message", "tool_return")
# the block types of Anthropic content, written back as they came; ``encode_part`` maps text, images
# and media parts (an image or document block) and gives None for any other part (the writer names it)
_BLOCKS = ANTHROPIC_BLOCKS | {"text", "image", "tool_reference"}


class AnthropicCodec:
    """``default``: what a plain-text list counts as (detection leaves those to Chat
    Completions; a reader asked for Anthropic reads them)."""

    def __init__(self, default: str = CHAT) -> None:
        self.default = default

    def is_request(self, body: Mapping[str, Any]) -> bool:
        return request_kind(body, self.default) == ANTHROPIC

    def is_response(self, body: Mapping[str, Any]) -> bool:
        return response_kind(body) == ANTHROPIC

    def is_message_list(self, value: list[Any]) -> bool:
        return list_kind(value, default=self.default) == ANTHROPIC

    def request_messages(self, body: Mapping[str, Any]) -> list[Any]:
        messages = list(body["messages"]) if isinstance(body.get("messages"), list) else []
        if body.get(SYSTEM) is not None:
            return [{"role": SYSTEM, "content": body[SYSTEM]}, *messages]
        return messages

    def response_messages(self, body: Mapping[str, Any]) -> list[Any]:
        return [{"role": "assistant", "content": body.get("content")}]

    @staticmethod
    def is_config(message: Any) -> bool:
        """The request's ``system`` parameter (read as its first message): configuration, not history."""
        return isinstance(message, Mapping) and message.get("role") == SYSTEM


def blocks_of(message: Any) -> int:
    """How many records a message is: its content blocks (a string, or no block, is one)."""
    content = message.get("content") if isinstance(message, Mapping) else None
    return len(content) if isinstance(content, list) and content else 1


def encode_part(part: Any) -> Any:
    """A content part as an Anthropic block; a value that is no part (a string, a number: a
    reader keeps a block of the wrong type as it came) goes back as it is."""
    data = part.model_dump(exclude_none=True) if isinstance(part, BaseModel) else part
    if not isinstance(data, Mapping):
        return data
    kind = data.get("type")
    if kind == "text":
        return {"type": "text", "text": data.get("text", "")}
    if kind == "image" and data.get("image_base64"):
        return {"type": "image", "source": {"type": "base64", "media_type": data.get("media_type") or "image/png", "data": data["image_base64"]}}
    if kind == "image" and data.get("image_url"):
        return {"type": "image", "source": {"type": "url", "url": data["image_url"]}}
    if is_media(data):
        return media_block(data)
    return dict(data) if isinstance(kind, str) and kind in _BLOCKS else None  # another format's part: left out (the writer names it)


def media_block(data: Mapping[str, Any]) -> dict[str, Any] | None:
    """A ThreadProtocol media part (an image, a PDF) as the Anthropic block of it: base64 data or
    a URL; None for media Anthropic has no block for."""
    media = str(data.get("media_type") or "")
    block = "image" if data.get("media_category") == "image" or media.startswith("image/") else "document" if media == "application/pdf" else None
    if block is None:
        return None
    if data.get("content_type") == "binary" and isinstance(data.get("data"), str):
        return {"type": block, "source": {"type": "base64", "media_type": media, "data": data["data"]}}
    if isinstance(data.get("url"), str):
        return {"type": block, "source": {"type": "url", "url": data["url"]}}
    return None


def action_blocks(action: BaseAction) -> list[Any]:
    """The content blocks of one action (the default rule the reader's memo corrects)."""
    kind = action.action_type
    if kind in ("user_message", "assistant_message"):
        content = action.content  # type: ignore[attr-defined]
        if isinstance(content, str):
            return [{"type": "text", "text": content}]
        return [b for b in map(encode_part, content) if b is not None] if isinstance(content, list) else [{"type": "text", "text": "" if content is None else json_bytes(content).decode()}]  # a broken action's odd content, as JSON text
    if kind == "thinking":  # an action kept as it came (InvalidAction) may lack either field
        content, signature = getattr(action, "content", None), getattr(action, "signature", None)
        if content is None and signature is not None:
            return [{"type": "redacted_thinking", "data": signature}]
        return [{"type": "thinking", "thinking": content or "", "signature": signature or ""}]
    if kind == "tool_call":
        return [{"type": "tool_use", "id": action.tool_call_id, "name": action.tool_name, "input": action.args if isinstance(action.args, Mapping) else {}}]  # type: ignore[attr-defined]
    if kind == "tool_return":
        content = action.content  # type: ignore[attr-defined]
        if isinstance(content, list):
            content = [b for b in map(encode_part, content) if b is not None]
        elif not isinstance(content, str):
            content = orjson.dumps(content).decode()
        block: dict[str, Any] = {"type": "tool_result", "tool_use_id": action.tool_call_id, "content": content}  # type: ignore[attr-defined]
        if getattr(action, "status", "success") != "success":
            block["is_error"] = True
        return [block]
    return [action.data] if kind.startswith("system.") else []  # type: ignore[attr-defined]


def default_message(actions: list[BaseAction]) -> Any:
    first = actions[0]
    if first.action_type == "system.message":
        data = first.data if isinstance(first.data, Mapping) else {}  # type: ignore[attr-defined]
        return {"role": SYSTEM, "content": data.get("content")}
    if first.action_type == "system.config_update":
        changes = first.data.get("changes") if isinstance(first.data, Mapping) else None  # type: ignore[attr-defined]
        return {"role": SYSTEM, "content": changes.get(SYSTEM) if isinstance(changes, Mapping) else None}
    if first.action_type == "system.unknown_message":
        return first.data  # type: ignore[attr-defined]
    role = "user" if first.action_type in USER_SIDE else "assistant"
    mine = (getattr(first, "metadata", None) or {}).get(KEY)
    blanks = mine.get(BLANK_BLOCKS) if isinstance(mine, Mapping) else None  # whitespace-only text blocks the reader left out
    if not blanks and len(actions) == 1 and first.action_type in ("user_message", "assistant_message") and isinstance(first.content, str):  # type: ignore[attr-defined]
        return {"role": role, "content": first.content}  # type: ignore[attr-defined]
    blocks = [block for a in actions for block in action_blocks(a)]
    for entry in blanks if isinstance(blanks, list) else ():
        if isinstance(entry, list) and len(entry) == 2 and type(entry[0]) is int:
            blocks.insert(entry[0], entry[1])
    return {"role": role, "content": blocks}
