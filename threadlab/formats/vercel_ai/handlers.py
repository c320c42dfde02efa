"""What each UI message stream chunk does to the message being assembled (the AI SDK client's
``processUIMessageStream``, as a mixin of ``UIStreamReader``: one ``_on_<type>`` per chunk type).

Text and reasoning accumulate by part id, tool input by ``toolCallId`` (across steps), tool
outputs are matched to their calls in the order they complete, approvals leave the call pending
until a ``tool-output-*`` or denial resolves it."""

from __future__ import annotations

from typing import Any

from threadlab.formats.vercel_ai.assemble import Slot, Turn, media_part, signature_of, system_name
from threadlab.formats.vercel_ai.chunks import extra_of


class ChunkHandlers:
    """The chunk handlers; the state they work on is ``UIStreamReader``'s."""

    assembler: Any
    turn: Turn | None
    started: bool
    finished: bool
    aborted: bool
    done_seen: bool
    first_message_id: str | None
    texts: dict[str, Slot]
    reasonings: dict[str, Slot]
    raw_inputs: dict[str, list[str]]
    calls: dict[str, Slot]
    returns: dict[str, Slot]
    approvals: dict[str, str]
    resolved: set[str]
    data_parts: dict[tuple[str | None, str, str], Slot]
    line: int | None  # the line being read

    def problem(self, rule: str, message: str) -> None:
        raise NotImplementedError

    def _current(self) -> Turn:
        raise NotImplementedError

    def _close_turn(self) -> None:
        raise NotImplementedError

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
        turn.line = self.line
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
