"""opencode sessions (``store.py``) → threads: one thread per session that no other session
started; a subagent's session (``parent_id`` / ``parentID``) is read into its parent's thread.

- a user message's ``text`` parts are ``user_message``s (a ``synthetic`` one, which opencode
  writes itself, has ``author: harness``); an assistant message's are ``assistant_message``s;
- ``reasoning`` → ``thinking``; ``tool`` → ``tool_call`` and, once its state is ``completed`` or
  ``error``, its ``tool_return`` (``output`` / ``error``);
- a ``task`` tool whose state names a session (``metadata.sessionId``) that is in the store is a
  delegation: ``system.agent_join`` ``{agent_id, invited_by, tool_call_id}``, then the child
  session's messages as the child agent's actions, then the task's return; a child session no
  task names follows its parent's messages, joined the same way (``unreferenced``);
- ``step-finish`` closes a model response (the actions since the message began or since the last
  step-finish; ``step-start`` is taken and holds nothing read): its ``tokens`` are the usage
  of the response (on its first assistant message, else its first thinking, else its first
  action), its ``cost`` adds to the thread's ``cost_usd``; a message with no step-finish gives
  its own ``tokens``;
- other known parts (``file``, ``patch``, ``snapshot``, ``agent``, ``subtask``, ``retry``,
  ``compaction``) are ``system.<type>`` actions holding the part; an unknown type is
  ``system.unknown_part``, kept with an ``unknown-type`` problem.

Records: a session row or file, a message row or file, a part row or file. The message's own
fields (model, agent, mode, path, finish) go to its actions' ``metadata["opencode"]``."""

from __future__ import annotations

from typing import Any

from threadlab.core.authors import harness_metadata
from threadlab.core.builder import ThreadBuilder
from threadlab.core.model import BaseAction, Thread, Usage
from threadlab.core.problems import short
from threadlab.formats.opencode.store import Message, Record, Session

KEY = "opencode"
AGENT = "opencode"
SYSTEM_PARTS = frozenset({"file", "patch", "snapshot", "agent", "subtask", "retry", "compaction"})
_MESSAGE_KEEP = ("id", "modelID", "providerID", "agent", "mode", "finish", "parentID")


def _ms(value: Any) -> Any:
    return value / 1000 if isinstance(value, int | float) and not isinstance(value, bool) else None


def usage_of(tokens: Any) -> Usage | None:
    """opencode's ``tokens`` (``input`` without the cached tokens, ``output`` without the
    reasoning) in threadlab's sense (all input; output with reasoning)."""
    if not isinstance(tokens, dict):
        return None
    cache = tokens.get("cache") if isinstance(tokens.get("cache"), dict) else {}
    figures = {k: v for k, v in (("input", tokens.get("input")), ("output", tokens.get("output")), ("reasoning", tokens.get("reasoning")), ("read", cache.get("read")), ("write", cache.get("write")), ("total", tokens.get("total"))) if isinstance(v, int) and not isinstance(v, bool)}
    if not figures:
        return None
    read, write = figures.get("read", 0), figures.get("write", 0)
    return Usage(
        input_tokens=figures.get("input", 0) + read + write if "input" in figures else None,
        output_tokens=figures.get("output", 0) + figures.get("reasoning", 0) if "output" in figures else None,
        total_tokens=figures.get("total"),
        thinking_tokens=figures.get("reasoning") or None,
        cache_read_tokens=read or None,
        cache_write_tokens=write or None,
    )


class StoreReader:
    """The threads of one store (a database or a ``storage/`` session file with its children)."""

    def __init__(self, sessions: list[Session], source: str) -> None:
        self.source = source
        self.sessions = {s.id: s for s in sessions}
        self.children: dict[str, list[Session]] = {}
        for s in sessions:
            if s.parent is not None and s.parent in self.sessions:
                self.children.setdefault(s.parent, []).append(s)
        self.joined: set[str] = set()

    def threads(self) -> list[Thread]:
        return [self.thread(s) for s in self.sessions.values() if s.parent is None or s.parent not in self.sessions]

    def thread(self, session: Session) -> Thread:
        value = session.record.value if isinstance(session.record.value, dict) else {}
        meta = {k: v for k, v in value.items() if k not in ("title",) and v is not None}
        self.b = ThreadBuilder(session.id, title=str(value.get("title") or ""), metadata={KEY: meta} if meta else None, source=self.source)
        if session.parent is not None:
            self.b.parent_thread_id = session.parent
        self.cost = 0.0
        agent = self.b.agent(AGENT, agent_id=AGENT, created_at=_ms(_created(value)))
        self.session(session, agent)
        if self.cost:
            self.b.metadata["cost_usd"] = self.cost
        return self.b.build()

    def session(self, session: Session, agent: str) -> None:
        self.joined.add(session.id)
        if session.record.error == "missing":
            self.b.problem("schema", f"{len(session.messages)} message(s) name a session no row holds; read as a session of their own")
        elif session.record.value is None:
            self.b.failed("schema", f"{session.record.where} {session.record.error}", line=session.record.line)
        else:
            self.b.took()
            self.undecodable(session.record)
        for message in session.messages:
            self.message(message, agent)
        for child in self.children.get(session.id, []):
            if child.id not in self.joined:
                self.join(child, agent, None)

    def join(self, child: Session, parent_agent: str, call_id: str | None, at: Any = None) -> None:
        """The child session as the child agent's actions, after its ``agent_join`` (at the task
        call's time when a call started it: the session row is made a moment before)."""
        value = child.record.value if isinstance(child.record.value, dict) else {}
        name = next((m.record.value.get("agent") for m in child.messages if isinstance(m.record.value, dict) and isinstance(m.record.value.get("agent"), str)), None) or "subagent"
        agent = self.b.agent(f"{name} ({child.id})", agent_id=child.id, created_at=_ms(_created(value)), metadata={"title": value.get("title")} if value.get("title") else None)
        data: dict[str, Any] = {"agent_id": agent, "invited_by": parent_agent, "session_id": child.id}
        if call_id is not None:
            data["tool_call_id"] = call_id
        else:
            data["unreferenced"] = True
        self.b.add("system.agent_join", timestamp=at or _ms(_created(value)), data=data)
        self.session(child, agent)

    def message(self, message: Message, agent: str) -> None:
        record = message.record
        info = record.value if isinstance(record.value, dict) else None
        if info is None:
            if record.line or record.error != "no row of table message has this id":
                self.b.failed("schema", f"{record.where} {record.error}", line=record.line)
            else:
                self.b.problem("schema", f"{len(message.parts)} part(s) name {record.where}, which {record.error}")
            info = {}
        else:
            self.b.took()
            self.undecodable(record)
        role = info.get("role")
        when = _ms((info.get("time") or {}).get("created")) if isinstance(info.get("time"), dict) else None
        base = {k: info[k] for k in _MESSAGE_KEEP if k in info}
        step: list[BaseAction] = []
        finished = False
        for part in message.parts:
            finished |= self.part(part, role, agent, when, base, step)
        if not finished and step and usage_of(info.get("tokens")) is not None:
            self.settle(step, usage_of(info.get("tokens")))
        if isinstance(info.get("error"), dict):
            self.b.add("system.error", timestamp=when, data=info["error"], metadata={KEY: base})

    def part(self, record: Record, role: Any, agent: str, when: Any, base: dict[str, Any], step: list[BaseAction]) -> bool:
        part = record.value
        if not isinstance(part, dict):
            self.b.failed("schema", f"{record.where} {record.error}", line=record.line)
            return False
        kind = part.get("type")
        times = part.get("time") if isinstance(part.get("time"), dict) else {}
        at = _ms(times.get("start")) or when
        meta = {KEY: {**base, "part_id": part.get("id")}}
        model = {"model_name": base["modelID"], "provider_name": base["providerID"]} if isinstance(base.get("modelID"), str) and isinstance(base.get("providerID"), str) else {}
        self.b.took()
        self.undecodable(record)
        if kind == "step-start":
            pass  # (a response's actions are those since the last step-finish: samples put a step-start after them)
        elif kind == "step-finish":
            usage = usage_of(part.get("tokens"))
            if usage is not None and not step:
                self.b.problem("usage", f"{record.where}: a step-finish with tokens {short(part.get('tokens'))} and no action of its response before it; its usage is on no action", line=record.line)
            self.settle(step, usage)
            if isinstance(part.get("cost"), int | float) and not isinstance(part.get("cost"), bool):
                self.cost += part["cost"]
            step.clear()
            return True
        elif kind == "text" and role == "user":
            extra = harness_metadata("system_reminder") if part.get("synthetic") else {}
            self.b.add("user_message", timestamp=at, content=part.get("text", ""), metadata={**meta, **extra})
        elif kind == "text":
            step.append(self.b.add("assistant_message", timestamp=at, agent_id=agent, content=part.get("text", ""), metadata={**meta, **model}))
        elif kind == "reasoning":
            step.append(self.b.add("thinking", timestamp=at, agent_id=agent, content=part.get("text"), provider_name=str(base.get("providerID") or "opencode"), metadata={**meta, **model}))
        elif kind == "tool":
            step.extend(self.tool(part, agent, at, meta, model))
        elif kind in SYSTEM_PARTS:
            self.b.add(f"system.{kind}", timestamp=at, data=part, metadata=meta)
        else:
            self.b.account.converted -= 1
            action = self.b.add("system.unknown_part", timestamp=at, data=part, metadata=meta)
            self.b.kept("unknown-type", f"{record.where}: a part of type {short(kind)} opencode's reader does not map; kept as system.unknown_part", sequence=action.sequence, line=record.line)
        return False

    def tool(self, part: dict[str, Any], agent: str, at: Any, meta: dict[str, Any], model: dict[str, Any]) -> list[BaseAction]:
        state = part.get("state") if isinstance(part.get("state"), dict) else {}
        call_id = part.get("callID") if isinstance(part.get("callID"), str) else str(part.get("id"))
        name = part.get("tool") if isinstance(part.get("tool"), str) else ""
        times = state.get("time") if isinstance(state.get("time"), dict) else {}
        extra = {k: v for k, v in state.items() if k not in ("input", "output", "error", "status", "time")}
        out = [self.b.add("tool_call", timestamp=_ms(times.get("start")) or at, agent_id=agent, tool_name=name, tool_call_id=call_id, args=state.get("input"), metadata={**meta, **model})]
        child = (state.get("metadata") or {}).get("sessionId") if isinstance(state.get("metadata"), dict) else None
        if name == "task" and isinstance(child, str) and child in self.sessions and child not in self.joined:
            self.join(self.sessions[child], agent, call_id, out[0].timestamp)
        status = state.get("status")
        if status in ("completed", "error"):
            content = state.get("output") if status == "completed" else state.get("error")
            back = {KEY: {"status": status, **extra}}
            self.b.add("tool_return", timestamp=_ms(times.get("end")) or at, tool_call_id=call_id, tool_name=name, status="success" if status == "completed" else "error", content=content, metadata=back)
        return out

    def undecodable(self, record: Record) -> None:
        if record.undecodable:
            self.b.problem("schema", f"{record.where}: {', '.join(record.undecodable)} not UTF-8; kept with backslash escapes", line=record.line)

    def settle(self, step: list[BaseAction], usage: Usage | None) -> None:
        """The response's usage on its first assistant message, else thinking, else first action."""
        if usage is None or not step:
            return
        holder = next((a for a in step if a.action_type == "assistant_message"), None) or next((a for a in step if a.action_type == "thinking"), None)
        if holder is not None:
            holder.usage = usage  # type: ignore[attr-defined]
        else:
            step[0].usage = usage.model_dump(exclude_none=True)  # type: ignore[attr-defined]


def _created(value: dict[str, Any]) -> Any:
    if isinstance(value.get("time"), dict):
        return value["time"].get("created")
    return value.get("time_created")
