"""One pass from a history the fast route took whole to its actions' JSON objects.

``specs.py`` and ``DocBuilder`` make every action through a Spec and a shape check, which was
most of a load once the file is parsed. A history whose every message the fast route's table
took (``Message.vouched``: every value of a type the models take as it is) and that holds only
the plain shapes - user prompts of text, system prompts, text (one part a response), thinking,
tool calls, tool returns that are no denial, each answering its call once, times that never go
back - needs neither. Anything else gives None and the history goes the specs way, so the
objects are always what the specs route (and the careful one) gives: the same helpers decide
each value (``specs``, ``_parts``), and ``tests/test_pydantic_ai_documents.py`` compares them."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from threadlab.formats.pydantic_ai import _parts as P
from threadlab.formats.pydantic_ai.message import Message
from threadlab.formats.pydantic_ai.specs import _FINISH, _OUTCOME, _args, _status, usage_numbers

Made = tuple[dict[str, Any], datetime, int]  # an action's object (sequence 0 until numbered), its time, records it stands for


class _Unusual(Exception):
    """What the specs route handles and this one does not (caught in ``actions``)."""


def actions(messages: list[Message], agent_id: str) -> list[Made] | None:
    """Every action of the history in order, or None when it holds anything unusual."""
    out: list[Made] = []
    answered: set[str] = set()
    last: datetime | None = None
    try:
        for index, msg in enumerate(messages):
            if not (msg.vouched and msg.counted and msg.exact) or msg.problems:
                return None
            made = _request(msg, index, answered) if msg.kind == "request" else _response(msg, index, agent_id)
            for _, moment, _ in made:
                if last is not None and moment < last:
                    return None  # (the specs route raises it to the last time and keeps the part's own)
                last = moment
            out.extend(made)
    except _Unusual:
        return None
    return out


def _pai(index: int, positions: list[int], rests: list[dict[str, Any]]) -> dict[str, Any]:
    return {"message": index, "parts": positions, **({"rest": rests} if any(rests) else {})}


def _first(made: list[Made], msg: Message, held: list[list[Any]]) -> list[Made]:
    """The message's envelope (and system prompts) on its first action, which accounts for them."""
    if not made:
        raise _Unusual  # a message with no action: a placeholder
    doc, moment, records = made[0]
    pai = doc["metadata"][P.KEY]
    pai["envelope"] = P.envelope_of(msg.envelope)
    if held:
        pai["held"] = held
    made[0] = (doc, moment, records + len(held))
    return made


def _request(msg: Message, index: int, answered: set[str]) -> list[Made]:
    made: list[Made] = []
    held: list[list[Any]] = []
    for pos, part in enumerate(msg.parts):
        kind = part["part_kind"]  # (a vouched part is a dict)
        if kind == "system-prompt":
            held.append([pos, part])
            continue
        stamp = part["timestamp"]
        if kind == "user-prompt" and type(part["content"]) is str:
            rebuilt = {"part_kind": kind, "content": part["content"], "timestamp": stamp}
            doc = {"action_type": "user_message", "timestamp": stamp, "sequence": 0, "content": part["content"]}
        elif kind == "tool-return" and part["outcome"] != "denied" and part["tool_call_id"] not in answered:
            answered.add(part["tool_call_id"])
            status = _status(part)
            rebuilt = {"part_kind": kind, "tool_name": part["tool_name"], "content": part["content"],
                       "tool_call_id": part["tool_call_id"], "timestamp": stamp, "outcome": _OUTCOME[status]}
            doc = {"action_type": "tool_return", "timestamp": stamp, "sequence": 0, "tool_call_id": part["tool_call_id"],
                   "tool_name": part["tool_name"], "status": status}
            if part["content"] is not None:
                doc["content"] = part["content"]
        else:
            raise _Unusual
        doc["metadata"] = {P.KEY: _pai(index, [pos], [P.rest_of(part, rebuilt, vouched=True)])}
        made.append((doc, datetime.fromisoformat(stamp), 1))
    return _first(made, msg, held)


def _response(msg: Message, index: int, agent_id: str) -> list[Made]:
    envelope = msg.envelope
    stamp = envelope["timestamp"]
    moment = datetime.fromisoformat(stamp)
    made: list[Made] = []
    model = {k: envelope[k] for k in ("model_name", "provider_name") if envelope[k]}
    for pos, part in enumerate(msg.parts):
        kind = part["part_kind"]
        if kind == "text":
            if any(doc["action_type"] == "assistant_message" for doc, _, _ in made):
                raise _Unusual  # several text parts: one message of content parts
            rebuilt = {"part_kind": kind, "content": part["content"]}
            doc = {"action_type": "assistant_message", "timestamp": stamp, "sequence": 0, "agent_id": agent_id, "content": part["content"]}
            if envelope["finish_reason"] in _FINISH:
                doc["finish_reason"] = envelope["finish_reason"]
        elif kind == "thinking":
            provider = part["provider_name"] or envelope["provider_name"] or "unknown"
            rebuilt = {"part_kind": kind, "content": part["content"], "signature": part["signature"], "provider_name": provider, "id": part["id"]}
            doc = {"action_type": "thinking", "timestamp": stamp, "sequence": 0, "agent_id": agent_id, "content": part["content"],
                   "signature": part["signature"], "provider_name": provider, "thinking_id": part["id"]}
        elif kind == "tool-call":
            args = _args(part["args"])
            rebuilt = {"part_kind": kind, "tool_name": part["tool_name"], "tool_call_id": part["tool_call_id"], "args": args}
            doc = {"action_type": "tool_call", "timestamp": stamp, "sequence": 0, "agent_id": agent_id, "tool_name": part["tool_name"],
                   "tool_call_id": part["tool_call_id"], "args": args}
        else:
            raise _Unusual
        doc = {k: v for k, v in doc.items() if v is not None}
        doc["metadata"] = {**model, P.KEY: _pai(index, [pos], [P.rest_of(part, rebuilt, vouched=True)])}
        made.append((doc, moment, 1))
    if made:
        _usage(made, envelope)
    return _first(made, msg, [])


def _usage(made: list[Made], envelope: dict[str, Any]) -> None:
    """The response's usage on its message, else on its first action (a tool call keeps it as a
    field of its own, written after the others), as ``model_to_dict`` writes a Usage."""
    target = next((doc for doc, _, _ in made if doc["action_type"] == "assistant_message"), made[0][0])
    usage = {k: v for k, v in usage_numbers(envelope["usage"]).items() if v is not None}
    if target["action_type"] == "tool_call":
        target["usage"] = usage
        return
    metadata = target.pop("metadata")
    target["usage"] = usage
    target["metadata"] = metadata
