"""Which bodies and lists are OpenAI Chat Completions' (see ``provider_kinds``)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from threadlab.formats.common.providers.kinds import CHAT, list_kind, request_kind, response_kind

KEY = "openai_chat"  # metadata key of what the wire has and ThreadProtocol has no field for


class ChatCodec:
    def is_request(self, body: Mapping[str, Any]) -> bool:
        return request_kind(body) == CHAT

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
