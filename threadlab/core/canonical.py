"""Canonical JSON: one way to write a Thread, so the same thread is the same bytes.

Rules (ARCHITECTURE.md): the spec's field order, threadlab's ``metadata`` after the spec
fields, then unknown fields sorted by name; unset optional fields are left out; free-form
values (``args``, ``content``, ``data``, ``metadata``, unknown fields) have their object keys
sorted; timestamps are ``YYYY-MM-DDTHH:MM:SS[.ffffff]Z``; UTF-8; compact unless ``indent``.
"""

from __future__ import annotations

from datetime import datetime
from functools import cache
from os import PathLike
from pathlib import Path
from typing import Any

import orjson
from pydantic import BaseModel

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
    """A free-form JSON value with object keys sorted (recursively)."""
    if isinstance(value, dict):
        return {str(k): _free(value[k]) for k in sorted(value, key=str)}
    if isinstance(value, list | tuple):
        return [_free(v) for v in value]
    if isinstance(value, BaseModel):
        return model_to_dict(value)
    if isinstance(value, datetime):
        return format_timestamp(value)
    if isinstance(value, bytes):
        import base64

        return base64.b64encode(value).decode()
    return value


def model_to_dict(model: BaseModel) -> dict[str, Any]:
    """The canonical JSON object of any ThreadProtocol model."""
    out: dict[str, Any] = {}
    fields = type(model).model_fields
    for name in _field_order(type(model)):
        value = getattr(model, name)
        if value is None and not fields[name].is_required():
            continue
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
    """Canonical JSON bytes of ``thread``: same thread, same bytes."""
    option = orjson.OPT_INDENT_2 if indent else 0
    return orjson.dumps(thread_to_dict(thread), option=option)


def write(thread: Thread, path: str | PathLike[str], *, indent: bool = True) -> Path:
    """Write ``thread`` as canonical JSON (indented by default, newline-terminated)."""
    target = Path(path)
    target.write_bytes(dumps(thread, indent=indent) + b"\n")
    return target
