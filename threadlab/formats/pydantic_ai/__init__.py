"""pydantic-ai message histories (``list[ModelMessage]``, as ``ModelMessagesTypeAdapter``
writes them) in and out of ThreadProtocol, and what each agent of a thread would see.

The format-module surface (``NAME``, ``detect``, ``to_threads``, ``from_thread``) serves
``threadlab.read`` and the CLI; the public functions are ``from_pydantic_ai``,
``from_pydantic_ai_runs``, ``to_pydantic_ai`` and ``perspective`` (re-exported by ``threadlab``).
pydantic-ai's own types are used throughout: nothing of its schema is re-declared here.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import orjson

from threadlab._lazy import lazy_getattr
from threadlab.core.finite import refuses_non_finite
from threadlab.core.model import Thread
from threadlab.core.problems import ThreadError
from threadlab.formats.common.json_lines import first_line, past_cut_first
from threadlab.formats.common.source import Source
from threadlab.formats.pydantic_ai.shape import is_event, is_history, is_message

if TYPE_CHECKING:  # pydantic-ai is imported on first use, not when the registry sniffs a file
    from threadlab.formats.pydantic_ai.history import to_pydantic_ai
    from threadlab.formats.pydantic_ai.perspective import perspective
    from threadlab.formats.pydantic_ai.reading import from_pydantic_ai, from_pydantic_ai_runs

_PUBLIC = {
    "from_pydantic_ai": ".reading",
    "from_pydantic_ai_runs": ".reading",
    "to_pydantic_ai": ".history",
    "perspective": ".perspective",
}
__getattr__ = lazy_getattr(globals(), _PUBLIC)

NAME = "pydantic-ai"


def _run_result(value: Any) -> bool:
    """A pydantic-ai run result (``AgentRunResult`` and friends): its ``all_messages()`` is read."""
    return callable(getattr(value, "all_messages", None)) and type(value).__module__.startswith("pydantic_ai")


def _is_record(value: Any) -> bool:
    """What a line of a pydantic-ai JSON Lines file is: a message, a history (or a run's new
    messages), or a stream event."""
    return is_message(value) or is_history(value) or is_event(value)


def detect(source: Source) -> bool:
    """Content decides: a JSON array of ModelMessages (or an array of such arrays), one message
    as a JSON object, or JSON Lines whose first line is a message, a history or a pydantic-ai
    stream event."""
    if source.is_dir:
        return False
    if source.is_object:
        return is_history(source.obj) or _run_result(source.obj)
    head = past_cut_first(source.head(1 << 16)).lstrip()  # a capture begun mid-line: the lines after it decide
    if head[:1] not in (b"[", b"{") or not (b'"parts"' in head or b'"event_kind"' in head):
        return False
    value = source.try_json()
    if value is not None:
        return is_history(value) or is_message(value) or (isinstance(value, list) and bool(value) and all(is_history(v) for v in value))
    first = _first_line(source)
    return first is not None and _is_record(first)


def _first_line(source: Source) -> Any:
    """The first complete line's JSON value (a capture's cut first line left out), or None."""
    try:
        return orjson.loads(first_line(source) or b"")
    except (orjson.JSONDecodeError, ThreadError):
        return None


def to_threads(source: Source) -> list[Thread]:
    from threadlab.formats.pydantic_ai.reading import read_source

    return read_source(source)


def to_documents(source: Source) -> list[tuple[Thread, dict[str, Any]]] | None:
    """The frames route (``reading.read_documents``): None sends the file to ``to_threads``."""
    from threadlab.formats.pydantic_ai.reading import read_documents

    return read_documents(source)


@refuses_non_finite
def from_thread(thread: Thread, *, agent: str | None = None) -> bytes:
    """The thread as ``ModelMessagesTypeAdapter`` JSON: one agent's history (``agent``, or the
    agent the conversation starts with), warning ``WriteLoss`` for what it cannot hold (see
    ``to_pydantic_ai``)."""
    from threadlab.formats.pydantic_ai.history import to_json

    return to_json(thread, agent)


__all__ = [
    "NAME",
    "detect",
    "from_pydantic_ai",
    "from_pydantic_ai_runs",
    "from_thread",
    "is_history",
    "perspective",
    "to_documents",
    "to_pydantic_ai",
    "to_threads",
]
