"""What pydantic-ai data looks like as plain JSON, for sniffing files without importing
pydantic-ai (the registry asks every format about every file; importing pydantic-ai costs 1-2 s).
Only shapes are checked here; pydantic-ai's own types validate what is then read."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


def is_message_like(value: Any) -> bool:
    """A dict shaped like a ModelMessage: ``parts`` a list, and ``kind`` request/response (or no
    ``kind`` at all while every part has a ``part_kind``: trimmed dumps)."""
    if not isinstance(value, Mapping) or not isinstance(value.get("parts"), list):
        return False
    kind = value.get("kind")
    if kind in ("request", "response"):
        return True
    parts = value["parts"]
    return "kind" not in value and bool(parts) and all(isinstance(p, Mapping) and "part_kind" in p for p in parts)


def is_message(value: Any) -> bool:
    """A ModelMessage object, or its JSON with a ``kind``."""
    if type(value).__name__ in ("ModelRequest", "ModelResponse") and type(value).__module__ == "pydantic_ai.messages":
        return True
    return isinstance(value, Mapping) and value.get("kind") in ("request", "response") and isinstance(value.get("parts"), list)


def is_history(value: Any) -> bool:
    """A list whose first messages look like pydantic-ai ModelMessages (the first with a kind)."""
    return isinstance(value, list) and bool(value) and is_message(value[0]) and all(is_message(m) or is_message_like(m) for m in value[:3])


def is_event(value: Any) -> bool:
    """A pydantic-ai stream event as ``TypeAdapter(AgentStreamEvent)`` dumps it (or the run's
    result event): an object with a string ``event_kind``."""
    return isinstance(value, Mapping) and isinstance(value.get("event_kind"), str) and "kind" not in value


def run_result_history(value: Mapping[str, Any]) -> list[Any] | None:
    """The message history inside a run's result event (``event_kind: agent_run_result``, the
    last item of ``run_stream_events`` when dumped as if it were a stream event)."""
    result = value.get("result")
    state = result.get("_state") if isinstance(result, Mapping) else None
    history = state.get("message_history") if isinstance(state, Mapping) else None
    return history if isinstance(history, list) else None
