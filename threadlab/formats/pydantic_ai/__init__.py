"""pydantic-ai message histories (``list[ModelMessage]``, as ``ModelMessagesTypeAdapter``
writes them) in and out of ThreadProtocol, and what each agent of a thread would see.

The format-module surface (``NAME``, ``detect``, ``to_threads``, ``from_thread``) serves
``threadlab.read`` and the CLI; the public functions are ``from_pydantic_ai``,
``from_pydantic_ai_runs``, ``to_pydantic_ai`` and ``perspective`` (re-exported by ``threadlab``).
pydantic-ai's own types are used throughout: nothing of its schema is re-declared here.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from threadlab._lazy import lazy_getattr
from threadlab.core.model import Thread
from threadlab.core.problems import Problem, ThreadError
from threadlab.formats.source import Source

if TYPE_CHECKING:  # pydantic-ai is imported on first use, not when the registry sniffs a file
    from threadlab.formats.pydantic_ai.perspective import perspective
    from threadlab.formats.pydantic_ai.reading import from_pydantic_ai, from_pydantic_ai_runs
    from threadlab.formats.pydantic_ai.writing import to_pydantic_ai

_PUBLIC = {
    "from_pydantic_ai": ".reading",
    "from_pydantic_ai_runs": ".reading",
    "to_pydantic_ai": ".writing",
    "perspective": ".perspective",
}
__getattr__ = lazy_getattr(globals(), _PUBLIC)

NAME = "pydantic-ai"


def _is_message(value: Any) -> bool:
    if type(value).__name__ in ("ModelRequest", "ModelResponse") and type(value).__module__ == "pydantic_ai.messages":
        return True
    return isinstance(value, Mapping) and value.get("kind") in ("request", "response") and isinstance(value.get("parts"), list)


def _run_result(value: Any) -> bool:
    """A pydantic-ai run result (``AgentRunResult`` and friends): its ``all_messages()`` is read."""
    return callable(getattr(value, "all_messages", None)) and type(value).__module__.startswith("pydantic_ai")


def is_history(value: Any) -> bool:
    """A list whose first messages look like pydantic-ai ModelMessages."""
    return isinstance(value, list) and bool(value) and all(_is_message(m) for m in value[:3])


def detect(source: Source) -> bool:
    if source.is_dir:
        return False
    if source.is_object:
        return is_history(source.obj) or _run_result(source.obj)
    head = source.head(8192).lstrip()
    if head[:1] != b"[" or b'"parts"' not in head or b'"kind"' not in source.head(1 << 16):
        return False
    return is_history(source.try_json())


def to_threads(source: Source) -> list[Thread]:
    import pydantic

    from threadlab.formats.pydantic_ai.reading import from_pydantic_ai

    data = source.obj.all_messages() if source.is_object and _run_result(source.obj) else source.obj
    try:
        thread = from_pydantic_ai(data, source=source.name)
    except pydantic.ValidationError as exc:
        raise ThreadError([_problem(source.name, err) for err in exc.errors()[:20]], source=source.name) from None
    return [thread]


def _problem(name: str, error: Mapping[str, Any]) -> Problem:
    loc = list(error.get("loc") or ())
    where = f"message #{loc[0] + 1}" if loc and isinstance(loc[0], int) else "the history"
    path = ".".join(str(p) for p in loc[1:])
    return Problem("schema", f"{name}: {where} is not a pydantic-ai ModelMessage ({path}: {error.get('msg')})", source=name)


def from_thread(thread: Thread, *, agent: str | None = None) -> bytes:
    """The thread as ``ModelMessagesTypeAdapter`` JSON (one agent's history; see
    ``to_pydantic_ai``; ``agent`` picks it in a merged thread)."""
    from threadlab.formats.pydantic_ai.writing import to_json

    return to_json(thread, agent)


__all__ = [
    "NAME",
    "detect",
    "from_pydantic_ai",
    "from_pydantic_ai_runs",
    "from_thread",
    "is_history",
    "perspective",
    "to_pydantic_ai",
    "to_threads",
]
