"""UI message stream → Thread, accumulating chunks the way the AI SDK's own client does.

The stream comes as an SSE body (one ``data:`` line per chunk, ``data: [DONE]`` after each
response), or its chunks saved as JSON Lines or a JSON array. Every record (an SSE event's
data, a chunk of the JSON) is accounted for on the thread (``thread.account``): converted into
the thread, kept as a ``system.unknown_chunk`` with a problem, or failed (a problem names its
line). A broken line costs only that line. Chunks are parsed with pydantic-ai's models (see
``chunks``); what each does is in ``handlers``.

``UIStreamReader`` is incremental: feed it lines as a live response delivers them."""

from __future__ import annotations

import hashlib
import uuid
from collections.abc import Iterable, Iterator
from os import PathLike
from typing import Any

import orjson
from pydantic import ValidationError

from threadlab.core.builder import ThreadBuilder
from threadlab.core.model import Thread, ToolCall, ToolReturn
from threadlab.core.problems import ThreadError
from threadlab.formats.common.source import Source
from threadlab.formats.vercel_ai import sniff
from threadlab.formats.vercel_ai.assemble import FORMAT_KEY, AgentOf, Assembler, Slot, Turn
from threadlab.formats.vercel_ai.chat import chat_id_of
from threadlab.formats.vercel_ai.chunks import chunk_model
from threadlab.formats.vercel_ai.handlers import ChunkHandlers
from threadlab.formats.vercel_ai.losses import STREAM_FORMAT
from threadlab.formats.vercel_ai.messages import read_messages
from threadlab.formats.vercel_ai.sse import Line, iter_lines

_IGNORED_FIELDS = (b"event:", b"id:", b"retry:")
_HANDLERS: dict[str, str] = {"data": "_on_data"}  # chunk type → method name, filled as types are seen

# what became of a record that has a problem: None (converted anyway), "kept" or "failed"
Outcome = str | None


class UIStreamReader(ChunkHandlers):
    """Feed it SSE lines (``feed_line``) or parsed chunks (``feed_chunk``); ``close()`` returns
    the Thread with every problem found on ``thread.problems`` and the account of the records
    on ``thread.account``."""

    def __init__(
        self,
        *,
        thread_id: str | None = None,
        agent_name: str | None = None,
        agent_of: AgentOf | None = None,
        source: str | None = None,
    ) -> None:
        self.source = source
        self.thread_id = thread_id
        self.builder = ThreadBuilder(thread_id or "pending", source=source)
        self.assembler = Assembler(self.builder, agent_name=agent_name, agent_of=agent_of)
        self.problems: list[tuple[str, str, int | None, Outcome]] = []
        self.line: int | None = None
        self.mode: str | None = None  # "sse" or "jsonl", from the first line that says
        self.turn: Turn | None = None
        self.started = False  # the open turn had its `start`
        self.finished = False  # the open turn had its `finish`
        self.aborted = False
        self.done_seen = False
        self.chunks = 0
        self.converted = 0
        self.first_message_id: str | None = None
        self.first_record: bytes | None = None  # names a stream with no message id (see close)
        # per turn
        self.texts: dict[str, Slot] = {}
        self.reasonings: dict[str, Slot] = {}
        self.raw_inputs: dict[str, list[str]] = {}
        # across turns: calls answered in a later response, data parts updated in place
        self.calls: dict[str, Slot] = {}
        self.returns: dict[str, Slot] = {}
        self.approvals: dict[str, str] = {}
        self.resolved: set[str] = set()
        self.data_parts: dict[tuple[str | None, str, str], Slot] = {}

    # --- input ----------------------------------------------------------------------------
    def seed(self, messages: Any) -> None:
        """Start from the conversation the request carried (its ``UIMessage[]``), so the
        response's outputs and denials find the calls and approvals they answer."""
        converted, problems = read_messages(self.assembler, messages)
        self.converted += converted
        self.problems.extend((rule, message, None, outcome) for rule, message, outcome in problems)
        for action in self.builder.actions:
            if isinstance(action, ToolCall):
                vercel = dict((action.metadata or {}).get(FORMAT_KEY) or {})
                self.calls[action.tool_call_id] = Slot("tool_call", {"tool_name": action.tool_name}, vercel, action=action)
                if isinstance(vercel.get("approval"), dict):
                    self.approvals[vercel["approval"].get("id")] = action.tool_call_id
            elif isinstance(action, ToolReturn):
                self.returns[action.tool_call_id] = Slot("tool_return", action=action)
            elif action.action_type == "system.tool_resolved" and isinstance(getattr(action, "data", None), dict):
                self.resolved.add(action.data.get("tool_call_id"))  # type: ignore[attr-defined]

    def feed_line(self, line: Line, number: int | None = None) -> None:
        """One line of the body: an SSE line (with or without its newline), or a chunk's JSON
        when the body is JSON Lines (decided by its first line)."""
        self.line = number
        raw = line.encode() if isinstance(line, str) else line
        if raw[-1:] in (b"\n", b"\r"):
            raw = raw.rstrip(b"\r\n")
        if self.mode is None:
            raw = raw.removeprefix(sniff.BOM)
            if not raw.strip():
                return
            self.mode = "jsonl" if raw.lstrip()[:1] == b"{" else "sse"
        if self.mode == "jsonl":
            if raw.strip():
                self._record(raw)
            return
        if not raw:
            return  # the blank line between events
        if raw[:5] == b"data:":
            start = 6 if raw[5:6] == b" " else 5
            payload = memoryview(raw)[start:] if len(raw) > 65536 else raw[start:]  # no copy of a big line
            if len(payload) < 16 and not bytes(payload).strip():
                return  # an empty data field carries no chunk
            self._record(payload)
        elif not raw.strip() or raw[:1] == b":" or raw.startswith(_IGNORED_FIELDS):
            return  # keep-alive comment, SSE fields the protocol never uses
        else:
            self.problem("sse", f"is not an SSE field, so it carries no chunk: {bytes(raw[:60])!r}")

    def _record(self, payload: bytes | memoryview) -> None:
        """One record: an SSE event's data or a JSON Lines line."""
        if self.first_record is None:
            self.first_record = bytes(payload[:4096])
        if len(payload) < 16 and bytes(payload).strip() == b"[DONE]":
            self.converted += 1  # the end-of-stream marker: it closes the response
            self._on_done()
            return
        try:
            obj = orjson.loads(payload)
        except orjson.JSONDecodeError as exc:
            self.failed("json", f"is not valid JSON ({exc.msg} at column {exc.colno}); the chunk is lost")
            return
        if not isinstance(obj, dict):
            self.failed("schema", f"holds a JSON {type(obj).__name__}, not a chunk object; it is lost")
            return
        self.feed_chunk(obj, self.line)

    def feed_chunk(self, obj: Any, line: int | None = None) -> None:
        """One parsed chunk (a dict as on the wire): one record."""
        self.line = line
        if not isinstance(obj, dict):
            self.failed("schema", f"is a JSON {type(obj).__name__}, not a chunk object; it is lost")
            return
        self.chunks += 1
        kind = obj.get("type")
        model = chunk_model(kind)
        if model is None:
            self._current().add("system.unknown_chunk", data=obj)
            self.kept("unknown-type", f"a chunk of type {kind!r}, which no AI SDK version we know emits; kept as system.unknown_chunk")
            return
        try:
            chunk = model.__pydantic_validator__.validate_python(obj)
        except ValidationError as exc:
            err = exc.errors()[0]
            where = ".".join(str(p) for p in err["loc"]) or "chunk"
            self._current().add("system.unknown_chunk", data=obj)
            self.kept("schema", f"{kind} chunk breaks the AI SDK schema ({where}: {err['msg']}); kept as system.unknown_chunk")
            return
        self.converted += 1
        handler = _HANDLERS.get(kind)
        if handler is None:
            handler = _HANDLERS["data"] if kind.startswith("data-") else "_on_" + kind.replace("-", "_")
            _HANDLERS[kind] = handler
        getattr(self, handler)(chunk)

    # --- problems and the account ---------------------------------------------------------
    def _where(self, message: str) -> str:
        return message if self.line is not None else f"chunk {self.chunks}: {message}"  # Problem.line carries the line

    def problem(self, rule: str, message: str) -> None:
        """A problem with a record that is still converted (or with no record at all)."""
        self.problems.append((rule, self._where(message), self.line, None))

    def kept(self, rule: str, message: str) -> None:
        """The record is kept as it came (a ``system.unknown_chunk``), and the problem names it."""
        self.problems.append((rule, self._where(message), self.line, "kept"))

    def failed(self, rule: str, message: str) -> None:
        """The record could not be read: the problem is all that is left of it."""
        self.problems.append((rule, self._where(message), self.line, "failed"))

    # --- turns ----------------------------------------------------------------------------
    def _current(self) -> Turn:
        if self.turn is None:
            self.turn = Turn()
            self.started = self.finished = self.aborted = False
        return self.turn

    def _close_turn(self) -> None:
        turn = self.turn
        if turn is None:
            return
        for slot in (*self.texts.values(), *self.reasonings.values()):
            slot.vercel["state"] = "streaming"  # never ended
        for call_id, pieces in self.raw_inputs.items():
            slot = self.calls.get(call_id)
            if slot is not None and "args" not in slot.fields:
                text = "".join(pieces)
                try:  # no tool-input-available came: the deltas are the input if they make whole JSON
                    slot.fields["args"] = orjson.loads(text) if text else None
                    slot.vercel["input_from_deltas" if text else "input_incomplete"] = True
                except orjson.JSONDecodeError:
                    slot.fields["args"] = text
                    slot.vercel["input_incomplete"] = True
        self.assembler.add_turn(turn)
        self.turn = None
        self.texts, self.reasonings, self.raw_inputs = {}, {}, {}

    # --- result ---------------------------------------------------------------------------
    def close(self) -> Thread:
        """Finish reading: an unfinished message is kept and reported; returns the Thread."""
        if self.turn is not None:
            if not self.finished and not self.aborted:
                self.problem("truncated", "the stream ends before the message's finish chunk (truncated?); what arrived is kept")
            elif not self.done_seen and self.mode == "sse":  # (chunks saved as JSON have no [DONE])
                self.problem("truncated", "the stream ends without data: [DONE] (truncated?)")
            self._close_turn()
        elif self.chunks == 0 and not self.problems:
            self.problems.append(("empty", "holds no UI message stream chunks", None, None))
        if self.thread_id is None:
            self.thread_id = self._derived_id()
        builder = self.builder
        builder.thread_id = self.thread_id
        builder.took(self.converted)
        report = {None: builder.problem, "kept": builder.kept, "failed": builder.failed}
        for rule, message, line, outcome in self.problems:
            report[outcome](rule, message, line=line)
        thread = builder.build()
        thread.origin = (self.source, STREAM_FORMAT)
        return thread

    def _derived_id(self) -> str:
        """The same stream read again gets the same id: from its source name and first message
        id, or (no message id) its source name, or (nameless) its first record."""
        named = bool(self.source) and not str(self.source).startswith("<")
        if self.first_message_id is not None:
            seed = f"{self.source or ''}:{self.first_message_id}"
        elif named:
            seed = f"{self.source}:"
        elif self.first_record is not None:
            seed = "sha1:" + hashlib.sha1(self.first_record).hexdigest()
        else:
            return str(uuid.uuid4())
        return str(uuid.uuid5(uuid.NAMESPACE_URL, seed))


def from_ui_stream(
    stream: Any,
    *,
    thread_id: str | None = None,
    agent_name: str | None = None,
    agent_of: AgentOf | None = None,
    name: str | None = None,
    messages: Any = None,
) -> Thread:
    """Read a Vercel AI SDK UI message stream (v5, v6 or v7) into a Thread.

    ``stream``: the SSE body as str/bytes, a path, a file object, or any iterable of lines
    (``response.iter_lines()``) - read as it arrives, never held twice; or its chunks saved as
    JSON Lines or a JSON array. One or several responses of a chat may follow each other.
    ``agent_of(kind, value)`` names the agent from message metadata or ``data-*`` parts
    (default: ``metadata.agent`` and ``data-agent``); otherwise one agent named after the
    producer (``agent_name`` overrides). ``messages``: the request's ``UIMessage[]`` (or its
    whole JSON body), read first, so the thread holds the conversation so far and a
    continuation's outputs find their calls."""
    source_name = name or _name_of(stream)
    reader = UIStreamReader(thread_id=thread_id, agent_name=agent_name, agent_of=agent_of, source=source_name)
    if messages is not None:
        if isinstance(messages, str | bytes | PathLike):
            messages = Source(messages).json()
        reader.thread_id = reader.thread_id or chat_id_of(messages)
        reader.seed(messages)
    array = _json_array(stream)
    if array is not None:
        for number, item in array:
            if isinstance(item, bytes):  # a line of an array that does not parse whole
                reader.line = number
                reader._record(item)
            else:
                reader.feed_chunk(item, number)
    else:
        for number, line in iter_lines(stream):
            reader.feed_line(line, number)
    return reader.close()


def _json_array(stream: Any) -> Iterator[tuple[int | None, Any]] | None:
    """The elements of a JSON array of chunks (or of an in-memory list of chunk dicts), or None
    when ``stream`` is not one. An array that does not parse whole (cut short, a broken line)
    is read line by line, so one bad element costs only itself."""
    items = stream.obj if isinstance(stream, Source) and stream.is_object else stream
    if isinstance(items, list | tuple) and items and not isinstance(items[0], str | bytes | bytearray | memoryview):
        return ((None, item) for item in items)
    if isinstance(stream, Source):
        source = stream
    elif isinstance(stream, bytes | bytearray | PathLike) or (isinstance(stream, str) and (not _is_text(stream) or stream.lstrip()[:1] == "[")):
        source = Source(bytes(stream) if isinstance(stream, bytearray) else stream)
    else:
        return None
    if source.is_object:
        return None
    if source.head(64).removeprefix(sniff.BOM).lstrip()[:1] != b"[":
        return None
    try:
        value = source.json()
    except ThreadError:
        return _array_lines(source)
    if not isinstance(value, list):
        return None
    return ((None, item) for item in value)


def _array_lines(source: Source) -> Iterator[tuple[int | None, Any]]:
    for number, line in source.lines():
        for text in sniff.array_lines([line]):
            yield number, text


def _is_text(value: str) -> bool:
    return "\n" in value or value.lstrip().startswith(("data:", ":", "{", "["))


def _name_of(stream: Any) -> str | None:
    if isinstance(stream, Source):
        return stream.name
    if isinstance(stream, PathLike):
        return str(stream)
    if isinstance(stream, str) and not _is_text(stream):
        return stream
    name = getattr(stream, "name", None)
    return name if isinstance(name, str) else None


def from_ui_chunks(chunks: Iterable[dict[str, Any]], **options: Any) -> Thread:
    """A Thread from already-parsed chunks (dicts as on the wire), e.g. captured server-side."""
    reader = UIStreamReader(**options)
    for index, chunk in enumerate(chunks, 1):
        reader.feed_chunk(chunk, index)
    return reader.close()
