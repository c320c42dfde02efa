"""Thread → persisted ``UIMessage[]`` (what ``useChat`` stores and sends back).

Responses that share a message id fold into one UIMessage, as the AI SDK client folds an
approval continuation into the message it continues. Each tool call becomes one tool part
whose ``state`` says how it ended (output-available / output-error / output-denied /
approval-requested / approval-responded / input-available). Parts are built with pydantic-ai's
UI part models, so the result validates against ``pydantic_ai.ui.vercel_ai.request_types``.
Transient data parts, stream errors and aborts are not stored, exactly as the AI SDK does."""

from __future__ import annotations

from typing import Any

import orjson
from pydantic_ai.ui.vercel_ai import request_types as rq

from threadlab.core.loss import report_loss
from threadlab.core.model import AssistantMessage, BaseAction, Thinking, Thread, ToolCall, ToolReturn, UserMessage
from threadlab.formats.common.losses import thread_losses
from threadlab.formats.vercel_ai.chat import derived_thread_id
from threadlab.formats.vercel_ai.grouping import (
    Response,
    ThreadView,
    media_fields,
    responses,
    thinking_provider_metadata,
    vercel_of,
)
from threadlab.formats.vercel_ai.losses import MESSAGES_FORMAT, MESSAGES_REASONS
from threadlab.formats.vercel_ai.messages import from_ui_messages
from threadlab.formats.vercel_ai.write_v4 import is_v4, v4_message

Part = dict[str, Any]
_NOT_STORED = ("system.error", "system.abort", "system.unknown_chunk", "system.message_metadata", "system.reset_step", "system.tool_resolved")


def _dump(model: Any, extra: dict[str, Any] | None = None) -> Part:
    part = model.model_dump(mode="json", by_alias=True)  # pydantic-ai's serializer drops unset optionals
    if extra:
        part.update({k: v for k, v in extra.items() if k not in part})
    return part


def to_ui_messages(thread: Thread) -> list[dict[str, Any]]:
    """The thread as a JSON-ready ``UIMessage[]`` (the v4 ``Message`` shape for messages read
    from v4 data). A ``WriteLoss`` warning names what the messages cannot hold."""
    messages = ui_messages(thread)
    check_messages(thread, messages, list_only=True)
    return messages


def ui_messages_body(thread: Thread) -> Any:
    """What ``from_thread`` writes: the ``UIMessage[]``, or - when the thread's id is not the
    one reading the list back would give it - the request body ``{"id", "messages"}`` that
    carries the chat id (``useChat`` sends this shape). Warns ``WriteLoss`` as ``to_ui_messages``."""
    messages = ui_messages(thread)
    body: Any = messages
    if derived_thread_id(messages, thread.origin[0]) != thread.thread_id:
        body = {"id": thread.thread_id, "messages": messages}
    check_messages(thread, body)
    return body


def _read_back(thread: Thread, value: Any) -> Thread:
    return from_ui_messages(orjson.loads(orjson.dumps(value)), name=thread.origin[0])


def check_messages(thread: Thread, value: Any, *, list_only: bool = False) -> None:
    """Warn ``WriteLoss`` naming what of ``thread`` reading ``value`` back does not give."""
    reasons = dict(MESSAGES_REASONS)
    if list_only:
        reasons["the thread's thread id"] = "a UIMessage[] has no chat id; from_thread writes {id, messages} to keep it"
    report_loss(MESSAGES_FORMAT, thread.thread_id, thread_losses(thread, _read_back(thread, value), reasons))


def ui_messages(thread: Thread) -> list[dict[str, Any]]:
    """``to_ui_messages`` without the check."""
    writer = _MessagesWriter(thread)
    messages: list[dict[str, Any]] = []
    by_id: dict[str, dict[str, Any]] = {}
    for index, response in enumerate(responses(thread)):
        message_id = response.message_id or f"{thread.thread_id}-{index}"
        existing = by_id.get(message_id)
        if existing is not None and existing["role"] == response.role and not is_v4(response):
            existing["parts"].extend(writer.parts(response, continuing=True))
            meta = writer.metadata(response)
            if meta:
                existing["metadata"] = {**(existing.get("metadata") or {}), **meta}
            continue
        if is_v4(response):
            message = v4_message(writer, response, message_id)
            by_id[message_id] = message
            messages.append(message)
            continue
        message = {"id": message_id, "role": response.role}
        meta = writer.metadata(response)
        if meta:
            message["metadata"] = meta
        message["parts"] = writer.parts(response, continuing=False)
        by_id[message_id] = message
        messages.append(message)
    return messages


class _MessagesWriter(ThreadView):
    def metadata(self, response: Response) -> dict[str, Any] | None:
        return self.message_metadata(response)

    def parts(self, response: Response, *, continuing: bool) -> list[Part]:
        if response.role == "user":
            return [p for a in response.actions for p in self._user(a)]
        if response.role == "system":
            return [p for a in response.actions for p in (vercel_of(a).get("parts") or [{"type": "text", "text": (getattr(a, "data", None) or {}).get("text", "")}])]
        parts: list[Part] = []
        step = 0 if not continuing else -1
        agent = self.first_agent(response)
        for action, action_step in zip(response.actions, response.steps, strict=True):
            if action_step != step:
                if action_step > 0:
                    parts.append(_dump(rq.StepStartUIPart()))
                step = action_step
            agent, switch = self.agent_part(action, agent)
            if switch:
                parts.append(switch)
            parts.extend(self._assistant(action))
        return parts

    def _user(self, action: BaseAction) -> list[Part]:
        if not isinstance(action, UserMessage):
            return self._assistant(action)
        content = action.content
        extras = vercel_of(action).get("part_extra") or []  # a text part's other fields, as they came
        extra = lambda i: extras[i] if i < len(extras) and isinstance(extras[i], dict) else None  # noqa: E731
        if isinstance(content, str):
            return [_dump(rq.TextUIPart(text=content), extra(0))]
        out: list[Part] = []
        for i, part in enumerate(content):
            data = part.model_dump(exclude_none=True) if hasattr(part, "model_dump") else dict(part)
            if data.get("type") == "text":
                out.append(_dump(rq.TextUIPart(text=data.get("text", "")), extra(i)))
            elif "media_category" in data:
                out.append(_media_part(data))
        return out

    def _assistant(self, action: BaseAction) -> list[Part]:
        vercel = vercel_of(action)
        provider_metadata = vercel.get("provider_metadata")
        if isinstance(action, AssistantMessage):
            content = action.content
            if isinstance(content, str):
                return [_dump(rq.TextUIPart(text=content, state=_state(vercel), provider_metadata=provider_metadata))]
            out: list[Part] = []
            for part in content:
                data = part.model_dump(exclude_none=True) if hasattr(part, "model_dump") else dict(part)
                if data.get("type") == "text":
                    out.append(_dump(rq.TextUIPart(text=data.get("text", ""), state="done")))
                elif "media_category" in data:
                    out.append(_media_part(data, provider_metadata))
            return out
        if isinstance(action, Thinking):
            if provider_metadata is None and (action.signature or action.provider_name != "unknown"):
                provider_metadata = thinking_provider_metadata(action)
            part_id = vercel.get("id", action.thinking_id)
            return [_dump(rq.ReasoningUIPart(id=part_id, text=action.content or "", state=_state(vercel), provider_metadata=provider_metadata))]
        if isinstance(action, ToolCall):
            return [self._tool(action, vercel)]
        if isinstance(action, ToolReturn):
            return [] if action.tool_call_id in self._called else [self._orphan(action)]
        kind = vercel.get("type")
        if action.action_type in _NOT_STORED or vercel.get("transient"):
            return []
        data = getattr(action, "data", None)
        if isinstance(kind, str) and kind.startswith("data-"):
            return [_dump(rq.DataUIPart(type=kind, id=vercel.get("id"), data=data))]
        if action.action_type == "system.unknown_part":
            return [data] if isinstance(data, dict) else []
        if action.action_type.startswith("system."):
            return [{"type": f"data-{action.action_type.removeprefix('system.')}", "data": data}]
        return []

    @property
    def _called(self) -> set[str]:
        if not hasattr(self, "_calls"):
            self._calls = {a.tool_call_id for a in self.thread.actions if isinstance(a, ToolCall)}
        return self._calls

    def _tool(self, call: ToolCall, vercel: dict[str, Any]) -> Part:
        outcome = self.outcomes.get(call.tool_call_id)
        resolved = self.resolved.get(call.tool_call_id)
        approval_id = (vercel.get("approval") or {}).get("id") or (resolved or {}).get("approval_id")
        fields: dict[str, Any] = {"tool_call_id": call.tool_call_id, "input": call.args}
        if vercel.get("provider_executed") is not None:
            fields["provider_executed"] = vercel["provider_executed"]
        if vercel.get("title") is not None:
            fields["title"] = vercel["title"]
        if vercel.get("provider_metadata"):
            fields["call_provider_metadata"] = vercel["provider_metadata"]
        if approval_id:
            if resolved is not None:
                approved = resolved.get("resolution") != "denied"
                fields["approval"] = rq.ToolApprovalResponded(id=approval_id, approved=approved, reason=resolved.get("denial_reason"))
            else:
                fields["approval"] = rq.ToolApprovalRequested(id=approval_id)
        out_vercel = vercel_of(outcome) if outcome is not None else {}
        if outcome is None:
            state = ("approval-responded" if resolved is not None else "approval-requested") if approval_id else "input-available"
            if vercel.get("input_incomplete"):
                state = "input-streaming"
        elif out_vercel.get("denied") or (resolved or {}).get("resolution") == "denied":
            state = "output-denied"
        elif outcome.status == "success":
            state = "output-available"
            fields["output"] = outcome.content
            if out_vercel.get("preliminary") is not None:
                fields["preliminary"] = out_vercel["preliminary"]
        else:
            state = "output-error"
            fields["error_text"] = outcome.content if isinstance(outcome.content, str) else str(outcome.content)
        return _tool_part(call.tool_name, bool(vercel.get("dynamic")), state, fields)

    def _orphan(self, ret: ToolReturn) -> Part:
        fields: dict[str, Any] = {"tool_call_id": ret.tool_call_id, "input": None}
        if ret.status == "success":
            return _tool_part(ret.tool_name, True, "output-available", {**fields, "output": ret.content})
        return _tool_part(ret.tool_name, True, "output-error", {**fields, "error_text": str(ret.content)})


_STATIC = {cls.model_fields["state"].default: cls for cls in rq.ToolUIPart.__args__}  # type: ignore[attr-defined]
_DYNAMIC = {cls.model_fields["state"].default: cls for cls in rq.DynamicToolUIPart.__args__}  # type: ignore[attr-defined]


def _tool_part(name: str, dynamic: bool, state: str, fields: dict[str, Any]) -> Part:
    if dynamic:
        return _dump(_DYNAMIC[state](tool_name=name, **fields))
    return _dump(_STATIC[state](type=f"tool-{name}", **fields))


def _state(vercel: dict[str, Any]) -> str:
    return "streaming" if vercel.get("state") == "streaming" else "done"


_MEDIA_PARTS: dict[str, Any] = {"source-url": rq.SourceUrlUIPart, "source-document": rq.SourceDocumentUIPart, "file": rq.FileUIPart}


def _media_part(data: dict[str, Any], provider_metadata: Any = None) -> Part:
    kind, fields = media_fields(data)
    if kind == "reasoning-file":  # v7 only: pydantic-ai has no model for it
        return {"type": kind, "mediaType": fields["media_type"], "url": fields["url"]}
    if kind == "file" and data.get("identifier"):
        fields["filename"] = data["identifier"]
    return _dump(_MEDIA_PARTS[kind](**fields, provider_metadata=provider_metadata))
