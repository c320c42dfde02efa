"""ATIF's wire shapes (Harbor's ``harbor.models.trajectories``, RFC 0001, v1.0 to v1.8) and the
small mappings reading and writing share: content parts, timestamps, metrics ↔ usage.

A trajectory is one JSON object ``{schema_version: "ATIF-v1.x", session_id?, trajectory_id?,
agent: {name, version, model_name?, tool_definitions?, extra?}, steps: [...], notes?,
final_metrics?, continued_trajectory_ref?, extra?, subagent_trajectories?: [Trajectory]}``.
A step is ``{step_id, timestamp?, source: system|user|agent, model_name?, reasoning_effort?,
message: str | [ContentPart], reasoning_content?, tool_calls?: [{tool_call_id, function_name,
arguments, extra?}], observation?: {results: [{source_call_id?, content?, subagent_trajectory_ref?:
[{trajectory_id?, session_id?, trajectory_path?, extra?}], extra?}]}, metrics?: {prompt_tokens,
completion_tokens, cached_tokens, cost_usd, prompt_token_ids, completion_token_ids, logprobs,
extra}, is_copied_context?, llm_call_count?, extra?}``."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Any

import orjson

from threadlab.core.canonical import model_to_dict
from threadlab.core.timefmt import parse_timestamp

META = "atif"  # the metadata key (thread, agent, action) for what ATIF has and ThreadProtocol has no field for
JOIN = "threadlab_join"  # a subagent ref's extra key holding the agent_join data of a thread of another format
CARRIED = "threadlab_action"
VALUE = "threadlab_content"  # a result's extra key holding a tool's structured return value (its JSON text is the content)
AGENT = "threadlab_agent"  # a step's extra key naming its agent where it is not its trajectory's ({agent_id, agent_name})
WRAPPED = "threadlab_wrapped"  # a call's extra key: its arguments are no object, written as {"value": ...} (as Harbor's converters do)
STATUS = "threadlab_status"  # a result's extra key for a return status other than success and error
# a result's ``extra.is_error: true`` is an error return (Harbor's converters write it so)  # step extra key holding an action ATIF has no place for (written back exactly)
WRITE_VERSION = "ATIF-v1.7"
SOURCES = ("system", "user", "agent")
# metrics fields read as usage (ATIF's prompt_tokens counts cached tokens, as threadlab's input_tokens does)
USAGE_KEYS = {"prompt_tokens": "input_tokens", "completion_tokens": "output_tokens", "cached_tokens": "cache_read_tokens"}
TOTAL_KEYS = {"total_prompt_tokens": "input_tokens", "total_completion_tokens": "output_tokens", "total_cached_tokens": "cache_read_tokens"}


def is_trajectory(obj: Any) -> bool:
    """An ATIF trajectory: ``schema_version`` "ATIF-v…", an ``agent`` object and a ``steps`` list."""
    return (
        isinstance(obj, Mapping)
        and isinstance(obj.get("schema_version"), str)
        and obj["schema_version"].startswith("ATIF-v")
        and isinstance(obj.get("steps"), list)
        and isinstance(obj.get("agent"), Mapping)
    )


def render_time(moment: datetime) -> str:
    """A step's time as Harbor writes it (``datetime.isoformat()`` in UTC)."""
    return moment.astimezone(UTC).isoformat()


def read_time(value: Any) -> tuple[datetime | None, bool]:
    """(the time, whether ``render_time`` gives the same text back)."""
    if not isinstance(value, str):
        return None, False
    try:
        moment = parse_timestamp(value)
    except ValueError:
        return None, False
    return moment, render_time(moment) == value


def int_or_none(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def usage_of(metrics: Any) -> dict[str, int]:
    """A step's ``metrics`` token counts as threadlab usage keys."""
    if not isinstance(metrics, Mapping):
        return {}
    return {ours: metrics[theirs] for theirs, ours in USAGE_KEYS.items() if int_or_none(metrics.get(theirs)) is not None}


def metrics_of(usage: Mapping[str, Any]) -> dict[str, Any]:
    """threadlab usage → ATIF metrics (only the three counts ATIF names)."""
    return {theirs: usage[ours] for theirs, ours in USAGE_KEYS.items() if usage.get(ours) is not None}


def part_in(part: Any) -> tuple[Any, bool]:
    """An ATIF content part as a ThreadProtocol part, and whether it is one ATIF defines."""
    if isinstance(part, Mapping):
        kind = part.get("type")
        source = part.get("source") if isinstance(part.get("source"), Mapping) else {}
        if kind == "text" and isinstance(part.get("text"), str) and set(part) <= {"type", "text"}:
            return {"type": "text", "text": part["text"]}, True
        if kind == "image" and set(part) == {"type", "source"} and set(source) == {"media_type", "path"}:
            return {"type": "image", "image_url": source["path"], "media_type": source["media_type"]}, True
        if kind == "audio" and set(part) == {"type", "source"} and {"media_type", "path"} <= set(source) <= {"media_type", "path", "duration_sec"}:
            media = {"type": "file", "content_type": "url", "media_type": source["media_type"], "media_category": "audio", "url": source["path"]}
            if "duration_sec" in source:
                media["metadata"] = {"duration_sec": source["duration_sec"]}
            return media, True
    return {"type": "atif_part", "value": part}, False


def content_in(value: Any) -> tuple[Any, list[Any]]:
    """A step message or observation content (a string or a list of parts) as ThreadProtocol
    content, and the parts ATIF does not define (kept as ``atif_part`` parts)."""
    if not isinstance(value, list):
        return value, []
    parts, odd = [], []
    for part in value:
        mapped, known = part_in(part)
        parts.append(mapped)
        if not known:
            odd.append(part)
    return parts, odd


def part_out(part: Any) -> Any | None:
    """A ThreadProtocol part as an ATIF part; None when ATIF has none for it."""
    raw = part if isinstance(part, Mapping) else model_to_dict(part) if hasattr(part, "model_dump") else part
    if isinstance(raw, str):
        return {"type": "text", "text": raw}
    if not isinstance(raw, Mapping):
        return None
    kind = raw.get("type")
    if kind == "atif_part" and set(raw) == {"type", "value"}:
        return raw["value"]
    if kind == "text" and isinstance(raw.get("text"), str):
        return {"type": "text", "text": raw["text"]}
    if kind == "image" and isinstance(raw.get("image_url"), str) and isinstance(raw.get("media_type"), str):
        return {"type": "image", "source": {"media_type": raw["media_type"], "path": raw["image_url"]}}
    if raw.get("media_category") == "image" and raw.get("content_type") == "url" and isinstance(raw.get("url"), str) and isinstance(raw.get("media_type"), str):
        return {"type": "image", "source": {"media_type": raw["media_type"], "path": raw["url"]}}
    if raw.get("media_category") == "audio" and raw.get("content_type") == "url" and isinstance(raw.get("url"), str):
        extra = raw.get("metadata") if isinstance(raw.get("metadata"), Mapping) else {}
        if set(raw) <= {"type", "content_type", "media_type", "media_category", "url", "metadata"} and set(extra) <= {"duration_sec"}:
            return {"type": "audio", "source": {"media_type": raw["media_type"], "path": raw["url"], **extra}}
    return None


def content_out(content: Any) -> Any:
    """ThreadProtocol content as ATIF content: text, or text / image / audio parts (a part ATIF
    cannot hold, such as media with no path or URL to reference, is left out: the writer's
    read-back names it); another value as its JSON text."""
    if content is None or isinstance(content, str):
        return content
    if not isinstance(content, list):
        return orjson.dumps(content, default=str).decode()
    return [part for part in map(part_out, content) if part is not None]
