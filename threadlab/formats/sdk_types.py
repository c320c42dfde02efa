"""The official SDKs' own types, used to check what the provider readers read (never to read it).

Each check is a pydantic ``TypeAdapter`` over the type the ``openai`` / ``anthropic`` package
declares for that value (a request message, a response body, a stream event), or
``langchain_core``'s own ``messages_from_dict``. The packages are optional (the ``providers``
extra): they are imported on the first check, never at ``import threadlab`` or while a file is
sniffed, and when one is not installed its checks pass (``available()`` says which are). A
value a type rejects is kept as it came and reported: ``check`` returns the reason, the reader
turns it into a ``schema`` problem.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from functools import cache
from typing import Any

# check name -> (module, attribute): a TypedDict / union (TypeAdapter) or a pydantic model
_TYPES: dict[str, tuple[str, str]] = {
    "openai.chat.message": ("openai.types.chat", "ChatCompletionMessageParam"),
    "openai.chat.completion": ("openai.types.chat", "ChatCompletion"),
    "openai.chat.chunk": ("openai.types.chat", "ChatCompletionChunk"),
    "openai.responses.item": ("openai.types.responses", "ResponseInputItemParam"),
    "openai.responses.response": ("openai.types.responses", "Response"),
    "openai.responses.event": ("openai.types.responses", "ResponseStreamEvent"),
    "anthropic.message": ("anthropic.types", "MessageParam"),
    "anthropic.response": ("anthropic.types", "Message"),
    "anthropic.event": ("anthropic.types", "RawMessageStreamEvent"),
}


@cache
def _validator(name: str) -> Callable[[Any], Any] | None:
    module_name, attr = _TYPES[name]
    try:
        module = importlib.import_module(module_name)
    except ImportError:
        return None
    from pydantic import TypeAdapter

    return TypeAdapter(getattr(module, attr)).validate_python


@cache
def _langchain_loader() -> Callable[[Any], Any] | None:
    try:
        from langchain_core.messages import messages_from_dict
    except ImportError:
        return None
    return messages_from_dict


# what the server sends (responses, stream events): the SDKs build these models without
# validating, so a field an older server did not send yet is no error (only a wrong value is)
_RECEIVED = frozenset({"openai.chat.completion", "openai.chat.chunk", "openai.responses.response", "openai.responses.event",
                       "anthropic.response", "anthropic.event"})


def check(name: str, value: Any) -> str | None:
    """None when ``value`` is a valid ``name`` (or the SDK is not installed), else the errors
    the SDK's type gives, in one line."""
    if name == "langchain.message":
        return _check_langchain(value)
    validate = _validator(name)
    if validate is None:
        return None
    from pydantic import ValidationError

    try:
        validate(value)
    except ValidationError as exc:
        return _short(exc, lenient_missing=name in _RECEIVED)
    return None


def _check_langchain(value: Any) -> str | None:
    """``messages_from_dict`` on the ``{"type", "data"}`` form: it builds only message classes
    from their fields (never ``langchain_core.load``, which can instantiate other objects)."""
    load = _langchain_loader()
    if load is None:
        return None
    try:
        load([value])
    except Exception as exc:
        return f"{type(exc).__name__}: {str(exc).splitlines()[0][:200] if str(exc) else ''}"
    return None


def _short(exc: Any, *, lenient_missing: bool = False) -> str | None:
    """A validation error in one line. A union (a message param, a stream event) reports every
    member's failures: the member with the fewest is the one the value meant to be."""
    errors = exc.errors(include_url=False)
    members: dict[Any, list[Any]] = {}
    for error in errors:
        loc = error.get("loc", ())
        members.setdefault(loc[0] if loc and isinstance(loc[0], str) and loc[0][:1].isupper() else None, []).append(error)
    # a member whose ``type`` literal did not match is not the one meant
    meant = [errs for errs in members.values() if not any(e.get("type") == "literal_error" and e.get("loc", ())[-1:] == ("type",) for e in errs)]
    best = min(meant or list(members.values()), key=len)
    if lenient_missing and all(e.get("type") == "missing" for e in best):
        return None
    parts = [".".join(str(x) for x in e.get("loc", ())) + f": {e.get('msg')}" for e in best[:3]]
    return "; ".join(parts)


def available() -> dict[str, bool]:
    """Which SDKs' types this environment checks with."""
    return {pkg: importlib.util.find_spec(pkg) is not None for pkg in ("openai", "anthropic", "langchain_core")}


__all__ = ["available", "check"]
