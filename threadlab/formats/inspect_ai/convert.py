"""One Inspect AI sample (one epoch of it) → one thread.

The sample's events are the transcript as it happened: each ``model`` event is one model call
(its output message, the model, its usage), each ``tool`` event one tool result, and ``span``
events (``agent``, ``handoff``, ``tool``, ``scorer``) say who was acting. So a thread is built
from the events, in their order and with their times: a model call becomes the calling agent's
thinking, text and tool calls (usage on it, once), a tool event the return (``error`` → status
error); a ``handoff`` (a tool event naming an ``agent``) is a ``system.handoff``; an agent run
as a tool (an agent span inside a tool span) joins with ``system.agent_join``; a scorer's
model calls are the scorer's (the grader is an agent of its own, ``scorer:<name>``, with its
model's usage). ``attachment://`` references are resolved from the sample's attachments first,
wherever they are (``attachments.py``).

The sample's ``messages`` (the final conversation) are records too: those a model or tool event
already gave (same message id, same tool call id) are repeats; the others (the prompt, the
system message, what a solver or a handoff filter put in the conversation) are placed in
``messages`` order before the next message the events gave. Logs whose messages carry no ids
(inspect_ai before 0.3.5x), or with no model events, are read from the messages alone, with the
usage of the model events given to the assistant messages in order.

Records (what ``thread.account`` counts): each message of ``messages`` and each ``model`` and
``tool`` event (nested ones of older logs included)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from threadlab.core.builder import ThreadBuilder
from threadlab.core.model import Thread, Usage
from threadlab.core.problems import short
from threadlab.formats.inspect_ai.attachments import resolve_attachments
from threadlab.formats.inspect_ai.decode import MAPS
from threadlab.formats.inspect_ai.events import message_key, output_message, usage_fields, walk_events
from threadlab.formats.inspect_ai.messages import KEY, MessageActions

SCORER = "scorer:"  # a scorer's agent is named after it: scorer:model_graded_fact
COUNTED_EVENTS = ("model", "tool")
_SAMPLE_META = ("id", "epoch", "target", "scores", "metadata", "model_usage", "role_usage", "error", "limit", "total_time", "working_time", "uuid")


class SampleReader(MessageActions):
    """``member``: where the sample is (``samples/1_epoch_1.json``, ``samples[1]``), named in its
    problems; ``line``: the member's position in a ``.eval`` (a container's line), else None."""

    def __init__(self, sample: Mapping[str, Any], header: Mapping[str, Any], source: str, member: str, line: int | None = None, *,
                 builder: type[ThreadBuilder] = ThreadBuilder, resolved: bool = False) -> None:
        """``builder``: a ``DocBuilder`` for the frames route; ``resolved``: the sample's
        references are resolved already (``decode.py``)."""
        ev = header.get("eval") if isinstance(header.get("eval"), MAPS) else {}
        self.default_model = ev.get("model") if isinstance(ev.get("model"), str) else "model"
        sid, epoch = sample.get("id"), sample.get("epoch", 1)
        thread_id = f"{ev.get('task', 'task')}/{ev.get('eval_id') or ev.get('run_id') or ev.get('task_id', '')}/{sid}/epoch-{epoch}"
        missing = resolve_attachments(sample) if isinstance(sample, dict) and not resolved else []  # before anything reads a value
        meta = {k: sample[k] for k in _SAMPLE_META if sample.get(k) is not None}
        meta.update({k: ev[k] for k in ("task", "task_id", "run_id", "eval_id", "model", "created") if ev.get(k) is not None})
        meta["member"] = member
        self.b = builder(thread_id, title=_title(sample.get("input")), metadata={KEY: meta}, source=source)
        self.member = f"member {line} ({member})" if line is not None else member  # as problems name it
        self.line = line
        self.numbers: dict[int, int] = {}  # id(event) → its position in the walk, from 1
        self.named: set[int] = set()  # events whose odd output is named already
        if missing:
            self.b.problem("unknown-id", f"{member}: {len(missing)} attachment references name no entry of the sample's attachments "
                                         f"(first {short(missing[0])}); kept as they are")
        self.sample = sample
        self.messages = self.listed("messages")
        self.spans: dict[str, dict[str, Any]] = {}
        self.stack: list[str] = []
        self.joined: dict[str, str] = {}  # agent span id → the tool call that started it
        self.last_tool: tuple[str, str] | None = None  # (function, call id) of the latest tool event
        self.handed: set[str] = set()

    # --- the whole sample ------------------------------------------------------------------
    def listed(self, key: str) -> list[Any]:
        """The sample's list under ``key``; any other value is a ``schema`` problem naming it."""
        value = self.sample.get(key)
        if value is None or isinstance(value, list):
            return list(value or ())
        self.b.problem("schema", f"{self.member}: {key} is {short(value)}, not a list; none read", line=self.line)
        return []

    def where(self, event: Mapping[str, Any]) -> str:
        return f"{self.member} event {self.numbers.get(id(event), '?')} ({event.get('event')})"  # (a model or tool event)

    def output(self, event: Mapping[str, Any]) -> Mapping[str, Any]:
        """A model event's ``output`` (a ModelOutput); another value is a ``schema`` problem."""
        value = event.get("output")
        if value is None or isinstance(value, MAPS):
            return value or {}
        if id(event) in self.named:
            return {}
        self.named.add(id(event))
        self.b.problem("schema", f"{self.where(event)}: output is {short(value)}, not a model output; read as none", line=self.line)
        return {}

    def usage(self, event: Mapping[str, Any]) -> dict[str, int] | None:
        """A model event's usage; a figure that is no count is a ``usage`` problem naming it."""
        phrases: list[str] = []
        fields = usage_fields(self.output(event).get("usage"), phrases)
        for phrase in phrases:
            self.b.problem("usage", f"{self.where(event)}: output.{phrase}", line=self.line)
        return fields

    def read(self) -> Thread:
        self.convert()
        return self.b.build()

    def read_document(self) -> tuple[Thread, dict[str, Any]]:
        """The frames route (``formats/common/documents.py``: built by a ``DocBuilder``)."""
        self.convert()
        return self.b.build_document()  # type: ignore[attr-defined,no-any-return]

    def convert(self) -> None:
        events = list(walk_events(self.listed("events")))
        self.numbers = {id(e): n for n, e in enumerate(events, 1)}
        models = [e for e in events if e.get("event") == "model"]
        has_ids = any(isinstance(m, MAPS) and m.get("id") for m in self.messages)
        if models and has_ids:
            self.from_events(events)
        else:
            self.from_messages(events)

    def from_events(self, events: list[Mapping[str, Any]]) -> None:
        by_id = {m["id"]: i for i, m in enumerate(self.messages) if isinstance(m, MAPS) and message_key(m.get("id"))}
        by_call = {m["tool_call_id"]: i for i, m in enumerate(self.messages) if isinstance(m, MAPS) and m.get("role") == "tool" and message_key(m.get("tool_call_id"))}
        done = 0  # messages before this index are in the thread
        given: set[int] = set()  # messages an event gave
        for event in events:
            kind = event.get("event")
            anchor: int | None = None
            if kind == "model":
                out = output_message(event)
                anchor = by_id.get(message_key(out.get("id"))) if out else None
            elif kind == "tool":
                anchor = by_call.get(message_key(event.get("id")))
            if anchor is not None and anchor >= done and anchor not in given:
                done = self.flush(done, anchor, given)
                given.add(anchor)
                self.b.took()  # the message repeats what its event gives
            self.event(event)
        self.flush(done, len(self.messages), given)

    def flush(self, start: int, stop: int, given: set[int]) -> int:
        for i in range(start, stop):
            if i not in given:
                self.message(self.messages[i], i)
        return max(start, stop)

    def from_messages(self, events: list[Mapping[str, Any]]) -> None:
        """Messages give the conversation; the model events give its usage, in order; a model
        call no message shows (a scorer's grader, more calls than messages) and the tool
        events are counted, the former kept as its caller's actions after the conversation."""
        solver_calls, extra = [], []
        for event in events:
            self.track(event)
            if event.get("event") == "model":
                (extra if self.in_scorer() else solver_calls).append((event, list(self.stack)))
            elif event.get("event") == "tool":
                self.b.took()  # the tool message of the conversation gives it
        turn = 0
        for i, message in enumerate(self.messages):
            actions = self.message(message, i)
            if actions and isinstance(message, MAPS) and message.get("role") == "assistant" and turn < len(solver_calls):
                event = solver_calls[turn][0]
                turn += 1
                self.b.took()  # the model call this message came from
                fields = self.usage(event)
                if fields:
                    _put_usage(actions, fields)
        for event, stack in [*solver_calls[turn:], *extra]:
            self.stack = stack
            self.model_event(event, event.get("timestamp"))
        self.stack = []

    def in_scorer(self) -> bool:
        return any((self.spans.get(sid) or {}).get("type") == "scorer" for sid in self.stack)

    def track(self, event: Mapping[str, Any]) -> None:
        """Spans (and the ``step`` events of older logs) as a stack of who is acting."""
        kind = event.get("event")
        if kind == "span_begin" or (kind == "step" and event.get("action") == "begin"):
            sid = str(event.get("id") or f"step:{event.get('type')}:{event.get('name')}")
            self.spans[sid] = {"id": sid, "type": event.get("type"), "name": event.get("name"), "parent": event.get("parent_id")}
            self.stack.append(sid)
        elif kind == "span_end" or (kind == "step" and event.get("action") == "end"):
            sid = str(event.get("id") or f"step:{event.get('type')}:{event.get('name')}")
            if sid in self.stack:
                self.stack = self.stack[: self.stack.index(sid)]

    # --- events ----------------------------------------------------------------------------
    def event(self, event: Mapping[str, Any]) -> None:
        kind = event.get("event")
        when = event.get("timestamp")
        if kind == "span_begin":
            self.span_begin(event, when)
        elif kind in ("span_end", "step"):
            self.track(event)
        elif kind == "model":
            self.model_event(event, when)
        elif kind == "tool":
            self.tool_event(event, when)

    def span_begin(self, event: Mapping[str, Any], when: Any) -> None:
        span = {"id": event.get("id"), "type": event.get("type"), "name": event.get("name"), "parent": event.get("parent_id")}
        self.spans[str(span["id"])] = span
        self.stack.append(str(span["id"]))
        if span["type"] == "tool" and self.last_tool and self.last_tool[0] == span["name"]:
            span["tool_call_id"] = self.last_tool[1]
        if span["type"] != "agent" or not isinstance(span["name"], str):
            return
        parent = self.spans.get(str(span["parent"]))
        call = parent.get("tool_call_id") if parent else None
        inviter = self.agent_in(self.stack[:-1])  # (registers the acting agent now, as its place in ``agents`` says)
        if call and call not in self.handed:  # an agent run as a tool: it joins, invited by the caller
            agent = self.b.agent(span["name"])
            self.joined[str(span["id"])] = call
            self.b.add("system.agent_join", timestamp=when, data={"agent_id": agent, "invited_by": inviter, "tool_call_id": call}, metadata={KEY: {"derived": True}})

    def agent_in(self, stack: list[str]) -> str:
        """The acting agent: the innermost agent span, else a scorer (``scorer:<name>``: a
        grader's calls are not the solver's turns, whatever its model), else the model's own."""
        for sid in reversed(stack):
            span = self.spans.get(sid) or {}
            if span.get("type") in ("agent", "scorer") and isinstance(span.get("name"), str):
                return self.b.agent(SCORER + span["name"] if span["type"] == "scorer" else span["name"])
        return self.b.agent(self.default_model)

    def parent_call(self) -> str | None:
        for sid in reversed(self.stack):
            if sid in self.joined:
                return self.joined[sid]
        return None

    def model_event(self, event: Mapping[str, Any], when: Any) -> None:
        self.b.took()
        agent = self.agent_in(self.stack)
        model = event.get("model") if isinstance(event.get("model"), str) else None
        out = output_message(event, self.output(event))
        meta: dict[str, Any] = {}
        if model:
            meta["model_name"] = model
            meta["provider_name"] = model.split("/", 1)[0]
        if self.parent_call():
            meta["parent_tool_call_id"] = self.parent_call()
        if out is None:
            error = event.get("error") or self.output(event).get("error")
            self.b.add("system.model_error", timestamp=when, agent_id=agent, data={"model": model, "error": error}, metadata=meta or None)
            return
        actions = self.assistant(out, agent, when, meta, self.where(event))
        fields = self.usage(event)
        if fields and actions:
            _put_usage(actions, fields)

    def tool_event(self, event: Mapping[str, Any], when: Any) -> None:
        self.b.took()
        call_id = str(event.get("id"))
        self.last_tool = (str(event.get("function")), call_id)
        for span in reversed(list(self.spans.values())):  # the tool's span began just before its event
            if span.get("type") == "tool" and span.get("name") == event.get("function") and "tool_call_id" not in span:
                span["tool_call_id"] = call_id
                break
        error = event.get("error")
        meta: dict[str, Any] = {KEY: {"error": error}} if error else {}
        if self.parent_call():
            meta["parent_tool_call_id"] = self.parent_call()
        self.b.add(
            "tool_return",
            timestamp=when,
            tool_call_id=call_id,
            tool_name=str(event.get("function")),
            status="error" if error else "success",
            content=_error_text(error) if error and event.get("result") in (None, "") else event.get("result"),
            metadata=meta or None,
        )
        target = event.get("agent")
        if isinstance(target, str) and target:
            self.handed.add(call_id)
            data = {"from_agent_id": self.agent_in(self.stack), "to_agent_id": self.b.agent(target), "tool_call_id": call_id}
            self.b.add("system.handoff", timestamp=when, data=data, metadata={KEY: {"derived": True}})


def _put_usage(actions: list[Any], fields: dict[str, int]) -> None:
    """The usage on the call's message (else its first action: a tool call keeps it as given).
    An action of the frames route is its JSON object, given the object the model would write."""
    target = next((a for a in actions if _kind(a) == "assistant_message"), actions[0])
    typed = _kind(target) in ("assistant_message", "thinking")
    if isinstance(target, dict):  # (the counts are ints: Usage would take them as they are)
        target["usage"] = {k: fields[k] for k in _USAGE_ORDER if fields.get(k) is not None} if typed else fields
    else:
        target.usage = Usage(**fields) if typed else fields


_USAGE_ORDER = tuple(Usage.model_fields)


def _kind(action: Any) -> str:
    return action["action_type"] if isinstance(action, dict) else action.action_type


def _error_text(error: Any) -> str:
    return str(error.get("message")) if isinstance(error, MAPS) else str(error)


def _title(value: Any) -> str:
    if isinstance(value, str):
        return value.strip().splitlines()[0][:100] if value.strip() else ""
    if isinstance(value, list):
        for m in value:
            if isinstance(m, MAPS) and m.get("role") == "user" and isinstance(m.get("content"), str):
                return _title(m["content"])
    return ""
