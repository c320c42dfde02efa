"""The typed fast path: a ThreadProtocol file decoded by msgspec straight into Structs (one per
action kind), in place of ``orjson.loads`` + ``shape.thread_fits``.

Why: decoding into typed Structs checks the JSON types in compiled code while parsing, reads
integers of any size exactly (no second parse for long digit runs), and every field of a thread's
actions is then read in one pass into columns (``columns``), which the rules and the extractor
share (a column costs a few times less than ``dict.get`` over dicts).

The Structs are made from the models' own fields (``model_fields``), never written out a second
time. Only what the models accept as-is can decode: a field msgspec cannot check the way the
models do (content parts, attachments) accepts only its simple form here. Anything the typed
decode refuses (another format, an unknown action kind, a broken value, deep nesting) returns
None and the file goes today's way (``reader``), so verdicts and problems are unchanged. Every
action Struct also carries, as free-form values, the fields the extractor and the rules read
(``READ``), because the models keep unknown fields and the frames show them (a ``tool_name`` on a
user message). The thread head and the agents stay dicts, checked by ``shape.fits`` as before
(a few per thread)."""

from __future__ import annotations

import sys
import types
import typing
from datetime import datetime
from functools import cache
from operator import attrgetter
from typing import Annotated, Any

import msgspec
from pydantic import BaseModel
from pydantic_core import PydanticUndefined

from threadlab.core.model import ACTION_CLASSES, CORE_ACTION_TYPES, AgentConfig, Thread, Usage
from threadlab.core.shape import fits
from threadlab.core.validation import SYSTEM_NAME

# every action field the extractor or the rules read (the models keep them even on kinds that do
# not declare them, as extra fields, so each Struct has them all)
READ = (
    "agent_id",
    "tool_name",
    "tool_call_id",
    "status",
    "content",
    "args",
    "data",
    "finish_reason",
    "usage",
    "attachments",
    "provider_name",
)
# every field of every core action model, in one order: each action Struct declares them in this
# order (its own types and defaults in place of free-form ones), so ``astuple`` reads any Struct's
# fields at the same positions and ``columns`` turns a thread's actions into columns in one pass
LAYOUT = (
    "sequence",
    "timestamp",
    *READ,
    "metadata",
    "action_id",
)
_SIMPLE = (str, int, bool, type(None))
_NO = object()  # a type msgspec cannot check as the model does
MAX_SYSTEM_KINDS = 64  # distinct system.* kinds one process makes Structs for
# msgspec nests as deep as Python's recursion limit allows, orjson 1024 levels: beyond that
# limit msgspec could accept a file orjson refuses, so the typed path is not used
_MAX_RECURSION = 1024


class StructAction(msgspec.Struct, kw_only=True, tag_field="action_type", gc=False):
    """Base of the action Structs; ``get`` lets code written for dicts read one. ``gc=False``:
    decoded JSON holds no cycles, and untracked Structs decode about a tenth faster."""

    def get(self, key: str, default: Any = None) -> Any:
        return getattr(self, key, default)


class StructUsage(msgspec.Struct, kw_only=True, gc=False):
    """Usage (its token counts; the model's unknown keys are neither read nor checked here)."""

    def get(self, key: str, default: Any = None) -> Any:
        return getattr(self, key, default)


def _struct_type(annotation: Any) -> Any:
    """The msgspec type accepting what ``annotation`` accepts as-is, or a subset of it (``_NO``
    when not even that); datetimes of actions are text (``validate`` parses them)."""
    origin = typing.get_origin(annotation)
    args = typing.get_args(annotation)
    if annotation is Any:
        return Any
    if annotation in _SIMPLE:
        return annotation
    if annotation is datetime:
        return str
    if origin is typing.Literal and all(isinstance(a, str) for a in args):
        return annotation
    if origin is dict and (not args or args[1] is Any):
        return dict[str, Any]
    if origin in (typing.Union, types.UnionType):
        kept = [t for t in (_struct_type(a) for a in args) if t is not _NO]
        if not kept:
            return _NO
        union = kept[0]
        for t in kept[1:]:
            union = union | t
        return union
    if annotation is Usage:
        return _usage_struct()
    return _NO  # lists of content parts or attachments: only their absence decodes


def _fields(model: type[BaseModel]) -> list[tuple[Any, ...]]:
    out: list[tuple[Any, ...]] = []
    for name, info in model.model_fields.items():
        if name == "action_type":
            continue
        kind = _struct_type(info.annotation)
        if kind is _NO:
            if info.is_required():
                raise TypeError(f"{model.__name__}.{name}: a required field msgspec cannot check")
            kind = type(None)
        if info.is_required():
            out.append((name, kind))
        elif info.default is not PydanticUndefined and info.default_factory is None:
            out.append((name, kind, info.default))
        else:
            raise TypeError(f"{model.__name__}.{name}: a default factory the fast path does not fill")
    return out


@cache
def _usage_struct() -> type[msgspec.Struct]:
    """Token counts, none negative: a negative count is a problem the usual way reports, so
    the decode refuses it (and no rule has to look at the counts again)."""
    fields = []
    for name, info in Usage.model_fields.items():
        if info.annotation != int | None or info.default is not None:
            raise TypeError(f"Usage.{name}: not an optional integer")
        fields.append((name, Annotated[int, msgspec.Meta(ge=0)] | None, None))
    return msgspec.defstruct("Usage", fields, bases=(StructUsage,), kw_only=True)


@cache
def _layout() -> type[msgspec.Struct]:
    """The base of every action Struct: the ``LAYOUT`` fields, free-form and optional, in order
    (a kind's Struct redeclares those its model has, which keeps their place)."""
    return msgspec.defstruct("Action", [(name, Any, None) for name in LAYOUT], bases=(StructAction,), kw_only=True)


@cache
def action_struct(kind: str) -> type[msgspec.Struct]:
    """The Struct of one action kind (``system.*`` kinds share SystemAction's fields)."""
    model = ACTION_CLASSES[kind if kind in CORE_ACTION_TYPES else "system"]
    return msgspec.defstruct(
        model.__name__, _fields(model), bases=(_layout(),), kw_only=True, tag=kind, namespace={"action_type": kind}
    )


_astuple = msgspec.structs.astuple


def columns(actions: list[Any]) -> dict[str, tuple[Any, ...]]:
    """A thread's actions (Structs of ``action_struct``) as one tuple per ``LAYOUT`` field, plus
    ``action_type``: every field read in one pass (``astuple`` + ``zip``: about half the cost of
    one ``attrgetter`` pass per field)."""
    if not actions:
        return {name: () for name in ("action_type", *LAYOUT)}
    out = dict(zip(LAYOUT, zip(*map(_astuple, actions), strict=False), strict=False))  # (a kind's own fields come after)
    out["action_type"] = tuple(map(_kind, actions))
    return out


_kind = attrgetter("action_type")


_HEAD = tuple(name for name in Thread.model_fields if name != "actions")


@cache
def _decoder(system_kinds: frozenset[str], single: bool) -> msgspec.json.Decoder[Any]:
    kinds = [*CORE_ACTION_TYPES, *sorted(system_kinds)]
    union: Any = action_struct(kinds[0])
    for kind in kinds[1:]:
        union = union | action_struct(kind)
    fields: list[tuple[Any, ...]] = [("actions", list[union])]
    fields += [(name, Any, msgspec.UNSET) for name in _HEAD]  # checked by shape.fits
    thread = msgspec.defstruct("Thread", fields, kw_only=True)
    return msgspec.json.Decoder(thread if single else thread | list[thread])


_kinds: set[str] = set()


def decode(data: bytes, *, single: bool = False) -> list[dict[str, Any]] | None:
    """The thread objects of a ThreadProtocol file (a thread or a list of them; ``single``: a
    thread, as a JSON Lines line holds) that fit the models exactly, with their actions as
    Structs; None when any one does not (or when the typed decode cannot tell): the file then
    goes the usual way."""
    if sys.getrecursionlimit() > _MAX_RECURSION:
        return None
    for _ in range(4):  # an unknown system.* kind: made a Struct of, and decoded again
        try:
            value = _decoder(frozenset(_kinds), single).decode(data)
            break
        except msgspec.ValidationError as exc:
            kind = _unknown_kind(str(exc))
            if kind is None:
                return None
            _kinds.add(kind)
        except Exception:  # not JSON, not UTF-8, nested too deep: the usual way says what
            return None
    else:
        return None
    threads = value if isinstance(value, list) else [value]
    docs = []
    for thread in threads:
        doc = _head(thread)
        if doc is None:
            return None
        docs.append(doc)
    return docs or None


def _unknown_kind(message: str) -> str | None:
    """The system.* kind msgspec met no Struct for (``Invalid value 'system.x' - at
    `$.actions[3].action_type```), when it is a name the rules accept and is new."""
    prefix, _, rest = message.partition("Invalid value '")
    if prefix or not rest.endswith(".action_type`"):
        return None
    kind = rest.partition("' - at `")[0]
    if kind in _kinds or len(_kinds) >= MAX_SYSTEM_KINDS or not SYSTEM_NAME.match(kind):
        return None
    return kind


def _head(thread: Any) -> dict[str, Any] | None:
    """The thread's own fields and agents as ``shape.thread_fits`` checks them (defaults
    filled), with its actions; None when they do not fit."""
    head = {name: value for name in _HEAD if (value := getattr(thread, name)) is not msgspec.UNSET}
    agents = head.pop("agents", {})
    if type(agents) is not dict or not fits(Thread, head):
        return None
    for key, agent in agents.items():
        if type(agent) is not dict or not fits(AgentConfig, agent) or agent["agent_id"] != key:
            return None
    head["agents"] = agents
    head["actions"] = thread.actions
    return head
