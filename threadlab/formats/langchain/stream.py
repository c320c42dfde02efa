"""LangGraph stream captures: what ``graph.stream(..., stream_mode=[...])`` yields, saved as a
JSON array or JSON Lines, one stream part an item.

A part is ``[mode, chunk]`` (a list of modes), ``[namespace, mode, chunk]`` (``subgraphs=True``)
or ``{"event": mode, "data": chunk}`` (the LangGraph SDK's ``StreamPart``); chunks hold messages in
any of LangChain's spellings (``dumpd``, ``model_dump``, ``messages_to_dict``). The modes repeat
one another: ``values`` is the whole state after each step, ``updates`` what each node added,
``messages`` each model message (or its tokens, chunk by chunk of one message id) with metadata.
The thread is the fullest of them: the last ``values`` state's messages, else every update's
messages in order, else the ``messages`` parts, chunks of one id joined into one message.

A record is a part, but the chosen state, whose records are its messages (and a message made of
several chunks counts each); every other part repeats what those give."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

MODES = frozenset({"values", "updates", "messages", "custom", "debug", "tasks", "checkpoints", "events", "metadata",
                   "messages/partial", "messages/complete", "messages/metadata"})
_TALK = ("values", "updates", "messages", "messages/complete")


def stream_part(item: Any) -> tuple[str, Any] | None:
    """(mode, chunk) of a saved stream part, or None for anything else."""
    if isinstance(item, list):
        if len(item) == 2 and isinstance(item[0], str) and item[0] in MODES:
            return item[0], item[1]
        if len(item) == 3 and isinstance(item[0], (list, str)) and isinstance(item[1], str) and item[1] in MODES:
            return item[1], item[2]
    if isinstance(item, Mapping) and item.get("event") in MODES and "data" in item and set(item) <= {"event", "data", "id"}:
        return item["event"], item["data"]
    return None


def is_stream(items: Any) -> bool:
    """Stream parts, one of them of a mode that carries messages."""
    if not isinstance(items, list) or not items:
        return False
    parts = [stream_part(i) for i in items[:20]]
    return None not in parts and any(p[0] in _TALK for p in parts if p is not None)


def _state_messages(chunk: Any) -> list[Any] | None:
    messages = chunk.get("messages") if isinstance(chunk, Mapping) else None
    return messages if isinstance(messages, list) else None


def _update_messages(chunk: Any) -> list[Any]:
    """The messages each node of an ``updates`` chunk added, in node order."""
    if not isinstance(chunk, Mapping):
        return []
    return [m for update in chunk.values() for m in (_state_messages(update) or [])]


def chosen(parts: list[tuple[str, Any]]) -> tuple[str, list[tuple[Any, int]]]:
    """Which mode the thread is read from, and its messages, each with how many records it is."""
    states = [k for k, (mode, chunk) in enumerate(parts) if mode == "values" and _state_messages(chunk) is not None]
    if states:
        return "values", [(m, 1) for m in _state_messages(parts[states[-1]][1]) or []]
    updates = [m for mode, chunk in parts if mode == "updates" for m in _update_messages(chunk)]
    if updates:
        return "updates", [(m, 1) for m in updates]
    return "messages", _joined([chunk[0] if isinstance(chunk, list) and chunk else chunk for mode, chunk in parts if mode in ("messages", "messages/complete")])


def _joined(messages: list[Any]) -> list[tuple[Any, int]]:
    """Chunks of one message id (a model's tokens) joined: text contents concatenated."""
    out: list[tuple[Any, int]] = []
    for message in messages:
        key = _id(message)
        last = out[-1][0] if out else None
        if key is not None and last is not None and _id(last) == key and isinstance(_body(last).get("content"), str) and isinstance(_body(message).get("content"), str):
            merged = _copy(last)
            _body(merged)["content"] = _body(last)["content"] + _body(message)["content"]
            out[-1] = (merged, out[-1][1] + 1)
        else:
            out.append((message, 1))
    return out


def _body(message: Any) -> dict[str, Any]:
    """Where a message keeps its fields: ``kwargs`` (``dumpd``), ``data`` (``messages_to_dict``), itself."""
    if not isinstance(message, dict):
        return {}
    for key in ("kwargs", "data"):
        if isinstance(message.get(key), dict):
            return message[key]
    return message


def _copy(message: dict[str, Any]) -> dict[str, Any]:
    out = dict(message)
    for key in ("kwargs", "data"):
        if isinstance(out.get(key), dict):
            out[key] = dict(out[key])
    return out


def _id(message: Any) -> Any:
    value = _body(message).get("id")
    return value if isinstance(value, str) else None


def records_of(parts: list[tuple[str, Any]]) -> tuple[str, list[tuple[Any, int]], int]:
    """(mode, messages with their records, the other parts' count: records that repeat them)."""
    mode, messages = chosen(parts)
    if mode == "values":
        return mode, messages, len(parts) - 1
    if mode == "updates":
        carrying = sum(1 for m, chunk in parts if m == "updates" and _update_messages(chunk))
        return mode, messages, len(parts) - carrying
    used = sum(n for _, n in messages)
    return mode, messages, len(parts) - used
