"""UI message stream (SSE) → Thread, accumulating chunks the way the AI SDK's own client does.

Text and reasoning accumulate by part id, tool input by ``toolCallId`` (across steps), tool
outputs are matched to their calls in the order they complete, approvals leave the call pending
until a ``tool-output-*`` or denial resolves it. A broken line costs only that line: it is
reported with its number and the rest is read. Chunks are parsed with pydantic-ai's models
(see ``chunks``); a chunk type no SDK version we know emits becomes ``system.unknown_chunk``.

``UIStreamReader`` is incremental: feed it lines as a live response delivers them."""

from __future__ import annotations

import uuid
from collections.abc import Iterable
from os import PathLike
from typing import Any

import orjson
from pydantic import ValidationError

from threadlab.core.builder import ThreadBuilder
from threadlab.core.model import Thread, ToolCall, ToolReturn
from threadlab.formats.source import Source
from threadlab.formats.vercel_ai.assemble import FORMAT_KEY, AgentOf, Assembler, Slot, Turn, media_part, signature_of, system_name
from threadlab.formats.vercel_ai.chunks import chunk_model, extra_of
from threadlab.formats.vercel_ai.messages import chat_id_of, read_messages
from threadlab.formats.vercel_ai.sse import Line, iter_lines

_IGNORED_FIELDS = (b"event:", b"id:", b"retry:")
_HANDLERS: dict[str, str] = {"data": "_on_data"}  # chunk type → method name, filled as types are seen


class UIStreamReader:
    """Feed it SSE lines (``feed_line``) or parsed chunks (``feed_chunk``); ``close()`` returns
    the Thread with every problem found on ``thread.problems``."""

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
        self.problems: list[tuple[str, str, int | None]] = []
        self.line: int | None = None
        self.turn: Turn | None = None
        self.started = False  # the open turn had its `start`
        self.finished = False  # the open turn had its `finish`
        self.aborted = False
        self.done_seen = False
        self.chunks = 0
        self.first_message_id: str | None = None
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
        self.problems.extend((rule, message, None) for rule, message in read_messages(self.assembler, messages))
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
        """One line of the SSE body (with or without its newline)."""
        self.line = number
        if not line:
            return  # the blank line between events
        raw = line.encode() if isinstance(line, str) else line
        if raw[-1:] in (b"\n", b"\r"):
            raw = raw.rstrip(b"\r\n")
        payload: bytes | memoryview
        if raw[:5] == b"data:":
            start = 6 if raw[5:6] == b" " else 5
            payload = memoryview(raw)[start:] if len(raw) > 65536 else raw[start:]  # no copy of a big line
        elif not raw.strip() or raw[:1] == b":" or raw.startswith(_IGNORED_FIELDS):
            return  # keep-alive comment, SSE fields the protocol never uses
        elif raw.lstrip()[:1] == b"{":  # chunks written one JSON object per line
            payload = raw
        else:
            self.problem("sse", f"is not an SSE data line: {raw[:60]!r}")
            return
        if len(payload) < 16 and bytes(payload).strip() == b"[DONE]":
            self._on_done()
            return
        try:
            obj = orjson.loads(payload)
        except orjson.JSONDecodeError as exc:
            self.problem("json", f"is not valid JSON ({exc.msg} at column {exc.colno}); the line is skipped")
            return
        if not isinstance(obj, dict):
            self.problem("schema", f"holds a JSON {type(obj).__name__}, not a chunk object")
            return
        self.feed_chunk(obj, number)

    def feed_chunk(self, obj: dict[str, Any], line: int | None = None) -> None:
        """One parsed chunk (a dict as on the wire)."""
        self.line = line
        self.chunks += 1
        kind = obj.get("type")
        model = chunk_model(kind)
        if model is None:
            self._current().add("system.unknown_chunk", data=obj)
            return
        try:
            chunk = model.__pydantic_validator__.validate_python(obj)
        except ValidationError as exc:
            err = exc.errors()[0]
            where = ".".join(str(p) for p in err["loc"]) or "chunk"
            self.problem("schema", f"{kind} chunk breaks the AI SDK schema ({where}: {err['msg']}); kept as system.unknown_chunk")
            self._current().add("system.unknown_chunk", data=obj)
            return
        handler = _HANDLERS.get(kind)
        if handler is None:
            handler = _HANDLERS["data"] if kind.startswith("data-") else "_on_" + kind.replace("-", "_")
            _HANDLERS[kind] = handler
        getattr(self, handler)(chunk)

    def problem(self, rule: str, message: str) -> None:
        text = message if self.line is not None else f"chunk {self.chunks}: {message}"  # Problem.line carries the line
        self.problems.append((rule, text, self.line))

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
                try:
                    slot.fields["args"] = orjson.loads(text) if text else None
                except orjson.JSONDecodeError:
                    slot.fields["args"] = text
                slot.vercel["input_incomplete"] = True
        self.assembler.add_turn(turn)
        self.turn = None
        self.texts, self.reasonings, self.raw_inputs = {}, {}, {}

    def _on_start(self, chunk: Any) -> None:
        if self.turn is not None and self.started:
            if not self.finished and not self.aborted:
                self.problem("truncated", "a new message starts before the previous one finished")
            self._close_turn()
        turn = self._current()
        self.started = True
        if chunk.message_id is not None:
            turn.message_id = chunk.message_id
            self.first_message_id = self.first_message_id or chunk.message_id
        self._merge_metadata(chunk.message_metadata)
        self._keep_extra(turn, chunk)

    def _on_finish(self, chunk: Any) -> None:
        turn = self._current()
        self.finished = True
        turn.finish_reason = chunk.finish_reason
        self._merge_metadata(chunk.message_metadata)
        self._keep_extra(turn, chunk)

    def _on_done(self) -> None:
        self.done_seen = True
        if self.turn is None:
            return
        if not self.finished and not self.aborted:
            self.problem("truncated", "[DONE] arrives before the message's finish chunk")
        self._close_turn()

    def _on_message_metadata(self, chunk: Any) -> None:
        self._merge_metadata(chunk.message_metadata)

    def _merge_metadata(self, value: Any) -> None:
        if value is None:
            return
        turn = self._current()
        if isinstance(value, dict):
            turn.metadata.update(value)  # shallow merge, as the AI SDK client does
        else:
            turn.metadata["value"] = value

    def _keep_extra(self, turn: Turn, chunk: Any) -> None:
        extra = extra_of(chunk)
        if extra:
            turn.extra.update(extra)

    def _on_start_step(self, chunk: Any) -> None:
        self._current().step += 1

    def _on_finish_step(self, chunk: Any) -> None:
        pass  # carries nothing; the next start-step opens the next step

    def _on_reset_step(self, chunk: Any) -> None:
        self._current().add("system.reset_step", data=None)

    # --- text and reasoning ---------------------------------------------------------------
    def _open(self, table: dict[str, Slot], action_type: str, part_id: str, chunk: Any) -> Slot:
        slot = self._current().add(action_type, agent=True)
        slot.pieces = []
        slot.vercel["id"] = part_id
        self._part_meta(slot, chunk)
        table[part_id] = slot
        return slot

    def _part_meta(self, slot: Slot, chunk: Any) -> None:
        provider_metadata = getattr(chunk, "provider_metadata", None)
        if provider_metadata:
            slot.vercel["provider_metadata"] = provider_metadata
        extra = extra_of(chunk)
        if extra:
            slot.vercel.setdefault("extra", {}).update(extra)

    def _delta(self, table: dict[str, Slot], action_type: str, chunk: Any) -> None:
        slot = table.get(chunk.id)
        if slot is None:
            self.problem("unknown-id", f"{chunk.type} for id {chunk.id!r}, which no {action_type.replace('_', '-')} start opened; kept")
            slot = self._open(table, action_type, chunk.id, chunk)
        slot.pieces.append(chunk.delta)  # type: ignore[union-attr]

    def _end(self, table: dict[str, Slot], action_type: str, chunk: Any) -> Slot | None:
        slot = table.pop(chunk.id, None)
        if slot is None:
            self.problem("unknown-id", f"{chunk.type} for id {chunk.id!r}, which is not open")
            return None
        self._part_meta(slot, chunk)
        slot.pieces = [slot.text()]  # one string per finished part, not thousands of deltas
        return slot

    def _on_text_start(self, chunk: Any) -> None:
        self._open(self.texts, "assistant_message", chunk.id, chunk)

    def _on_text_delta(self, chunk: Any) -> None:
        self._delta(self.texts, "assistant_message", chunk)

    def _on_text_end(self, chunk: Any) -> None:
        self._end(self.texts, "assistant_message", chunk)

    def _on_reasoning_start(self, chunk: Any) -> None:
        self._open(self.reasonings, "thinking", chunk.id, chunk).fields["thinking_id"] = chunk.id

    def _on_reasoning_delta(self, chunk: Any) -> None:
        self._delta(self.reasonings, "thinking", chunk)

    def _on_reasoning_end(self, chunk: Any) -> None:
        slot = self._end(self.reasonings, "thinking", chunk)
        if slot is not None:
            provider, signature = signature_of(slot.vercel.get("provider_metadata"))
            if provider:
                slot.fields["provider_name"] = provider
            if signature:
                slot.fields["signature"] = signature

    # --- tools ----------------------------------------------------------------------------
    def _call(self, call_id: str, tool_name: str | None, chunk: Any) -> Slot:
        slot = self.calls.get(call_id)
        if slot is None or call_id in self.returns:
            slot = self._current().add("tool_call", agent=True, tool_call_id=call_id, tool_name=tool_name or "unknown")
            self.calls[call_id] = slot
            self.returns.pop(call_id, None)
        elif tool_name:
            slot.fields["tool_name"] = tool_name
        self._flags(slot, chunk, ("dynamic", "provider_executed", "title"))
        return slot

    def _flags(self, slot: Slot, chunk: Any, names: tuple[str, ...]) -> None:
        """Copy the tool chunk's optional flags that are set, and its provider metadata/extras."""
        for name in names:
            value = getattr(chunk, name, None)
            if value is not None:
                slot.vercel[name] = value
        self._part_meta(slot, chunk)

    def _on_tool_input_start(self, chunk: Any) -> None:
        slot = self._call(chunk.tool_call_id, chunk.tool_name, chunk)
        slot.vercel["streamed"] = True
        self.raw_inputs[chunk.tool_call_id] = []

    def _on_tool_input_delta(self, chunk: Any) -> None:
        if chunk.tool_call_id not in self.raw_inputs:
            self.problem("unknown-id", f"tool-input-delta for toolCallId {chunk.tool_call_id!r}, which no tool-input-start opened; kept")
            self._call(chunk.tool_call_id, None, chunk).vercel["streamed"] = True
            self.raw_inputs[chunk.tool_call_id] = []
        self.raw_inputs[chunk.tool_call_id].append(chunk.input_text_delta)

    def _on_tool_input_available(self, chunk: Any) -> None:
        slot = self._call(chunk.tool_call_id, chunk.tool_name, chunk)
        slot.fields["args"] = chunk.input
        self.raw_inputs.pop(chunk.tool_call_id, None)

    def _on_tool_input_error(self, chunk: Any) -> None:
        self._on_tool_input_available(chunk)
        self._return(chunk.tool_call_id, "error", chunk.error_text, chunk).vercel["input_error"] = True

    def _return(self, call_id: str, status: str, content: Any, chunk: Any | None) -> Slot:
        call = self.calls.get(call_id)
        if call is None:
            self.problem("tool-call-match", f"{chunk.type if chunk else 'tool output'} for toolCallId {call_id!r}, a call this stream never made")
        tool_name = call.fields.get("tool_name", "unknown") if call is not None else "unknown"
        slot = self._current().add("tool_return", tool_call_id=call_id, tool_name=tool_name, status=status, content=content)
        self.returns[call_id] = slot
        if chunk is not None:
            self._flags(slot, chunk, ("dynamic", "provider_executed", "preliminary"))
        return slot

    def _resolve(self, call_id: str, resolution: str, reason: str | None = None) -> None:
        """``system.tool_resolved`` for a call that waited on approval (once per call)."""
        call = self.calls.get(call_id)
        if call_id in self.resolved or call is None or "approval" not in call.vercel:
            return
        self.resolved.add(call_id)
        data: dict[str, Any] = {"tool_call_id": call_id, "resolution": resolution, "resolved_by": "user"}
        data["approval_id"] = call.vercel["approval"].get("id")
        if reason:
            data["denial_reason"] = reason
        self._current().add("system.tool_resolved", data=data)

    def _on_tool_output_available(self, chunk: Any) -> None:
        call_id = chunk.tool_call_id
        previous = self.returns.get(call_id)
        if previous is not None and previous.vercel.get("preliminary") and previous.action is None:
            previous.fields["content"] = chunk.output  # a streamed tool output: the last one stands
            if not chunk.preliminary:
                previous.vercel.pop("preliminary", None)
            return
        self._resolve(call_id, "approved")
        self._return(call_id, "success", chunk.output, chunk)

    def _on_tool_output_error(self, chunk: Any) -> None:
        previous = self.returns.get(chunk.tool_call_id)
        if previous is not None and previous.vercel.get("input_error") and previous.action is None:
            previous.fields["content"] = chunk.error_text  # ai@6 repeats an input error as an output error
            previous.vercel["output_error"] = True
            return
        self._resolve(chunk.tool_call_id, "approved")
        self._return(chunk.tool_call_id, "error", chunk.error_text, chunk)

    def _on_tool_output_denied(self, chunk: Any) -> None:
        self._resolve(chunk.tool_call_id, "denied")
        self._return(chunk.tool_call_id, "error", "denied", chunk).vercel["denied"] = True

    def _on_tool_approval_request(self, chunk: Any) -> None:
        call = self.calls.get(chunk.tool_call_id)
        if call is None:
            self.problem("tool-call-match", f"tool-approval-request for toolCallId {chunk.tool_call_id!r}, a call this stream never made")
            call = self._call(chunk.tool_call_id, None, chunk)
        call.vercel["approval"] = {"id": chunk.approval_id, **extra_of(chunk)}
        self.approvals[chunk.approval_id] = chunk.tool_call_id

    def _on_tool_approval_response(self, chunk: Any) -> None:
        call_id = self.approvals.get(chunk.approval_id)
        if call_id is None:
            self.problem("tool-call-match", f"tool-approval-response for approvalId {chunk.approval_id!r}, which was never requested")
            self._current().add("system.tool_resolved", data={"approval_id": chunk.approval_id, "resolution": "approved" if chunk.approved else "denied"})
            return
        self._resolve(call_id, "approved" if chunk.approved else "denied", chunk.reason)

    # --- sources, files, data, errors -----------------------------------------------------
    def _media(self, chunk: Any, part: dict[str, Any]) -> None:
        slot = self._current().add("assistant_message", agent=True, content=[part])
        self._part_meta(slot, chunk)

    def _on_source_url(self, chunk: Any) -> None:
        self._media(chunk, media_part("source-url", url=chunk.url, media_type=None, identifier=chunk.source_id, title=chunk.title))

    def _on_source_document(self, chunk: Any) -> None:
        part = media_part("source-document", url=None, media_type=chunk.media_type, identifier=chunk.source_id, title=chunk.title, filename=chunk.filename)
        self._media(chunk, part)

    def _on_file(self, chunk: Any) -> None:
        self._media(chunk, media_part("file", url=chunk.url, media_type=chunk.media_type, identifier=None))

    def _on_reasoning_file(self, chunk: Any) -> None:
        self._media(chunk, media_part("reasoning-file", url=chunk.url, media_type=chunk.media_type, identifier=None))

    def _on_data(self, chunk: Any) -> None:
        turn = self._current()
        name = self.assembler.agent_of(chunk.type, chunk.data)
        if name:
            turn.agent = name
        key = (turn.message_id, chunk.type, chunk.id) if chunk.id is not None and not chunk.transient else None
        existing = self.data_parts.get(key) if key else None
        if existing is not None:  # same type and id: the AI SDK replaces the part's data
            existing.fields["data"] = chunk.data
            if existing.action is not None:
                existing.action.data = chunk.data  # type: ignore[attr-defined]
            return
        slot = turn.add(system_name(chunk.type), data=chunk.data)
        slot.vercel["type"] = chunk.type
        if chunk.id is not None:
            slot.vercel["id"] = chunk.id
        if chunk.transient:
            slot.vercel["transient"] = True
        self._part_meta(slot, chunk)
        if key:
            self.data_parts[key] = slot

    def _on_error(self, chunk: Any) -> None:
        self._current().add("system.error", data={"error_text": chunk.error_text})

    def _on_abort(self, chunk: Any) -> None:
        self.aborted = True
        self._current().add("system.abort", data={"reason": chunk.reason} if chunk.reason else None)

    def _on_custom(self, chunk: Any) -> None:
        data = {"kind": chunk.kind, **({"provider_metadata": chunk.provider_metadata} if chunk.provider_metadata else {})}
        self._current().add("system.custom", data=data)

    def _on_steering_message(self, chunk: Any) -> None:
        content: list[dict[str, Any]] = []
        for part in chunk.parts:
            if part.get("type") == "text":
                content.append({"type": "text", "text": part.get("text", "")})
            elif part.get("type") == "file":
                content.append(media_part("file", url=part.get("url"), media_type=part.get("mediaType"), identifier=part.get("filename")))
            else:
                content.append(part)
        self._current().add("user_message", content=content).vercel["steering_id"] = chunk.id

    # --- result ---------------------------------------------------------------------------
    def close(self) -> Thread:
        """Finish reading: an unfinished message is kept and reported; returns the Thread."""
        if self.turn is not None:
            if not self.finished and not self.aborted:
                self.problem("truncated", "the stream ends before the message's finish chunk (truncated?); what arrived is kept")
            elif not self.done_seen:
                self.problem("truncated", "the stream ends without data: [DONE] (truncated?)")
            self._close_turn()
        elif self.chunks == 0:
            self.problems.append(("empty", "holds no UI message stream chunks", None))
        if self.thread_id is None:
            seed = f"{self.source or ''}:{self.first_message_id}" if self.first_message_id else None
            self.thread_id = str(uuid.uuid5(uuid.NAMESPACE_URL, seed)) if seed else str(uuid.uuid4())
        self.builder.thread_id = self.thread_id
        for rule, message, line in self.problems:
            self.builder.problem(rule, message, line=line)
        return self.builder.build()


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
    (``response.iter_lines()``) - read as it arrives, never held twice. One or several
    responses of a chat may follow each other. ``agent_of(kind, value)`` names the agent from
    message metadata or ``data-*`` parts (default: ``metadata.agent`` and ``data-agent``);
    otherwise one agent named after the producer (``agent_name`` overrides). ``messages``: the
    request's ``UIMessage[]`` (or its whole JSON body), read first, so the thread holds the
    conversation so far and a continuation's outputs find their calls."""
    source_name = name or _name_of(stream)
    reader = UIStreamReader(thread_id=thread_id, agent_name=agent_name, agent_of=agent_of, source=source_name)
    if messages is not None:
        if isinstance(messages, str | bytes | PathLike):
            messages = Source(messages).json()
        reader.thread_id = reader.thread_id or chat_id_of(messages)
        reader.seed(messages)
    for number, line in iter_lines(stream):
        reader.feed_line(line, number)
    return reader.close()


def _name_of(stream: Any) -> str | None:
    if isinstance(stream, PathLike):
        return str(stream)
    if isinstance(stream, str) and "\n" not in stream and not stream.lstrip().startswith(("data:", ":", "{")):
        return stream
    name = getattr(stream, "name", None)
    return name if isinstance(name, str) else None


def from_ui_chunks(chunks: Iterable[dict[str, Any]], **options: Any) -> Thread:
    """A Thread from already-parsed chunks (dicts as on the wire), e.g. captured server-side."""
    reader = UIStreamReader(**options)
    for index, chunk in enumerate(chunks, 1):
        reader.feed_chunk(chunk, index)
    return reader.close()
