"""Canonical JSON: one way to write a Thread, so the same thread is the same bytes.

Rules (ARCHITECTURE.md): the spec's field order, threadlab's ``metadata`` after the spec
fields, then unknown fields sorted by name; unset optional fields are left out; free-form
values (``args``, ``content``, ``data``, ``metadata``, unknown fields) have their object keys
sorted; timestamps are ``YYYY-MM-DDTHH:MM:SS[.ffffff]Z``; UTF-8; compact unless ``indent``.
A float NaN or infinity is no JSON value: ``dumps`` refuses a thread holding one (a
``ThreadError`` naming where), rather than write ``null`` as orjson would.

orjson writes neither integers beyond 64 bits nor values nested more than 254 deep; for those
(rare) values ``json_bytes`` takes a slower encoder of our own that gives the same bytes, so a
thread that could be read can always be written back exactly.
"""

from __future__ import annotations

import base64
from collections.abc import Callable
from datetime import datetime
from functools import cache
from os import PathLike
from pathlib import Path
from typing import Any

import orjson
from pydantic import BaseModel

from threadlab.core.finite import refuse_non_finite
from threadlab.core.model import Thread
from threadlab.core.timefmt import format_timestamp


@cache
def _field_order(cls: type[BaseModel]) -> tuple[str, ...]:
    names = [n for n in cls.model_fields if n != "metadata"]
    if "action_type" in names:  # the discriminator leads, as in the spec's examples
        names.remove("action_type")
        names.insert(0, "action_type")
    if "metadata" in cls.model_fields:
        names.append("metadata")
    return tuple(names)


def _free(value: Any) -> Any:
    """A free-form JSON value with object keys sorted (recursively; iteratively for a value
    nested deeper than Python's recursion limit allows)."""
    try:
        return _free_nested(value)
    except RecursionError:
        return _rebuild(value, _free_leaf, sort_keys=True)


def _free_nested(value: Any) -> Any:
    if isinstance(value, dict):
        return {str(k): _free_nested(value[k]) for k in sorted(value, key=str)}
    if isinstance(value, list | tuple):
        return [_free_nested(v) for v in value]
    return _free_leaf(value)


def _free_leaf(value: Any) -> Any:
    if isinstance(value, BaseModel):  # a model inside a free-form value is free-form too: keys sorted
        return _free_nested(model_to_dict(value))
    if isinstance(value, datetime):
        return format_timestamp(value)
    if isinstance(value, bytes):
        return base64.b64encode(value).decode()
    return value


def _rebuild(value: Any, leaf: Callable[[Any], Any], *, sort_keys: bool) -> Any:
    """``value`` with its dicts (keys as str, sorted when asked) and lists rebuilt and every
    other value passed through ``leaf``, without recursion (a stack of open containers)."""
    root: list[Any] = []
    # each frame: (items still to place, the container they go into, its key in the parent)
    stack: list[tuple[Any, Any]] = [(iter([(None, value)]), root)]
    while stack:
        items, target = stack[-1]
        for key, item in items:
            if isinstance(item, dict):
                keys = sorted(item, key=str) if sort_keys else list(item)
                child: Any = {}
                pairs: Any = iter([(str(k), item[k]) for k in keys])  # now: ``item`` is rebound by the loop
            elif isinstance(item, list | tuple):
                child = []
                pairs = ((None, v) for v in item)
            else:
                child, pairs = leaf(item), None
            if isinstance(target, dict):
                target[key] = child
            else:
                target.append(child)
            if pairs is not None:
                stack.append((pairs, child))
                break
        else:
            stack.pop()
    return root[0]


@cache
def _plan(cls: type[BaseModel]) -> tuple[tuple[str, bool], ...]:
    """(field name, required?) in canonical order: worked out once per class."""
    fields = cls.model_fields
    return tuple((name, fields[name].is_required()) for name in _field_order(cls))


_PLAIN = frozenset((str, int, float, bool))


def model_to_dict(model: BaseModel) -> dict[str, Any]:
    """The canonical JSON object of any ThreadProtocol model. (Runs once per action on every
    read and validate: fields come straight from the instance dict, and the common values,
    text, numbers and times, are placed without a call.)"""
    out: dict[str, Any] = {}
    values = model.__dict__
    for name, required in _plan(type(model)):
        value = values.get(name)
        kind = type(value)
        if kind in _PLAIN:
            out[name] = value
        elif value is None:
            if required:
                out[name] = None
        elif kind is datetime:
            out[name] = format_timestamp(value)
        else:
            out[name] = _value(value)
    extra = model.__pydantic_extra__
    if extra:
        for name in sorted(extra):
            out[name] = _free(extra[name])
    return out


def _value(value: Any) -> Any:
    if isinstance(value, BaseModel):
        return model_to_dict(value)
    if isinstance(value, datetime):
        return format_timestamp(value)
    if isinstance(value, list):
        return [_value(v) for v in value]
    if isinstance(value, dict):
        return {k: _value(v) if isinstance(v, BaseModel) else _free(v) for k, v in sorted(value.items())}
    return _free(value)


def thread_to_dict(thread: Thread) -> dict[str, Any]:
    return model_to_dict(thread)


def dumps(thread: Thread, *, indent: bool = False) -> bytes:
    """Canonical JSON bytes of ``thread``: same thread, same bytes. A thread holding a float NaN
    or infinity is refused (``core/finite.py``: JSON cannot hold them)."""
    refuse_non_finite(thread)
    return json_bytes(thread_to_dict(thread), option=orjson.OPT_INDENT_2 if indent else 0)


def json_bytes(value: Any, *, option: int = 0) -> bytes:
    """``orjson.dumps(value, option=option)``, and the same bytes for what orjson refuses to
    write: integers beyond 64 bits (written exactly, never as floats) and values nested more
    than 254 deep. ``option`` may hold OPT_INDENT_2, OPT_SORT_KEYS and OPT_NON_STR_KEYS."""
    try:
        return orjson.dumps(value, option=option)
    except orjson.JSONEncodeError:
        return _encode(value, option)


def _encode(value: Any, option: int) -> bytes:
    """The slow encoder behind ``json_bytes``: containers laid out here as orjson lays them
    out, each leaf written by orjson itself (so strings, floats and dates are the same bytes),
    an integer orjson cannot hold by ``str``. Iterative: any depth."""
    indent = bool(option & orjson.OPT_INDENT_2)
    sort_keys = bool(option & orjson.OPT_SORT_KEYS)
    leaf_option = option & ~(orjson.OPT_INDENT_2 | orjson.OPT_SORT_KEYS)
    out: list[bytes] = []
    # each frame: (iterator of (key bytes or None, value), closing bracket, depth, first?)
    stack: list[list[Any]] = []

    def open_container(item: Any, depth: int) -> bool:
        if isinstance(item, dict):
            if not item:
                out.append(b"{}")
                return False
            keys = sorted(item, key=_sort_key) if sort_keys else list(item)
            out.append(b"{")
            stack.append([((_key(k, leaf_option), item[k]) for k in keys), b"}", depth + 1, True])
            return True
        if isinstance(item, list | tuple):
            if not item:
                out.append(b"[]")
                return False
            out.append(b"[")
            stack.append([((None, v) for v in item), b"]", depth + 1, True])
            return True
        out.append(_leaf(item, leaf_option))
        return False

    open_container(value, 0)
    while stack:
        frame = stack[-1]
        items, closing, depth, first = frame
        for key, item in items:
            if not first:
                out.append(b",")
            frame[3] = first = False
            if indent:
                out.append(b"\n" + b"  " * depth)
            if key is not None:
                out.append(key + (b": " if indent else b":"))
            if open_container(item, depth):
                break
        else:
            stack.pop()
            if indent:
                out.append(b"\n" + b"  " * (depth - 1))
            out.append(closing)
    return b"".join(out)


def _sort_key(key: Any) -> Any:
    return key if isinstance(key, str) else str(key)


def _key(key: Any, option: int) -> bytes:
    if isinstance(key, str):
        return orjson.dumps(key)
    return orjson.dumps({key: None}, option=option | orjson.OPT_NON_STR_KEYS)[1:-6]


def _leaf(value: Any, option: int) -> bytes:
    if type(value) is int or (isinstance(value, int) and not isinstance(value, bool)):
        return str(int(value)).encode()
    return orjson.dumps(value, option=option)


def write(thread: Thread, path: str | PathLike[str], *, indent: bool = True) -> Path:
    """Write ``thread`` as canonical JSON (indented by default, newline-terminated)."""
    target = Path(path)
    target.write_bytes(dumps(thread, indent=indent) + b"\n")
    return target


def json_copy(value: Any) -> Any:
    """A deep copy of a JSON value (dicts, lists, scalars), at any depth: orjson's round trip
    when it can write the value, else an iterative copy (a file may nest deeper than orjson
    writes, 254 levels, and than Python's recursion allows)."""
    try:
        return orjson.loads(orjson.dumps(value))
    except (TypeError, orjson.JSONEncodeError):
        pass
    root: list[Any] = [None]
    todo: list[tuple[Any, Any, Any]] = [(root, 0, value)]  # (new container, key, old value)
    while todo:
        holder, key, old = todo.pop()
        if isinstance(old, dict):
            new: Any = dict.fromkeys(old)  # keys in their order; values filled in below
            todo.extend((new, k, v) for k, v in old.items())
        elif isinstance(old, list):
            new = [None] * len(old)
            todo.extend((new, i, v) for i, v in enumerate(old))
        else:
            new = old
        holder[key] = new
    return root[0]
