"""The containers agency-swarm's saved items come in: a JSON array (what
``save_threads_callback`` receives), JSON Lines of items (one per line, as an append-only log
keeps them), or the FastAPI body that wraps the list (``new_messages`` / ``chat_history`` beside
its ``usage``)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import PurePath
from typing import Any

import orjson

from threadlab.formats.agency_swarm.common import is_item, items_of
from threadlab.formats.common.json_lines import first_line, torn_reason, with_edges
from threadlab.formats.common.source import Source


@dataclass
class Saved:
    """The items of one saved chat, with where each came from."""

    items: list[Any]
    lines: list[int | None]  # the JSON Lines line of each item (None in a JSON document)
    broken: list[tuple[int, str]] = field(default_factory=list)  # JSON Lines lines that are not JSON
    usage: Mapping[str, Any] | None = None
    body: dict[str, Any] | None = None  # a FastAPI body's other fields, with "items_key" naming the list's key


def looks_like_lines(source: Source) -> bool:
    """JSON Lines of agency-swarm items: the first line is a whole item tagged with agent and
    callerAgent (untagged Agents SDK items one a line are ``openai-agents-session``'s)."""
    for _, line in source.lines():
        if not line.strip():
            continue
        try:
            return is_item(orjson.loads(line))
        except orjson.JSONDecodeError:
            return False
    return False


def load(source: Source) -> Saved:
    """The saved items of ``source``; a JSON document that holds no item list, or bytes that
    are neither JSON nor JSON Lines, raise the source's error (naming file and line)."""
    if source.is_object:
        return _document(source, source.obj)
    obj = source.try_json()
    if obj is not None:
        return _document(source, obj)
    if not _first_line_is_object(source):
        source.json()  # raises: not JSON (a truncated or broken document), with the line and column
    saved = Saved([], [])
    for edge in with_edges(source.lines()):
        try:
            saved.items.append(orjson.loads(edge.line))
            saved.lines.append(edge.number)
        except orjson.JSONDecodeError as exc:
            why = torn_reason(edge.line, exc, edge) or f"is not JSON ({exc.msg})"  # torn: a live file's last line, a capture's cut first
            saved.broken.append((edge.number, f"line {edge.number} {why}; the other lines are read"))
    if not any(is_item(x) for x in saved.items):
        raise source.error("format", "holds no agency-swarm item (tagged with agent and callerAgent) on any line", line=saved.lines[0] if saved.lines else None)
    return saved


def _first_line_is_object(source: Source) -> bool:
    """JSON Lines, not a broken JSON document: the first complete line is a whole object."""
    try:
        return isinstance(orjson.loads(first_line(source) or b""), dict)
    except orjson.JSONDecodeError:
        return False


def _document(source: Source, obj: Any) -> Saved:
    items = items_of(obj)
    if items is None:
        raise source.error("format", "is not an agency-swarm saved list (items tagged with agent and callerAgent)")
    usage = obj.get("usage") if isinstance(obj, Mapping) else None
    return Saved(list(items), [None] * len(items), usage=usage if isinstance(usage, Mapping) else None, body=body_of(obj, items))


def body_of(obj: Any, items: list[Any]) -> dict[str, Any] | None:
    """The FastAPI body around the item list (``response``, ``usage``, ``file_ids_map`` ...),
    kept so the body is written back whole; ``items_key`` says where the list was."""
    if not isinstance(obj, Mapping):
        return None
    key = next(k for k, v in obj.items() if v is items)
    return {"items_key": key, "fields": {k: v for k, v in obj.items() if k != key}}


def chat_id_of(source: Source) -> str | None:
    """The chat id a saved file names: its file name without the suffix (also when the bytes
    are read under the file's name)."""
    if source.path is not None:
        return source.path.stem
    if source.name and not source.name.startswith("<"):
        return PurePath(source.name).stem or None
    return None
