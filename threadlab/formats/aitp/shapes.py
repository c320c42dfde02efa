"""The JSON shapes AITP / NEAR AI threads come in, and what a read thread remembers of its own."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from threadlab.core.model import Thread

META = "aitp"
CARRIED = "threadlab_action"  # message metadata key holding an action AITP has no place for
ABSENT = "threadlab_absent"  # key, in a read message's kept fields, naming the fields it did not have (role, created_at)


def is_message(value: Any) -> bool:
    if not isinstance(value, Mapping) or "content" not in value:
        return False
    if "role" not in value:  # the AITP spec's examples name the actor only
        return isinstance(value.get("metadata"), Mapping) and isinstance(value["metadata"].get("actor"), str)
    return value.get("object") == "thread.message" or "thread_id" in value or "created_at" in value


def split_document(obj: Any) -> tuple[str, dict[str, Any], list[Any]] | None:
    """(shape, thread object without messages, messages) of an AITP / NEAR AI document."""
    if isinstance(obj, Mapping) and "actions" not in obj:
        messages = obj.get("messages")
        thread = obj.get("thread")
        if isinstance(thread, Mapping) and isinstance(messages, list) and (thread.get("object") == "thread" or "id" in thread):
            return "hub", dict(thread), messages
        if obj.get("object") == "list" and isinstance(obj.get("data"), list) and all(is_message(m) for m in obj["data"][:3]):
            return "list", {k: v for k, v in obj.items() if k != "data"}, obj["data"]
        actors = isinstance(obj.get("metadata"), Mapping) and "actors" in obj["metadata"]
        if isinstance(messages, list) and (actors or ("id" in obj and messages and all(is_message(m) for m in messages[:3]))):
            return "aitp", {k: v for k, v in obj.items() if k != "messages"}, messages
    if isinstance(obj, list) and obj and all(is_message(m) for m in obj[:3]):
        return "messages", {}, obj
    return None


def source_shape(thread: Thread) -> str | None:
    kept = (thread.metadata or {}).get(META)
    return kept.get("shape") if isinstance(kept, Mapping) else None


def kept_head(thread: Thread) -> dict[str, Any]:
    kept = (thread.metadata or {}).get(META)
    head = kept.get("thread") if isinstance(kept, Mapping) else None
    return dict(head) if isinstance(head, Mapping) else {}
