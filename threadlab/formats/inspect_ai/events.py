"""An Inspect AI sample's events as the converter meets them: walked in order (the nested
events of older logs after their parent), a model event's output message and its usage (counts
kept or named, ``formats/common/counts.py``), and ids fit to look messages up by."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from threadlab.formats.common.counts import counts_of
from threadlab.formats.inspect_ai.decode import MAPS


def walk_events(events: Any) -> Iterator[Mapping[str, Any]]:
    """Events in order, the nested ``events`` of older subtask/tool events after their parent."""
    for event in events if isinstance(events, list) else ():
        if isinstance(event, MAPS):
            yield event
            if isinstance(event.get("events"), list):
                yield from walk_events(event["events"])


_USAGE_COUNTS = ("input_tokens", "output_tokens", "total_tokens", "input_tokens_cache_read", "input_tokens_cache_write", "reasoning_tokens")


def usage_fields(raw: Any, problems: list[str] | None = None) -> dict[str, int] | None:
    """inspect_ai's ModelUsage → ThreadProtocol usage (input includes the cached reads and writes).
    A figure that is no count (``counts.count_of``) is a phrase in ``problems`` and leaves out what
    it is part of (the input with a cache figure, the total), never a zero in its place."""
    if not isinstance(raw, MAPS):
        return None
    figures = {key: raw.get(key) for key in _USAGE_COUNTS}
    if all(type(value) is int or value is None for value in figures.values()):  # (nearly always: counts_of's answer, at once)
        found = {key: value for key, value in figures.items() if value is not None}
        bad: set[str] = set()
    else:
        found = counts_of(figures, problems if problems is not None else [], "usage.")
        bad = {key for key, value in figures.items() if value is not None and key not in found}
    read = found.get("input_tokens_cache_read") or 0
    write = found.get("input_tokens_cache_write") or 0
    given, output = found.get("input_tokens") or 0, found.get("output_tokens") or 0
    total = found.get("total_tokens")
    # providers differ: where the total counts the cache apart, input_tokens left it out
    apart = (read or write) and total == given + output + read + write
    out: dict[str, int] = {}
    if not bad & {"input_tokens", "input_tokens_cache_read", "input_tokens_cache_write"}:
        out["input_tokens"] = given + read + write if apart else given
    if "output_tokens" not in bad:
        out["output_tokens"] = output
    if total:
        out["total_tokens"] = total
    elif "input_tokens" in out and "output_tokens" in out:
        out["total_tokens"] = out["input_tokens"] + output
    if read:
        out["cache_read_tokens"] = read
    if write:
        out["cache_write_tokens"] = write
    if found.get("reasoning_tokens"):
        out["thinking_tokens"] = found["reasoning_tokens"]
    return out


def message_key(value: Any) -> str | None:
    """An id fit to look messages up by (a list or an object where an id belongs is none)."""
    return value if isinstance(value, str) and value else None


def output_message(event: Mapping[str, Any], output: Any = None) -> Mapping[str, Any] | None:
    output = event.get("output") if output is None else output
    choices = output.get("choices") if isinstance(output, MAPS) else None
    if isinstance(choices, list) and choices and isinstance(choices[0], MAPS) and isinstance(choices[0].get("message"), MAPS):
        return choices[0]["message"]
    return None
