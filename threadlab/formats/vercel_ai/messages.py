"""Persisted ``UIMessage[]`` → Thread.

A UIMessage is what the AI SDK client holds once a response has streamed in: tool parts carry
their final ``state`` instead of a sequence of chunks. Each part is checked with pydantic-ai's
own UI part models (kept unknown keys allowed); a part nobody knows is kept as
``system.unknown_part``. Tool results are placed at the end of the step that made the calls,
which is where the stream delivers them too; approvals give ``system.tool_resolved``."""

from __future__ import annotations

import os
from collections.abc import Mapping
from functools import cache
from typing import Any

from pydantic import BaseModel, ValidationError

from threadlab.core.authors import harness_metadata
from threadlab.core.builder import ThreadBuilder
from threadlab.core.model import Thread
from threadlab.formats.common.source import Source
from threadlab.formats.vercel_ai.assemble import AgentOf, Assembler, Slot, Turn, media_part, signature_of, system_name
from threadlab.formats.vercel_ai.chat import as_message_list, chat_id_of, derived_thread_id
from threadlab.formats.vercel_ai.chunks import extra_of, keep_extra
from threadlab.formats.vercel_ai.losses import MESSAGES_FORMAT
from threadlab.formats.vercel_ai.messages_v4 import is_v4_message, read_v4
from threadlab.formats.vercel_ai.pai_models import request_types as rq

MEDIA_PARTS = ("file", "source-url", "source-document", "reasoning-file")


def _part_bases() -> dict[str, Any]:
    """part type (or ``tool:<state>`` / ``dynamic:<state>``) → pydantic-ai's model."""
    models: dict[str, Any] = {}
    for cls in (rq.TextUIPart, rq.ReasoningUIPart, rq.SourceUrlUIPart, rq.SourceDocumentUIPart, rq.FileUIPart, rq.StepStartUIPart):
        models[cls.model_fields["type"].default] = cls
    for union, prefix in ((rq.ToolUIPart, "tool"), (rq.DynamicToolUIPart, "dynamic")):
        for cls in union.__args__:  # type: ignore[attr-defined]
            models[f"{prefix}:{cls.model_fields['state'].default}"] = cls
    models["data"] = rq.DataUIPart
    return models


_PART_BASES = _part_bases()


@cache
def _part_model(key: str) -> Any:
    """The extra-keeping model of one part key, made on first use (a file pays only for the
    part types it holds)."""
    return keep_extra(_PART_BASES[key])


def _model_for(part: Mapping[str, Any]) -> Any:
    kind = part.get("type")
    if not isinstance(kind, str):
        return None
    if kind == "dynamic-tool":
        key = f"dynamic:{part.get('state')}"
    elif kind.startswith("tool-"):
        key = f"tool:{part.get('state')}"
    elif kind.startswith("data-"):
        key = "data"
    else:
        key = kind
    return _part_model(key) if key in _PART_BASES else None


Outcome = str | None  # what became of a record with a problem: None (converted anyway), "kept", "failed"


class _MessageReader:
    """Reads messages onto an assembler and keeps the account of their records: each part of a
    message is one (a message without parts is one), converted, kept or failed."""

    def __init__(self, assembler: Assembler) -> None:
        self.assembler = assembler
        self.problems: list[tuple[str, str, Outcome]] = []
        self.converted = 0
        self.where = ""

    def problem(self, rule: str, message: str) -> None:
        self.problems.append((rule, f"{self.where}: {message}", None))

    def took(self, n: int = 1) -> None:
        self.converted += n

    def kept(self, rule: str, message: str) -> None:
        self.problems.append((rule, f"{self.where}: {message}", "kept"))

    def read(self, index: int, raw: Any) -> None:
        self.where = f"message #{index + 1}"
        message = raw.model_dump(mode="json", by_alias=True, exclude_none=True) if isinstance(raw, BaseModel) else raw
        if not isinstance(message, Mapping):
            self.kept("schema", f"is a {type(message).__name__}, not a UIMessage object; kept as system.unknown_message")
            turn = Turn()
            turn.add("system.unknown_message", data=message)
            self.assembler.add_turn(turn)
            return
        role, parts, meta = message.get("role"), message.get("parts"), message.get("metadata")
        self.where = f"message #{index + 1} ({message.get('id')!r})"
        turn = Turn(role=role if isinstance(role, str) else "assistant", message_id=message.get("id"))
        if is_v4_message(message):
            read_v4(self, turn, message)
            self.assembler.add_turn(turn)
            return
        if isinstance(meta, Mapping):
            turn.metadata = dict(meta)
        elif meta is not None:
            turn.metadata = {"value": meta}
        extra = {k: v for k, v in message.items() if k not in ("id", "role", "parts", "metadata")}
        if extra:
            turn.extra.update(extra)
        if not isinstance(parts, list):
            self.kept("schema", f"parts must be a list, got {type(parts).__name__}; the message is kept as system.unknown_message")
            turn.add("system.unknown_message", data=dict(message))
            self.assembler.add_turn(turn)
            return
        if role not in ("user", "assistant", "system"):
            self.problem("schema", f"role {role!r} is not user, assistant or system; read as assistant")
        if not parts:
            self.took()  # a message without parts is one record: its id, role and metadata
        if role == "user":
            self._user(turn, parts)
        elif role == "system":
            slot = turn.add("system.system_prompt", data={"text": "".join(p.get("text", "") for p in parts if isinstance(p, Mapping))})
            slot.vercel["parts"] = parts
            slot.meta.update(retry_feedback(parts))
            self.took(len(parts))
        else:
            self._assistant(turn, parts)
        self.assembler.add_turn(turn)

    # --- user -----------------------------------------------------------------------------
    def _user(self, turn: Turn, parts: list[Any]) -> None:
        content: list[dict[str, Any]] = []
        extras: list[dict[str, Any]] = []  # a text part's other fields (state, providerMetadata), per content part
        others: list[tuple[int, Any]] = []
        for position, part in enumerate(parts):
            kind = part.get("type") if isinstance(part, Mapping) else None
            if kind == "text":
                content.append({"type": "text", "text": part.get("text", "")})
                extras.append({k: v for k, v in part.items() if k not in ("type", "text")})
            elif kind in MEDIA_PARTS:
                content.append(self._media(part))
                extras.append({})
            else:
                others.append((position, part))
                continue
            self.took()
        slot = None
        if len(content) == 1 and content[0]["type"] == "text":
            slot = turn.add("user_message", content=content[0]["text"])
        elif content or not others:
            slot = turn.add("user_message", content=content)
        if slot is not None and any(extras):
            slot.vercel["part_extra"] = extras
            slot.meta.update(retry_feedback(extras))
        for position, part in others:
            self._other(turn, part, position)

    # --- assistant ------------------------------------------------------------------------
    def _assistant(self, turn: Turn, parts: list[Any]) -> None:
        results: list[tuple[Slot, Any]] = []  # tool parts whose outcome goes at the end of the step
        for position, part in enumerate(parts):
            if not isinstance(part, Mapping):
                self.kept("schema", f"part #{position + 1} is a {type(part).__name__}, not an object; kept as system.unknown_part")
                turn.add("system.unknown_part", data=part)
                continue
            model = _model_for(part)
            if model is None:
                self._other(turn, part, position)
                continue
            fields = {k: v for k, v in part.items() if k != "approval"}
            try:
                parsed = model.model_validate(fields)
            except ValidationError as exc:
                err = exc.errors()[0]
                where = ".".join(str(p) for p in err["loc"]) or "part"
                self.kept("schema", f"part #{position + 1} ({part.get('type')}) breaks the UIMessage schema ({where}: {err['msg']}); kept as system.unknown_part")
                turn.add("system.unknown_part", data=dict(part))
                continue
            self.took()
            kind = parsed.type
            if kind == "step-start":
                self._results(turn, results)
                turn.step += 1
            elif kind in ("text", "reasoning"):
                self._text(turn, parsed)
            elif kind == "dynamic-tool" or kind.startswith("tool-"):
                results.append((self._tool_call(turn, parsed, part), part))
            elif kind in MEDIA_PARTS:
                slot = turn.add("assistant_message", agent=True, content=[self._media(part)])
                self._keep(slot, parsed)
            else:  # data-*
                self._data(turn, parsed)
        self._results(turn, results)

    def _keep(self, slot: Slot, parsed: Any) -> None:
        provider_metadata = getattr(parsed, "provider_metadata", None) or getattr(parsed, "call_provider_metadata", None)
        if provider_metadata:
            slot.vercel["provider_metadata"] = provider_metadata
        extra = extra_of(parsed)
        if extra:
            slot.vercel["extra"] = extra

    def _text(self, turn: Turn, parsed: Any) -> None:
        if parsed.type == "text":
            slot = turn.add("assistant_message", agent=True)
        else:
            slot = turn.add("thinking", agent=True)
            provider, signature = signature_of(parsed.provider_metadata)
            if parsed.id is not None:
                slot.fields["thinking_id"] = parsed.id
                slot.vercel["id"] = parsed.id
            if provider:
                slot.fields["provider_name"] = provider
            if signature:
                slot.fields["signature"] = signature
        slot.pieces = [parsed.text]
        if parsed.state == "streaming":
            slot.vercel["state"] = "streaming"
        self._keep(slot, parsed)

    def _tool_call(self, turn: Turn, parsed: Any, part: Mapping[str, Any]) -> Slot:
        dynamic = parsed.type == "dynamic-tool"
        name = parsed.tool_name if dynamic else parsed.type.removeprefix("tool-")
        args = parsed.input
        if args is None and "rawInput" in part:
            args = part["rawInput"]
        slot = turn.add("tool_call", agent=True, tool_call_id=parsed.tool_call_id, tool_name=name, args=args)
        if dynamic:
            slot.vercel["dynamic"] = True
        if parsed.provider_executed is not None:
            slot.vercel["provider_executed"] = parsed.provider_executed
        if parsed.title is not None:
            slot.vercel["title"] = parsed.title
        if isinstance(part.get("approval"), Mapping):
            slot.vercel["approval"] = {"id": part["approval"].get("id")}
        if parsed.state == "input-streaming":
            slot.vercel["input_incomplete"] = True
        self._keep(slot, parsed)
        return slot

    def _results(self, turn: Turn, results: list[tuple[Slot, Any]]) -> None:
        """The outcomes of the step's tool parts, in part order."""
        for call, part in results:
            state = part.get("state")
            approval = part.get("approval") if isinstance(part.get("approval"), Mapping) else None
            call_id, tool_name = call.fields["tool_call_id"], call.fields["tool_name"]
            if approval is not None and isinstance(approval.get("approved"), bool):
                resolved = {"tool_call_id": call_id, "resolution": "approved" if approval["approved"] else "denied", "resolved_by": "user"}
                resolved["approval_id"] = approval.get("id")
                if approval.get("reason"):
                    resolved["denial_reason"] = approval["reason"]
                turn.add("system.tool_resolved", data=resolved)
            if state == "output-available":
                slot = turn.add("tool_return", tool_call_id=call_id, tool_name=tool_name, status="success", content=part.get("output"))
                if part.get("preliminary") is not None:
                    slot.vercel["preliminary"] = part["preliminary"]
            elif state == "output-error":
                slot = turn.add("tool_return", tool_call_id=call_id, tool_name=tool_name, status="error", content=part.get("errorText"))
                if "rawInput" in part and part.get("input") is None:
                    slot.vercel["input_error"] = True
            elif state == "output-denied":
                turn.add("tool_return", tool_call_id=call_id, tool_name=tool_name, status="error", content="denied").vercel["denied"] = True
        results.clear()

    def _media(self, part: Mapping[str, Any]) -> dict[str, Any]:
        kind = str(part.get("type"))
        return media_part(
            kind,
            url=part.get("url"),
            media_type=part.get("mediaType"),
            identifier=part.get("sourceId") or (part.get("filename") if kind == "file" else None),
            title=part.get("title"),
            filename=part.get("filename") if kind != "file" else None,
        )

    def _data(self, turn: Turn, parsed: Any) -> None:
        name = self.assembler.agent_of(parsed.type, parsed.data)
        if name:
            turn.agent = name
        slot = turn.add(system_name(parsed.type), data=parsed.data)
        slot.vercel["type"] = parsed.type
        if parsed.id is not None:
            slot.vercel["id"] = parsed.id
        self._keep(slot, parsed)

    def _other(self, turn: Turn, part: Any, position: int) -> None:
        kind = part.get("type") if isinstance(part, Mapping) else None
        if isinstance(kind, str) and kind.startswith("data-"):
            try:
                self._data(turn, _part_model("data").model_validate(part))
                self.took()
                return
            except ValidationError:
                pass
        if kind == "custom" and isinstance(part, Mapping):
            turn.add("system.custom", data={k: v for k, v in part.items() if k != "type"})
            self.took()
        else:
            turn.add("system.unknown_part", data=part)
            what = f"of type {kind!r}" if kind is not None else f"that is a {type(part).__name__}"
            self.kept("unknown-type", f"part #{position + 1} is {what}, which no AI SDK {turn.role} message part is; kept as system.unknown_part")


def read_messages(assembler: Assembler, messages: Any) -> tuple[int, list[tuple[str, str, Outcome]]]:
    """Add the messages' actions to the assembler's builder; returns how many records were
    converted and the problems found (each with what became of its record)."""
    reader = _MessageReader(assembler)
    items = as_message_list(messages)
    for index, raw in enumerate(items):
        reader.read(index, raw)
    if not items:
        reader.problems.append(("empty", "holds no UIMessages", None))
    return reader.converted, reader.problems


def account(builder: ThreadBuilder, converted: int, problems: list[tuple[str, str, Outcome]], *, line: int | None = None) -> None:
    """Put what ``read_messages`` found on the builder: the records it converted, and each
    problem as the outcome of its record (kept, failed) or as a problem alone."""
    builder.took(converted)
    report = {None: builder.problem, "kept": builder.kept, "failed": builder.failed}
    for rule, message, outcome in problems:
        report[outcome](rule, message, line=line)


def from_ui_messages(
    messages: Any,
    *,
    thread_id: str | None = None,
    agent_name: str | None = None,
    agent_of: AgentOf | None = None,
    title: str | None = None,
    name: str | None = None,
) -> Thread:
    """Read persisted Vercel AI SDK ``UIMessage[]`` (v5-v7; every part type and tool state,
    ``tool-<name>`` and ``dynamic-tool``) into a Thread. ``agent_of`` and ``agent_name`` as in
    ``from_ui_stream``."""
    if isinstance(messages, str | bytes | os.PathLike):
        messages = Source(messages).json()  # parsed once, for both the chat id and the messages
    thread_id = thread_id or chat_id_of(messages)
    items = as_message_list(messages)
    thread_id = thread_id or derived_thread_id(items, name)
    builder = ThreadBuilder(thread_id, title=title if title is not None else _title(items), source=name)
    converted, problems = read_messages(Assembler(builder, agent_name=agent_name, agent_of=agent_of), items)
    account(builder, converted, problems)
    thread = builder.build()
    thread.origin = (name, MESSAGES_FORMAT)
    return thread


def _title(items: list[Any]) -> str:
    for message in items:
        if isinstance(message, Mapping) and message.get("role") == "user":
            parts = message.get("parts")
            if not parts and isinstance(message.get("content"), str):  # AI SDK v4, before parts
                parts = [{"type": "text", "text": message["content"]}]
            for part in parts if isinstance(parts, list) else ():
                if isinstance(part, Mapping) and part.get("type") == "text" and part.get("text"):
                    text = " ".join(str(part["text"]).split())
                    return text if len(text) <= 80 else text[:79] + "…"
    return ""


def retry_feedback(parts: list[Any]) -> dict[str, str]:
    """``author: harness`` for a message pydantic-ai's AI SDK adapter dumped from its own retry
    feedback (a response it could not use): it puts the ``retry-feedback`` part in the text
    part's ``providerMetadata.pydantic_ai.retry_feedback``, the marker its ``load_messages``
    rebuilds the part from; a message a person wrote has none."""
    def marked(part: Any) -> bool:
        meta = part.get("providerMetadata") if isinstance(part, Mapping) else None
        own = meta.get("pydantic_ai") if isinstance(meta, Mapping) else None
        feedback = own.get("retry_feedback") if isinstance(own, Mapping) else None
        return isinstance(feedback, Mapping) and feedback.get("part_kind") == "retry-feedback"

    return harness_metadata("retry_feedback") if parts and all(marked(p) for p in parts) else {}
