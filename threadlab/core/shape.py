"""Does a thread's raw JSON object fit the ThreadProtocol models exactly? Checked without
building them.

The fast path only takes a document the pydantic models would accept unchanged; anything else
goes the careful way (``read_all``), so its problems are reported exactly as there. The checks
are compiled from the models' own field annotations (``model_fields``), never written out a
second time, and are stricter than pydantic's lax mode (``"5"`` is not an int here), which is
the safe side: a stricter check only sends more files the careful way. Missing fields that
have a default (``title``, a tool_return's ``status``) are filled in, as the model would."""

from __future__ import annotations

import types
import typing
from collections.abc import Callable, Mapping
from datetime import datetime
from functools import cache
from typing import Any

from pydantic import BaseModel, TypeAdapter, ValidationError
from pydantic_core import PydanticUndefined

from threadlab.core.model import ACTION_CLASSES, AgentConfig, ContentPart, Thread, action_class
from threadlab.core.timefmt import parse_timestamp

Check = Callable[[Any], bool]


def _is_time(value: Any) -> bool:
    if type(value) is not str:
        return False
    try:
        parse_timestamp(value)
    except ValueError:
        return False
    return True


def _any_of(checks: list[Check]) -> Check:
    return lambda v: any(c(v) for c in checks)


def _list_of(item: Check) -> Check:
    return lambda v: type(v) is list and all(item(x) for x in v)


def _by_adapter(annotation: Any) -> Check:
    """Discriminated unions (content parts): let pydantic decide; lists of parts are rare."""
    adapter = TypeAdapter(annotation)

    def check(value: Any) -> bool:
        try:
            adapter.validate_python(value)
        except ValidationError:
            return False
        return True

    return check


def _content_part() -> Check:
    """A content part: a plain text part (``{"type": "text", "text": str}``, nearly every part a
    converter writes, which ``TextPart`` takes as it is) without asking pydantic; any other by
    the adapter."""
    careful = _by_adapter(ContentPart)
    return lambda v: (type(v) is dict and len(v) == 2 and v.get("type") == "text" and type(v.get("text")) is str) or careful(v)


def _is_str(value: Any) -> bool:
    return type(value) is str


def compile_check(annotation: Any, *, time_text: Check = _is_time) -> Check:
    """A predicate that accepts exactly the raw JSON values ``annotation`` would accept as-is.
    ``time_text`` checks a datetime's text (actions pass ``_is_str``: validate_dict, which
    runs over the same object, parses every action timestamp and reports bad ones)."""
    origin = typing.get_origin(annotation)
    args = typing.get_args(annotation)
    if origin in (typing.Union, types.UnionType) and type(None) in args and len(args) == 2:
        inner = compile_check(next(a for a in args if a is not type(None)), time_text=time_text)
        return lambda v: v is None or inner(v)
    if annotation is Any:
        return lambda v: True
    if annotation is type(None):
        return lambda v: v is None
    if annotation is str:
        return lambda v: type(v) is str
    if annotation is int:
        return lambda v: type(v) is int
    if annotation is float:
        return lambda v: type(v) in (float, int)
    if annotation is bool:
        return lambda v: type(v) is bool
    if annotation is datetime:
        return time_text
    if origin is typing.Literal:
        allowed = frozenset(args)
        return lambda v: isinstance(v, str | int) and v in allowed
    if origin in (typing.Union, types.UnionType):
        return _any_of([compile_check(a, time_text=time_text) for a in args])
    if origin is dict or annotation is dict:
        if not args or args[1] is Any:
            return lambda v: type(v) is dict
        value_check = compile_check(args[1], time_text=time_text)
        return lambda v: type(v) is dict and all(value_check(x) for x in v.values())
    if origin is list:
        return _list_of(compile_check(args[0], time_text=time_text) if args else (lambda v: True))
    if annotation is ContentPart:
        return _content_part()
    if origin is typing.Annotated:
        return _by_adapter(annotation)
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return model_check(annotation, time_text is _is_str)
    return _by_adapter(annotation)


def _expression(annotation: Any, consts: dict[str, Any], loose_time: bool) -> str:
    """The check of ``annotation`` on ``v`` as Python source: inline for the simple types the
    models use on every action (str, int, optional, literal, free-form dict), else a call of
    the compiled predicate."""
    origin = typing.get_origin(annotation)
    args = typing.get_args(annotation)
    if origin in (typing.Union, types.UnionType) and type(None) in args and len(args) == 2:
        inner = _expression(next(a for a in args if a is not type(None)), consts, loose_time)
        return f"v is None or ({inner})"
    if annotation is str or (annotation is datetime and loose_time):
        return "type(v) is str"
    if annotation is int:
        return "type(v) is int"
    if origin is dict and (not args or args[1] is Any):
        return "type(v) is dict"
    if origin is typing.Literal and all(isinstance(a, str) for a in args):
        name = f"L{len(consts)}"
        consts[name] = frozenset(args)
        return f"type(v) is str and v in {name}"
    if origin in (typing.Union, types.UnionType):  # any alternative, inline (str first when there is one)
        alternatives = sorted(args, key=lambda a: a is not str)
        return " or ".join(f"({_expression(a, consts, loose_time)})" for a in alternatives)
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):  # a nested model (usage)
        name = f"M{len(consts)}"
        consts[name] = _compiled(annotation, loose_time)
        return f"type(v) is dict and {name}(v)"
    name = f"C{len(consts)}"
    consts[name] = compile_check(annotation, time_text=_is_str if loose_time else _is_time)
    return f"{name}(v)"


@cache
def _compiled(cls: type[BaseModel], loose_time: bool) -> Check:
    """``fits`` for one model class, generated from its ``model_fields`` as straight-line code
    (a loop over field descriptors costs several times more per action)."""
    consts: dict[str, Any] = {"_MISSING": object()}
    lines = ["def check(d):"]
    for name, info in cls.model_fields.items():
        default = info.default if info.default is not PydanticUndefined and info.default_factory is None else None
        if info.annotation is not Any:
            test = _expression(info.annotation, consts, loose_time)
            if not info.is_required() and default is None and test.startswith("v is None or "):
                # optional, None by default: a missing field reads as None, which passes
                lines.append(f"    v = d.get({name!r})")
                lines.append(f"    if v is not None and not ({test[len('v is None or '):]}):")
                lines.append("        return False")
                continue
            if info.is_required() and test.startswith("type(v) is ") and " or " not in test:
                # required, and None (what a missing field reads as) fails the type test
                lines.append(f"    v = d.get({name!r})")
                lines.append(f"    if not ({test}):")
                lines.append("        return False")
                continue
        lines.append(f"    v = d.get({name!r}, _MISSING)")
        lines.append("    if v is _MISSING:")
        if info.is_required():
            lines.append("        return False")
        elif default is not None:
            consts[f"D{len(consts)}"] = default
            lines.append(f"        d[{name!r}] = D{len(consts) - 1}")
        else:
            lines.append("        pass")
        if info.annotation is not Any:
            lines.append(f"    elif not ({test}):")
            lines.append("        return False")
    lines.append("    return True")
    namespace = dict(consts)
    exec("\n".join(lines), namespace)  # source built above from the model's own fields
    return namespace["check"]


def model_check(cls: type[BaseModel], loose_time: bool = False) -> Check:
    check = _compiled(cls, loose_time)
    return lambda value: type(value) is dict and check(value)


def fits(cls: type[BaseModel], doc: dict[str, Any], loose_time: bool = False) -> bool:
    """True when ``doc`` is what ``cls`` would accept unchanged; fills missing defaults."""
    return _compiled(cls, loose_time)(doc)


def thread_fits(doc: Mapping[str, Any]) -> bool:
    """The whole thread object: head fields, every agent, every action (by its own class)."""
    if type(doc) is not dict or type(doc.get("agents", {})) is not dict or type(doc.get("actions")) is not list:
        return False
    head = {k: v for k, v in doc.items() if k not in ("agents", "actions")}
    if not fits(Thread, head):
        return False
    doc.update(head)  # defaults (title, version)
    for key, agent in doc.get("agents", {}).items():
        if type(agent) is not dict or not fits(AgentConfig, agent) or agent["agent_id"] != key:
            return False
    checks = _action_checks()
    for action in doc["actions"]:
        if type(action) is not dict:
            return False
        kind = action.get("action_type")
        if type(kind) is not str:  # (a list here is no kind, and must not be hashed)
            return False
        check = checks.get(kind)
        if check is None:
            check = _compiled(action_class(kind), True)
            if len(checks) < 256:  # system.<name> kinds: one lookup of the class per kind
                checks[kind] = check
        if not check(action):
            return False
    return True


@cache
def _action_checks() -> dict[str, Check]:
    return {name: _compiled(cls, True) for name, cls in ACTION_CLASSES.items() if name not in ("system", "unknown")}
