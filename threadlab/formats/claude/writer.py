"""Thread → Claude Code transcript (JSON Lines).

A thread read from Claude keeps each line's envelope under ``metadata.claude``; the writer puts
the content back into it, so the lines come out as they went in (one content block per line,
usage repeated on every line of a message, as the CLI writes it). Any other thread gets a
plausible envelope: fresh ``uuid``/``parentUuid`` links, one message per action. Subagent
actions are written inline as ``isSidechain`` entries with their ``agentId`` (the layout older
CLI versions used), because one byte string cannot hold the ``subagents/`` folder."""

from __future__ import annotations

import uuid as uuidlib
from collections.abc import Mapping
from typing import Any

import orjson
from pydantic import BaseModel

from threadlab.core.derive import tool_call_owner
from threadlab.core.model import BaseAction, SystemAction, Thread
from threadlab.core.timefmt import format_timestamp
from threadlab.formats.claude.convert import MAIN_AGENT

_CHAIN_KEYS = ("cwd", "version", "gitBranch", "entrypoint", "userType")
_ENVELOPE_ONLY = ("message", "usage", "block", "block_index", "usage_is_snapshot")


def thread_to_transcript(thread: Thread) -> bytes:
    claude_meta = (thread.metadata or {}).get("claude")
    session = claude_meta if isinstance(claude_meta, Mapping) else {}
    writer = _Writer(thread, str(session.get("sessionId") or thread.thread_id), {k: session[k] for k in _CHAIN_KEYS if k in session})
    for action in thread.actions:
        if isinstance(action, BaseAction):
            writer.add(action)
    return b"".join(orjson.dumps(line) + b"\n" for line in writer.lines)


class _Writer:
    def __init__(self, thread: Thread, session_id: str, chain_fields: dict[str, Any]) -> None:
        self.thread = thread
        self.session_id = session_id
        self.chain_fields = chain_fields
        self.lines: list[dict[str, Any]] = []
        self.last_uuid: dict[str, str | None] = {}
        self.owner = tool_call_owner(thread)
        # the agent written as the main session: Claude's own, else the thread's first agent
        self.main = MAIN_AGENT if MAIN_AGENT in thread.agents or not thread.agents else next(iter(thread.agents))
        self.usage = {_mid(a): a.metadata["claude"]["usage"] for a in thread.actions if _claude(a).get("usage") is not None and _mid(a)}

    # --- envelope -------------------------------------------------------------------------
    def _agent(self, action: BaseAction) -> str:
        meta = action.metadata or {}
        if action.action_type == "tool_return":
            return self.owner.get(getattr(action, "tool_call_id", ""), self.main)
        return getattr(action, "agent_id", None) or meta.get("to_agent_id") or self.main

    def _envelope(self, action: BaseAction, kind: str) -> dict[str, Any]:
        kept = _claude(action)
        if kept:
            line = {k: v for k, v in kept.items() if k not in _ENVELOPE_ONLY}
        else:
            agent = self._agent(action)
            line = {"parentUuid": self.last_uuid.get(agent), "isSidechain": agent != self.main, "type": kind,
                    "uuid": str(uuidlib.uuid5(uuidlib.NAMESPACE_URL, f"{self.thread.thread_id}/{action.sequence}")),
                    "timestamp": format_timestamp(action.timestamp)}
            if agent != self.main:
                line["agentId"] = agent
        line.setdefault("type", kind)
        if "uuid" in line:
            self.last_uuid[str(line.get("agentId") or self.main)] = line["uuid"]
            line.update({k: v for k, v in self.chain_fields.items() if k not in line})
        line["sessionId"] = self.session_id
        return line

    def _emit(self, line: dict[str, Any], block: Any | None = None) -> None:
        """Append a line; a block of a line already written (same uuid) joins that line."""
        previous = self.lines[-1] if self.lines else None
        if block is not None and previous is not None and line.get("uuid") and previous.get("uuid") == line["uuid"]:
            previous["message"]["content"].append(block)
            return
        self.lines.append(line)

    # --- actions --------------------------------------------------------------------------
    def add(self, action: BaseAction) -> None:
        kind = action.action_type
        if kind in ("assistant_message", "thinking", "tool_call"):
            self._assistant(action)
        elif kind == "tool_return":
            self._tool_result(action)
        elif kind == "user_message":
            line = self._envelope(action, "user")
            line["message"] = {**_claude(action).get("message", {"role": "user"}), "content": _user_content(getattr(action, "content", ""))}
            self._emit(line)
        elif isinstance(action, SystemAction):
            self._system(action)

    def _assistant(self, action: BaseAction) -> None:
        kept = _claude(action)
        line = self._envelope(action, "assistant")
        block = _assistant_block(action, kept.get("block") or {})
        message = dict(kept.get("message") or {"id": f"msg_{self.thread.thread_id}_{action.sequence}", "type": "message", "role": "assistant"})
        model = (action.metadata or {}).get("model_name")
        if model and "model" not in message:
            message["model"] = model
        usage = self.usage.get(message.get("id")) or _wire_usage(getattr(action, "usage", None))
        line["message"] = {**message, "content": [block], **({"usage": usage} if usage else {})}
        self._emit(line, block)

    def _tool_result(self, action: BaseAction) -> None:
        kept = _claude(action)
        line = self._envelope(action, "user")
        block = {**(kept.get("block") or {"type": "tool_result"}), "tool_use_id": action.tool_call_id, "content": _jsonable(action.content)}  # type: ignore[attr-defined]
        if action.status != "success":  # type: ignore[attr-defined]
            block["is_error"] = True
        line["message"] = {**(kept.get("message") or {"role": "user"}), "content": [block]}
        self._emit(line, block)

    def _system(self, action: SystemAction) -> None:
        kept = _claude(action)
        data = _jsonable(action.data)
        name = action.name
        if name == "unparsed_line" or name == "unknown_entry":
            self.lines.append(data if isinstance(data, dict) else {"type": "unknown", "value": data})
            return
        if kept.get("type") == "user":  # meta lines, command wrappers, task notifications
            line = self._envelope(action, "user")
            line["message"] = {**(kept.get("message") or {"role": "user"}), "content": data}
        elif name.startswith("attachment.") and kept.get("uuid"):
            line = self._envelope(action, "attachment")
            line["attachment"] = data
        elif kept.get("type") and kept.get("type") != "system":  # bookkeeping entries (cost-state, queue-operation ...)
            line = {"type": kept["type"], **(data if isinstance(data, dict) else {"data": data}), "sessionId": self.session_id}
        elif name == "result":
            line = {"type": "result", **(data if isinstance(data, dict) else {"data": data}), "session_id": self.session_id}
        elif name == "agent_join":  # from a task_started line (kept whole), or made from a sidecar: not written
            if kept:
                self.lines.append(dict(kept))
            return
        else:
            subtype = kept.get("subtype") or name.replace(".", "_")
            line = {"type": "system", "subtype": subtype, **(data if isinstance(data, dict) else {"data": data}),
                    "timestamp": format_timestamp(action.timestamp), "sessionId": self.session_id}
        self.lines.append(line)


def _jsonable(value: Any) -> Any:
    """Content, args or data (maybe holding pydantic parts) as plain JSON values."""

    def default(obj: Any) -> Any:
        if isinstance(obj, BaseModel):
            return obj.model_dump(mode="json", exclude_none=True)
        raise TypeError(type(obj).__name__)

    return orjson.loads(orjson.dumps(value, default=default))


def _claude(action: BaseAction) -> dict[str, Any]:
    value = (action.metadata or {}).get("claude")
    return value if isinstance(value, dict) else {}


def _mid(action: BaseAction) -> Any:
    return (_claude(action).get("message") or {}).get("id")


def _assistant_block(action: BaseAction, extra: Mapping[str, Any]) -> dict[str, Any]:
    kind = action.action_type
    if kind == "thinking":
        block: dict[str, Any] = {"type": "redacted_thinking" if action.content is None and "data" in extra else "thinking"}  # type: ignore[attr-defined]
        if action.content is not None:  # type: ignore[attr-defined]
            block["thinking"] = action.content  # type: ignore[attr-defined]
        if action.signature is not None:  # type: ignore[attr-defined]
            block["signature"] = action.signature  # type: ignore[attr-defined]
    elif kind == "tool_call":
        block = {"type": "tool_use", "id": action.tool_call_id, "name": action.tool_name, "input": _jsonable(action.args)}  # type: ignore[attr-defined]
    else:
        content = action.content  # type: ignore[attr-defined]
        text = content if isinstance(content, str) else "".join(getattr(p, "text", "") or "" for p in content)
        block = {"type": "text", "text": text}
    return {**block, **{k: v for k, v in extra.items() if k not in block}}


def _user_content(content: Any) -> Any:
    if isinstance(content, str):
        return content
    blocks = []
    for part in _jsonable(content):
        if part.get("type") == "text":
            blocks.append({"type": "text", "text": part.get("text", "")})
        elif part.get("content_type") in ("url", "binary"):
            source = {"type": "url", "url": part.get("url")} if part["content_type"] == "url" else {
                "type": "base64", "media_type": part.get("media_type"), "data": part.get("data")}
            blocks.append({"type": "image" if part.get("media_category") == "image" else "document", "source": source})
        else:
            blocks.append(part)
    return blocks


def _wire_usage(usage: Any) -> dict[str, int] | None:
    """threadlab usage → Anthropic usage (input without the cached part)."""
    if usage is None:
        return None
    get = (lambda k: getattr(usage, k, None) or 0) if not isinstance(usage, Mapping) else (lambda k: usage.get(k) or 0)
    read, write = get("cache_read_tokens"), get("cache_write_tokens")
    return {"input_tokens": max(get("input_tokens") - read - write, 0), "cache_creation_input_tokens": write,
            "cache_read_input_tokens": read, "output_tokens": get("output_tokens")}
