"""A saved AI SDK chat around its messages: the UIMessage list out of whatever holds it (a list,
a ``{"messages": [...]}`` request body or ``onFinish`` payload, one message, pydantic-ai models,
JSON text or a path), the chat id a request body carries, and the id derived for a chat that
has none (the same file read again, or written back, gets the same id)."""

from __future__ import annotations

import os
import uuid
from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel

from threadlab.formats.common.source import Source


def as_message_list(messages: Any) -> list[Any]:
    """A list of UIMessages from a list, a ``{"messages": [...]}`` wrapper (request bodies,
    ``onFinish`` payloads), one message, pydantic-ai ``UIMessage`` models, or JSON text/a path."""
    if isinstance(messages, Source):
        messages = messages.json()
    elif isinstance(messages, str | bytes | os.PathLike):
        messages = Source(messages).json()
    if isinstance(messages, Mapping):
        if isinstance(messages.get("messages"), list):
            return list(messages["messages"])
        return [messages]
    if isinstance(messages, BaseModel):
        return [messages]
    return list(messages)


def chat_id_of(messages: Any) -> str | None:
    """The chat id of a request body ``{"id": ..., "messages": [...]}`` (useChat's chat id)."""
    if isinstance(messages, Source | str | bytes | os.PathLike):
        try:
            messages = (messages if isinstance(messages, Source) else Source(messages)).json()
        except ValueError:
            return None
    if isinstance(messages, Mapping) and isinstance(messages.get("messages"), list) and isinstance(messages.get("id"), str):
        return messages["id"]
    return None


def derived_thread_id(items: list[Any], name: str | None) -> str:
    """The id of a chat with no chat id of its own: the same file read again gets the same id
    (from its source name and first message id)."""
    first_id = next((m.get("id") for m in items if isinstance(m, Mapping) and isinstance(m.get("id"), str)), None)
    named = bool(name) and not str(name).startswith("<")
    return str(uuid.uuid5(uuid.NAMESPACE_URL, f"{name or ''}:{first_id}")) if first_id or named else str(uuid.uuid4())
