"""pydantic-ai message histories → ThreadProtocol threads.

One history (``from_pydantic_ai``), a file that may hold several conversations and stream events
(``read_source``, what ``threadlab.read`` uses), or the histories of several agents of one
conversation (``from_pydantic_ai_runs``, merged by timestamp, every action attributed). The
container is found by ``container``, messages are validated leniently by pydantic-ai itself
(``wire``), stream events are matched against the messages (``events``) and each history becomes
actions (``specs``). Every input record ends in the thread's account: converted, kept with a
problem, or failed with a problem."""

from __future__ import annotations

import hashlib
import heapq
import uuid
from collections.abc import Iterable, Mapping
from datetime import datetime
from typing import TYPE_CHECKING, Any

import orjson

from threadlab.core.builder import ThreadBuilder
from threadlab.core.canonical import json_bytes
from threadlab.core.model import AgentConfig, Thread
from threadlab.formats.common.source import Source
from threadlab.formats.pydantic_ai import container, fast
from threadlab.formats.pydantic_ai.deferred import Spec, apply_resolutions
from threadlab.formats.pydantic_ai.delegation import mark_delegated_prompts
from threadlab.formats.pydantic_ai.message import BadPart, Message
from threadlab.formats.pydantic_ai.specs import history_specs, usage_from_pai

if TYPE_CHECKING:  # pydantic-ai is imported only for what the fast route does not vouch for
    from pydantic_ai import DeferredToolResults

    from threadlab.formats.pydantic_ai.events import Resolution
    from threadlab.formats.pydantic_ai.wire import Normaliser

__all__ = ["from_pydantic_ai", "from_pydantic_ai_runs", "read_source", "usage_from_pai"]


class _History:
    """One conversation's messages (the file's own, then those rebuilt from stream events) and
    what its other records came to."""

    def __init__(self, conversation: container.Conversation) -> None:
        self._normaliser: Normaliser | None = None
        self._fast = fast.enabled()
        self.messages: list[Message] = []
        for entry in conversation.entries:
            self._add(entry.raw, entry.line, entry.counted)
        stream = _resolve(conversation.events, self.messages)
        for raw in stream.messages:
            self._add(raw, None, False)
        self.conversation = conversation
        self.stream = stream
        self.made_up = self._normaliser.made_up if self._normaliser is not None else 0
        self.slow = self._normaliser is not None  # some message went through pydantic-ai

    def _add(self, raw: Any, line: int | None, counted: bool) -> None:
        """The message, by the fast route when it vouches for it, else validated by pydantic-ai
        (one normaliser per history: made-up tool call ids pair up across its messages)."""
        message = fast.message(raw, line=line, counted=counted) if self._fast else None
        if message is None:
            if self._normaliser is None:
                from threadlab.formats.pydantic_ai.wire import Normaliser

                self._normaliser = Normaliser()
            message = self._normaliser.message(raw, len(self.messages), line=line, counted=counted)
        if message is not None:
            self.messages.append(message)

    def extra_specs(self) -> list[Spec]:
        """Stream events kept as they came (after the messages)."""
        out = []
        for line, raw, reason in self.stream.kept:
            spec = Spec(EVENT_ACTION, None, {"data": raw})
            spec.records, spec.kept, spec.line = 1, ("stream-event", reason), line
            out.append(spec)
        return out

    def account(self, builder: ThreadBuilder) -> None:
        """The records no action stands for: repeats, used events, failed lines."""
        builder.took(self.conversation.repeated + self.conversation.taken + self.stream.converted)
        for rule, message, line in (*self.conversation.failed, *self.stream.failed):
            builder.failed(rule, message, line=line)
        for rule, message in self.stream.problems:
            builder.problem(rule, message)
        if self.made_up:
            builder.problem("schema", f"{self.made_up} tool call(s) or return(s) have no tool_call_id: ids are made up "
                                      "(pyd_ai_missing_<message>_<part>) and a return answers the last unanswered call of its tool")


EVENT_ACTION = "system.pydantic_ai.event"  # events.EVENT_ACTION (a test keeps them equal)


class _NoEvents:
    """What a conversation without stream events comes to (``events.Resolution`` of nothing),
    without importing pydantic-ai for it."""

    messages: tuple[()] = ()
    kept: tuple[()] = ()
    converted = 0
    failed: tuple[()] = ()
    problems: tuple[()] = ()


def _resolve(found: list[tuple[int | None, dict[str, Any]]], messages: list[Message]) -> Resolution | _NoEvents:
    if not found:
        return _NoEvents()
    from threadlab.formats.pydantic_ai import events

    return events.resolve(found, messages)


def read_source(source: Source, *, agent: Any = "assistant") -> list[Thread]:
    """Every conversation of a file (or in-memory history) as a thread."""
    threads = []
    for conversation in container.read(source):
        threads.append(_thread(_History(conversation), agent, source.name))
    return threads


def read_documents(source: Source) -> list[tuple[Thread, dict[str, Any]]] | None:
    """The frames route (``formats/common/documents.py``): each conversation of a file as its thread
    (without actions) and its JSON object, no model per action. Only for files whose every
    message the fast route vouched for and that hold no stream events; None for any other (and
    for a file the container refuses): ``read_source`` reads those, with the same results."""
    if not fast.enabled() or source.is_object:
        return None
    try:
        conversations = container.read(source)
        if any(c.events for c in conversations):
            return None
        histories = [_History(c) for c in conversations]
        if any(h.made_up or h.slow for h in histories):
            return None
        return [_document(h, source.name) for h in histories]
    except Exception:  # whatever it was, the careful way meets it again and says what it is
        return None


def _document(history: _History, source: str | None) -> tuple[Thread, dict[str, Any]]:
    """One history's thread and object: in one pass (``direct``) when it holds only the plain
    shapes, else through the specs."""
    from threadlab.formats.common.documents import DocBuilder
    from threadlab.formats.pydantic_ai import direct

    msgs = history.messages
    builder = DocBuilder(_thread_id(msgs), title=_title(msgs), source=source)
    made = direct.actions(msgs, _register(builder, "assistant", msgs))
    if made is None:
        builder = _builder(history, "assistant", source, DocBuilder)  # type: ignore[assignment]
    else:
        builder.put(made)
        history.account(builder)
    return builder.build_document()


def _thread(history: _History, agent: Any, source: str | None, thread_id: str | None = None, title: str | None = None,
            deferred: DeferredToolResults | None = None) -> Thread:
    return _builder(history, agent, source, ThreadBuilder, thread_id, title, deferred).build()


def _builder(history: _History, agent: Any, source: str | None, cls: type[ThreadBuilder], thread_id: str | None = None,
             title: str | None = None, deferred: DeferredToolResults | None = None) -> ThreadBuilder:
    """The builder with the history's actions and account in it."""
    msgs = history.messages
    builder = cls(thread_id or _thread_id(msgs), title=title if title is not None else _title(msgs), source=source)
    agent_id = _register(builder, agent, msgs)
    specs = history_specs(msgs, agent_id) + history.extra_specs()
    if deferred is not None:
        specs = apply_resolutions(specs, deferred, agent_id, next_message=len(msgs))
    _emit(builder, specs)
    history.account(builder)
    return builder


def _agent_metadata(messages: list[Message]) -> dict[str, Any]:
    prompts: list[str] = []
    instructions = None
    model = None
    for msg in messages:
        for part in msg.parts:
            if isinstance(part, dict) and part.get("part_kind") == "system-prompt" and part.get("content") not in prompts:
                prompts.append(part.get("content"))
        if msg.kind == "request" and msg.envelope.get("instructions"):
            instructions = msg.envelope["instructions"]
        if msg.kind == "response" and model is None and msg.envelope.get("model_name"):
            model = msg.envelope["model_name"]
    meta: dict[str, Any] = {}
    if prompts:
        meta["system_prompts"] = prompts
    if instructions:
        meta["instructions"] = instructions
    if model:
        meta["model_name"] = model
    return meta


def _register(builder: ThreadBuilder, agent: Any, messages: list[Message]) -> str:
    meta = _agent_metadata(messages)
    first = next((m.envelope.get("timestamp") for m in messages if m.envelope.get("timestamp")), None)
    if isinstance(agent, AgentConfig):
        merged = {**meta, **(agent.metadata or {})}
        return builder.agent(agent.agent_name, agent_id=agent.agent_id, identifier=agent.agent_identifier,
                             created_at=agent.created_at, config_ref=agent.config_ref, metadata=merged or None)
    name = agent if isinstance(agent, str) else getattr(agent, "name", None) or "assistant"
    return builder.agent(name, created_at=first, metadata=meta or None)


def _thread_id(messages: list[Message]) -> str:
    for key in ("conversation_id", "run_id"):
        for msg in messages:
            if msg.envelope.get(key):
                return str(msg.envelope[key])
    body = [{**m.envelope, "parts": [p.raw if isinstance(p, BadPart) else p for p in m.parts]} for m in messages]
    try:
        text = orjson.dumps(body, default=str)
    except orjson.JSONEncodeError:  # nested deeper than orjson writes (the canonical encoder takes any depth)
        text = json_bytes(body)
    digest = hashlib.sha256(text).hexdigest()
    return str(uuid.uuid5(uuid.NAMESPACE_URL, f"threadlab:pydantic-ai:{digest}"))


def _title(messages: list[Message]) -> str:
    for msg in messages:
        for part in msg.parts:
            if isinstance(part, dict) and part.get("part_kind") == "user-prompt":
                content = part["content"]
                text = content if isinstance(content, str) else " ".join(c for c in content if isinstance(c, str))
                text = " ".join(text.split())
                return text if len(text) <= 80 else text[:79] + "…"
    return ""


def _emit(builder: ThreadBuilder, specs: Iterable[Spec]) -> None:
    """Add the specs in order, with the records each accounts for; a timestamp earlier than the
    last one is raised to it (so the thread keeps the time-order rule) and the part's own time
    is kept for the round trip."""
    for spec in specs:
        when = spec.timestamp
        last = builder.last_time
        if when is not None and last is not None and when < last:
            if spec.part_stamp is not None:
                rests = spec.pai.setdefault("rest", [{}])
                rests[0] = {**rests[0], "timestamp": spec.part_stamp}
            when = last
        resolved = spec.extra.get("resolved")
        if resolved is not None:
            builder.add("system.tool_resolved", timestamp=when, data=resolved)
        builder.add(spec.action_type, timestamp=when, **spec.fields)
        sequence = len(builder.actions)  # (the action's, whether a builder made it a model or its JSON object)
        if spec.kept is not None:
            builder.kept(*spec.kept, sequence=sequence, line=spec.line, n=spec.records)
        else:
            builder.took(spec.records)
        for rule, message in spec.problems:
            builder.problem(rule, message, sequence=sequence, line=spec.line)


def _ordered(specs: list[Spec]) -> list[Spec]:
    """Give every spec a non-decreasing sort time (carrying the last known one forward)."""
    last: datetime | None = None
    for spec in specs:
        if spec.timestamp is not None and (last is None or spec.timestamp > last):
            last = spec.timestamp
        spec.order = last.timestamp() if last is not None else 0.0
    return specs


def _one_history(messages: Any, what: str) -> _History:
    source = messages if isinstance(messages, Source) else Source(messages)
    conversations = container.read(source)
    if len(conversations) != 1:
        raise ValueError(f"{what} holds {len(conversations)} conversations; read them with threadlab.read_all")
    return _History(conversations[0])


# --- public -------------------------------------------------------------------------------------


def from_pydantic_ai(
    messages: Any,
    *,
    agent: Any = "assistant",
    thread_id: str | None = None,
    title: str | None = None,
    deferred_tool_results: DeferredToolResults | None = None,
    source: str | None = None,
) -> Thread:
    """One pydantic-ai history → a Thread.

    ``messages``: a list of ``ModelMessage`` or their JSON (bytes/str/parsed, as
    ``ModelMessagesTypeAdapter`` writes it, or one message a line; 1.x dumps are upgraded by
    pydantic-ai itself). What pydantic-ai cannot validate is kept and named in
    ``thread.problems``; nothing raises for it.
    ``agent``: whose history this is (a name, an ``AgentConfig`` or a pydantic-ai ``Agent``).
    ``deferred_tool_results``: how the calls the run stopped on were resolved; each resolution
    becomes a ``system.tool_resolved`` action, and calls with no return yet get their tool_return
    (denials and external results; an approval leaves the call pending until the tool has run).
    """
    history = _one_history(messages, source or "the history")
    return _thread(history, agent, source, thread_id, title, deferred_tool_results)


def from_pydantic_ai_runs(
    runs: Mapping[Any, Any] | Iterable[tuple[Any, Any]],
    *,
    thread_id: str | None = None,
    title: str | None = None,
) -> Thread:
    """Several agents' histories of one conversation → one multi-agent Thread.

    ``runs`` maps each agent (name or pydantic-ai ``Agent``) to its history, or is a list of
    ``(agent, history)`` pairs (agent may then also be an ``AgentConfig``).
    Actions are merged by timestamp (each history keeps its own order); every action is
    attributed to its agent and remembers its history, so ``to_pydantic_ai(thread, agent=...)``
    gives each history back exactly."""
    pairs = runs.items() if isinstance(runs, Mapping) else runs
    histories = [(agent, _one_history(messages, f"the history of {agent!r}")) for agent, messages in pairs]
    if not histories:
        raise ValueError("from_pydantic_ai_runs needs at least one agent's history")
    first = histories[0][1].messages
    builder = ThreadBuilder(thread_id or _thread_id(first), title=title if title is not None else _title(first))
    lists = []
    for agent, history in histories:
        agent_id = _register(builder, agent, history.messages)
        lists.append(_ordered(history_specs(history.messages, agent_id, history=agent_id) + history.extra_specs()))
    mark_delegated_prompts(lists)  # a sub-agent's prompt is its delegating agent's
    _emit(builder, heapq.merge(*lists, key=lambda s: s.order))
    for _, history in histories:
        history.account(builder)
    return builder.build()

