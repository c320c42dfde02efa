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
    # the beta types: a superset (MCP blocks, compaction, fallback ... that the API sends with a beta header)
    "anthropic.message": ("anthropic.types.beta", "BetaMessageParam"),
    "anthropic.response": ("anthropic.types.beta", "BetaMessage"),
    "anthropic.event": ("anthropic.types.beta", "BetaRawMessageStreamEvent"),
}


@cache
def _type(name: str) -> Any:
    module_name, attr = _TYPES[name]
    try:
        module = importlib.import_module(module_name)
    except ImportError:
        return None
    return getattr(module, attr)


@cache
def _validator(name: str, kind: str | None = None) -> Callable[[Any], Any] | None:
    """The check of ``name``; with ``kind``, of only the union's members of that ``type`` (so
    an error names the field of the member the value meant to be, not of every member)."""
    target = _type(name)
    if target is None:
        return None
    from typing import Union

    from pydantic import TypeAdapter

    members = _by_kind(name).get(kind) if kind is not None else None
    if members:
        target = members[0] if len(members) == 1 else Union[tuple(members)]  # noqa: UP007 (a runtime union of classes)
    return TypeAdapter(target).validate_python


@cache
def _by_kind(name: str) -> dict[str, list[Any]]:
    """The members of a union type by the ``type`` literal each declares (empty when it is no
    union of typed members)."""
    import typing

    out: dict[str, list[Any]] = {}
    for member in _members(_type(name)):
        fields = getattr(member, "model_fields", None)
        if fields is not None:
            annotation = fields["type"].annotation if "type" in fields else None
        else:  # a TypedDict (request params): its annotations are strings until resolved
            try:
                annotation = typing.get_type_hints(member, include_extras=True).get("type")
            except Exception:  # a hint that does not resolve: this member is checked with the whole union
                annotation = None
        for value in _literals(annotation):
            out.setdefault(value, []).append(member)
    return out


def _literals(annotation: Any) -> list[Any]:
    """The values of a ``Literal`` annotation (inside ``Required``, ``Optional`` ...)."""
    import typing

    origin = typing.get_origin(annotation)
    if origin is typing.Literal:
        return list(typing.get_args(annotation))
    if origin in (typing.Required, typing.NotRequired, typing.Annotated, typing.Union):
        return [v for arg in typing.get_args(annotation) for v in _literals(arg)]
    return []


def _members(target: Any) -> list[Any]:
    import types
    import typing

    origin = typing.get_origin(target)
    if origin is typing.Annotated:
        return _members(typing.get_args(target)[0])
    if origin in (typing.Union, types.UnionType):
        return [m for arg in typing.get_args(target) for m in _members(arg)]
    return [target] if target is not None else []


def defines_kind(name: str, value: Any) -> bool:
    """Whether the SDK's union ``name`` has a member of ``value``'s ``type`` (True when the SDK
    is not installed, or the type is no union of typed members: nothing to say)."""
    kinds = _by_kind(name) if _type(name) is not None else {}
    kind = value.get("type") if isinstance(value, dict) else None
    return not kinds or not isinstance(kind, str) or kind in kinds


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
    kind = value.get("type") if isinstance(value, dict) and isinstance(value.get("type"), str) else None
    if kind is not None and not defines_kind(name, value):
        return f"its type {kind!r} is not one the installed {_TYPES[name][0].split('.')[0]} package defines"
    validate = _validator(name, kind if kind is not None and _by_kind(name) else None)
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
    """A validation error in one line. A union (a message param, a stream event, an item inside
    one) reports every member's failures, each under the member's name: the member whose
    ``type`` literal matched, with the fewest failures, is the one the value meant to be."""
    errors = exc.errors(include_url=False)
    members: dict[Any, list[Any]] = {}
    for error in errors:
        loc = tuple(error.get("loc", ()))
        cut = next((i for i, part in enumerate(loc) if isinstance(part, str) and part[:1].isupper()), None)
        members.setdefault(loc[: cut + 1] if cut is not None else None, []).append(error)
    # a member whose ``type`` literal did not match is not the one meant
    meant = [errs for key, errs in members.items()
             if not any(e.get("type") == "literal_error" and tuple(e.get("loc", ())) == (*(key or ()), "type") for e in errs)]
    best = min(meant or list(members.values()), key=len)
    if lenient_missing and all(e.get("type") == "missing" for e in best):
        return None
    parts = [".".join(str(x) for x in e.get("loc", ())) + f": {e.get('msg')}" for e in best[:3]]
    return "; ".join(parts)


def available() -> dict[str, bool]:
    """Which SDKs' types this environment checks with."""
    return {pkg: importlib.util.find_spec(pkg) is not None for pkg in ("openai", "anthropic", "langchain_core")}


__all__ = ["available", "check", "defines_kind"]
