"""The registry's ``vercel-ai-messages`` format: persisted Vercel AI SDK ``UIMessage[]`` JSON
(what ``useChat`` keeps and sends; also ``{"messages": [...]}`` request bodies and ``onFinish``
payloads). The work is done in ``threadlab.formats.vercel_ai``."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import orjson

from threadlab.core.model import Thread
from threadlab.formats.source import Source
from threadlab.formats.vercel_ai import from_ui_messages, to_ui_messages

NAME = "vercel-ai-messages"

ROLES = ("user", "assistant", "system")


def is_ui_message(value: Any) -> bool:
    """An object with a UI role and a ``parts`` list (pydantic-ai's ModelMessages have ``kind``, not ``role``)."""
    return isinstance(value, Mapping) and value.get("role") in ROLES and isinstance(value.get("parts"), list) and "kind" not in value


def is_ui_messages(value: Any) -> bool:
    if isinstance(value, Mapping) and isinstance(value.get("messages"), list):
        value = value["messages"]
    if isinstance(value, list):
        return bool(value) and all(is_ui_message(m) for m in value[:3])
    return is_ui_message(value)


def detect(source: Source) -> bool:
    """Cheap: JSON text that mentions ``"role"`` and ``"parts"`` up front, then the shape."""
    if source.is_dir:
        return False
    if source.is_object:
        return is_ui_messages(source.obj)
    head = source.head(8192).lstrip()
    if head[:1] not in (b"[", b"{") or b'"parts"' not in head or b'"role"' not in head:
        return False
    return is_ui_messages(source.try_json())


def to_threads(source: Source) -> list[Thread]:
    return [from_ui_messages(source.json(), name=source.name)]


def from_thread(thread: Thread) -> bytes:
    return orjson.dumps(to_ui_messages(thread), option=orjson.OPT_INDENT_2) + b"\n"
