"""A thread → a Gemini CLI session file: JSON Lines (a metadata line, then one line a message),
or the JSON object of earlier releases for a thread read from one.

Each action goes back into the message it came from (``metadata.gemini.message_id``): thoughts,
text, tool calls (with their returns as ``result``) into one ``gemini`` message, a prompt into a
``user`` message, a return no call of the message holds into a ``user`` message of its
``functionResponse``. What the file held only for the program's own bookkeeping (the repeated
copies of a message, ``$set`` lines, the ``tool`` token count) is not written. The output is read
back and compared with the thread; every difference is named in a ``WriteLoss``."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import orjson

from threadlab.core.loss import nothing_to_write, report_loss
from threadlab.core.model import BaseAction, Thread
from threadlab.formats.common.counts import figures_of
from threadlab.formats.common.losses import thread_losses
from threadlab.formats.common.source import Source
from threadlab.formats.gemini_cli.reading import KEY, read_session
from threadlab.formats.gemini_cli.wire import SESSION_KEYS

NAME = "gemini-cli"
_TOKENS = {"input_tokens": "input", "output_tokens": "output", "cache_read_tokens": "cached", "thinking_tokens": "thoughts", "total_tokens": "total"}
_SYSTEM = {"system.info": "info", "system.error": "error", "system.warning": "warning"}
_LINES = ("system.rewind", "system.session_resumed", "system.unknown_record", "system.unknown_message")


def gemini_time(moment: datetime) -> str:
    """A time as Gemini CLI writes it (``Date.toISOString``: UTC, milliseconds)."""
    moment = moment.astimezone(UTC)
    return moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{moment.microsecond // 1000:03d}Z"


class _Writer:
    def __init__(self, thread: Thread) -> None:
        self.thread = thread
        self.records: list[Any] = []
        self.current: dict[str, Any] | None = None
        self.lost: list[str] = []

    def own(self, action: BaseAction) -> dict[str, Any]:
        value = (action.metadata or {}).get(KEY)
        return value if type(value) is dict else {}

    def message(self, action: BaseAction, kind: str) -> dict[str, Any]:
        own = self.own(action)
        message_id = own.get("message_id") or f"threadlab-{action.sequence}"
        if self.current is not None and self.current["id"] == message_id and self.current["type"] == kind:
            return self.current
        message: dict[str, Any] = {"id": message_id}
        if not own.get("no_timestamp"):
            message["timestamp"] = gemini_time(action.timestamp)
        message["type"] = kind
        message["content"] = ""
        if kind == "gemini":
            message["thoughts"] = []
        message.update(own.get("extra") or {})
        self.records.append(message)
        self.current = message
        return message

    def action(self, a: BaseAction) -> None:
        kind, own = a.action_type, self.own(a)
        if kind == "user_message":
            m = self.message(a, "user")
            content = a.content  # type: ignore[attr-defined]
            if "content" in own:
                m["content"] = own["content"]
            elif isinstance(content, str):
                m["content"] = content
            else:
                parts = [x if isinstance(x, dict) else x.model_dump(exclude_none=True) for x in content]
                m["content"] = [p.get("part") if p.get("type") == "gemini_part" else {"text": p.get("text", "")} for p in parts]
            self.current = None
        elif kind in ("thinking", "assistant_message", "tool_call"):
            m = self.message(a, "gemini")
            meta = a.metadata or {}
            if isinstance(meta.get("model_name"), str):
                m["model"] = meta["model_name"]
            tokens = figures_of(a, _TOKENS)
            if tokens:
                m["tokens"] = tokens
            if kind == "thinking":
                thought = {**(own.get("thought") or {}), "description": a.content, "timestamp": gemini_time(a.timestamp)}  # type: ignore[attr-defined]
                m["thoughts"].append(thought)
            elif kind == "assistant_message":
                content = a.content  # type: ignore[attr-defined]
                m["content"] = content if isinstance(content, str) else "".join((p.get("text") if isinstance(p, dict) else getattr(p, "text", None)) or "" for p in content)
            else:
                call = {"id": a.tool_call_id, "name": a.tool_name, "args": a.args, **(own.get("call") or {}), "timestamp": gemini_time(a.timestamp)}  # type: ignore[attr-defined]
                m.setdefault("toolCalls", []).append(call)
        elif kind == "tool_return":
            self.tool_return(a, own)
        elif kind in _SYSTEM:
            m = self.message(a, _SYSTEM[kind])
            m["content"] = a.data  # type: ignore[attr-defined]
            self.current = None
        elif kind in _LINES:
            self.records.append(a.data)  # type: ignore[attr-defined]
            self.current = None
        else:
            self.lost.append(f"a {kind} action (a session file has no place for it)")

    def tool_return(self, a: BaseAction, own: dict[str, Any]) -> None:
        call_id, name, content = a.tool_call_id, a.tool_name, a.content  # type: ignore[attr-defined]
        response = {"output": content} if isinstance(content, str) else content
        part = {"functionResponse": {"id": call_id, "name": name, "response": response}}
        calls = self.current.get("toolCalls") if self.current is not None and own.get("from") != "functionResponse" else None
        call = next((c for c in calls or [] if c.get("id") == call_id), None)
        if call is not None:
            call["result"] = content if own.get("raw_result") else [part]
            call.setdefault("status", "success" if a.status == "success" else "error")  # type: ignore[attr-defined]
            return
        m = self.message(a, "user")
        m["content"] = [*(m["content"] or []), part] if isinstance(m["content"], list) else [part]
        self.current = None

    def head(self) -> dict[str, Any]:
        meta = (self.thread.metadata or {}).get(KEY)
        meta = meta if type(meta) is dict else {}
        first = self.thread.actions[0].timestamp if self.thread.actions else datetime.now(UTC)
        head: dict[str, Any] = {"sessionId": self.thread.thread_id, "projectHash": meta.get("projectHash", ""), "startTime": meta.get("startTime", gemini_time(first))}
        head.update({k: meta[k] for k in SESSION_KEYS if k in meta and k not in head})
        head.update(meta.get("other") or {})
        return head


def write_session(thread: Thread) -> bytes:
    if not thread.actions:
        raise nothing_to_write(NAME, thread)
    writer = _Writer(thread)
    for action in thread.actions:
        writer.action(action)
    if not writer.records:
        raise nothing_to_write(NAME, thread)
    head = writer.head()
    meta = (thread.metadata or {}).get(KEY)
    if type(meta) is dict and meta.get("generation") == "json":
        out = orjson.dumps({**head, "messages": writer.records}, option=orjson.OPT_INDENT_2)
    else:
        out = b"".join(orjson.dumps(r) + b"\n" for r in [head, *writer.records])
    lost = list(writer.lost)
    [again] = read_session(Source(out, name=thread.origin[0] or "written.jsonl"))
    lost.extend(p for p in thread_losses(thread, again) if p not in lost)
    report_loss(NAME, thread.thread_id, lost)
    return out
