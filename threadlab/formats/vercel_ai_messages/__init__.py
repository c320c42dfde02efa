"""The registry's ``vercel-ai-messages`` format: persisted Vercel AI SDK ``UIMessage[]`` JSON
(what ``useChat`` keeps and sends; also ``{"messages": [...]}`` request bodies and ``onFinish``
payloads), v5-v7, and AI SDK v4 ``Message[]`` (``content``, ``toolInvocations``, v4 parts), also
without their ids (``{role, content, parts}``, as apps save them).
The work is done in ``threadlab.formats.vercel_ai``."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import orjson

from threadlab.core.finite import refuses_non_finite
from threadlab.core.model import Thread
from threadlab.formats.common.source import Source
from threadlab.formats.vercel_ai.sniff import is_v4_part

NAME = "vercel-ai-messages"

ROLES = ("user", "assistant", "system")
V4_ROLES = (*ROLES, "data")
# every key of an AI SDK v4 Message (``@ai-sdk/ui-utils`` UIMessage; revisionId is useChat's)
V4_KEYS = frozenset(
    {"id", "createdAt", "content", "reasoning", "experimental_attachments", "role", "data", "annotations", "toolInvocations", "parts", "revisionId"}
)


def is_ui_message(value: Any) -> bool:
    """A v5+ UIMessage: a UI role and a ``parts`` list (pydantic-ai's ModelMessages have
    ``kind``, not ``role``); or a v4 Message: a role, no key a v4 Message does not have, and
    either an ``id`` with ``content`` text or v4 ``parts``, or (as apps persist them, without
    the id: ``{role, content, parts}``) ``content`` text and parts that are all v4 parts. So an
    OpenAI-style ``{role, content}`` list, which has no ids and no parts, or another tool's
    messages with keys or parts of their own are not one."""
    if not isinstance(value, Mapping) or "kind" in value:
        return False
    if value.get("role") in ROLES and isinstance(value.get("parts"), list) and "content" not in value:
        return True
    if value.get("role") not in V4_ROLES or not V4_KEYS.issuperset(value):
        return False
    if "id" not in value:
        parts = value.get("parts")
        return isinstance(value.get("content"), str) and isinstance(parts, list) and bool(parts) and all(is_v4_part(p) for p in parts[:64])
    return isinstance(value.get("id"), str) and (isinstance(value.get("content"), str) or isinstance(value.get("parts"), list))


def is_ui_messages(value: Any) -> bool:
    if isinstance(value, Mapping) and isinstance(value.get("messages"), list):
        value = value["messages"]
    if isinstance(value, list):
        return bool(value) and all(is_ui_message(m) for m in value[:3])
    return is_ui_message(value)


def detect(source: Source) -> bool:
    """Cheap: JSON text that mentions ``"role"`` and ``"parts"`` (or v4's ``"content"``) up
    front, then the shape."""
    if source.is_dir:
        return False
    if source.is_object:
        return is_ui_messages(source.obj)
    head = source.head(8192).lstrip()
    if head[:1] not in (b"[", b"{") or b'"role"' not in head or (b'"parts"' not in head and b'"content"' not in head):
        return False
    return is_ui_messages(source.try_json())


def to_threads(source: Source) -> list[Thread]:
    from threadlab.formats.vercel_ai.messages import from_ui_messages  # pydantic-ai: not imported to sniff

    return [from_ui_messages(source.json(), name=source.name)]


@refuses_non_finite
def from_thread(thread: Thread) -> bytes:
    """The thread as ``UIMessage[]`` JSON (``{"id", "messages"}`` when that is what keeps the
    chat id); a ``WriteLoss`` warning names what the messages cannot hold."""
    from threadlab.formats.vercel_ai.write_messages import ui_messages_body

    return orjson.dumps(ui_messages_body(thread), option=orjson.OPT_INDENT_2) + b"\n"
