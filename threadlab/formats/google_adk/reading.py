"""ADK events → one thread (see ``wire.py`` for the files).

Calls without ids (ADK's first releases) get ``adk-<event id>-<k>`` and a response without
one answers the oldest such call of its tool.

Records: an event (a session holding none is one record itself). Each event's parts, in order:
a ``text`` part is the user's ``user_message`` (author ``user``) or the agent's
``assistant_message`` (author: the agent's name), a ``thought`` text is ``thinking``, a
``function_call`` is a ``tool_call``, a
``function_response`` a ``tool_return`` (status ``success``: ADK marks no failed tool). The
event's ``usage_metadata`` goes on its answer (its text, else its first call, else its
thinking). What the event's ``actions`` do: ``transfer_to_agent`` is a ``system.handoff``
{``from_agent_id``, ``to_agent_id``, ``tool_call_id``} after the transfer's return; ``escalate``
a ``system.escalate``; a ``state_delta`` of an event without content a ``system.state_update``
(state changes riding on a message stay in its metadata). An ``error_code`` / ``error_message``
is a ``system.error``. Media, code and other parts are kept as ``system.unknown_part`` with an
``unknown-type`` problem. Each event's other fields (ids, ``branch`` / ``node_info``, actions,
model version, finish reason) are the ``metadata.google_adk`` of its first action."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from threadlab.core.builder import ThreadBuilder
from threadlab.core.model import Thread, Usage
from threadlab.core.problems import short
from threadlab.formats.common.counts import counts_as
from threadlab.formats.google_adk.wire import KEY, TRANSFER_TOOL, USAGE, USER, get, is_event

_CONTENT = ("content",)
PROVIDER = "google-adk"  # the thought parts ADK keeps, whichever model (Gemini, or one through LiteLlm) gave them
_KNOWN_PARTS = frozenset({"text", "thought", "thought_signature", "thoughtSignature", "function_call", "functionCall",
                          "function_response", "functionResponse"})


@dataclass(frozen=True, slots=True)
class Record:
    """One event as read: its value, and where it is (a line or row id for problems, and words)."""

    value: Any
    line: int | None = None
    where: str = ""
    error: str | None = None


def _parts(event: dict[str, Any]) -> list[Any]:
    content = event.get("content")
    parts = content.get("parts") if type(content) is dict else None
    return parts if isinstance(parts, list) else []


class EventReader:
    def __init__(self, builder: ThreadBuilder) -> None:
        self.b = builder
        self.title = ""
        self.unnamed: dict[str, list[str]] = {}  # calls the file gave no id (ADK's first releases), by tool name, oldest first

    def read(self, records: Iterable[Record]) -> None:
        for index, record in enumerate(records, 1):
            where = record.where or f"event {index}"
            if record.error is not None:
                self.b.failed("json", f"{where} {record.error}", line=record.line)
                continue
            if not is_event(record.value):
                self.b.kept("unknown-type", f"{where} is no ADK event ({short(record.value)}); kept as system.unknown_event", line=record.line)
                self.b.add("system.unknown_event", data=record.value, metadata={KEY: {"index": index}})
                continue
            unknown = self.event(record.value, index)
            if unknown:
                self.b.kept("unknown-type", f"{where} holds parts threadlab does not map ({', '.join(unknown)}); kept as system.unknown_part", line=record.line)
            else:
                self.b.took()

    def event(self, e: dict[str, Any], index: int) -> list[str]:
        author = e["author"]
        when = e.get("timestamp")
        agent = None if author == USER else self.b.agent(author)
        meta: dict[str, Any] | None = {KEY: {"index": index, **{k: v for k, v in e.items() if k not in _CONTENT}}}
        usage = self.usage(e)
        answer = self.answer_index(e)
        unknown: list[str] = []
        calls: dict[str, str] = {}
        added = 0

        model = get(e, "model_version")

        def add(kind: str, **fields: Any) -> None:
            nonlocal meta, added
            if isinstance(model, str) and kind in ("assistant_message", "tool_call", "thinking"):
                meta = {**(meta or {}), "model_name": model}
            carries = kind in ("assistant_message", "tool_call", "thinking") and added == answer and usage is not None
            if carries and kind == "assistant_message":
                fields["usage"] = Usage(**usage)  # type: ignore[arg-type]
            action = self.b.add(kind, timestamp=when, metadata=meta, **fields)
            if carries and kind != "assistant_message":
                action.usage = usage  # type: ignore[attr-defined]  # an answer of calls only: its first call holds the figures
            meta, added = None, added + 1

        for k, part in enumerate(_parts(e)):
            if type(part) is not dict:
                unknown.append(f"part {k + 1}: {short(part)}")
                add("system.unknown_part", data=part)
                continue
            call, ret, text = get(part, "function_call"), get(part, "function_response"), part.get("text")
            if type(call) is dict:
                call_id = call.get("id") if isinstance(call.get("id"), str) and call.get("id") else ""
                if not call_id:
                    call_id = f"adk-{e.get('id')}-{k}"
                    self.unnamed.setdefault(str(call.get("name")), []).append(call_id)
                calls[str(call.get("name"))] = call_id
                add("tool_call", agent_id=agent, tool_name=str(call.get("name") or ""), tool_call_id=call_id, args=call.get("args") if call.get("args") is not None else {})
            elif type(ret) is dict:
                ret_id = ret.get("id") if isinstance(ret.get("id"), str) and ret.get("id") else ""
                waiting = self.unnamed.get(str(ret.get("name")))
                if not ret_id and waiting:  # without ids, a response answers the oldest open call of its tool
                    ret_id = waiting.pop(0)
                add("tool_return", tool_call_id=ret_id, tool_name=str(ret.get("name") or ""), status="success", content=ret.get("response"))
            elif isinstance(text, str) and part.get("thought") is True:
                add("thinking", agent_id=agent, content=text, provider_name=PROVIDER, signature=get(part, "thought_signature") if isinstance(get(part, "thought_signature"), str) else None)
            elif isinstance(text, str) and author == USER:
                if not self.title and text.strip():
                    self.title = text.strip().splitlines()[0][:80]
                add("user_message", content=text)
            elif isinstance(text, str):
                add("assistant_message", agent_id=agent, content=text)
            else:
                names = sorted(k2 for k2, v in part.items() if v is not None and k2 not in _KNOWN_PARTS)
                unknown.append(f"part {k + 1}: {', '.join(names) or 'empty'}")
                add("system.unknown_part", data=part)
        self.after(e, agent, author, add, calls, added)
        return unknown

    def after(self, e: dict[str, Any], agent: str | None, author: str, add: Any, calls: dict[str, str], added: int) -> None:
        """The event's actions and error, after its parts."""
        actions = e.get("actions") if type(e.get("actions")) is dict else {}
        target = get(actions, "transfer_to_agent")
        before = len(self.b.actions)
        if isinstance(target, str) and target:
            to = self.b.agent(target)
            add("system.handoff", data={"from_agent_id": agent or author, "to_agent_id": to, **({"tool_call_id": _ret_id(e)} if _ret_id(e) else {})})
        if get(actions, "escalate") is True:
            add("system.escalate", data={"agent_id": agent or author})
        code, message = get(e, "error_code"), get(e, "error_message")
        if code is not None or message is not None:
            add("system.error", data={"error_code": code, "error_message": message})
        if added == 0 and len(self.b.actions) == before:  # nothing else: what the event did is its state change
            delta = get(actions, "state_delta")
            add("system.state_update", data={"state_delta": delta if delta is not None else {}})

    def answer_index(self, e: dict[str, Any]) -> int:
        """Which action of the event (by position among its actions) carries its usage: the
        first text, else the first call, else the first thought."""
        kinds = []
        for part in _parts(e):
            p = part if type(part) is dict else {}
            if type(get(p, "function_call")) is dict:
                kinds.append("call")
            elif type(get(p, "function_response")) is dict:
                kinds.append("return")
            elif isinstance(p.get("text"), str):
                kinds.append("thought" if p.get("thought") is True else "text")
            else:
                kinds.append("other")
        for want in ("text", "call", "thought"):
            if want in kinds:
                return kinds.index(want)
        return -1

    def usage(self, e: dict[str, Any]) -> dict[str, int] | None:
        figures = get(e, "usage_metadata")
        if type(figures) is not dict:
            return None
        problems: list[str] = []
        found = counts_as({k: (ours, get(figures, k)) for k, ours in USAGE.items()}, problems, "usage_metadata.")
        for phrase in problems:
            self.b.problem("usage", phrase)
        return Usage(**found).model_dump(exclude_none=True) if found else None


def _ret_id(e: dict[str, Any]) -> str | None:
    for part in _parts(e):
        ret = get(part, "function_response")
        if type(ret) is dict and ret.get("name") == TRANSFER_TOOL and isinstance(ret.get("id"), str):
            return ret["id"]
    return None


def read_events(builder: ThreadBuilder, records: Iterable[Record], head: dict[str, Any] | None) -> Thread:
    """One thread of ``records`` (events); ``head``: the session's own fields (its metadata)."""
    reader = EventReader(builder)
    reader.read(records)
    builder.title = reader.title
    if head is not None:
        builder.metadata[KEY] = head
    return builder.build()
