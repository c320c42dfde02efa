"""AI SDK v4 ``Message`` (npm ``ai`` 4.x, ``@ai-sdk/ui-utils``) → the same actions as v5+.

v4 persisted chats hold ``content`` (the text), ``toolInvocations`` (each tool call with its
``state``: ``partial-call``, ``call``, ``result``) and, from 4.2 on, ``parts`` (``text``,
``reasoning`` with ``details``, ``tool-invocation``, ``source``, ``file`` with base64
``data``, ``step-start``), beside ``createdAt``, ``annotations`` and ``experimental_attachments``.
Tool invocations become real tool calls and returns (a ``result`` is the call's return, at the
end of its step, as in v5). The parts are the records when a message has them (``content``,
``reasoning`` and ``toolInvocations`` then repeat them); a message without parts (4.0, 4.1)
is one record read from those fields.

What v4 has and a v5 thread does not is kept under ``metadata.vercel_ai.v4`` on the message's
first action, so the writer gives the v4 message back: for ``content``, ``reasoning`` and
``toolInvocations`` either ``true`` (the field repeats the parts exactly) or the value as it
came; ``parts`` when the message had none (``null``) or an empty list."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Protocol

from threadlab.formats.vercel_ai.assemble import Slot, Turn, media_category, timestamp_of

V4_PART_TYPES = frozenset({"tool-invocation", "source"})
# message keys this module reads into actions (every other key is kept as it came)
_READ_KEYS = frozenset({"id", "role", "parts", "content", "reasoning", "toolInvocations", "experimental_attachments"})
_INVOCATION_KEYS = frozenset({"state", "step", "toolCallId", "toolName", "args", "result"})
V4_STATES = ("partial-call", "call", "result")


class Reader(Protocol):
    """The account keeper of ``messages._MessageReader``."""

    def took(self, n: int = 1) -> None: ...

    def kept(self, rule: str, message: str) -> None: ...

    def problem(self, rule: str, message: str) -> None: ...


def is_v4_message(message: Mapping[str, Any]) -> bool:
    """A v4 ``Message``: it has ``content`` or ``toolInvocations`` (v5+ UIMessages have
    neither), or a part only v4 has."""
    if "content" in message or "toolInvocations" in message:
        return True
    parts = message.get("parts")
    if not isinstance(parts, list):
        return False
    for part in parts[:64]:
        if isinstance(part, Mapping):
            kind = part.get("type")
            if not isinstance(kind, str):
                continue
            if kind in V4_PART_TYPES or (kind == "reasoning" and "reasoning" in part) or (kind == "file" and "mimeType" in part):
                return True
    return False


def _joined(parts: list[Any], kind: str, key: str) -> str:
    return "".join(str(p.get(key, "")) for p in parts if isinstance(p, Mapping) and p.get("type") == kind)


def _flag(meta: dict[str, Any], name: str, value: Any, derived: Any) -> None:
    """``meta[name]``: true when the field repeats what the parts give, else the value itself."""
    meta[name] = True if value == derived else value


def read_v4(reader: Reader, turn: Turn, message: Mapping[str, Any]) -> None:
    """Add one v4 message's actions to ``turn`` and account for its records."""
    meta: dict[str, Any] = {}
    turn.head["v4"] = meta
    extra = {k: v for k, v in message.items() if k not in _READ_KEYS}
    if extra:
        turn.extra.update(extra)
    if "createdAt" in message:
        said: list[str] = []
        turn.when = timestamp_of({"createdAt": message["createdAt"]}, said)
        for phrase in said:
            reader.problem("schema", phrase)
    parts = message.get("parts")
    if not isinstance(parts, list) or not parts:
        meta["parts"] = parts if isinstance(parts, list) else None
        for key, name in (("content", "content"), ("reasoning", "reasoning"), ("toolInvocations", "tool_invocations")):
            if key in message:  # read into actions below when of the v4 shape; else kept as it came
                meta[name] = True if _of_v4_shape(key, message[key]) else message[key]
                if meta[name] is not True:
                    reader.problem("schema", f"{key} is not of the AI SDK v4 shape; kept as it came in metadata.vercel_ai.v4")
        parts = _parts_of_fields(message)
        reader.took()  # the message itself is the record
        counted = False
    else:
        counted = True
        if "content" in message:
            _flag(meta, "content", message["content"], _joined(parts, "text", "text"))
        if "reasoning" in message:
            _flag(meta, "reasoning", message["reasoning"], _joined(parts, "reasoning", "reasoning"))
        if "toolInvocations" in message:
            derived = [p.get("toolInvocation") for p in parts if isinstance(p, Mapping) and p.get("type") == "tool-invocation"]
            _flag(meta, "tool_invocations", message["toolInvocations"], derived)
    role = message.get("role")
    if role == "user":
        _user(reader, turn, parts, message, meta, counted)
    elif role == "system":
        slot = turn.add("system.system_prompt", data={"text": _joined(parts, "text", "text")})
        if counted:
            slot.vercel["parts"] = parts
            reader.took(len(parts))
    elif role == "data":
        turn.add("system.data_message", data={k: message[k] for k in ("content", "data") if k in message})
        if counted:
            reader.took(len(parts))
    else:
        if role != "assistant":
            reader.problem("schema", f"role {role!r} is not user, assistant, system or data; read as assistant")
        _assistant(reader, turn, parts, counted)


def _of_v4_shape(key: str, value: Any) -> bool:
    if key == "toolInvocations":
        return isinstance(value, list) and all(_is_invocation(v) for v in value)
    return isinstance(value, str)


def _parts_of_fields(message: Mapping[str, Any]) -> list[Any]:
    """The parts a message without parts (v4.0) stands for: its reasoning, its text, then its
    tool invocations step by step (a 4.0 app keeps one message per step, the text first)."""
    parts: list[Any] = []
    reasoning = message.get("reasoning")
    if isinstance(reasoning, str) and reasoning:
        parts.append({"type": "reasoning", "reasoning": reasoning, "details": [{"type": "text", "text": reasoning}]})
    content = message.get("content")
    if isinstance(content, str) and content:
        parts.append({"type": "text", "text": content})
    invocations = message.get("toolInvocations")
    step: Any = None
    for index, invocation in enumerate(invocations if _of_v4_shape("toolInvocations", invocations) else ()):
        this = invocation.get("step")
        if index and this != step:
            parts.append({"type": "step-start"})
        step = this
        parts.append({"type": "tool-invocation", "toolInvocation": invocation})
    return parts


def _user(reader: Reader, turn: Turn, parts: list[Any], message: Mapping[str, Any], meta: dict[str, Any], counted: bool) -> None:
    content: list[dict[str, Any]] = []
    others: list[tuple[int, Any]] = []
    for position, part in enumerate(parts):
        if isinstance(part, Mapping) and part.get("type") == "text" and isinstance(part.get("text"), str):
            content.append({"type": "text", "text": part["text"]})
        elif isinstance(part, Mapping) and part.get("type") == "file" and "mimeType" in part:
            content.append(_file(part))
        else:
            others.append((position, part))
            continue
        if counted:
            reader.took()
    attachments = message.get("experimental_attachments")
    if isinstance(attachments, list) and all(isinstance(a, Mapping) and isinstance(a.get("url"), str) for a in attachments):
        meta["attachments"] = len(attachments)
        content.extend(_attachment(a) for a in attachments)
    elif attachments is not None:
        turn.extra["experimental_attachments"] = attachments  # not of the v4 shape: kept as it came
    if len(content) == 1 and content[0]["type"] == "text":
        turn.add("user_message", content=content[0]["text"])
    elif content or not others:
        turn.add("user_message", content=content)
    for position, part in others:
        _unknown(reader, turn, part, counted, position)


def _attachment(attachment: Mapping[str, Any]) -> dict[str, Any]:
    media_type = attachment.get("contentType") or "application/octet-stream"
    part: dict[str, Any] = {"type": "file", "media_type": media_type, "media_category": media_category(media_type)}
    url = attachment["url"]
    if url.startswith("data:") and ";base64," in url[:200]:
        part["content_type"], part["data"] = "binary", url.split(",", 1)[1]
    else:
        part["content_type"], part["url"] = "url", url
    if attachment.get("name") is not None:
        part["identifier"] = attachment["name"]
    rest = {k: v for k, v in attachment.items() if k not in ("url", "name", "contentType")}
    part["metadata"] = {"v4_attachment": {"contentType": "contentType" in attachment, **({"extra": rest} if rest else {})}}
    return part


def _file(part: Mapping[str, Any]) -> dict[str, Any]:
    media_type = str(part.get("mimeType") or "application/octet-stream")
    out = {"type": "file", "media_type": media_type, "media_category": media_category(media_type), "content_type": "binary", "data": part.get("data")}
    rest = {k: v for k, v in part.items() if k not in ("type", "mimeType", "data")}
    if rest:
        out["metadata"] = {"v4_extra": rest}
    return out


def _assistant(reader: Reader, turn: Turn, parts: list[Any], counted: bool) -> None:
    results: list[tuple[Slot, Mapping[str, Any]]] = []
    for position, part in enumerate(parts):
        kind = part.get("type") if isinstance(part, Mapping) else None
        slot: Slot | None = None
        if kind == "step-start":
            _results(turn, results)
            turn.step += 1
        elif kind == "text" and isinstance(part.get("text"), str):
            slot = turn.add("assistant_message", agent=True)
            slot.pieces = [part["text"]]
        elif kind == "reasoning" and isinstance(part.get("reasoning"), str):
            slot = _reasoning(turn, part)
        elif kind == "tool-invocation" and _is_invocation(part.get("toolInvocation")):
            slot = _tool_call(reader, turn, part["toolInvocation"])
            if part["toolInvocation"].get("state") == "result":
                results.append((slot, part["toolInvocation"]))
        elif kind == "source" and isinstance(part.get("source"), Mapping) and isinstance(part["source"].get("url"), str):
            slot = _source(turn, part["source"])
        elif kind == "file" and "mimeType" in part:
            slot = turn.add("assistant_message", agent=True, content=[_file(part)])
        else:
            _unknown(reader, turn, part, counted, position)
            continue
        if counted:
            reader.took()
        extra = {k: v for k, v in part.items() if k not in _PART_KEYS[kind]}
        if extra and slot is not None:
            slot.vercel["part_extra"] = extra
    _results(turn, results)


_PART_KEYS: dict[Any, tuple[str, ...]] = {
    "step-start": ("type",),
    "text": ("type", "text"),
    "reasoning": ("type", "reasoning", "details"),
    "tool-invocation": ("type", "toolInvocation"),
    "source": ("type", "source"),
    "file": ("type", "mimeType", "data"),
}


def _is_invocation(value: Any) -> bool:
    return isinstance(value, Mapping) and isinstance(value.get("toolCallId"), str) and isinstance(value.get("toolName"), str)


def _reasoning(turn: Turn, part: Mapping[str, Any]) -> Slot:
    text = part["reasoning"]
    slot = turn.add("thinking", agent=True)
    slot.pieces = [text]
    details = part.get("details")
    texts = [d for d in details if isinstance(d, Mapping) and d.get("type") == "text"] if isinstance(details, list) else []
    signature = next((d.get("signature") for d in texts if isinstance(d.get("signature"), str)), None)
    simple = {"type": "text", "text": text, **({"signature": signature} if signature is not None else {})}
    if details != [simple]:
        slot.vercel["details"] = details  # redacted reasoning, several details, or none: as it came
    if signature is not None:
        slot.fields["signature"] = signature
    return slot


def _tool_call(reader: Reader, turn: Turn, invocation: Mapping[str, Any]) -> Slot:
    state = invocation.get("state")
    slot = turn.add("tool_call", agent=True, tool_call_id=invocation["toolCallId"], tool_name=invocation["toolName"], args=invocation.get("args"))
    if "step" in invocation:
        slot.vercel["v4_step"] = invocation["step"]
    if "args" not in invocation:
        slot.vercel["no_args"] = True
    if state == "partial-call":
        slot.vercel["input_incomplete"] = True
    elif state not in V4_STATES:
        reader.problem("schema", f"tool invocation {invocation['toolCallId']!r} has state {state!r}, not partial-call, call or result; read as a call")
        slot.vercel["v4_state"] = state
    extra = {k: v for k, v in invocation.items() if k not in _INVOCATION_KEYS}
    if extra:
        slot.vercel["invocation_extra"] = extra
    return slot


def _results(turn: Turn, results: list[tuple[Slot, Mapping[str, Any]]]) -> None:
    """The results of the step's tool invocations, at the end of the step (as the stream has them)."""
    for call, invocation in results:
        turn.add("tool_return", tool_call_id=call.fields["tool_call_id"], tool_name=call.fields["tool_name"], status="success", content=invocation.get("result"))
    results.clear()


def _source(turn: Turn, source: Mapping[str, Any]) -> Slot:
    part: dict[str, Any] = {"type": "source-url", "media_type": "text/uri-list", "media_category": "document", "content_type": "url", "url": source["url"]}
    if source.get("id") is not None:
        part["identifier"] = source["id"]
    if source.get("title") is not None:
        part["metadata"] = {"title": source["title"]}
    slot = turn.add("assistant_message", agent=True, content=[part])
    slot.vercel["v4_source"] = {k: v for k, v in source.items() if k not in ("id", "url", "title")}
    return slot


def _unknown(reader: Reader, turn: Turn, part: Any, counted: bool, position: int) -> None:
    turn.add("system.unknown_part", data=part)
    kind = part.get("type") if isinstance(part, Mapping) else type(part).__name__
    message = f"part #{position + 1} is of type {kind!r}, which AI SDK v4 messages do not have (or of the wrong shape); kept as system.unknown_part"
    if counted:
        reader.kept("unknown-type", message)
    else:
        reader.problem("unknown-type", message)
