"""pydantic-ai stream events in a file of messages: what they add.

An app that logs ``run_stream_events`` (or an ``event_stream_handler``) writes events one a line
(``TypeAdapter(AgentStreamEvent)``), often beside the messages it saves. The messages are the
truth. An event that repeats them (a part start, delta or end of a response the file also holds
whole, a tool call or result the history has) is converted as a repeat. An event with something
the messages lack - a response whose stream was logged but whose history never was saved, a tool
result that came after the last save - is used: its parts are rebuilt with pydantic-ai's own
delta types (``delta.apply(part)``; a ``part_end`` event carries the whole part) and read as
messages after the file's own. Events that hold no part (custom and capability events, realtime
session events) are kept as ``system.pydantic_ai.event`` actions with a problem naming them."""

from __future__ import annotations

import typing
from dataclasses import dataclass, field
from functools import cache
from typing import Any

import orjson
import pydantic
import pydantic_core
from pydantic_ai import messages as pai

from threadlab.formats.pydantic_ai.wire import Message, part_adapter

EVENT_ACTION = "system.pydantic_ai.event"
_MARKERS = ("final_result",)  # events that only say where something is; the messages hold it


@cache
def event_adapter() -> pydantic.TypeAdapter[Any]:
    return pydantic.TypeAdapter(pai.AgentStreamEvent)


@cache
def _response_part_classes() -> tuple[type, ...]:
    """The classes of ``ModelResponsePart`` (an annotated union of annotated classes)."""
    union = typing.get_args(pai.ModelResponsePart)[0]
    return tuple(typing.get_args(member)[0] for member in typing.get_args(union))


def _side(part: Any) -> str:
    return "response" if isinstance(part, _response_part_classes()) else "request"


@dataclass
class Resolution:
    """What a conversation's events come to: messages to read after the file's own (rebuilt from
    events with new content), events kept as they came, records converted (repeats and used
    events), records failed, and problems about the stream as a whole."""

    messages: list[dict[str, Any]] = field(default_factory=list)
    kept: list[tuple[int | None, dict[str, Any], str]] = field(default_factory=list)
    converted: int = 0
    failed: list[tuple[str, str, int | None]] = field(default_factory=list)
    problems: list[tuple[str, str]] = field(default_factory=list)


def _key(part: dict[str, Any]) -> tuple[str, str]:
    kind = str(part.get("part_kind"))
    if kind in ("tool-call", "builtin-tool-call"):
        return ("call", str(part.get("tool_call_id")))
    if kind in ("tool-return", "builtin-tool-return", "retry-prompt"):
        return ("return", str(part.get("tool_call_id")))
    if kind in ("text", "thinking"):
        return (kind, str(part.get("content")))
    same = {k: v for k, v in part.items() if v is not None and k not in ("timestamp", "id", "_missing")}
    return (kind, orjson.dumps(same, option=orjson.OPT_SORT_KEYS, default=str).decode())


class _Stream:
    """Walks the events of one conversation in order."""

    def __init__(self, messages: list[Message]) -> None:
        self.known = {_key(p) for m in messages for p in m.parts if isinstance(p, dict)}
        self.out = Resolution()
        self.pending: list[tuple[str, dict[str, Any]]] = []  # (side, part) of new content, in order
        self.response: dict[int, Any] = {}  # index -> part being streamed
        self.response_lines: dict[int, int] = {}  # index -> how many event lines built it
        self.used = 0

    def add(self, line: int | None, raw: dict[str, Any]) -> None:
        try:
            event = event_adapter().validate_python(raw)
        except pydantic.ValidationError as exc:
            kind = raw.get("event_kind")
            where = f"line {line}" if line is not None else "an event"
            err = exc.errors()[0]
            if err["type"] in ("union_tag_invalid", "union_tag_not_found"):
                self.out.kept.append((line, raw, f"{where} is a stream event of kind {kind!r}, which pydantic-ai does not know; kept as {EVENT_ACTION}"))
                return
            self.out.failed.append(("schema", f"{where} is not a pydantic-ai {kind} event ({'.'.join(map(str, err['loc'][1:]))}: {err['msg']})", line))
            return
        self._event(line, event, raw)

    def _event(self, line: int | None, event: Any, raw: dict[str, Any]) -> None:
        if isinstance(event, pai.PartStartEvent):
            if event.index == 0 or event.index in self.response:
                self._close()
            self.response[event.index] = event.part
            self.response_lines[event.index] = self.response_lines.get(event.index, 0) + 1
        elif isinstance(event, pai.PartDeltaEvent):
            if event.index not in self.response:
                self.out.failed.append(("unknown-id", f"line {line} is a delta of part #{event.index}, which no part_start event opened", line))
                return
            self.response[event.index] = event.delta.apply(self.response[event.index])
            self.response_lines[event.index] += 1
        elif isinstance(event, pai.PartEndEvent):
            self.response[event.index] = event.part
            self.response_lines[event.index] = self.response_lines.get(event.index, 0) + 1
        elif raw.get("event_kind") in _MARKERS:  # comes in the middle of a response's stream
            self.out.converted += 1
        else:
            self._close()
            try:
                parts = _parts_of(event)
            except (ValueError, pydantic_core.PydanticSerializationError):  # nested deeper than pydantic writes
                parts = None
            if parts is None:
                if self._answered(event):
                    self.out.converted += 1
                else:
                    where = f"line {line}" if line is not None else "an event"
                    self.out.kept.append((line, raw, f"{where}: a {raw.get('event_kind')} stream event holds what no message has; kept as {EVENT_ACTION}"))
                return
            new = [(side, part) for side, part in parts if _key(part) not in self.known]
            self._use(new)
            self.out.converted += 1

    def _answered(self, event: Any) -> bool:
        """Deferred tool results whose every call has its return in the messages."""
        if not isinstance(event, pai.DeferredToolResultsEvent):
            return False
        ids = [*event.results.approvals, *event.results.calls]
        return bool(ids) and all(("return", str(i)) in self.known for i in ids)

    def _close(self) -> None:
        """The streamed response is complete: its parts the messages lack are used."""
        new = []
        for index in sorted(self.response):
            part = self.response[index]
            if _side(part) != "response":
                continue  # a delta that never got a part to apply to
            dumped = part_adapter("response").dump_python(part, mode="json")
            if _key(dumped) not in self.known:
                new.append(("response", dumped))
        self._use(new)
        self.out.converted += sum(self.response_lines.values())
        self.response, self.response_lines = {}, {}

    def _use(self, new: list[tuple[str, dict[str, Any]]]) -> None:
        for side, part in new:
            self.known.add(_key(part))
            self.pending.append((side, part))
            self.used += 1

    def finish(self, had_messages: bool) -> Resolution:
        self._close()
        for side, part in self.pending:
            if self.out.messages and self.out.messages[-1]["kind"] == side:
                self.out.messages[-1]["parts"].append(part)
            else:
                self.out.messages.append({"kind": side, "parts": [part]})
        if had_messages and self.used:
            self.out.problems.append(("stream-event", f"{self.used} part(s) of the stream events are in no message of the file; read after the messages"))
        return self.out


def _parts_of(event: Any) -> list[tuple[str, dict[str, Any]]] | None:
    """The (side, part JSON) an event that is not part of a response stream carries, or None
    when it carries no part."""
    found: list[tuple[str, Any]] = []
    part = getattr(event, "part", None)
    if part is not None:
        found.append((_side(part), part))
    if isinstance(event, pai.EnqueuedMessagesEvent):
        found += [("request", p) for p in event.parts]
        found += [(m.kind, p) for m in event.messages for p in m.parts]
    if isinstance(event, pai.DeferredToolRequestsEvent):
        found += [("response", p) for p in (*event.requests.calls, *event.requests.approvals)]
    if not found:
        return None
    return [(side, part_adapter(side).dump_python(p, mode="json")) for side, p in found]


def resolve(events: list[tuple[int | None, dict[str, Any]]], messages: list[Message]) -> Resolution:
    """What the events of a conversation add to its messages."""
    stream = _Stream(messages)
    for line, raw in events:
        stream.add(line, raw)
    return stream.finish(had_messages=bool(messages))

