"""Goose messages → actions (the content parts of ``crates/goose/src/conversation/message``:
``MessageContent``, tagged by ``type``).

- ``text`` → ``user_message`` / ``assistant_message`` by the message's role; a user message
  Goose keeps from the person's view (``metadata.userVisible`` false: its own compaction
  summaries and continuation prompts) has ``author: harness`` (``meta``);
- ``image`` → an image part (``data``, ``mimeType``);
- ``toolRequest`` / ``frontendToolRequest`` → ``tool_call`` (``toolCall``: ``{status, value:
  {name, arguments}}``, or ``{status: "error", error}``; the bare ``{name, arguments}`` and
  ``{"Ok": ...}`` of earlier releases too); ``toolResponse`` → ``tool_return`` (``toolResult``:
  ``value`` a ``CallToolResult`` ``{content, isError}`` or, before, the content list; ``error``
  for a failed call), named by the request it answers;
- ``thinking`` / ``redactedThinking`` (and the earlier ``reasoning``) → ``thinking``;
- ``toolConfirmationRequest``, ``actionRequired``, ``systemNotification`` and the earlier
  ``contextLengthExceeded``, ``summarizationRequested``, ``conversationCompacted`` →
  ``system.<type in snake case>`` holding the part (``system.tool_confirmation_request`` ...); any other type → ``system.unknown_part`` with an
  ``unknown-type`` problem.

Model and provider: ``metadata.inference`` (``provider``, ``resolvedModel`` or
``requestedModel``). Times: ``created`` (seconds)."""

from __future__ import annotations

import re
from typing import Any

from threadlab.core.authors import harness_metadata
from threadlab.core.builder import ThreadBuilder
from threadlab.core.problems import short

KEY = "goose"
AGENT = "goose"
SYSTEM_PARTS = frozenset({"toolConfirmationRequest", "actionRequired", "systemNotification", "contextLengthExceeded", "summarizationRequested", "conversationCompacted"})


def _snake(name: str) -> str:
    return re.sub(r"(?<!^)([A-Z])", r"_\1", name).lower()


def tool_value(call: Any) -> tuple[Any, str | None]:
    """(the call's or result's value, the error text) of a Goose ``ToolResult``."""
    if not isinstance(call, dict):
        return None, None
    if "status" in call:
        return call.get("value"), call.get("error") if call.get("status") == "error" else None
    if "Ok" in call or "Err" in call:
        return call.get("Ok"), None if "Ok" in call else str(call.get("Err"))
    return call, None


class MessageReader:
    def __init__(self, b: ThreadBuilder) -> None:
        self.b = b
        self.agent = b.agent(AGENT, agent_id=AGENT)
        self.names: dict[str, str] = {}

    def message(self, message: dict[str, Any], where: str, line: int) -> None:
        """One message (its record already accounted for by the caller)."""
        role = message.get("role")
        created = message.get("created")
        at = created if isinstance(created, int | float) and not isinstance(created, bool) else None
        meta_in = message.get("metadata") if isinstance(message.get("metadata"), dict) else {}
        inference = meta_in.get("inference") if isinstance(meta_in.get("inference"), dict) else {}
        model_name = inference.get("resolvedModel") or inference.get("requestedModel")
        model = {"model_name": model_name, "provider_name": inference["provider"]} if isinstance(model_name, str) and isinstance(inference.get("provider"), str) else {}
        meta: dict[str, Any] = {KEY: {k: v for k, v in (("id", message.get("id")), ("metadata", meta_in or None)) if v is not None}}
        hidden = role == "user" and meta_in.get("userVisible") is False
        content = message.get("content")
        for part in content if isinstance(content, list) else []:
            self.part(part, role, at, meta, model, hidden, where, line)

    def part(self, part: Any, role: Any, at: Any, meta: dict[str, Any], model: dict[str, Any], hidden: bool, where: str, line: int) -> None:
        kind = part.get("type") if isinstance(part, dict) else None
        if kind == "text" and role == "user":
            extra = harness_metadata("meta") if hidden else {}
            self.b.add("user_message", timestamp=at, content=part.get("text", ""), metadata={**meta, **extra})
        elif kind == "text":
            self.b.add("assistant_message", timestamp=at, agent_id=self.agent, content=part.get("text", ""), metadata={**meta, **model})
        elif kind == "image":
            image = [{"type": "image", "image_base64": part.get("data"), "media_type": part.get("mimeType")}]
            if role == "user":
                self.b.add("user_message", timestamp=at, content=image, metadata=meta)
            else:
                self.b.add("assistant_message", timestamp=at, agent_id=self.agent, content=image, metadata={**meta, **model})
        elif kind in ("toolRequest", "frontendToolRequest"):
            value, error = tool_value(part.get("toolCall"))
            value = value if isinstance(value, dict) else {}
            call_id, name = str(part.get("id")), value.get("name") if isinstance(value.get("name"), str) else ""
            self.names[call_id] = name
            extra = {k: v for k, v in part.items() if k not in ("type", "id", "toolCall")}
            own = {**meta[KEY], **({"error": error} if error is not None else {}), **({"part": extra} if extra else {}), **({"frontend": True} if kind == "frontendToolRequest" else {})}
            self.b.add("tool_call", timestamp=at, agent_id=self.agent, tool_name=name, tool_call_id=call_id, args=value.get("arguments"), metadata={KEY: own, **model})
        elif kind == "toolResponse":
            value, error = tool_value(part.get("toolResult"))
            call_id = str(part.get("id"))
            failed = error is not None or (isinstance(value, dict) and value.get("isError") is True)
            content = error if error is not None else value.get("content") if isinstance(value, dict) and "content" in value else value
            self.b.add("tool_return", timestamp=at, tool_call_id=call_id, tool_name=self.names.get(call_id), status="error" if failed else "success", content=content, metadata=meta)
        elif kind in ("thinking", "redactedThinking", "reasoning"):
            text = part.get("text") if kind == "reasoning" else part.get("thinking")
            extra = {k: v for k, v in part.items() if k not in ("type", "thinking", "text")}
            self.b.add("thinking", timestamp=at, agent_id=self.agent, content=text, provider_name=model.get("provider_name", AGENT), metadata={KEY: {**meta[KEY], "part": extra}, **model})
        elif kind in SYSTEM_PARTS:
            self.b.add(f"system.{_snake(kind)}", timestamp=at, data=part, metadata=meta)
        else:
            action = self.b.add("system.unknown_part", timestamp=at, data=part, metadata=meta)
            self.b.problem("unknown-type", f"{where}: a part of type {short(kind)} Goose's reader does not map; kept as system.unknown_part", sequence=action.sequence, line=line)
