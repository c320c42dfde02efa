"""Thread → UI message stream: "explode" each action into the granular chunks an AI SDK front
end expects (start, steps, text-start/delta/end, reasoning-*, tool-input-*, tool-output-*,
finish, ``[DONE]``), so a stored thread can be replayed to ``useChat``.

Chunks are built with pydantic-ai's own chunk models wherever they cover the shape, so what we
write is what pydantic-ai's adapter would write; what a Vercel reader kept in
``metadata.vercel_ai`` (part ids, provider metadata, message metadata, approvals) is given back,
so reading the stream again gives the same thread. User messages belong to requests, not
responses, and are left out (a v7 steering message is the exception)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import orjson
from pydantic_ai.ui.vercel_ai import response_types as rt

from threadlab.core.loss import report_loss
from threadlab.core.model import AssistantMessage, BaseAction, Thinking, Thread, ToolCall, ToolReturn
from threadlab.formats.common.losses import thread_losses
from threadlab.formats.vercel_ai.assemble import FINISH_REASONS_BACK
from threadlab.formats.vercel_ai.grouping import (
    Response,
    ThreadView,
    media_fields,
    media_url,
    responses,
    thinking_provider_metadata,
    vercel_of,
)
from threadlab.formats.vercel_ai.losses import STREAM_FORMAT, STREAM_REASONS
from threadlab.formats.vercel_ai.stream import from_ui_stream

Chunk = dict[str, Any]
_SKIPPED_SYSTEM = ("system.tool_resolved", "system.message_metadata", "system.system_prompt")


def _dump(model: rt.BaseChunk, extra: dict[str, Any] | None = None) -> Chunk:
    chunk = model.model_dump(mode="json", by_alias=True, exclude_none=True)
    if extra:
        chunk.update({k: v for k, v in extra.items() if k not in chunk})
    return chunk


def sse_line(chunk: Chunk | str) -> str:
    """One SSE event: ``data: <json>`` and a blank line (``[DONE]`` as is)."""
    payload = chunk if isinstance(chunk, str) else orjson.dumps(chunk).decode()
    return f"data: {payload}\n\n"


def to_ui_stream(thread: Thread) -> Iterator[str]:
    """The thread as UI message stream SSE events (one string per event), one response after
    another, each ending with ``data: [DONE]``. Once the last event is taken, a ``WriteLoss``
    warning names what the stream cannot hold (user messages, timestamps ...; see ``losses``)."""
    written: list[str] = []
    for chunk in ui_chunks(thread):
        event = sse_line(chunk)
        written.append(event)
        yield event
    again = from_ui_stream("".join(written), name=thread.origin[0])
    report_loss(STREAM_FORMAT, thread.thread_id, thread_losses(thread, again, STREAM_REASONS))


def ui_chunks(thread: Thread) -> Iterator[Chunk | str]:
    """The chunks (dicts) of ``to_ui_stream``; ``"[DONE]"`` closes each response."""
    writer = _StreamWriter(thread)
    for response in responses(thread):
        if response.role == "user":
            continue
        yield from writer.response(response)


class _StreamWriter(ThreadView):
    def response(self, response: Response) -> Iterator[Chunk | str]:
        head = response.head
        yield _dump(rt.StartChunk(message_id=head.get("message_id"), message_metadata=self._start_metadata(response)), head.get("message_extra"))
        step = 0
        agent = self.first_agent(response)
        for action, action_step in zip(response.actions, response.steps, strict=True):
            if action_step != step:
                if step > 0:
                    yield _dump(rt.FinishStepChunk())
                step = action_step
                if step > 0:
                    yield _dump(rt.StartStepChunk())
            agent, switch = self.agent_part(action, agent)
            if switch:
                yield switch
            yield from self.action(action)
        if step > 0:
            yield _dump(rt.FinishStepChunk())
        yield self._finish(response)
        yield "[DONE]"

    def _start_metadata(self, response: Response) -> Any:
        return response.head.get("message_metadata") if response.head else self.message_metadata(response)

    def _finish(self, response: Response) -> Chunk:
        head = response.head
        reason = head.get("finish_reason")
        if reason is None and not head:
            finals = [a.finish_reason for a in response.actions if isinstance(a, AssistantMessage) and a.finish_reason]
            reason = FINISH_REASONS_BACK.get(finals[-1]) if finals else None
        return {"type": "finish", **({"finishReason": reason} if reason else {})}

    # --- one action -----------------------------------------------------------------------
    def action(self, action: BaseAction) -> Iterator[Chunk]:
        vercel = vercel_of(action)
        if isinstance(action, AssistantMessage):
            yield from self._assistant(action, vercel)
        elif isinstance(action, Thinking):
            yield from self._thinking(action, vercel)
        elif isinstance(action, ToolCall):
            yield from self._call(action, vercel)
        elif isinstance(action, ToolReturn):
            yield from self._return(action, vercel)
        elif action.action_type == "user_message" and "steering_id" in vercel:
            yield {"type": "steering-message", "id": vercel["steering_id"], "parts": _steering_parts(getattr(action, "content", ""))}
        elif action.action_type.startswith("system."):
            yield from self._system(action, vercel)

    def _assistant(self, action: AssistantMessage, vercel: dict[str, Any]) -> Iterator[Chunk]:
        content = action.content
        parts = [content] if isinstance(content, str) else content
        for index, part in enumerate(parts):
            data = part if isinstance(part, str | dict) else part.model_dump(exclude_none=True)
            if isinstance(data, str) or data.get("type") == "text":
                text = data if isinstance(data, str) else data.get("text", "")
                part_id = vercel.get("id") if index == 0 and "id" in vercel else f"text-{action.sequence}-{index}"
                yield from self._text_chunks("text", part_id, text, vercel)
            elif "media_category" in data:
                yield _media_chunk(data, vercel)
            else:
                yield {"type": "data-unknown_part", "data": data}

    def _text_chunks(self, kind: str, part_id: str, text: str, vercel: dict[str, Any]) -> Iterator[Chunk]:
        start, delta, end = (
            (rt.TextStartChunk, rt.TextDeltaChunk, rt.TextEndChunk)
            if kind == "text"
            else (rt.ReasoningStartChunk, rt.ReasoningDeltaChunk, rt.ReasoningEndChunk)
        )
        yield _dump(start(id=part_id))
        if text:
            yield _dump(delta(id=part_id, delta=text))
        if vercel.get("state") != "streaming":
            yield _dump(end(id=part_id, provider_metadata=vercel.get("provider_metadata")), vercel.get("extra"))

    def _thinking(self, action: Thinking, vercel: dict[str, Any]) -> Iterator[Chunk]:
        part_id = vercel.get("id") or action.thinking_id or f"reasoning-{action.sequence}"
        if "provider_metadata" not in vercel and (action.signature or action.provider_name != "unknown"):
            vercel = {**vercel, "provider_metadata": thinking_provider_metadata(action)}
        yield from self._text_chunks("reasoning", part_id, action.content or "", vercel)

    def _call(self, action: ToolCall, vercel: dict[str, Any]) -> Iterator[Chunk]:
        flags = {k: vercel[k] for k in ("dynamic", "provider_executed") if k in vercel}
        if vercel.get("streamed"):
            start = rt.ToolInputStartChunk(tool_call_id=action.tool_call_id, tool_name=action.tool_name, **flags)
            yield _dump(start, {"title": vercel["title"]} if "title" in vercel else None)
            if action.args is not None:
                text = action.args if isinstance(action.args, str) else orjson.dumps(action.args).decode()
                yield _dump(rt.ToolInputDeltaChunk(tool_call_id=action.tool_call_id, input_text_delta=text))
        outcome = self.outcomes.get(action.tool_call_id)
        if outcome is not None and vercel_of(outcome).get("input_error"):
            return  # its input-error chunk carries the input (see _return)
        if not vercel.get("input_incomplete") and not vercel.get("input_from_deltas"):  # else the deltas alone carry it
            extra = {"title": vercel["title"]} if "title" in vercel and not vercel.get("streamed") else {}
            extra.update(vercel.get("extra") or {})
            available = rt.ToolInputAvailableChunk(
                tool_call_id=action.tool_call_id, tool_name=action.tool_name, input=action.args, provider_metadata=vercel.get("provider_metadata"), **flags
            )
            yield _dump(available, extra)
        approval = vercel.get("approval")
        if isinstance(approval, dict) and approval.get("id"):
            request = rt.ToolApprovalRequestChunk(approval_id=approval["id"], tool_call_id=action.tool_call_id)
            yield _dump(request, {k: v for k, v in approval.items() if k != "id"})

    def _return(self, action: ToolReturn, vercel: dict[str, Any]) -> Iterator[Chunk]:
        flags = {k: vercel[k] for k in ("dynamic", "provider_executed") if k in vercel}
        call_id = action.tool_call_id
        if vercel.get("input_error"):
            call = next((a for a in self.thread.actions if isinstance(a, ToolCall) and a.tool_call_id == call_id), None)
            error_text = _text(action.content)
            yield _dump(
                rt.ToolInputErrorChunk(tool_call_id=call_id, tool_name=action.tool_name, input=call.args if call else None, error_text=error_text, **flags)
            )
            if vercel.get("output_error"):
                yield _dump(rt.ToolOutputErrorChunk(tool_call_id=call_id, error_text=error_text, **flags))
        elif vercel.get("denied") or (not vercel and self.resolved.get(call_id, {}).get("resolution") == "denied"):
            yield _dump(rt.ToolOutputDeniedChunk(tool_call_id=call_id))
        elif action.status == "success":
            yield _dump(rt.ToolOutputAvailableChunk(tool_call_id=call_id, output=action.content, preliminary=vercel.get("preliminary"), **flags))
        else:
            yield _dump(rt.ToolOutputErrorChunk(tool_call_id=call_id, error_text=_text(action.content), **flags))

    def _system(self, action: BaseAction, vercel: dict[str, Any]) -> Iterator[Chunk]:
        data = getattr(action, "data", None)
        name = action.action_type.removeprefix("system.")
        kind = vercel.get("type")
        if isinstance(kind, str) and kind.startswith("data-"):
            chunk: Chunk = {"type": kind}
            if "id" in vercel:
                chunk["id"] = vercel["id"]
            chunk["data"] = data
            if vercel.get("transient"):
                chunk["transient"] = True
            yield chunk
        elif name == "unknown_chunk" and isinstance(data, dict):
            yield data
        elif name == "error":
            yield _dump(rt.ErrorChunk(error_text=_text(data.get("error_text") if isinstance(data, dict) else data)))
        elif name == "abort":
            yield _dump(rt.AbortChunk(reason=data.get("reason") if isinstance(data, dict) else None))
        elif name == "custom" and isinstance(data, dict):
            yield {"type": "custom", "kind": data.get("kind"), **({"providerMetadata": data["provider_metadata"]} if "provider_metadata" in data else {})}
        elif name == "reset_step":
            yield {"type": "reset-step"}
        elif action.action_type in _SKIPPED_SYSTEM and vercel:
            return  # derived again from the chunks around it when read back
        else:  # any other system action travels as a data part of the same name
            yield {"type": f"data-{name}", "data": data}


def _text(value: Any) -> str:
    if isinstance(value, str):
        return value
    return orjson.dumps(value, default=str).decode()


_MEDIA_CHUNKS: dict[str, Any] = {"source-url": rt.SourceUrlChunk, "source-document": rt.SourceDocumentChunk, "file": rt.FileChunk}


def _media_chunk(part: dict[str, Any], vercel: dict[str, Any]) -> Chunk:
    kind, fields = media_fields(part)
    if kind == "reasoning-file":  # v7 only: pydantic-ai has no model for it
        return {"type": kind, "url": fields["url"], "mediaType": fields["media_type"]}
    if kind != "file" and vercel.get("provider_metadata"):
        fields["provider_metadata"] = vercel["provider_metadata"]
    return _dump(_MEDIA_CHUNKS[kind](**fields))


def _steering_parts(content: Any) -> list[dict[str, Any]]:
    parts = [content] if isinstance(content, str) else list(content or [])
    out: list[dict[str, Any]] = []
    for part in parts:
        data = part if isinstance(part, str | dict) else part.model_dump(exclude_none=True)
        if isinstance(data, str):
            out.append({"type": "text", "text": data})
        elif data.get("type") == "text":
            out.append({"type": "text", "text": data.get("text", "")})
        elif "media_category" in data:
            out.append({"type": "file", "mediaType": data["media_type"], "url": media_url(data)})
    return out
