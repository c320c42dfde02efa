"""Cell values as text: compact JSON with sorted keys (the canonical form, so a raw file and its
Thread give the same text) and content as one string."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import orjson

from threadlab.core.canonical import json_bytes
from threadlab.core.problems import short

SORTED_JSON = orjson.OPT_NON_STR_KEYS | orjson.OPT_SORT_KEYS


def json_text(value: Any) -> str:
    """Compact JSON with sorted keys (also for integers beyond 64 bits and values nested
    deeper than orjson writes); a value that is not JSON at all, by its ``str``."""
    try:
        return json_bytes(value, option=SORTED_JSON).decode()
    except (TypeError, ValueError):
        try:
            return str(value)
        except RecursionError:
            return short(value)


def to_text(value: Any) -> str | None:
    """Content as one string: text parts joined; anything structured as compact JSON with
    sorted keys (the canonical form, so a raw file and its Thread give the same text)."""
    if value is None:
        return None
    if isinstance(value, str):
        return value
    if type(value) is dict:
        return json_text(value)
    if isinstance(value, list) and all(isinstance(p, Mapping) for p in value):
        texts = [p.get("text") for p in value if isinstance(p.get("text"), str)]
        if texts and len(texts) == len(value):
            return "\n".join(texts)
        pieces = []
        for part in value:
            text = part.get("text")
            if isinstance(text, str):
                pieces.append(text)
            else:
                label = _word(part.get("media_category") or part.get("type") or "part")
                ref = _word(part.get("url") or part.get("image_url") or part.get("identifier") or "")
                pieces.append(f"[{label}{': ' + ref if ref else ''}]")
        return "\n".join(pieces)
    return json_text(value)


def _word(value: Any) -> str:
    """A label or reference of a media part as text (whatever type the file gave it)."""
    return value if isinstance(value, str) else short(value)
