"""Message parts → ThreadProtocol content, usage and finish reasons, shared by the span readers."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from threadlab.core.model import Usage
from threadlab.formats.common.spans.model import Part

_CATEGORIES = {"image": "image", "audio": "audio", "video": "video", "document": "document"}
_FINISH = {
    "stop": "stop",
    "end_turn": "stop",
    "completed": "stop",
    "tool_call": "tool_call",
    "tool_calls": "tool_call",
    "tool_use": "tool_call",
    "function_call": "tool_call",
    "length": "length",
    "max_tokens": "length",
    "content_filter": "content_filter",
}


def finish_reason(value: str | None) -> str | None:
    """The ThreadProtocol finish reason for a producer's one (None when it has no equivalent)."""
    return _FINISH.get(value) if isinstance(value, str) else None


def content(parts: list[Part]) -> tuple[Any, list[str]]:
    """(ThreadProtocol content of the text and media parts, phrases naming the parts kept as
    unknown). One text part is a plain string, as every reader writes it."""
    out: list[dict[str, Any]] = []
    unknown: list[str] = []
    for part in parts:
        if part.kind == "text":
            out.append({"type": "text", "text": part.text or ""})
        elif part.kind == "media":
            media = _media(part.raw)
            if media is None:
                unknown.append(f"a {part.raw.get('type')!r} part" if isinstance(part.raw, Mapping) else "a part")
                out.append(dict(part.raw) if isinstance(part.raw, Mapping) else {"type": "unknown", "value": part.raw})
            else:
                out.append(media)
        elif part.kind == "other":
            kind = part.raw.get("type") if isinstance(part.raw, Mapping) else type(part.raw).__name__
            unknown.append(f"a {kind!r} part")
            out.append(dict(part.raw) if isinstance(part.raw, Mapping) else {"type": "unknown", "value": part.raw})
    if len(out) == 1 and out[0].get("type") == "text" and set(out[0]) == {"type", "text"}:
        return out[0]["text"], unknown
    return out, unknown


def _media(raw: Any) -> dict[str, Any] | None:
    """A GenAI blob/uri/file part or a Chat Completions image_url part as a media part."""
    if not isinstance(raw, Mapping):
        return None
    kind = raw.get("type")
    if kind == "image_url":
        url = raw.get("image_url", {}).get("url") if isinstance(raw.get("image_url"), Mapping) else raw.get("image_url")
        return {"type": "image", "image_url": url} if isinstance(url, str) else None
    mime = raw.get("mime_type") or raw.get("media_type")
    modality = raw.get("modality")
    category = _CATEGORIES.get(modality) or _CATEGORIES.get(str(mime).split("/")[0]) or "document"
    if not isinstance(mime, str):
        return None
    if kind == "blob" and isinstance(raw.get("content"), str):
        return {"type": "file", "content_type": "binary", "media_type": mime, "media_category": category, "data": raw["content"]}
    if kind == "uri" and isinstance(raw.get("uri"), str):
        return {"type": "file", "content_type": "url", "media_type": mime, "media_category": category, "url": raw["uri"]}
    return None


def usage(counts: Mapping[str, int] | None) -> Usage | None:
    """Token counts (input, output, cache_read, cache_write, reasoning, total) as Usage; total =
    input + output when not given."""
    found = _figures(counts)
    return None if found is None else Usage(**found)


def usage_counts(counts: Mapping[str, int] | None) -> dict[str, int] | None:
    """``usage(counts)`` as its canonical object (the counts that are not None), without the model."""
    found = _figures(counts)
    return None if found is None else {k: v for k, v in found.items() if v is not None}


def _figures(counts: Mapping[str, int] | None) -> dict[str, int | None] | None:
    if not counts:
        return None
    inp, out = counts.get("input"), counts.get("output")
    total = counts.get("total")
    if total is None and (inp is not None or out is not None):
        total = (inp or 0) + (out or 0)
    return {"input_tokens": inp, "output_tokens": out, "total_tokens": total, "thinking_tokens": counts.get("reasoning") or None,
            "cache_read_tokens": counts.get("cache_read") or None, "cache_write_tokens": counts.get("cache_write") or None}
