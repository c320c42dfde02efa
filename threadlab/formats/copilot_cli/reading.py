"""A Copilot CLI ``events.jsonl`` → one thread (see ``wire.py`` for the events).

Each event is read where it stands. ``user.message`` is a ``user_message`` (its ``content``: what
the person typed; ``transformedContent``, what the model was sent, stays in the event);
``assistant.message`` is its ``reasoningText`` (``thinking``), its text (``assistant_message``;
none when the message only requests tools) and a ``tool_call`` per ``toolRequests`` entry;
``assistant.reasoning`` is a ``thinking``; ``tool.execution_complete`` is the call's
``tool_return`` (``success: false`` an error), its ``result.content`` the content. The token
figures of ``session.usage_record`` (``assistant.usage`` before it) go on the answer of the
model call they name (``apiCallId``), else on the nearest answer without figures; the last
``session.shutdown``'s ``modelMetrics`` (the CLI's own totals for the run, subagents' calls
included) are the thread's ``usage_total``.
``system.message`` (the system prompt), the ``session.*`` notices (a compaction's
``summaryContent`` makes its ``system.compaction`` a harness turn, ``compaction_summary``), hooks and subagent events are
``system.*`` actions holding their ``data`` (any other type the CLI's schema declares too,
named after it: ``events.py``); ``subagent.started`` is a ``system.agent_join`` and
the events carrying its call in ``parentToolCallId`` are that subagent's. Events that are
structure or bookkeeping (turn starts and ends, a tool's start when its request was seen, usage
records) make no action: each is kept, as it came, on the next action's metadata (the file's
last ones on the thread's), so the writer gives the file back. An event of a type threadlab does
not know is a ``system.unknown_event`` with an ``unknown-type`` problem.

Records: an event line."""

from __future__ import annotations

from typing import Any

from threadlab.core.authors import harness_metadata
from threadlab.core.builder import ThreadBuilder
from threadlab.core.model import BaseAction, Thread, Usage
from threadlab.core.problems import short
from threadlab.formats.common.counts import usage_from
from threadlab.formats.common.json_lines import parsed_lines
from threadlab.formats.common.source import Source
from threadlab.formats.copilot_cli.events import EVENT_TYPES
from threadlab.formats.copilot_cli.wire import QUIET, START, SYSTEM, TOKENS, is_event, shutdown_totals, usage_of

KEY = "copilot"  # metadata key of what an event has and ThreadProtocol has no field for
AGENT = "Copilot"
MAIN = "copilot"
PROVIDER = "github-copilot"  # who serves the model (a bring-your-own-key provider is named in the usage records only)
KNOWN = frozenset({*EVENT_TYPES, *QUIET, *SYSTEM, START})


class EventReader:
    def __init__(self, source: Source) -> None:
        self.source = source
        self.b = ThreadBuilder(None, source=source.name)
        self.main = self.b.agent(AGENT, agent_id=MAIN)
        self.start: dict[str, Any] | None = None
        self.held: list[dict[str, Any]] = []
        self.requested: dict[str, str] = {}  # tool call id → tool name
        self.subagents: dict[str, str] = {}  # launching tool call id → agent id
        self.message_calls: set[str] = set()  # the apiCallIds assistant.message events name
        self.holders: dict[str, BaseAction] = {}  # apiCallId → the action holding its figures
        self.last_holder: BaseAction | None = None
        self.waiting: list[Usage] = []  # figures no answer has taken yet
        self.title = ""
        self.totals: dict[str, int] | None = None  # the last session.shutdown's modelMetrics, summed

    def read(self) -> Thread:
        events = list(parsed_lines(self.source, self.b))
        self.message_calls = {v["data"]["apiCallId"] for _, v in events if is_event(v) and v["type"] == "assistant.message" and isinstance(v["data"].get("apiCallId"), str)}
        for number, value in events:
            self.event(value, number)
        return self.finish()

    # --- one event -----------------------------------------------------------------------
    def event(self, value: Any, number: int) -> None:
        if not is_event(value):
            self.b.kept("unknown-type", f"line {number} is no Copilot CLI event ({short(value)}); kept as system.unknown_event", line=number)
            self.add("system.unknown_event", {}, data=value)
            return
        kind, data = value["type"], value["data"]
        if kind not in KNOWN:
            self.b.kept("unknown-type", f"line {number}: a Copilot CLI event of type {short(kind)}, which threadlab does not map; kept as system.unknown_event", line=number)
            self.add("system.unknown_event", _without(value, "data"), data=data)
            return
        self.b.took()
        if kind == START and self.start is None:
            self.start = value
            return
        if kind in ("session.usage_record", "assistant.usage"):
            self.usage(value)
        if kind in QUIET and not (kind == "tool.execution_start" and data.get("toolCallId") not in self.requested):
            self.held.append(value)
        elif kind == "user.message":
            self.user(value)
        elif kind == "assistant.message":
            self.assistant(value)
        elif kind == "assistant.reasoning":
            self.add("thinking", _without(value, "content"), filled=_filled(value, "content"), agent_id=self.agent_of(value), content=data.get("content"), provider_name=PROVIDER)
        elif kind == "tool.execution_start":
            self.tool_call(value, data, data.get("toolName"), data.get("arguments"), first=True, dropped=("arguments",))
        elif kind == "tool.execution_complete":
            self.tool_return(value)
        elif kind == "subagent.started":
            self.subagent(value)
        elif kind == "session.shutdown":
            self.totals = shutdown_totals(data) or self.totals
            self.add("system.session_end", _without(value, "data"), data=data)
        elif kind == "system.message":
            self.add("system.prompt", _without(value, "data"), data=data)
        else:
            # a compaction's summary is what the model is sent in place of the history before it
            harness = harness_metadata("compaction_summary") if kind == "session.compaction_complete" and isinstance(data.get("summaryContent"), str) and data["summaryContent"] else None
            self.add(SYSTEM.get(kind) or "system." + kind.replace(".", "_"), _without(value, "data"), data=data, metadata=harness)

    def add(self, kind: str, event: dict[str, Any], *, first: bool = True, filled: list[str] | None = None, **fields: Any) -> BaseAction:
        """An action of an event: the event's first action holds the event (less what its fields
        hold) and the quiet events before it."""
        meta: dict[str, Any] = {"event": event} if first else {"part": True}
        if first and filled:
            meta["filled"] = filled
        if first and self.held:
            meta["before"], self.held = self.held, []
        when = event.get("timestamp") if isinstance(event.get("timestamp"), str) else None
        more = fields.pop("metadata", None) or {}
        return self.b.add(kind, timestamp=when, metadata={**more, KEY: meta}, **fields)

    def agent_of(self, event: dict[str, Any]) -> str:
        """The agent an event is of: a subagent's events carry its ``agentId`` in the envelope
        (1.0.x) or its launching call in ``data.parentToolCallId`` (earlier releases)."""
        for key in (event.get("agentId"), event["data"].get("parentToolCallId")):
            if isinstance(key, str) and key:
                if key not in self.subagents:
                    self.subagents[key] = self.b.agent(f"subagent {key}", agent_id=f"subagent-{key}")
                return self.subagents[key]
        return self.main

    def user(self, event: dict[str, Any]) -> None:
        data = event["data"]
        content = data.get("content")
        agent = self.agent_of(event)
        meta: dict[str, Any] = {}
        if agent != self.main:
            meta = harness_metadata("task_prompt")  # the prompt a subagent is started with
        elif isinstance(content, str) and content.strip() and not self.title:
            self.title = content.strip().splitlines()[0][:80]
        text = isinstance(content, str)
        self.add("user_message", _without(event, *(["content"] if text else [])), filled=["content"] if text else None, content=content if text else "", metadata=meta)
        if not text:
            self.b.problem("schema", f"user.message {short(event.get('id'))}: content is {type(content).__name__}, not text; kept in the event")

    def assistant(self, event: dict[str, Any]) -> None:
        data = event["data"]
        agent = self.agent_of(event)
        common: dict[str, Any] = {"model_name": data["model"]} if isinstance(data.get("model"), str) else {}
        actions: list[BaseAction] = []
        reasoning, content = data.get("reasoningText"), data.get("content")
        text = isinstance(content, str) and bool(content)
        filled = [*(["content"] if text else []), *(["reasoningText"] if isinstance(reasoning, str) and reasoning else [])]
        stripped = _without(event, *filled)
        requests = data.get("toolRequests") if isinstance(data.get("toolRequests"), list) else []
        started = {r.get("toolCallId") for r in requests if type(r) is dict and r.get("toolCallId") in self.requested}  # a tool's start came first
        if requests:
            stripped["data"]["toolRequests"] = [{k: (None if k == "arguments" else v) for k, v in r.items()} if type(r) is dict and r.get("toolCallId") not in started else r for r in requests]
            filled.append("toolRequests")
        if isinstance(reasoning, str) and reasoning:
            actions.append(self.add("thinking", stripped, first=not actions, filled=filled, agent_id=agent, content=reasoning, provider_name=PROVIDER, **common))
        if text or not requests:
            actions.append(self.add("assistant_message", stripped, first=not actions, filled=filled, agent_id=agent, content=content if isinstance(content, str) else "", **common))
        for request in requests:
            if type(request) is dict and request.get("toolCallId") in started:
                continue  # the call is the tool start's (its request repeats it)
            if type(request) is not dict:
                self.b.problem("unknown-type", f"assistant.message {short(event.get('id'))}: a tool request that is no object ({short(request)}); kept as system.unknown_tool_request")
                actions.append(self.add("system.unknown_tool_request", stripped, first=not actions, filled=filled, data=request))
                continue
            actions.append(self.tool_call(stripped, request, request.get("name"), request.get("arguments"), first=not actions, agent=agent, common=common, filled=filled))
        if not actions:
            actions.append(self.add("assistant_message", stripped, filled=filled, agent_id=agent, content="", **common))
        holder = next((a for a in actions if a.action_type == "assistant_message"), None) or next((a for a in actions if a.action_type == "thinking"), actions[0])
        call = data.get("apiCallId")
        self.place(holder, call if isinstance(call, str) else None)

    def tool_call(self, event: dict[str, Any], call: dict[str, Any], name: Any, args: Any, *, first: bool, agent: str | None = None,
                  common: dict[str, Any] | None = None, dropped: tuple[str, ...] = (), filled: list[str] | None = None) -> BaseAction:
        call_id = call.get("toolCallId") if isinstance(call.get("toolCallId"), str) else ""
        name = name if isinstance(name, str) else ""
        self.requested[call_id] = name
        if dropped:
            event, filled = _without(event, *dropped), _filled(event, *dropped)
        return self.add("tool_call", event, first=first, filled=filled, agent_id=agent or self.agent_of(event), tool_name=name, tool_call_id=call_id, args=args, **(common or {}))

    def tool_return(self, event: dict[str, Any]) -> None:
        data = event["data"]
        call_id = data.get("toolCallId") if isinstance(data.get("toolCallId"), str) else ""
        result = data.get("result")
        stripped = dict(event)
        stripped["data"] = dict(data)
        filled: list[str] = []
        if type(result) is dict and isinstance(result.get("content"), str):
            content: Any = result["content"]
            stripped["data"]["result"] = {k: (None if k == "content" else v) for k, v in result.items()}
            filled = ["result.content"]
        elif "result" in data:
            content, stripped["data"]["result"], filled = result, None, ["result"]
        else:
            error = data.get("error")
            content = error.get("message") if type(error) is dict and isinstance(error.get("message"), str) else None
        status = "error" if data.get("success") is False else "success"
        self.add("tool_return", stripped, filled=filled, tool_call_id=call_id, tool_name=self.requested.get(call_id, ""), status=status, content=content)

    def subagent(self, event: dict[str, Any]) -> None:
        """``subagent.started``: the agent its ``agentId`` (or its launching call) names joins."""
        data = event["data"]
        call_id = data.get("toolCallId") if isinstance(data.get("toolCallId"), str) else ""
        own = event.get("agentId") if isinstance(event.get("agentId"), str) and event["agentId"] else call_id
        label = next((data[k] for k in ("agentDisplayName", "agentName") if isinstance(data.get(k), str) and data[k]), "subagent")
        meta = {k: data[k] for k in ("agentName", "agentDescription", "agentType", "model") if k in data}
        agent = self.b.agent(label, agent_id=self.subagents.get(own) or f"subagent-{own}", identifier=data.get("agentName") if isinstance(data.get("agentName"), str) else None,
                             created_at=event.get("timestamp"), metadata=meta or None)
        self.subagents.setdefault(own, agent)
        self.subagents.setdefault(call_id, agent)  # earlier releases name it by its launching call
        self.add("system.agent_join", event, data={"agent_id": agent, "invited_by": self.main, "tool_call_id": call_id})

    # --- usage ---------------------------------------------------------------------------
    def usage(self, event: dict[str, Any]) -> None:
        figures = usage_of(event)
        found = usage_from(figures, TOKENS, f"{event['type']} ", self.b.problem) if figures is not None else None
        if found is None:
            return
        call = figures.get("apiCallId") if figures is not None else None
        if isinstance(call, str) and call in self.message_calls:
            holder = self.holders.get(call)
            if holder is None:
                self.holders[call] = _Pending(found)  # type: ignore[assignment]
            else:
                _add_usage(holder, found)
        elif self.last_holder is not None and getattr(self.last_holder, "usage", None) is None:
            _add_usage(self.last_holder, found)
        else:
            self.waiting.append(found)

    def place(self, holder: BaseAction, call: str | None) -> None:
        pending = self.holders.get(call) if call else None
        if isinstance(pending, _Pending):
            _add_usage(holder, pending.usage)
        elif self.waiting:
            for found in self.waiting:
                _add_usage(holder, found)
            self.waiting = []
        if call:
            self.holders[call] = holder
        self.last_holder = holder

    # --- the thread ----------------------------------------------------------------------
    def finish(self) -> Thread:
        start = self.start["data"] if self.start is not None else {}
        if isinstance(start.get("sessionId"), str):
            self.b.thread_id = start["sessionId"]
        self.b.title = self.title
        meta: dict[str, Any] = {}
        if self.start is not None:
            meta["start"] = self.start
        if self.held:
            meta["after"] = self.held
        if self.waiting:
            self.b.problem("usage", f"{len(self.waiting)} usage record(s) name no answer in the file; their figures are kept in the events only")
        self.b.metadata[KEY] = meta
        if self.totals:
            self.b.metadata["usage_total"] = self.totals
            self.b.metadata["usage_total_note"] = "the CLI's own totals (session.shutdown's modelMetrics: every model call of the run, subagents' included)"
        return self.b.build()


class _Pending:
    """Figures that came before the answer they name."""

    def __init__(self, usage: Usage) -> None:
        self.usage = usage


def _add_usage(action: BaseAction, found: Usage) -> None:
    current = getattr(action, "usage", None)
    if action.action_type == "tool_call":  # a call holds its figures as a dict (as Codex's do)
        mine = dict(current or {})
        for k, v in found.model_dump(exclude_none=True).items():
            mine[k] = mine.get(k, 0) + v
        action.usage = mine  # type: ignore[attr-defined]
        return
    if current is None:
        action.usage = found  # type: ignore[attr-defined]
        return
    both = current.model_dump(exclude_none=True)
    for k, v in found.model_dump(exclude_none=True).items():
        both[k] = both.get(k, 0) + v
    action.usage = Usage(**both)  # type: ignore[attr-defined]


def _without(event: dict[str, Any], *keys: str) -> dict[str, Any]:
    """The event with the ``data`` keys an action's fields hold left empty (``None``, so the
    writer puts each back where it stood); ``"data"``: the whole data."""
    if keys == ("data",):
        return {k: (None if k == "data" else v) for k, v in event.items()}
    out = dict(event)
    out["data"] = {k: (None if k in keys else v) for k, v in event["data"].items()}
    return out


def _filled(event: dict[str, Any], *keys: str) -> list[str]:
    return [k for k in keys if k in event["data"]]


def read_events(source: Source) -> Thread:
    return EventReader(source).read()
