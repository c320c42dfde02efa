"""What the stream reader and the UIMessage reader share: one assistant (or user) message's
worth of parts → ThreadProtocol actions, with agents, usage, model and timestamps.

Both readers collect a ``Turn`` of ``Slot`` objects (one per future action, in part order) and
hand it to ``Assembler.add_turn`` once the message is complete, because the things that apply to
the whole message - its metadata (usage, model, createdAt, agent) and finish reason - may only
arrive at its end. The UI protocol has no timestamps of its own: a message's time comes from its
metadata when the producer put one there, and the builder synthesises the rest (flagged)."""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from threadlab.core.builder import ThreadBuilder
from threadlab.core.model import BaseAction
from threadlab.core.problems import short
from threadlab.core.timefmt import parse_timestamp
from threadlab.formats.common.counts import count_of

FORMAT_KEY = "vercel_ai"  # action metadata key holding what ThreadProtocol has no field for
AGENT_ACTIONS = ("assistant_message", "thinking", "tool_call")

AgentOf = Callable[[str, Any], str | None]
"""``agent_of(kind, value) -> agent name | None``: called with ``("metadata", message metadata)``
and with ``("data-<name>", data)`` for every data part; a name switches attribution."""

FINISH_REASONS = {"stop": "stop", "tool-calls": "tool_call", "length": "length", "content-filter": "content_filter"}
FINISH_REASONS_BACK = {v: k for k, v in FINISH_REASONS.items()}


def default_agent_of(kind: str, value: Any) -> str | None:
    """Agents as producers commonly name them: ``metadata.agent`` (a name or ``{"name": ...}``),
    ``metadata.agentName``, or a ``data-agent`` part whose data is a name or ``{"name": ...}``."""
    if kind == "metadata" and isinstance(value, Mapping):
        agent = value.get("agent") or value.get("agentName") or value.get("agent_name")
    elif kind == "data-agent":
        agent = value
    else:
        return None
    if isinstance(agent, Mapping):
        agent = agent.get("name") or agent.get("agent") or agent.get("id")
    return agent if isinstance(agent, str) and agent else None


@dataclass(slots=True)
class Slot:
    """One future action. Text arrives in ``pieces`` (joined once, at the end)."""

    action_type: str
    fields: dict[str, Any] = field(default_factory=dict)
    vercel: dict[str, Any] = field(default_factory=dict)
    agent: str | None = None
    pieces: list[str] | None = None
    action: BaseAction | None = None
    meta: dict[str, Any] = field(default_factory=dict)  # action metadata beside the format's (who wrote it)

    def text(self) -> str:
        return "".join(self.pieces or ())


@dataclass(slots=True)
class Turn:
    """One message as the client would hold it after one response (or one persisted UIMessage)."""

    role: str = "assistant"
    message_id: str | None = None
    metadata: dict[str, Any] = field(default_factory=dict)
    slots: list[Slot] = field(default_factory=list)
    finish_reason: str | None = None
    agent: str | None = None  # the agent a data-agent part switched to, for the slots that follow
    step: int = 0
    extra: dict[str, Any] = field(default_factory=dict)  # unknown keys of start/finish chunks
    when: Any = None  # the message's own time (AI SDK v4 messages carry ``createdAt``)
    head: dict[str, Any] = field(default_factory=dict)  # more for the first action's metadata (v4's message fields)
    line: int | None = None  # the line its metadata came from last (a stream's)

    def add(self, action_type: str, *, agent: bool = False, **fields: Any) -> Slot:
        slot = Slot(action_type, fields, {"step": self.step}, self.agent if agent else None)
        self.slots.append(slot)
        return slot


# --- probing producer-defined metadata ------------------------------------------------------


def _count(found: tuple[str, Any], problems: list[str]) -> int | None:
    """A figure found as (its name, its value) as a count (``counts.count_of``: ``12.0`` is 12);
    a value that is none is a phrase in ``problems``."""
    name, value = found
    if isinstance(value, Mapping):  # provider-level usage: {"total": n, ...}
        name, value = f"{name}.total", value.get("total")
    count, why = count_of(value)
    if why is not None:
        problems.append(f"usage.{name}: {why}; left out")
    return count


def _named(mapping: Mapping[str, Any], *keys: str, prefix: str = "") -> tuple[str, Any]:
    """(name, value) of the first of ``keys`` that ``mapping`` holds a value for."""
    for key in keys:
        if mapping.get(key) is not None:
            return prefix + key, mapping[key]
    return "", None


def _first(mapping: Mapping[str, Any], *keys: str) -> Any:
    for key in keys:
        value = mapping.get(key)
        if value is not None:
            return value
    return None


def normalize_usage(raw: Mapping[str, Any], problems: list[str] | None = None) -> dict[str, int] | None:
    """AI SDK ``LanguageModelUsage`` (v5-v7, camelCase or snake_case, flat or nested) → the
    ThreadProtocol usage fields. A figure that is no count is left out, with a phrase in
    ``problems``."""
    phrases = problems if problems is not None else []
    inputs = _named(raw, "inputTokens", "input_tokens", "promptTokens", "prompt_tokens")
    outputs = _named(raw, "outputTokens", "output_tokens", "completionTokens", "completion_tokens")
    in_details = raw.get("inputTokenDetails") if isinstance(raw.get("inputTokenDetails"), Mapping) else {}
    out_details = raw.get("outputTokenDetails") if isinstance(raw.get("outputTokenDetails"), Mapping) else {}
    nested_in = inputs[1] if isinstance(inputs[1], Mapping) else {}
    nested_out = outputs[1] if isinstance(outputs[1], Mapping) else {}

    def among(*candidates: tuple[str, Any]) -> tuple[str, Any]:
        return next((c for c in candidates if c[1] is not None), ("", None))

    usage = {
        "input_tokens": _count(inputs, phrases),
        "output_tokens": _count(outputs, phrases),
        "total_tokens": _count(_named(raw, "totalTokens", "total_tokens"), phrases),
        "thinking_tokens": _count(among(_named(out_details, "reasoningTokens", prefix="outputTokenDetails."),
                                        _named(raw, "reasoningTokens", "reasoning_tokens", "thinking_tokens"),
                                        _named(nested_out, "reasoning", prefix=f"{outputs[0]}.")), phrases),
        "cache_read_tokens": _count(among(_named(in_details, "cacheReadTokens", prefix="inputTokenDetails."),
                                          _named(raw, "cachedInputTokens", "cache_read_tokens"),
                                          _named(nested_in, "cacheRead", prefix=f"{inputs[0]}.")), phrases),
        "cache_write_tokens": _count(among(_named(in_details, "cacheWriteTokens", prefix="inputTokenDetails."),
                                           _named(raw, "cache_write_tokens"),
                                           _named(nested_in, "cacheWrite", prefix=f"{inputs[0]}.")), phrases),
    }
    found = {k: v for k, v in usage.items() if v is not None}
    return found or None


def usage_of(meta: Mapping[str, Any], problems: list[str] | None = None) -> dict[str, int] | None:
    """The message's usage: ``totalUsage`` or ``usage`` (a per-step ``stepUsage`` is not counted,
    so a response is counted once); a figure that is no count is a phrase in ``problems``."""
    for key in ("totalUsage", "usage", "total_usage"):
        value = meta.get(key)
        if isinstance(value, Mapping):
            phrases: list[str] = []
            found = normalize_usage(value, phrases)
            if problems is not None:
                problems.extend(f"metadata.{key}.{p.removeprefix('usage.')}" for p in phrases)
            return found
    if any(k in meta for k in ("inputTokens", "outputTokens", "input_tokens", "output_tokens")):
        phrases = []
        found = normalize_usage(meta, phrases)
        if problems is not None:
            problems.extend(f"metadata.{p.removeprefix('usage.')}" for p in phrases)
        return found
    return None


def timestamp_of(meta: Mapping[str, Any], problems: list[str] | None = None) -> datetime | None:
    """``createdAt`` (ms or s since the epoch, or ISO), ``timestamp``, or pydantic-ai's
    ``pydantic_ai.timestamp``; None for none, and for a value that is no time (a phrase in
    ``problems`` names it: the message then has no time, the builder's)."""
    nested = meta.get("pydantic_ai")
    name, value = _named(meta, "createdAt", "created_at", "timestamp")
    if value is None and isinstance(nested, Mapping):
        name, value = "pydantic_ai.timestamp", nested.get("timestamp")
    given = value
    if isinstance(value, int | float) and not isinstance(value, bool) and value > 1e11:
        value = value / 1000  # JavaScript Date.now() milliseconds
    try:
        return parse_timestamp(value) if value is not None else None
    except (ValueError, OverflowError, OSError):
        if problems is not None:
            problems.append(f"{name} {short(given)} is no time; the message has none")
        return None


def model_of(meta: Mapping[str, Any]) -> str | None:
    value = _first(meta, "model", "modelId", "model_id", "modelName", "model_name")
    if isinstance(value, Mapping):
        value = _first(value, "id", "modelId", "name")
    return value if isinstance(value, str) and value else None


def provider_of(meta: Mapping[str, Any], model: str | None) -> str | None:
    value = _first(meta, "provider", "providerName", "provider_name")
    if isinstance(value, str) and value:
        return value
    if model and "/" in model:  # AI Gateway ids: "openai/gpt-5"
        return model.split("/", 1)[0]
    return None


# --- parts → ThreadProtocol values -------------------------------------------------------------


def system_name(data_type: str) -> str:
    """``data-agent-status`` → ``system.agent_status`` (a valid system action name)."""
    name = re.sub(r"[^a-z0-9]+", "_", data_type.removeprefix("data-").lower()).strip("_")
    if not name or not name[0].isalpha():
        name = f"data_{name}".rstrip("_")
    return f"system.{name}"


def media_category(media_type: str) -> str:
    head = media_type.split("/", 1)[0].lower()
    return head if head in ("image", "audio", "video") else "document"


def media_part(kind: str, *, url: str | None, media_type: str | None, identifier: str | None, **extra: Any) -> dict[str, Any]:
    """A RC2 media content part for a ``file``, ``source-url``, ``source-document`` or
    ``reasoning-file`` UI part (``type`` keeps which, so writers can give it back)."""
    media_type = media_type or ("text/uri-list" if kind == "source-url" else "application/octet-stream")
    part: dict[str, Any] = {"type": kind, "media_type": media_type, "media_category": media_category(media_type)}
    if url and url.startswith("data:") and ";base64," in url[:200]:
        part["content_type"] = "binary"
        part["data"] = url.split(",", 1)[1]
    else:
        part["content_type"] = "url"
        if url is not None:
            part["url"] = url
    if identifier is not None:
        part["identifier"] = identifier
    meta = {k: v for k, v in extra.items() if v is not None}
    if meta:
        part["metadata"] = meta
    return part


def signature_of(provider_metadata: Any) -> tuple[str | None, str | None]:
    """(provider name, signature) from a reasoning part's providerMetadata (Anthropic puts the
    signature at ``providerMetadata.anthropic.signature``)."""
    if not isinstance(provider_metadata, Mapping) or not provider_metadata:
        return None, None
    for provider, values in provider_metadata.items():
        if isinstance(values, Mapping) and isinstance(values.get("signature"), str):
            return str(provider), values["signature"]
    return str(next(iter(provider_metadata))), None


# --- the assembler ----------------------------------------------------------------------------


class Assembler:
    """Turns complete messages into actions on one ThreadBuilder."""

    def __init__(self, builder: ThreadBuilder, *, agent_name: str | None, agent_of: AgentOf | None) -> None:
        self.builder = builder
        self.agent_name = agent_name
        self.agent_of: AgentOf = agent_of or default_agent_of
        self.turns = 0

    def producer(self, meta: Mapping[str, Any]) -> str:
        if self.agent_name:
            return self.agent_name
        return "pydantic-ai" if isinstance(meta.get("pydantic_ai"), Mapping) else "ai-sdk"

    def add_turn(self, turn: Turn) -> None:
        meta = turn.metadata
        said: list[tuple[str, str]] = []  # (rule, phrase) of what its metadata holds that does not read
        times: list[str] = []
        when = turn.when if turn.when is not None else timestamp_of(meta, times) if meta else None
        said += [("schema", f"metadata.{t}") for t in times]
        last = self.builder.last_time
        if when is not None and last is not None and when < last:
            when = None  # never let a merged/stale createdAt send time backwards
        model = model_of(meta) if meta else None
        provider = provider_of(meta, model) if meta else None
        counts: list[str] = []
        usage = usage_of(meta, counts) if meta else None
        said += [("usage", c) for c in counts]
        where = (f"message {short(turn.message_id)}" if turn.message_id is not None else f"message {self.turns + 1}") + (f" (line {turn.line})" if turn.line is not None else "")
        for rule, phrase in said:
            self.builder.problem(rule, f"{where}: {phrase}", line=turn.line)
        meta_agent = self.agent_of("metadata", meta) if meta else None
        slots = turn.slots
        if not slots:  # a message (or response) with no parts is still one: its id, role, metadata
            slots = [Slot("system.message_metadata", {"data": meta or None}, {})]
        agent_slots = [s for s in slots if s.action_type in AGENT_ACTIONS]
        texts = [s for s in agent_slots if s.action_type == "assistant_message"]
        usage_slot = next((s for s in reversed(texts) if s.pieces), None) or (agent_slots[0] if agent_slots else None)
        finish = FINISH_REASONS.get(turn.finish_reason or "")
        for index, slot in enumerate(slots):
            fields = dict(slot.fields)
            if slot.pieces is not None:
                fields["content"] = slot.text()
                slot.pieces = None  # the deltas are let go as their text moves into the action
            vercel = dict(slot.vercel)
            if turn.message_id is not None:
                vercel["message_id"] = turn.message_id
            vercel["turn"] = self.turns
            if index == 0:
                vercel["role"] = turn.role
                if meta:
                    vercel["message_metadata"] = meta
                if turn.finish_reason is not None:
                    vercel["finish_reason"] = turn.finish_reason
                if turn.extra:
                    vercel["message_extra"] = turn.extra
                vercel.update(turn.head)
            metadata: dict[str, Any] = dict(slot.meta)
            if slot.action_type in AGENT_ACTIONS:
                name = slot.agent or meta_agent or self.producer(meta)
                fields["agent_id"] = self.builder.agent(name, metadata={"model_name": model} if model else None)
                if model:
                    metadata["model_name"] = model
                if provider:
                    metadata["provider_name"] = provider
                if slot.action_type == "thinking" and not fields.get("provider_name"):
                    fields["provider_name"] = provider or "unknown"
            if slot is usage_slot and usage:
                fields["usage"] = usage
            if finish and slot is (texts[-1] if texts else None):
                fields["finish_reason"] = finish
            metadata[FORMAT_KEY] = vercel
            slot.action = self.builder.add(slot.action_type, timestamp=when if index == 0 else None, metadata=metadata, **fields)
        self.turns += 1
