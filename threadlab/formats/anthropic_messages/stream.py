"""An Anthropic Messages stream → the Message it assembles into → a thread.

The stream is an SSE body (``event: message_start`` / ``data: {...}`` ...) or its events saved
as a JSON array / JSON Lines. Every event is a record (checked against the ``anthropic``
package's ``RawMessageStreamEvent``); they are put together as the SDK's own
``accumulate_event`` does (blocks by index; text, thinking, signature and citation deltas;
tool input from its ``input_json_delta`` pieces; stop reason and usage from ``message_delta``),
and the assembled Message is read like a response body."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path
from typing import Any

import orjson

from threadlab.core.model import Thread
from threadlab.core.problems import short
from threadlab.formats.anthropic_messages.reading import AnthropicReader
from threadlab.formats.provider_read import read_events
from threadlab.formats.provider_sse import Event, events
from threadlab.formats.source import Source

EVENTS = frozenset({"message_start", "content_block_start", "content_block_delta", "content_block_stop", "message_delta", "message_stop", "ping"})
_DELTA_TEXT = {"text_delta": ("text", "text"), "thinking_delta": ("thinking", "thinking")}


def is_event(value: Any) -> bool:
    return isinstance(value, Mapping) and isinstance(value.get("type"), str) and value["type"] in EVENTS


class MessageAssembler:
    """Puts the events together. A value of the wrong type (a delta's text that is a number,
    a usage that is no object) is not added: a ``schema`` problem names the event's line and
    the value, and the rest of the stream is read."""

    def __init__(self, reader: AnthropicReader) -> None:
        self.reader = reader
        self.message: dict[str, Any] | None = None
        self.blocks: dict[int, dict[str, Any]] = {}
        self.json: dict[int, str] = {}
        self.line: int | None = None  # the line of the event being added

    def _odd(self, what: str, value: Any, want: str) -> None:
        self.reader.b.problem("schema", f"event at line {self.line}: {what} is {short(value)}, not {want}; not added", line=self.line)

    def add(self, event: Mapping[str, Any]) -> None:
        kind = event["type"]
        if kind == "message_start" and isinstance(event.get("message"), Mapping):
            self.message = dict(event["message"])
            usage = self.message.get("usage")
            if usage is not None and not isinstance(usage, Mapping):
                self._odd("message.usage", usage, "an object")
            self.message["usage"] = dict(usage) if isinstance(usage, Mapping) else {}
        index = event.get("index") if type(event.get("index")) is int else len(self.blocks)
        if "index" in event and type(event["index"]) is not int:
            self._odd("index", event["index"], f"a block's index; read as block {index}")
        if kind == "content_block_start" and isinstance(event.get("content_block"), Mapping):
            self.blocks[index] = dict(event["content_block"])
        elif kind == "content_block_delta":
            self._delta(index, event.get("delta") if isinstance(event.get("delta"), Mapping) else {})
        elif kind == "content_block_stop" and index in self.json:
            raw = self.json.pop(index)
            try:
                self.blocks.setdefault(index, {})["input"] = orjson.loads(raw) if raw.strip() else {}
            except orjson.JSONDecodeError as exc:
                self.reader.b.problem("schema", f"the input of block {index} is not JSON ({exc.msg}); kept as its text")
                self.blocks[index]["input"] = raw
        elif kind == "message_delta":
            self._message_delta(event)

    def _delta(self, index: int, delta: Mapping[str, Any]) -> None:
        block = self.blocks.setdefault(index, {})
        kind = delta.get("type")
        if not isinstance(kind, str):
            self._odd("delta.type", kind, "a delta type")
        elif kind in _DELTA_TEXT:
            field, key = _DELTA_TEXT[kind]
            if self._text(f"delta.{key}", delta.get(key)):
                start = block.get(field)
                if start is not None and not isinstance(start, str):
                    self._odd(f"block {index}'s {field} (from its start)", start, "text; the deltas start it again")
                    start = None
                block[field] = (start or "") + (delta.get(key) or "")
        elif kind == "input_json_delta":
            if self._text("delta.partial_json", delta.get("partial_json")):
                self.json[index] = self.json.get(index, "") + (delta.get("partial_json") or "")
        elif kind == "signature_delta":
            if self._text("delta.signature", delta.get("signature")):
                block["signature"] = delta.get("signature")
        elif kind == "citations_delta":
            block.setdefault("citations", []).append(delta.get("citation"))

    def _text(self, what: str, value: Any) -> bool:
        """Is ``value`` text (or missing)? Said when it is not."""
        if value is None or isinstance(value, str):
            return True
        self._odd(what, value, "text")
        return False

    def _message_delta(self, event: Mapping[str, Any]) -> None:
        if self.message is None:
            self.message = {"type": "message", "role": "assistant", "content": [], "usage": {}}
        delta = event.get("delta") if isinstance(event.get("delta"), Mapping) else {}
        for key in ("stop_reason", "stop_sequence"):
            if key in delta:
                self.message[key] = delta[key]
        usage = event.get("usage") if isinstance(event.get("usage"), Mapping) else {}
        self.message["usage"].update({k: v for k, v in usage.items() if v is not None})

    def assembled(self) -> dict[str, Any] | None:
        if self.message is None and not self.blocks:
            return None
        message = self.message or {"type": "message", "role": "assistant"}
        for index, raw in self.json.items():  # a block whose stop never came
            self.blocks.setdefault(index, {})["input"] = raw
        return {**message, "content": [self.blocks[i] for i in sorted(self.blocks)]}


def read_stream(source: Source, saved: list[Event] | None = None) -> Thread:
    """One thread from an SSE body (or from ``saved``: the events saved as JSON)."""
    stem = Path(source.name).stem if source.name and not source.name.startswith("<") else "stream"
    reader = AnthropicReader(stem, source.name)
    assembler = MessageAssembler(reader)
    n = read_events(reader, _lines_to(assembler, saved if saved is not None else events(source)), known=is_event, check_name="anthropic.event",
                    add=assembler.add, what="Anthropic stream event")
    body = assembler.assembled()
    if body is not None:
        got = reader.read_response(body, None, count=False, checked=False)
        reader.exchanges.append({"response": reader.response_rest(body), "got": got})
    return reader.build("sse" if saved is None else "saved-events", {"events": n})


def _lines_to(assembler: MessageAssembler, items: Iterable[Event | tuple[int, str]]) -> Iterator[Event | tuple[int, str]]:
    """The events, telling the assembler each one's line as it is handed on (``read_events``
    adds an event right after taking it)."""
    for item in items:
        if isinstance(item, Event):
            assembler.line = item.line
        yield item
