"""Which bodies and lists are Anthropic Messages' (see ``provider_kinds``). The request's
``system`` parameter is read as a first message of role ``system`` (so a logged conversation's
requests, which repeat it, compare as one history)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from threadlab.formats.common.providers.kinds import ANTHROPIC, CHAT, list_kind, request_kind, response_kind

KEY = "anthropic_messages"  # metadata key of what the wire has and ThreadProtocol has no field for
SYSTEM = "system"


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
