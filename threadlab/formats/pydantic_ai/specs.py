"""One pydantic-ai history → the actions it stands for (``Spec``s, before numbering), each with
the input records it accounts for.

The mapping follows the seed rules; what ThreadProtocol has no field for stays in
``metadata["pydantic_ai"]``:

- ``message``: index of the ModelMessage in its history, ``parts``: the part positions the action
  came from, ``rest``: per part, the fields the canonical ones do not rebuild (``_missing``: keys
  the file did not have, which a writer leaves out again);
- ``envelope`` (first action of each message): the ModelRequest/ModelResponse fields
  (timestamp, instructions, run_id, usage, model_id, provider_details, ...);
- ``held`` (first action of a request): system-prompt parts with their positions (their text is
  also on the agent's ``metadata.system_prompts``);
- ``history`` (merged threads): the agent whose history the action came from.

Choices worth knowing: a ``retry-feedback`` part (pydantic-ai's feedback on a response it could
not use, sent in the user's voice) is a user_message with ``author: harness``, ``harness:
retry_feedback``; a thinking part with no provider gets ``provider_name="unknown"`` (the
field is required by ThreadProtocol; ``rest`` remembers it was null); tool args given as a JSON
string are parsed into an object (the string is kept in ``rest``); binary data stays exactly as
pydantic-ai writes it (URL-safe base64). A part pydantic-ai cannot validate is kept as it came
(``system.pydantic_ai.<kind>``, with a problem). A return for a tool call that already has one
(a 1.x ``retry-prompt`` sent after the call was answered, say) is not made a second tool_return,
which would pass the tool-call-match rule unseen: it is kept as ``system.pydantic_ai.tool_return``
with a ``duplicate-return`` problem."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from threadlab.core.builder import slug
from threadlab.core.model import Usage
from threadlab.core.timefmt import parse_timestamp
from threadlab.formats.pydantic_ai import _parts as P
from threadlab.formats.pydantic_ai.deferred import Spec, mark_denials
from threadlab.formats.pydantic_ai.message import BadPart, Message

_FINISH = ("stop", "tool_call", "length", "content_filter")
_OUTCOME = {"success": "success", "error": "failed", "validation_error": "retried"}


def _ts(value: Any) -> Any:
    """The time, or None (the builder then makes one up and says so) for one that is no moment
    UTC holds (an offset that moves year 1 before it)."""
    try:
        return parse_timestamp(value) if value is not None else None
    except ValueError:
        return None


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


def usage_from_pai(usage: Mapping[str, Any] | None, unread: Any = None) -> Usage | None:
    """RequestUsage JSON → canonical usage (total = input + output; thinking from
    output_reasoning_tokens or details.reasoning_tokens). A model, not its JSON object: on an
    action without a usage field of its own (a tool call) it is kept as an extra field as given.
    ``unread``: the envelope's ``_invalid`` (the figures the file gave that were no counts, as
    ``usage.<key>``; ``usage`` itself when pydantic-ai took none of it): left out, not zero."""
    if not usage or (isinstance(unread, Mapping) and "usage" in unread):
        return None
    return Usage(**usage_numbers(usage, unread))


_OURS = {"input_tokens": ("input_tokens", "request_tokens"), "output_tokens": ("output_tokens", "response_tokens"),
         "thinking_tokens": ("output_reasoning_tokens", "details.reasoning_tokens"), "cache_read_tokens": ("cache_read_tokens",),
         "cache_write_tokens": ("cache_write_tokens", "cache_write_1h_tokens")}


def usage_numbers(usage: Mapping[str, Any], unread: Any = None) -> dict[str, Any]:
    """The canonical usage's fields (None where there is no figure, or the file's was no count)
    of RequestUsage JSON."""
    inp, out = usage.get("input_tokens") or 0, usage.get("output_tokens") or 0
    thinking = usage.get("output_reasoning_tokens") or (usage.get("details") or {}).get("reasoning_tokens") or None
    cache_write = (usage.get("cache_write_tokens") or 0) + (usage.get("cache_write_1h_tokens") or 0)
    numbers = {"input_tokens": inp, "output_tokens": out, "total_tokens": inp + out, "thinking_tokens": thinking,
               "cache_read_tokens": usage.get("cache_read_tokens") or None, "cache_write_tokens": cache_write or None}
    if isinstance(unread, Mapping) and unread:
        for ours, theirs in _OURS.items():
            if any(f"usage.{key}" in unread for key in theirs):
                numbers[ours] = None
        if numbers["input_tokens"] is None or numbers["output_tokens"] is None:
            numbers["total_tokens"] = None
    return numbers


def _finish(spec: Spec, part: Mapping[str, Any], rebuilt: dict[str, Any], index: int, pos: int, records: int, msg: Message) -> Spec:
    rest = P.rest_of(part, rebuilt, vouched=msg.vouched) if msg.exact else {}
    spec.pai.update({"message": index, "parts": [pos], **({"rest": [rest]} if rest else {})})
    spec.records = records
    return spec


def _kept_part(part: BadPart, stamp: Any, index: int, pos: int, records: int) -> Spec:
    spec = Spec(P.SYSTEM_PREFIX + slug(part.kind), _ts(stamp), {"data": part.raw})
    spec.pai.update({"message": index, "parts": [pos]})
    spec.records, spec.kept = records, (part.rule, part.reason)
    return spec


def _system_part_spec(part: Mapping[str, Any], stamp: Any, index: int, pos: int, records: int) -> Spec:
    spec = Spec(P.SYSTEM_PREFIX + slug(str(part.get("part_kind") or "unknown")), _ts(stamp), {"data": dict(part)})
    spec.pai.update({"message": index, "parts": [pos]})
    spec.records = records
    return spec


# --- one request ------------------------------------------------------------------------------


def _request_specs(msg: Message, index: int, one: int) -> tuple[list[Spec], list[list[Any]]]:
    specs: list[Spec] = []
    held: list[list[Any]] = []
    msg_time = msg.envelope.get("timestamp")
    for pos, part in enumerate(msg.parts):
        if isinstance(part, BadPart):
            specs.append(_kept_part(part, msg_time, index, pos, one))
            continue
        kind = part.get("part_kind")
        stamp = part.get("timestamp") or msg_time
        if kind in P.HELD_KINDS:
            held.append([pos, part])
            continue
        if kind in ("user-prompt", "retry-feedback"):
            content = P.user_content_from_pai(part["content"]) if kind == "user-prompt" else P.text_of(part["content"])
            rebuilt = {"part_kind": "user-prompt", "content": P.user_content_to_pai(content), "timestamp": stamp}
            spec = Spec("user_message", _ts(stamp), {"content": content, **({"metadata": P.authorship(kind)} if kind != "user-prompt" else {})})
        elif kind in P.RETURN_KINDS:
            status = _status(part)
            rebuilt = {"part_kind": "tool-return", "tool_name": part["tool_name"], "content": part.get("content"),
                       "tool_call_id": part["tool_call_id"], "timestamp": stamp, "outcome": _OUTCOME[status]}
            spec = Spec("tool_return", _ts(stamp), {"tool_call_id": part["tool_call_id"], "tool_name": part["tool_name"],
                                                    "status": status, "content": part.get("content")})
        else:
            specs.append(_system_part_spec(part, stamp, index, pos, one))
            continue
        spec.part_stamp = part.get("timestamp")
        spec.kept = msg.part_problems.get(pos)
        specs.append(_finish(spec, part, rebuilt, index, pos, one, msg))
    return specs, held


# --- one response -----------------------------------------------------------------------------


def _response_specs(msg: Message, index: int, agent_id: str, one: int) -> list[Spec]:
    envelope = msg.envelope
    stamp = envelope.get("timestamp")
    when = _ts(stamp)
    texts: list[tuple[int, Mapping[str, Any]]] = []
    specs: list[Spec] = []
    message_spec: Spec | None = None
    for pos, part in enumerate(msg.parts):
        if isinstance(part, BadPart):
            specs.append(_kept_part(part, stamp, index, pos, one))
            continue
        kind = part.get("part_kind")
        if kind in P.MESSAGE_KINDS:
            if message_spec is None:
                message_spec = Spec("assistant_message", when, {"agent_id": agent_id})
                specs.append(message_spec)
            texts.append((pos, part))
            continue
        if kind == "thinking":
            provider = part.get("provider_name") or envelope.get("provider_name") or "unknown"
            fields = {"agent_id": agent_id, "content": part.get("content"), "signature": part.get("signature"),
                      "provider_name": provider, "thinking_id": part.get("id")}
            rebuilt = {"part_kind": "thinking", "content": part.get("content") or "", "signature": part.get("signature"),
                       "provider_name": provider, "id": part.get("id")}
            spec = Spec("thinking", when, fields)
        elif kind in P.CALL_KINDS:
            args = _args(part.get("args"))
            fields = {"agent_id": agent_id, "tool_name": part["tool_name"], "tool_call_id": part["tool_call_id"], "args": args}
            rebuilt = {"part_kind": "tool-call", "tool_name": part["tool_name"], "tool_call_id": part["tool_call_id"], "args": args}
            spec = Spec("tool_call", when, fields)
        elif kind in P.RETURN_KINDS:  # a provider-run (built-in) tool's result
            status = _status(part)
            fields = {"tool_call_id": part["tool_call_id"], "tool_name": part["tool_name"], "status": status, "content": part.get("content")}
            rebuilt = {"part_kind": "tool-return", "tool_name": part["tool_name"], "content": part.get("content"),
                       "tool_call_id": part["tool_call_id"], "timestamp": stamp, "outcome": _OUTCOME[status]}
            spec = Spec("tool_return", when, fields)
        else:
            specs.append(_system_part_spec(part, stamp, index, pos, one))
            continue
        specs.append(_finish(spec, part, rebuilt, index, pos, one, msg))
    if message_spec is not None:
        _fill_message(message_spec, texts, index, msg)
        message_spec.records = one * len(texts)
    core = [s for s in specs if not s.action_type.startswith("system.")]
    target = message_spec or (core[0] if core else None)
    if target is not None and envelope.get("usage"):
        target.fields["usage"] = usage_from_pai(envelope["usage"], envelope.get("_invalid"))
    model = {k: envelope[k] for k in ("model_name", "provider_name") if envelope.get(k)}
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


def _fill_message(spec: Spec, texts: list[tuple[int, Mapping[str, Any]]], index: int, msg: Message) -> None:
    envelope = msg.envelope
    content: list[Any] = []
    rests: list[dict[str, Any]] = []
    for _, part in texts:
        if part["part_kind"] == "text":
            content.append(part.get("content") or "")  # (a TextPart when the message has more than this one)
            rebuilt = {"part_kind": "text", "content": part.get("content") or ""}
        else:
            media = P.media_from_pai(part.get("content") or {})
            content.append(media)
            rebuilt = {"part_kind": "file", "content": P.media_to_pai(media.model_dump(exclude_none=True))}
        rests.append(P.rest_of(part, rebuilt, vouched=msg.vouched) if msg.exact else {})
    spec.fields["content"] = content[0] if len(content) == 1 and type(content[0]) is str else [
        P.TextPart(text=c) if type(c) is str else c for c in content]
    if envelope.get("finish_reason") in _FINISH:
        spec.fields["finish_reason"] = envelope["finish_reason"]
    spec.pai.update({"message": index, "parts": [pos for pos, _ in texts], **({"rest": rests} if any(rests) else {})})


# --- a whole history ----------------------------------------------------------------------------


def history_specs(messages: list[Message], agent_id: str, *, history: str | None = None) -> list[Spec]:
    """The actions of one pydantic-ai history, in order, with what the round trip needs and the
    input records each accounts for."""
    specs: list[Spec] = []
    answered: set[str] = set()
    for index, msg in enumerate(messages):
        one = 1 if msg.counted else 0
        if msg.kind == "request":
            found, held = _request_specs(msg, index, one)
        else:
            found, held = _response_specs(msg, index, agent_id, one), []
        if not found:  # a message with nothing to show (empty response, system prompts only)
            placeholder = Spec(P.SYSTEM_PREFIX + msg.kind, _ts(msg.envelope.get("timestamp")), {"data": None})
            placeholder.pai["message"] = index
            placeholder.records = one if not held else 0
            found = [placeholder]
        first = found[0]
        first.records += one * len(held)
        first.pai["envelope"] = P.envelope_of(msg.envelope)
        first.problems.extend(msg.problems)
        first.line = msg.line
        if held:
            first.pai["held"] = held
        for spec in found:
            if history is not None:
                spec.pai["history"] = history
            _flag_second_return(spec, msg, answered)
        mark_denials(found, agent_id)
        specs.extend(found)
    return specs


def _flag_second_return(spec: Spec, msg: Message, answered: set[str]) -> None:
    """A return for a call that already has one is kept as the part it was, not made a second
    tool_return."""
    if spec.action_type != "tool_return":
        return
    call_id = spec.fields["tool_call_id"]
    if call_id not in answered:
        answered.add(call_id)
        return
    position = spec.pai["parts"][0]
    part = msg.parts[position]
    was = msg.raw_kinds[position] if position < len(msg.raw_kinds) else None
    what = "a retry-prompt" if was == "retry-prompt" else f"a {was or 'tool-return'} part"
    pai = {k: v for k, v in spec.pai.items() if k != "rest"}
    spec.action_type = P.SYSTEM_PREFIX + "tool_return"
    spec.fields = {"data": dict(part) if isinstance(part, Mapping) else part, "metadata": {P.KEY: pai}}
    spec.kept = ("duplicate-return", f"{what} answers tool call {call_id} ({spec_tool(part)}), which already has a return; "
                                     f"kept as {P.SYSTEM_PREFIX}tool_return, not as a second tool_return")


def spec_tool(part: Any) -> str:
    return str(part.get("tool_name")) if isinstance(part, Mapping) else "?"
