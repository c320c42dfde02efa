"""pydantic-ai message histories → ThreadProtocol threads.

One history (``from_pydantic_ai``) or the histories of several agents of one conversation
(``from_pydantic_ai_runs``, merged by timestamp, every action attributed). The mapping follows
the seed rules; what ThreadProtocol has no field for stays in ``metadata["pydantic_ai"]``:

- ``message``: index of the ModelMessage in its history, ``parts``: the part positions the action
  came from, ``rest``: per part, the fields the canonical ones do not rebuild;
- ``envelope`` (first action of each message): the ModelRequest/ModelResponse fields
  (timestamp, instructions, run_id, usage, model_id, provider_details, ...);
- ``held`` (first action of a request): system-prompt parts with their positions (their text is
  also on the agent's ``metadata.system_prompts``);
- ``history`` (merged threads): the agent whose history the action came from.

Choices worth knowing: a thinking part with no provider gets ``provider_name="unknown"`` (the
field is required by ThreadProtocol; ``rest`` remembers it was null); tool args given as a JSON
string are parsed into an object (the string is kept in ``rest``); binary data stays exactly as
pydantic-ai writes it (URL-safe base64); a timestamp earlier than the previous action's is raised
to it (time-order rule) and the part's own time kept in ``rest``.
"""

from __future__ import annotations

import hashlib
import heapq
import uuid
from collections.abc import Iterable, Mapping
from datetime import datetime
from typing import Any

from pydantic_ai import DeferredToolResults

from threadlab.core.builder import ThreadBuilder
from threadlab.core.model import AgentConfig, Thread, Usage
from threadlab.core.timefmt import parse_timestamp
from threadlab.formats.pydantic_ai import _parts as P
from threadlab.formats.pydantic_ai.deferred import Spec, apply_resolutions, mark_denials

_FINISH = ("stop", "tool_call", "length", "content_filter")


def _ts(value: Any) -> datetime | None:
    return parse_timestamp(value) if value is not None else None


def _status(part: Mapping[str, Any]) -> str:
    outcome = part.get("outcome", "success")
    if outcome == "success":
        return "success"
    retry = part.get("retry") or {}
    content = part.get("content")
    if outcome == "retried" and (retry.get("cause") == "validation_error" or _is_error_details(content)):
        return "validation_error"
    return "error"


def _is_error_details(content: Any) -> bool:
    return isinstance(content, list) and bool(content) and all(isinstance(c, Mapping) and "type" in c and "loc" in c for c in content)


_OUTCOME = {"success": "success", "error": "failed", "validation_error": "retried"}


def usage_from_pai(usage: Mapping[str, Any] | None) -> Usage | None:
    """RequestUsage JSON → canonical usage (total = input + output; thinking from
    output_reasoning_tokens or details.reasoning_tokens)."""
    if not usage:
        return None
    inp, out = usage.get("input_tokens") or 0, usage.get("output_tokens") or 0
    thinking = usage.get("output_reasoning_tokens") or (usage.get("details") or {}).get("reasoning_tokens") or None
    cache_write = (usage.get("cache_write_tokens") or 0) + (usage.get("cache_write_1h_tokens") or 0)
    return Usage(input_tokens=inp, output_tokens=out, total_tokens=inp + out, thinking_tokens=thinking,
                 cache_read_tokens=usage.get("cache_read_tokens") or None, cache_write_tokens=cache_write or None)


# --- one request ------------------------------------------------------------------------------


def _request_specs(msg: Mapping[str, Any], index: int) -> tuple[list[Spec], list[list[Any]]]:
    specs: list[Spec] = []
    held: list[list[Any]] = []
    msg_time = msg.get("timestamp")
    for pos, part in enumerate(msg["parts"]):
        kind = part.get("part_kind")
        stamp = part.get("timestamp") or msg_time
        if kind in P.HELD_KINDS:
            held.append([pos, part])
            continue
        if kind in ("user-prompt", "retry-feedback"):
            content = P.user_content_from_pai(part["content"]) if kind == "user-prompt" else P.text_of(part["content"])
            rebuilt = {"part_kind": "user-prompt", "content": P.user_content_to_pai(content), "timestamp": stamp}
            spec = Spec("user_message", _ts(stamp), {"content": content})
        elif kind in P.RETURN_KINDS:
            status = _status(part)
            rebuilt = {"part_kind": "tool-return", "tool_name": part["tool_name"], "content": part.get("content"),
                       "tool_call_id": part["tool_call_id"], "timestamp": stamp, "outcome": _OUTCOME[status]}
            spec = Spec("tool_return", _ts(stamp), {"tool_call_id": part["tool_call_id"], "tool_name": part["tool_name"],
                                                    "status": status, "content": part.get("content")})
        else:
            specs.append(_system_part_spec(part, stamp, index, pos))
            continue
        spec.part_stamp = part.get("timestamp")
        rest = P.rest_of(part, rebuilt)
        spec.pai.update({"message": index, "parts": [pos], **({"rest": [rest]} if rest else {})})
        specs.append(spec)
    return specs, held


def _system_part_spec(part: Mapping[str, Any], stamp: Any, index: int, pos: int) -> Spec:
    name = str(part.get("part_kind") or "unknown").replace("-", "_")
    spec = Spec(P.SYSTEM_PREFIX + name, _ts(stamp), {"data": dict(part)})
    spec.pai.update({"message": index, "parts": [pos]})
    return spec


# --- one response -----------------------------------------------------------------------------


def _response_specs(msg: Mapping[str, Any], index: int, agent_id: str) -> list[Spec]:
    stamp = msg.get("timestamp")
    when = _ts(stamp)
    texts: list[tuple[int, Mapping[str, Any]]] = []
    specs: list[Spec] = []
    message_spec: Spec | None = None
    for pos, part in enumerate(msg["parts"]):
        kind = part.get("part_kind")
        if kind in P.MESSAGE_KINDS:
            if message_spec is None:
                message_spec = Spec("assistant_message", when, {"agent_id": agent_id})
                specs.append(message_spec)
            texts.append((pos, part))
            continue
        if kind == "thinking":
            provider = part.get("provider_name") or msg.get("provider_name") or "unknown"
            fields = {"agent_id": agent_id, "content": part.get("content"), "signature": part.get("signature"),
                      "provider_name": provider, "thinking_id": part.get("id")}
            rebuilt = {"part_kind": "thinking", "content": part.get("content") or "", "signature": part.get("signature"),
                       "provider_name": provider, "id": part.get("id")}
            spec = Spec("thinking", when, fields)
        elif kind in P.CALL_KINDS:
            args = part.get("args")
            fields = {"agent_id": agent_id, "tool_name": part["tool_name"], "tool_call_id": part["tool_call_id"], "args": _args(args)}
            rebuilt = {"part_kind": "tool-call", "tool_name": part["tool_name"], "tool_call_id": part["tool_call_id"], "args": _args(args)}
            spec = Spec("tool_call", when, fields)
        elif kind in P.RETURN_KINDS:  # a provider-run (built-in) tool's result
            status = _status(part)
            fields = {"tool_call_id": part["tool_call_id"], "tool_name": part["tool_name"], "status": status, "content": part.get("content")}
            rebuilt = {"part_kind": "tool-return", "tool_name": part["tool_name"], "content": part.get("content"),
                       "tool_call_id": part["tool_call_id"], "timestamp": stamp, "outcome": _OUTCOME[status]}
            spec = Spec("tool_return", when, fields)
        else:
            specs.append(_system_part_spec(part, stamp, index, pos))
            continue
        rest = P.rest_of(part, rebuilt)
        spec.pai.update({"message": index, "parts": [pos], **({"rest": [rest]} if rest else {})})
        specs.append(spec)
    if message_spec is not None:
        _fill_message(message_spec, texts, index, msg)
    core = [s for s in specs if not s.action_type.startswith("system.")]
    target = message_spec or (core[0] if core else None)
    if target is not None and msg.get("usage"):
        target.fields["usage"] = usage_from_pai(msg["usage"])
    model = {k: msg[k] for k in ("model_name", "provider_name") if msg.get(k)}
    for spec in specs:
        if model and not spec.action_type.startswith("system."):
            spec.fields["metadata"] = {**model, **spec.fields.get("metadata", {})}
    return specs


def _args(args: Any) -> Any:
    """Canonical args: a JSON-object string is parsed (the string form is kept in ``rest``)."""
    if isinstance(args, str):
        import orjson

        try:
            parsed = orjson.loads(args)
        except orjson.JSONDecodeError:
            return args
        return parsed if isinstance(parsed, dict) else args
    return args


def _fill_message(spec: Spec, texts: list[tuple[int, Mapping[str, Any]]], index: int, msg: Mapping[str, Any]) -> None:
    content: list[Any] = []
    rests: list[dict[str, Any]] = []
    for _, part in texts:
        if part["part_kind"] == "text":
            content.append(P.TextPart(text=part.get("content") or ""))
            rebuilt = {"part_kind": "text", "content": part.get("content") or ""}
        else:
            media = P.media_from_pai(part.get("content") or {})
            content.append(media)
            rebuilt = {"part_kind": "file", "content": P.media_to_pai(media.model_dump(exclude_none=True))}
        rests.append(P.rest_of(part, rebuilt))
    spec.fields["content"] = content[0].text if len(content) == 1 and isinstance(content[0], P.TextPart) else content
    if msg.get("finish_reason") in _FINISH:
        spec.fields["finish_reason"] = msg["finish_reason"]
    spec.pai.update({"message": index, "parts": [pos for pos, _ in texts], **({"rest": rests} if any(rests) else {})})


# --- a whole history ----------------------------------------------------------------------------


def history_specs(messages: list[dict[str, Any]], agent_id: str, *, history: str | None = None) -> list[Spec]:
    """The actions of one pydantic-ai history, in order, with what the round trip needs."""
    specs: list[Spec] = []
    for index, msg in enumerate(messages):
        if msg["kind"] == "request":
            found, held = _request_specs(msg, index)
        else:
            found, held = _response_specs(msg, index, agent_id), []
        if not found:  # a message with nothing to show (empty response, system prompts only)
            placeholder = Spec(P.SYSTEM_PREFIX + msg["kind"], _ts(msg.get("timestamp")), {"data": None})
            placeholder.pai["message"] = index
            found = [placeholder]
        first = found[0].pai
        first["envelope"] = P.envelope_of(msg)
        if held:
            first["held"] = held
        if history is not None:
            for spec in found:
                spec.pai["history"] = history
        mark_denials(found, agent_id)
        specs.extend(found)
    return specs


def _agent_metadata(messages: list[dict[str, Any]]) -> dict[str, Any]:
    prompts: list[str] = []
    instructions = None
    model = None
    for msg in messages:
        for part in msg["parts"]:
            if part.get("part_kind") == "system-prompt" and part.get("content") not in prompts:
                prompts.append(part.get("content"))
        if msg["kind"] == "request" and msg.get("instructions"):
            instructions = msg["instructions"]
        if msg["kind"] == "response" and model is None and msg.get("model_name"):
            model = msg["model_name"]
    meta: dict[str, Any] = {}
    if prompts:
        meta["system_prompts"] = prompts
    if instructions:
        meta["instructions"] = instructions
    if model:
        meta["model_name"] = model
    return meta


def _register(builder: ThreadBuilder, agent: Any, messages: list[dict[str, Any]]) -> str:
    meta = _agent_metadata(messages)
    first = next((m.get("timestamp") for m in messages if m.get("timestamp")), None)
    if isinstance(agent, AgentConfig):
        merged = {**meta, **(agent.metadata or {})}
        return builder.agent(agent.agent_name, agent_id=agent.agent_id, identifier=agent.agent_identifier,
                             created_at=agent.created_at, config_ref=agent.config_ref, metadata=merged or None)
    name = agent if isinstance(agent, str) else getattr(agent, "name", None) or "assistant"
    return builder.agent(name, created_at=first, metadata=meta or None)


def _thread_id(messages: list[dict[str, Any]]) -> str:
    for key in ("conversation_id", "run_id"):
        for msg in messages:
            if msg.get(key):
                return str(msg[key])
    import orjson

    digest = hashlib.sha256(orjson.dumps(messages)).hexdigest()
    return str(uuid.uuid5(uuid.NAMESPACE_URL, f"threadlab:pydantic-ai:{digest}"))


def _title(messages: list[dict[str, Any]]) -> str:
    for msg in messages:
        for part in msg["parts"]:
            if part.get("part_kind") == "user-prompt":
                content = part["content"]
                text = content if isinstance(content, str) else " ".join(c for c in content if isinstance(c, str))
                text = " ".join(text.split())
                return text if len(text) <= 80 else text[:79] + "…"
    return ""


def _emit(builder: ThreadBuilder, specs: Iterable[Spec]) -> None:
    """Add the specs in order; a timestamp earlier than the last one is raised to it (so the
    thread keeps the time-order rule) and the part's own time is kept for the round trip."""
    for spec in specs:
        when = spec.timestamp
        last = builder.last_time
        if when is not None and last is not None and when < last:
            if spec.part_stamp is not None:
                rests = spec.pai.setdefault("rest", [{}])
                rests[0] = {**rests[0], "timestamp": spec.part_stamp}
            when = last
        resolved = spec.extra.get("resolved")
        if resolved is not None:
            builder.add("system.tool_resolved", timestamp=when, data=resolved)
        builder.add(spec.action_type, timestamp=when, **spec.fields)


def _ordered(specs: list[Spec]) -> list[Spec]:
    """Give every spec a non-decreasing sort time (carrying the last known one forward)."""
    last: datetime | None = None
    for spec in specs:
        if spec.timestamp is not None and (last is None or spec.timestamp > last):
            last = spec.timestamp
        spec.order = last.timestamp() if last is not None else 0.0
    return specs


# --- public -------------------------------------------------------------------------------------


def from_pydantic_ai(
    messages: Any,
    *,
    agent: Any = "assistant",
    thread_id: str | None = None,
    title: str | None = None,
    deferred_tool_results: DeferredToolResults | None = None,
    source: str | None = None,
) -> Thread:
    """One pydantic-ai history → a Thread.

    ``messages``: a list of ``ModelMessage`` or their JSON (bytes/str/parsed, as
    ``ModelMessagesTypeAdapter`` writes it; 1.x dumps are upgraded by pydantic-ai itself).
    ``agent``: whose history this is (a name, an ``AgentConfig`` or a pydantic-ai ``Agent``).
    ``deferred_tool_results``: how the calls the run stopped on were resolved; each resolution
    becomes a ``system.tool_resolved`` action, and calls with no return yet get their tool_return
    (denials and external results; an approval leaves the call pending until the tool has run).
    """
    msgs = P.messages_to_json(messages)
    builder = ThreadBuilder(thread_id or _thread_id(msgs), title=title if title is not None else _title(msgs), source=source)
    agent_id = _register(builder, agent, msgs)
    specs = history_specs(msgs, agent_id)
    if deferred_tool_results is not None:
        specs = apply_resolutions(specs, deferred_tool_results, agent_id, next_message=len(msgs))
    _emit(builder, specs)
    return builder.build()


def from_pydantic_ai_runs(
    runs: Mapping[Any, Any] | Iterable[tuple[Any, Any]],
    *,
    thread_id: str | None = None,
    title: str | None = None,
) -> Thread:
    """Several agents' histories of one conversation → one multi-agent Thread.

    ``runs`` maps each agent (name or pydantic-ai ``Agent``) to its history, or is a list of
    ``(agent, history)`` pairs (agent may then also be an ``AgentConfig``).
    Actions are merged by timestamp (each history keeps its own order); every action is
    attributed to its agent and remembers its history, so ``to_pydantic_ai(thread, agent=...)``
    gives each history back exactly."""
    pairs = runs.items() if isinstance(runs, Mapping) else runs
    histories = [(agent, P.messages_to_json(messages)) for agent, messages in pairs]
    if not histories:
        raise ValueError("from_pydantic_ai_runs needs at least one agent's history")
    first = histories[0][1]
    builder = ThreadBuilder(thread_id or _thread_id(first), title=title if title is not None else _title(first))
    lists = []
    for agent, msgs in histories:
        agent_id = _register(builder, agent, msgs)
        lists.append(_ordered(history_specs(msgs, agent_id, history=agent_id)))
    _emit(builder, heapq.merge(*lists, key=lambda s: s.order))
    return builder.build()
