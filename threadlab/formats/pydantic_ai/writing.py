"""ThreadProtocol threads → pydantic-ai message histories (``to_pydantic_ai``).

Actions become parts, parts are grouped into ModelRequest/ModelResponse messages, and the whole
list is validated by pydantic-ai's own ``ModelMessagesTypeAdapter``. Actions read with
``from_pydantic_ai`` carry ``metadata["pydantic_ai"]`` (message index, part positions, envelope,
the fields canonical ones do not hold), so their history comes back exactly; actions from any
other source are grouped by side (user/tool results → request, agent output → response), a new
response starting where a model would have answered again (a second message, a second usage).
Whatever the history cannot hold is counted (``Losses``) and reported as a ``WriteLoss``."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

import orjson
import pydantic
from pydantic_ai import messages as pai

from threadlab.core.model import AssistantMessage, BaseAction, SystemAction, Thinking, Thread, ToolCall, ToolReturn, UserMessage
from threadlab.formats.pydantic_ai import _parts as P
from threadlab.formats.pydantic_ai.selection import history_of, pai_meta
from threadlab.formats.pydantic_ai.wire import MISSING, part_adapter, user_content_adapter

_OUTCOME = {"success": "success", "error": "failed", "validation_error": "retried"}
_LAST = float("inf")
_EVENT = P.SYSTEM_PREFIX + "event"  # a stream event kept as it came: no part holds it
_RESPONSE_KINDS = ("builtin-tool-return", "text", "thinking", "file", "builtin-tool-call")

__all__ = ["Item", "action_items", "history_of", "items_to_messages", "pai_meta", "rebuilt_parts"]


@dataclass
class Item:
    """Parts of one action (or one piece of text another agent said) waiting to be grouped."""

    side: str  # "request" | "response"
    key: Any  # (history, message index) when known
    parts: list[tuple[float, dict[str, Any]]]
    timestamp: datetime
    envelope: dict[str, Any] | None = None
    held: list[list[Any]] = field(default_factory=list)
    action: BaseAction | None = None


# --- actions → parts --------------------------------------------------------------------------


def _message_parts(content: Any, lost: P.Losses) -> list[dict[str, Any]]:
    if content is None or isinstance(content, str):
        return [{"part_kind": "text", "content": content or ""}]
    parts = []
    for part in content:
        data = part if isinstance(part, Mapping) else part.model_dump(exclude_none=True)
        media = P.media_to_pai(data) if ("content_type" in data or data.get("type") == "image") else None
        if data.get("type") == "text":
            parts.append({"part_kind": "text", "content": data.get("text", "")})
        elif media is not None and media["kind"] == "binary":
            parts.append({"part_kind": "file", "content": media})
        elif media is not None:  # a FilePart holds bytes only: say where the file is
            parts.append({"part_kind": "text", "content": f"[{data.get('media_category') or 'image'}: {media['url']}]"})
            lost.add("media URL{s} in agent messages, written as text (a pydantic-ai response holds files as bytes only)")
        elif "content_type" in data or data.get("type") == "image":
            lost.add("media part{s} with neither a URL nor data, left out")
        else:
            parts.append({"part_kind": "text", "content": P.text_of(data)})
            lost.add("agent content part{s} of another format's type, written as JSON text", str(data.get("type")))
    return parts


def _args(args: Any, lost: P.Losses) -> Any:
    if args is None or isinstance(args, str | dict):
        return args
    lost.add("tool call args that are not an object, written as JSON text")
    return orjson.dumps(args).decode()


def _return_part(action: ToolReturn, when: str | None) -> dict[str, Any]:
    part = {"part_kind": "tool-return", "tool_name": action.tool_name, "content": action.content,
            "tool_call_id": action.tool_call_id, "timestamp": when, "outcome": _OUTCOME.get(action.status, "failed")}
    if action.status == "validation_error":
        part["retry"] = {"cause": "validation_error"}
    return part


def rebuilt_parts(action: BaseAction, lost: P.Losses | None = None) -> list[dict[str, Any]]:
    """The pydantic-ai parts an action stands for, from its canonical fields alone."""
    lost = P.Losses() if lost is None else lost
    when = P.stamp(action.timestamp)
    if isinstance(action, UserMessage):
        return [{"part_kind": "user-prompt", "content": P.user_content_to_pai(action.content, lost), "timestamp": when}]
    if isinstance(action, AssistantMessage):
        return _message_parts(action.content, lost)
    if isinstance(action, Thinking):
        return [{"part_kind": "thinking", "content": action.content or "", "signature": action.signature,
                 "provider_name": action.provider_name, "id": action.thinking_id}]
    if isinstance(action, ToolCall):
        return [{"part_kind": "tool-call", "tool_name": action.tool_name, "tool_call_id": action.tool_call_id,
                 "args": _args(action.args, lost)}]
    if isinstance(action, ToolReturn):
        return [_return_part(action, when)]
    if isinstance(action, SystemAction) and action.action_type.startswith(P.SYSTEM_PREFIX):
        return [dict(action.data)] if isinstance(action.data, Mapping) else []
    return []


def _default_side(action: BaseAction, parts: list[dict[str, Any]]) -> str:
    if isinstance(action, AssistantMessage | Thinking | ToolCall):
        return "response"
    if parts and parts[0].get("part_kind") in _RESPONSE_KINDS:
        return "response"
    return "request"


def _holdable(parts: list[dict[str, Any]], side: str, lost: P.Losses) -> list[dict[str, Any]]:
    """The parts pydantic-ai can validate. A user prompt keeps the content items it can take;
    any other part it cannot validate (a part kept as it came, a value another format allows) is
    left out. Either is counted in ``lost``."""
    out = []
    for part in parts:
        checked = _valid(part, side)
        if checked is None and part.get("part_kind") == "user-prompt" and isinstance(part.get("content"), list):
            content = [item for item in part["content"] if _takes(item)]
            dropped = [str(item.get("kind")) if isinstance(item, Mapping) else type(item).__name__
                       for item in part["content"] if not _takes(item)]
            checked = _valid({**part, "content": content}, side)
            if checked is not None:
                lost.add("user content item{s} pydantic-ai does not take, left out", *dropped)
        if checked is None:
            lost.add("part{s} pydantic-ai cannot validate", str(part.get("part_kind") or "no part_kind"))
            continue
        out.append(checked)
    return out


def _valid(part: dict[str, Any], side: str) -> dict[str, Any] | None:
    try:
        part_adapter(side).validate_python({k: v for k, v in part.items() if k != MISSING})
    except pydantic.ValidationError:
        return None
    return part


def _takes(item: Any) -> bool:
    try:
        user_content_adapter().validate_python(item)
    except pydantic.ValidationError:
        return False
    return True


def _denied_returns(actions: list[BaseAction]) -> set[str]:
    out = set()
    for action in actions:
        rests = pai_meta(action).get("rest") or [{}]
        if isinstance(action, ToolReturn) and isinstance(rests[0], Mapping) and rests[0].get("outcome") == "denied":
            out.add(action.tool_call_id)
    return out


def _rederived(action: SystemAction, denied: set[str]) -> bool:
    """A ``system.tool_resolved`` (denied) that a reader makes again from the denied return."""
    data = action.data if isinstance(action.data, Mapping) else {}
    return action.action_type == "system.tool_resolved" and data.get("resolution") == "denied" and data.get("tool_call_id") in denied


def action_items(actions: Iterable[BaseAction], lost: P.Losses | None = None, *, check: bool = True) -> list[Item]:
    """One Item per action pydantic-ai can hold; what it cannot is counted in ``lost``.
    ``check``: validate each part on its own and leave out what pydantic-ai cannot take (a
    writer first tries without, and checks only when the whole history does not validate)."""
    lost = P.Losses() if lost is None else lost
    actions = list(actions)
    sides: dict[Any, str] = {}
    for action in actions:
        meta = pai_meta(action)
        if "envelope" in meta and "message" in meta:
            sides[(meta.get("history"), meta["message"])] = meta["envelope"].get("kind", "request")
    items = []
    denied = _denied_returns(actions)
    for action in actions:
        if isinstance(action, SystemAction) and not action.action_type.startswith(P.SYSTEM_PREFIX):
            if not _rederived(action, denied):
                lost.add("system action{s} pydantic-ai has no part for", action.action_type)
            continue
        if not isinstance(action, UserMessage | AssistantMessage | Thinking | ToolCall | ToolReturn | SystemAction):
            lost.add("action{s} of a type pydantic-ai has no part for", str(action.action_type))
            continue
        if action.action_type == _EVENT:
            lost.add("stream event{s} kept as it came (a history holds no events)")
            continue
        meta = pai_meta(action)
        parts = rebuilt_parts(action, lost)
        rests = meta.get("rest") or []
        parts = [{**part, **(rests[i] if i < len(rests) and isinstance(rests[i], Mapping) else {})} for i, part in enumerate(parts)]
        positions = meta.get("parts")
        if not (isinstance(positions, list) and len(positions) == len(parts)):
            positions = [_LAST] * len(parts)
        key = (meta.get("history"), meta["message"]) if "message" in meta else None
        side = sides.get(key) or _default_side(action, parts)
        kept = _holdable(parts, side, lost) if check else parts
        if len(kept) != len(parts) or any(k is not p for k, p in zip(kept, parts, strict=False)):
            ids = {id(part): position for position, part in zip(positions, parts, strict=True)}
            positions = [ids.get(id(k), _LAST) for k in kept]
        items.append(Item(side, key, list(zip(positions, kept, strict=True)), action.timestamp,
                          envelope=meta.get("envelope"), held=list(meta.get("held") or []), action=action))
    return items


# --- parts → messages ---------------------------------------------------------------------------


def _starts_response(group: list[Item], item: Item) -> bool:
    """A foreign action that begins a new model response: a second message or a second usage."""
    action = item.action
    if item.key is not None or action is None:
        return False
    if isinstance(action, AssistantMessage) and any(isinstance(i.action, AssistantMessage) and i.key is None for i in group):
        return True
    return getattr(action, "usage", None) is not None and any(getattr(i.action, "usage", None) is not None for i in group)


def group_items(items: Iterable[Item]) -> list[list[Item]]:
    """Consecutive items of one side and one message go together."""
    groups: list[list[Item]] = []
    keys: list[Any] = []
    for item in items:
        if (groups and groups[-1][0].side == item.side and (item.key is None or keys[-1] is None or keys[-1] == item.key)
                and not (item.side == "response" and _starts_response(groups[-1], item))):
            groups[-1].append(item)
            if keys[-1] is None:
                keys[-1] = item.key
            continue
        groups.append([item])
        keys.append(item.key)
    return groups


def _usage(usage: Any, lost: P.Losses) -> dict[str, Any] | None:
    if usage is None:
        return None
    get = usage.get if isinstance(usage, Mapping) else lambda key: getattr(usage, key, None)
    out = {"input_tokens": get("input_tokens") or 0, "output_tokens": get("output_tokens") or 0}
    for ours, theirs in (("cache_read_tokens", "cache_read_tokens"), ("cache_write_tokens", "cache_write_tokens"),
                         ("thinking_tokens", "output_reasoning_tokens")):
        if get(ours):
            out[theirs] = get(ours)
    total = get("total_tokens")
    if total is not None and total != out["input_tokens"] + out["output_tokens"]:
        lost.add("usage total{s} that are not input + output (pydantic-ai keeps no total)")
    extra = usage.model_extra if hasattr(usage, "model_extra") else {k: v for k, v in usage.items() if k not in _USAGE_KEYS}
    if extra:
        lost.add("usage with figures pydantic-ai has no field for", *sorted(extra))
    return out


_USAGE_KEYS = ("input_tokens", "output_tokens", "total_tokens", "thinking_tokens", "cache_read_tokens", "cache_write_tokens")


def _response_envelope(group: list[Item], thread: Thread | None, lost: P.Losses) -> dict[str, Any]:
    envelope: dict[str, Any] = {"kind": "response"}
    for item in group:
        action = item.action
        if action is None:
            continue
        meta = action.metadata or {}
        usage = _usage(getattr(action, "usage", None), lost)
        if usage and "usage" in envelope:
            lost.add("usage of a second action in one model response")
        elif usage:
            envelope["usage"] = usage
        for key in ("model_name", "provider_name"):
            if meta.get(key) and key not in envelope:
                envelope[key] = meta[key]
        if isinstance(action, AssistantMessage) and action.finish_reason and "finish_reason" not in envelope:
            envelope["finish_reason"] = action.finish_reason
        agent = thread.agents.get(getattr(action, "agent_id", "") or "") if thread is not None else None
        if "model_name" not in envelope and agent is not None and (agent.metadata or {}).get("model_name"):
            envelope["model_name"] = agent.metadata["model_name"]  # type: ignore[index]
        if action.timestamp != group[0].timestamp:
            lost.add("action timestamp{s} (a pydantic-ai response has one)")
    return envelope


@dataclass
class Grouped:
    """One message's JSON and the keys to leave out of its dump (part position, or -1 for the
    envelope → keys the file it came from did not have)."""

    message: dict[str, Any]
    missing: dict[int, list[str]]


def group_message(group: list[Item], thread: Thread | None = None, lost: P.Losses | None = None, *,
                  conversation_id: str | None = None) -> Grouped:
    """One ModelRequest/ModelResponse JSON object from a group of items (``conversation_id``:
    set on messages no history of the thread gave an envelope to)."""
    lost = P.Losses() if lost is None else lost
    side = group[0].side
    envelope = next((dict(i.envelope) for i in group if i.envelope), None)
    if envelope is None:
        envelope = _response_envelope(group, thread, lost) if side == "response" else {"kind": "request"}
        envelope["timestamp"] = P.stamp(group[0].timestamp)
        if conversation_id is not None:
            envelope["conversation_id"] = conversation_id
    missing: dict[int, list[str]] = {}
    invalid = envelope.pop("_invalid", None)
    if invalid:
        lost.add("message{s} with fields pydantic-ai cannot validate", *sorted(invalid))
    if MISSING in envelope:
        missing[-1] = list(envelope.pop(MISSING))
        envelope.setdefault("timestamp", P.stamp(group[0].timestamp))
    parts = _place(group)
    for position, part in enumerate(parts):
        if MISSING in part:
            keys = part.pop(MISSING)
            missing[position] = list(keys)
            if "timestamp" in keys and part.get("timestamp") is None:
                part["timestamp"] = P.stamp(group[0].timestamp)
    return Grouped({**envelope, "parts": parts}, missing)


def _place(group: list[Item]) -> list[dict[str, Any]]:
    """Parts in action order, except that the parts of the original message (those with a
    position) fill their slots in position order, held system prompts included. When other
    agents' text joins a request, tool returns go first (as providers require)."""
    known = sorted(
        [(pos, 0, n, part) for n, (pos, part) in enumerate(p for i in group for p in i.parts if p[0] != _LAST)]
        + [(pos, -1, n, part) for n, (pos, part) in enumerate(p for i in group for p in i.held)],
        key=lambda x: (x[0], x[1], x[2]),
    )
    out: list[dict[str, Any]] = []
    queue = list(known)
    for item in group:
        for position, part in item.parts:
            if position == _LAST:
                out.append(dict(part))
                continue
            while queue:
                _, held, _, next_part = queue.pop(0)
                out.append(dict(next_part))
                if held == 0:
                    break
    out.extend(dict(part) for _, _, _, part in queue)
    if group[0].side == "request" and any(p[0] == _LAST for i in group for p in i.parts):
        out.sort(key=lambda part: 0 if part.get("part_kind") == "tool-return" else 1)
    return out


def items_to_messages(items: Iterable[Item], thread: Thread | None = None, lost: P.Losses | None = None) -> list[pai.ModelMessage]:
    return grouped_messages(items, thread, lost)[0]


def grouped_messages(
    items: Iterable[Item], thread: Thread | None = None, lost: P.Losses | None = None, *, conversation_id: str | None = None
) -> tuple[list[pai.ModelMessage], list[dict[int, list[str]]]]:
    """The validated messages, and per message the keys its dump leaves out."""
    grouped = [group_message(group, thread, lost, conversation_id=conversation_id) for group in group_items(items)]
    messages = pai.ModelMessagesTypeAdapter.validate_python([g.message for g in grouped])
    return messages, [g.missing for g in grouped]


def dump(data: list[dict[str, Any]], missing: list[dict[int, list[str]]]) -> bytes:
    """The history's JSON (``ModelMessagesTypeAdapter.dump_python(..., mode="json")``, given), with
    the keys the history's own file did not have left out (pydantic-ai would otherwise write the
    wall clock or a random id there)."""
    for message, keys in zip(data, missing, strict=True):
        for position, names in keys.items():
            target = message if position < 0 else message["parts"][position]
            for name in names:
                target.pop(name, None)
    return orjson.dumps(data, option=orjson.OPT_INDENT_2) + b"\n"
