"""An Anthropic Messages stream → the messages it assembles into → a thread.

A stream is an SSE body of ``message_start`` ... ``message_stop`` (or its events saved as JSON),
and it may hold several messages one after another: programmatic tool calling and the server
tools stream a message per round, and a capture of a whole agent run holds one per request.
Each message is put together as the ``anthropic`` SDK's own ``accumulate_event`` does
(``lib/streaming/_messages.py``): ``message_start`` gives the message, its ``content`` included;
each ``content_block_start`` adds a block; deltas fill the block at their ``index`` (text,
thinking, signature, citations, a ``compaction_delta``'s content, and the ``input_json_delta``
pieces of a ``tool_use`` / ``server_tool_use`` / ``mcp_tool_use`` input, parsed when the block
stops; no piece keeps the input the block started with); ``message_delta`` sets the stop fields
and overwrites the usage (its counts are the message's totals so far, not increments; a count it
leaves out keeps the value ``message_start`` gave). Every message is then read like a response
body: its blocks, and its usage once. A message the stream cuts off (no ``message_stop`` before
the next ``message_start`` or the end) is read as far as it went, with a ``truncated``
problem."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import orjson

from threadlab.core.model import Thread
from threadlab.core.problems import short
from threadlab.formats.anthropic_messages.reading import AnthropicReader
from threadlab.formats.common.providers.reading import read_events
from threadlab.formats.common.providers.sse import Event, events
from threadlab.formats.common.source import Source

EVENTS = frozenset({"message_start", "content_block_start", "content_block_delta", "content_block_stop", "message_delta", "message_stop", "ping"})
# delta type -> (block field, delta field) of the deltas whose text is appended
_APPEND = {"text_delta": ("text", "text"), "thinking_delta": ("thinking", "thinking")}
# delta type -> the fields it sets on its block (the last value wins)
_SET = {"signature_delta": ("signature",), "compaction_delta": ("content", "encrypted_content")}


def is_event(value: Any) -> bool:
    return isinstance(value, Mapping) and isinstance(value.get("type"), str) and value["type"] in EVENTS


class _Message:
    """One message being assembled: the message as ``message_start`` gave it, its blocks by
    index, the tool input pieces of open blocks."""

    def __init__(self, message: Mapping[str, Any] | None, line: int) -> None:
        self.line = line
        self.explicit = message is not None  # False: blocks came before any message_start
        self.message = dict(message) if message is not None else {"type": "message", "role": "assistant"}
        usage = self.message.get("usage")
        self.odd_usage = usage if usage is not None and not isinstance(usage, Mapping) else None
        self.message["usage"] = dict(usage) if isinstance(usage, Mapping) else {}
        content = self.message.get("content")
        self.blocks: dict[int, Any] = dict(enumerate(content)) if isinstance(content, list) else {}
        self.json: dict[int, str] = {}
        self.stopped = False
        self.touched = False  # a block or delta came after message_start

    def body(self) -> dict[str, Any]:
        return {**self.message, "content": [self.blocks[i] for i in sorted(self.blocks)]}


class MessageAssembler:
    def __init__(self, reader: AnthropicReader) -> None:
        self.reader = reader
        self.messages: list[_Message] = []
        self.open: _Message | None = None
        self.odd_deltas: set[str] = set()

    def add(self, event: Mapping[str, Any], line: int) -> None:
        kind = event["type"]
        if kind == "message_start":
            started = self._start(event.get("message") if isinstance(event.get("message"), Mapping) else {}, line)
            if started is not None and started.odd_usage is not None:
                self._odd(line, "message.usage", started.odd_usage, "an object; read without it")
            return
        if kind in ("ping",):
            return
        message = self.open
        if message is None:  # an event before any message_start (or after a message_stop)
            message = self._begin(None, line)
            self.reader.b.problem("schema", f"a {kind} event at line {line} comes before any message_start; read into a message of its own", line=line)
        index = event.get("index") if type(event.get("index")) is int else len(message.blocks)
        if "index" in event and type(event["index"]) is not int:
            self._odd(line, "index", event["index"], f"a block's index; read as block {index}")
        if kind == "content_block_start":
            message.touched = True
            block = event.get("content_block")
            if index in message.blocks:
                self.reader.b.problem("schema", f"block {index} starts again at line {line}; the later start is kept", line=line)
            message.blocks[index] = dict(block) if isinstance(block, Mapping) else block
        elif kind == "content_block_delta":
            message.touched = True
            self._delta(message, index, event.get("delta"), line)
        elif kind == "content_block_stop":
            self._finish_input(message, index, line)
        elif kind == "message_delta":
            message.touched = True
            self._message_delta(message, event, line)
        elif kind == "message_stop":
            self._close(message, stopped=True)

    def _odd(self, line: int, what: str, value: Any, want: str) -> None:
        """A field of an event that holds a value of the wrong type: named, not added."""
        self.reader.b.problem("schema", f"event at line {line}: {what} is {short(value)}, not {want}", line=line)

    def _start(self, start: Mapping[str, Any], line: int) -> _Message | None:
        current = self.open
        if current is not None and not current.touched and current.explicit and start.get("id") == current.message.get("id"):
            return None  # the same message_start sent twice: it repeats what the first gave
        return self._begin(start, line)

    def _begin(self, start: Mapping[str, Any] | None, line: int) -> _Message:
        if self.open is not None:
            self._close(self.open, stopped=False)
        self.open = _Message(start, line)
        self.messages.append(self.open)
        return self.open

    def _close(self, message: _Message, *, stopped: bool) -> None:
        for index in list(message.json):  # a tool input whose block never stopped
            self._finish_input(message, index, None)
        message.stopped = stopped
        if message is self.open:
            self.open = None

    def _delta(self, message: _Message, index: int, delta: Any, line: int) -> None:
        b = self.reader.b
        if not isinstance(delta, Mapping):
            b.problem("schema", f"the content_block_delta at line {line} has no delta object ({str(delta)[:80]}); skipped", line=line)
            return
        block = message.blocks.get(index)
        if not isinstance(block, dict):
            if block is not None:
                b.problem("schema", f"the delta at line {line} is for block {index}, which is no object; skipped", line=line)
                return
            b.problem("schema", f"the delta at line {line} is for block {index}, which no content_block_start began", line=line)
            block = message.blocks[index] = {}
        kind = delta.get("type")
        if type(kind) is not str:
            self._odd(line, "delta.type", kind, "a delta type; skipped")
        elif kind in _APPEND:
            field, key = _APPEND[kind]
            piece = delta.get(key)
            if not isinstance(piece, str):
                self._odd(line, f"delta.{key}", piece, "text; skipped")
                return
            text = block.get(field)
            block[field] = (text if isinstance(text, str) else "") + piece
        elif kind == "input_json_delta":
            piece = delta.get("partial_json")
            if not isinstance(piece, str):
                self._odd(line, "delta.partial_json", piece, "text; skipped")
                return
            message.json[index] = message.json.get(index, "") + piece
        elif kind in _SET:
            odd = [key for key in _SET[kind] if key in delta and key == "signature" and not isinstance(delta[key], str)]
            for key in odd:
                self._odd(line, f"delta.{key}", delta[key], "text; skipped")
            block.update({key: delta.get(key) for key in _SET[kind] if key in delta and key not in odd})
        elif kind == "citations_delta":
            citations = block.get("citations")
            block["citations"] = [*(citations if isinstance(citations, list) else []), delta.get("citation")]
        elif str(kind) not in self.odd_deltas:
            self.odd_deltas.add(str(kind))
            b.problem("unknown-type", f"a content_block_delta of type {kind!r} (line {line}) is not one threadlab puts together; its content is in the events only", line=line)

    def _finish_input(self, message: _Message, index: int, line: int | None) -> None:
        raw = message.json.pop(index, None)
        if raw is None or not raw.strip():
            return  # no piece: the input is what the block started with (as the SDK keeps it)
        block = message.blocks.setdefault(index, {})
        if not isinstance(block, dict):
            return
        try:
            block["input"] = orjson.loads(raw)
        except orjson.JSONDecodeError as exc:
            self.reader.b.problem("schema", f"the input of block {index} is not JSON ({exc.msg}); kept as its text", line=line)
            block["input"] = raw

    def _message_delta(self, message: _Message, event: Mapping[str, Any], line: int) -> None:
        delta = event.get("delta")
        if isinstance(delta, Mapping):
            message.message.update(delta)  # stop_reason, stop_sequence, stop_details, container ...
        elif delta is not None:
            self.reader.b.problem("schema", f"the message_delta at line {line} has a delta that is no object ({str(delta)[:80]}); skipped", line=line)
        usage = event.get("usage")
        if isinstance(usage, Mapping):  # totals so far: they replace, they do not add up
            message.message["usage"].update({k: v for k, v in usage.items() if v is not None})
        elif usage is not None:
            self.reader.b.problem("usage", f"the message_delta at line {line} has usage that is no object ({str(usage)[:80]}); skipped", line=line)

    def assembled(self) -> list[tuple[dict[str, Any], int, bool]]:
        """Each message's body, the line it started on, and whether it was cut off."""
        if self.open is not None:
            self._close(self.open, stopped=False)
        return [(m.body(), m.line, not m.stopped) for m in self.messages]


def read_stream(source: Source, saved: list[Event] | None = None) -> Thread:
    """One thread from an SSE body (or from ``saved``: the events saved as JSON)."""
    stem = Path(source.name).stem if source.name and not source.name.startswith("<") else "stream"
    reader = AnthropicReader(stem, source.name)
    assembler = MessageAssembler(reader)
    n = read_events(reader, saved if saved is not None else events(source), known=is_event, check_name="anthropic.event", add=assembler.add, what="Anthropic stream event")
    for body, line, cut in assembler.assembled():
        if cut:
            reader.b.problem("truncated", f"the message starting at line {line} ({body.get('id', 'no id')}) has no message_stop; read as far as it went", line=line)
        got = reader.read_response(body, line, count=False, checked=False)
        reader.exchanges.append({"response": reader.response_rest(body), "got": got})
    return reader.build("sse" if saved is None else "saved-events", {"events": n})
