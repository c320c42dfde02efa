"""OpenAI Chat Completions on the wire: which bodies and lists are its (see
``common/providers/kinds.py``), and ThreadProtocol values as Chat values (content, parts,
arguments, one message's actions as its message), which the reader needs too (the default
message its memo corrects) and the writer gives back."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import orjson
from pydantic import BaseModel

from threadlab.core.model import AgentConfig, BaseAction
from threadlab.formats.common.providers.kinds import CHAT, list_kind, request_kind, response_kind
from threadlab.formats.common.providers.parts import chat_part, is_media

KEY = "openai_chat"  # metadata key of what the wire has and ThreadProtocol has no field for
AGENT = "assistant"
PROVIDER = "openai"
# the content part types of Chat messages (Mistral's ``thinking`` among them): written back as they came
CHAT_PARTS = frozenset({"text", "image_url", "input_audio", "file", "refusal", "thinking"})


class ChatCodec:
    def is_request(self, body: Mapping[str, Any]) -> bool:
        # an agent's saved trajectory (mini-swe-agent's ``trajectory_format``) holds chat messages too: its own format reads it
        return request_kind(body) == CHAT and not isinstance(body.get("trajectory_format"), str)

    def is_response(self, body: Mapping[str, Any]) -> bool:
        return response_kind(body) == CHAT

    def is_message_list(self, value: list[Any]) -> bool:
        return list_kind(value) == CHAT

    def request_messages(self, body: Mapping[str, Any]) -> list[Any]:
        messages = body.get("messages")
        return list(messages) if isinstance(messages, list) else []

    def response_messages(self, body: Mapping[str, Any]) -> list[Any]:
        return [c["message"] for c in choices_of(body) if isinstance(c, Mapping) and isinstance(c.get("message"), Mapping)]


def choices_of(body: Mapping[str, Any]) -> list[Any]:
    """A response's (or a chunk's) ``choices``; none when they are no list (the SDK type check
    names that value, with its line)."""
    choices = body.get("choices")
    return choices if isinstance(choices, list) else []


def encode_content(content: Any) -> Any:
    """ThreadProtocol content → Chat content (the default rule the reader's memo corrects)."""
    if content is None or isinstance(content, str):
        return content or ""
    if not isinstance(content, list):
        return content  # (a broken action's odd content, as it came)
    out = []
    for part in content:
        data = part.model_dump(exclude_none=True) if isinstance(part, BaseModel) else part
        encoded = encode_part(data) if isinstance(data, Mapping) else data
        if encoded is not None:
            out.append(encoded)
    return out


def encode_part(data: Any) -> dict[str, Any] | None:
    """A ThreadProtocol part (as a dict) → the Chat part for it: text, an image, a media part
    where a Chat part holds it (``providers.parts``), a Chat part as it came; None for anything
    else (another format's part: the writer leaves it out and names it)."""
    if not isinstance(data, Mapping):
        return None
    kind = data.get("type")
    if kind == "text":
        return {"type": "text", "text": data.get("text", "")}
    if kind == "image" and (data.get("image_url") or data.get("image_base64")):
        return {"type": "image_url", "image_url": {"url": data.get("image_url") or f"data:{data.get('media_type') or 'image/png'};base64,{data['image_base64']}"}}
    if is_media(data):
        return chat_part(data)
    return dict(data) if isinstance(kind, str) and kind in CHAT_PARTS else None


def encode_args(args: Any) -> str:
    return args if isinstance(args, str) else orjson.dumps(args).decode()


def default_message(actions: list[BaseAction], agents: Mapping[str, AgentConfig] | None = None) -> Any:
    """The Chat Completions message of one message's actions (the rule the reader's memo
    corrects): a system prompt, a user message, a tool result, or an assistant message with
    its reasoning, text and tool calls."""
    first = actions[0]
    kind = first.action_type
    if kind == "system.message":
        data = first.data if isinstance(first.data, Mapping) else {}  # type: ignore[attr-defined]
        return {"role": data.get("role") or "system", "content": data.get("content")}
    if kind.startswith("system."):
        return first.data  # type: ignore[attr-defined]
    if kind == "user_message":
        return {"role": "user", "content": encode_content(first.content)}  # type: ignore[attr-defined]
    if kind == "tool_return":
        content = first.content  # type: ignore[attr-defined]
        content = encode_content(content) if isinstance(content, list) else content if isinstance(content, str) else orjson.dumps(content).decode()
        return {"role": "tool", "tool_call_id": first.tool_call_id, "content": content}  # type: ignore[attr-defined]
    message: dict[str, Any] = {"role": "assistant"}
    agent = agents.get(getattr(first, "agent_id", "")) if agents else None
    text = next((a.content for a in actions if a.action_type == "assistant_message"), None)  # type: ignore[attr-defined]
    message["content"] = encode_content(text) if text is not None else None
    reasoning = next((a.content for a in actions if a.action_type == "thinking"), None)  # type: ignore[attr-defined]
    if reasoning:
        message["reasoning_content"] = reasoning
    calls = [a for a in actions if a.action_type == "tool_call"]
    if calls:
        message["tool_calls"] = [
            {"id": c.tool_call_id, "type": "function", "function": {"name": c.tool_name, "arguments": encode_args(c.args)}}  # type: ignore[attr-defined]
            for c in calls
        ]
    if agent is not None and agent.agent_name != AGENT:
        message["name"] = agent.agent_name
    return message
