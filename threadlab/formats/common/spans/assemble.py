"""Interpreted spans of one conversation → one Thread.

The span tree says who did what: an agent run's spans (and the model calls and tools under
it) are that agent's; a tool span above an agent run is a delegation (``system.agent_join``
with the tool call that started it; the sub-agent's actions carry
``metadata.parent_tool_call_id``); a handoff span is a ``system.handoff``.

Model calls repeat the whole history on every span. Each model call's input is compared with
the histories read so far (the longest common prefix of message keys, over every history but
those of the agent runs above the call, which a delegated agent never sees): only what follows
it is new. System messages are kept on the agent (``metadata.system_instructions``), not in
the comparison, so a handoff (same history, other instructions) continues the history.

Times are the spans': a user prompt at its agent run's start (or its model call's), a response
at its model call's end, a tool call and its return at the tool span's start and end (so a
call's latency is the tool's duration); a tool call no tool span ran is at its response's
time, its return at the model call that first shows it. A history the trace did not make (an
Agent Framework session's earlier run, repeated in a later run's first model call) is new up to
its prompt, all at the prompt's time, and keeps its order, calls and returns in their places."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from threadlab.core.builder import ThreadBuilder, slug
from threadlab.core.timefmt import from_unix_nanos
from threadlab.formats.common.spans.content import content, finish_reason, usage
from threadlab.formats.common.spans.model import AGENT, FOREIGN, HANDOFF, MODEL, SYSTEM, TOOL, Msg, Part, Span, json_value, same

DEFAULT_AGENT = "assistant"


def when(ns: int) -> datetime:
    """A span's unix nanoseconds as a time, exactly (``core.timefmt.Moment``)."""
    return from_unix_nanos(ns)


@dataclass(slots=True)
class _Call:
    id: str
    name: str
    args: Any
    run: str | None
    agent: str
    time: int
    meta: dict[str, Any]
    span: Span | None = None
    order: float = 0.0  # where among the actions it was read: a call no tool span ran stands there
    from_history: bool = False  # first shown in a later request's history, not as the model's answer


@dataclass(slots=True)
class _Result:
    id: str
    name: str | None
    result: Any
    time: int
    meta: dict[str, Any]
    order: float = 0.0


@dataclass(slots=True)
class _History:
    run: str | None
    messages: list[Any] = field(default_factory=list)


class Assembly:
    """Collects the actions of one thread's spans (``emit``), then adds them to a builder in
    time order (ties keep the order they were found in)."""

    def __init__(self, spans: list[Span], key: str) -> None:
        self.key = key
        self.by_id = {s.span_id: s for s in spans}
        self._depth: dict[str, int] = {}
        self._runs: dict[str, Span | None] = {}
        self.spans = sorted(spans, key=lambda s: (s.start, self.depth(s)))
        self.out: list[tuple[int, int, str, dict[str, Any]]] = []
        self.agents: dict[str, dict[str, Any]] = {}
        self.calls: dict[str, _Call] = {}
        self.results: dict[str, _Result] = {}
        self.histories: list[_History] = []
        self.first_call_of_run: set[str | None] = set()
        self.links: dict[str | None, tuple[str, str | None]] = {}  # agent run → (inviting agent, tool call id)
        self.kept: dict[str, list[str]] = {}  # span id → what of it was kept as unknown

    # --- the tree ---------------------------------------------------------------------------
    def depth(self, span: Span) -> int:
        found = self._depth.get(span.span_id)
        if found is None:
            chain, node = [], span
            while node is not None and node.span_id not in self._depth and len(chain) < 10_000:
                chain.append(node)
                node = self.by_id.get(node.parent_id) if node.parent_id and node.parent_id != node.span_id else None
            base = self._depth.get(node.span_id, 0) + 1 if node is not None else 0
            for i, item in enumerate(reversed(chain)):
                self._depth[item.span_id] = base + i
            found = self._depth[span.span_id]
        return found

    def ancestors(self, span: Span) -> Iterable[Span]:
        seen = {span.span_id}
        node = self.by_id.get(span.parent_id) if span.parent_id else None
        while node is not None and node.span_id not in seen:
            seen.add(node.span_id)
            yield node
            node = self.by_id.get(node.parent_id) if node.parent_id else None

    def run_of(self, span: Span) -> Span | None:
        if span.role == AGENT:
            return span
        if span.span_id not in self._runs:
            self._runs[span.span_id] = next((a for a in self.ancestors(span) if a.role == AGENT), None)
        return self._runs[span.span_id]

    def agent_of(self, span: Span) -> str:
        run = self.run_of(span)
        name = (run.agent_name if run is not None else None) or span.agent_name or DEFAULT_AGENT
        if name not in self.agents:
            self.agents[name] = {"created": _time_of(run or span), "meta": {}}
        return name

    # --- output -----------------------------------------------------------------------------
    def emit(self, time: int, action_type: str, span: Span, *, order: float | None = None, **fields: Any) -> dict[str, Any]:
        """Collect an action; ``order`` breaks ties of time (by default, the order emitted)."""
        meta = fields.pop("metadata", None) or {}
        fields["metadata"] = {**meta, self.key: {"span_id": span.span_id, **meta.get(self.key, {})}}
        fields["_span"] = span
        self.out.append((time, len(self.out) if order is None else order, action_type, fields))
        return fields

    def keep_unknown(self, span: Span, phrases: list[str]) -> None:
        if phrases:
            self.kept.setdefault(span.span_id, []).extend(phrases)

    # --- histories --------------------------------------------------------------------------
    def new_messages(self, span: Span, messages: list[Msg]) -> list[Msg]:
        """The messages of ``messages`` that no history read so far holds (see the module doc)."""
        run = self.run_of(span)
        run_id = run.span_id if run else None
        above = {a.span_id for a in self.ancestors(run)} if run is not None else set()
        talk = [m for m in messages if m.cheap_role not in ("system", "developer")]
        best: _History | None = None
        best_len = 0
        for history in self.histories:
            if history.run in above:
                continue
            n = _common_prefix(history.messages, talk)
            if n > best_len or (n == best_len and n and history.run == run_id):
                best, best_len = history, n
        if best is not None and best.run == run_id and best_len == len(best.messages):
            best.messages[:] = talk
            current = best
        else:
            current = _History(run_id, list(talk))
            self.histories.append(current)
        self._current = current
        return talk[best_len:]

    def extend_history(self, messages: list[Msg]) -> None:
        self._current.messages.extend(m for m in messages if m.cheap_role not in ("system", "developer"))

    # --- reading spans ----------------------------------------------------------------------
    def read(self) -> None:
        for span in self.spans:
            if span.role in (AGENT, MODEL, TOOL):
                self.agent_of(span)  # agents registered in the order they appear
        for span in self.spans:
            if span.role == AGENT and span.data:
                self.agents[self.agent_of(span)]["meta"].update(span.data)
        steps = [(s.start, i, s, False) for i, s in enumerate(self.spans) if s.role == MODEL]
        steps += [(s.end, i, s, True) for i, s in enumerate(self.spans) if s.role == AGENT and s.history]
        for _, _, span, is_history in sorted(steps, key=lambda x: (x[0], x[1])):
            if is_history:
                self.read_history(span)
            else:
                self.read_model_call(span)
        self.link_tools()
        self.read_agent_runs()
        for span in self.spans:
            if span.role == HANDOFF:
                self.read_handoff(span)
            elif span.role in (SYSTEM, FOREIGN):
                kind = "system.span" if span.role == FOREIGN else "system." + slug(str((span.data or {}).get("kind") or "span"))
                self.emit(span.start, kind, span, data={"name": span.name, **(span.data or {})}, agent_id=None)
        self.emit_tools()

    def read_model_call(self, span: Span) -> None:
        agent = self.agent_of(span)
        info = self.agents[agent]
        for text in span.system:
            info["meta"].setdefault("system_instructions", [])
            if text not in info["meta"]["system_instructions"]:
                info["meta"]["system_instructions"].append(text)
        if span.model:
            info["meta"]["model_name"] = span.model
        run = self.run_of(span)
        run_key = run.span_id if run else None
        first = run_key not in self.first_call_of_run
        self.first_call_of_run.add(run_key)
        for msg in span.inputs or []:
            if msg.cheap_role in ("system", "developer"):
                for text in (p.text for p in msg.parts if p.kind == "text" and p.text):
                    info["meta"].setdefault("system_instructions", [])
                    if text not in info["meta"]["system_instructions"]:
                        info["meta"]["system_instructions"].append(text)
        new = self.new_messages(span, span.inputs or [])
        start = run.start if first and run is not None else span.start
        # a history this trace did not make (an earlier run of the session) stands with the prompt
        # that follows it, in its order: all at the prompt's time, not its answers at the call's
        prompts = [k for k, msg in enumerate(new) if msg.role == "user" and not _results_only(msg)]
        for k, msg in enumerate(new):
            self.read_message(msg, span, agent, start if prompts and k <= prompts[-1] else span.start)
        outputs = span.outputs or []
        model_meta = {k: v for k, v in (("model_name", span.model), ("provider_name", span.provider)) if v}
        response_id = (span.data or {}).get("response_id")
        # what the model answered names its response, as the provider's log of the same call does
        answer_meta = {**model_meta, self.key: {"response_id": response_id}} if isinstance(response_id, str) else model_meta
        emitted: list[dict[str, Any]] = []
        for msg in outputs:
            emitted += self.read_message(msg, span, agent, span.end, model_meta=answer_meta, finish=span.finish_reasons)
        self.extend_history(outputs)
        tokens = usage(span.usage)
        if tokens is not None:
            # on the response's message, else on its first thinking or tool call
            target = next((f for f in emitted if f.get("_kind") == "assistant_message"), emitted[0] if emitted else None)
            if target is not None:
                target["usage"] = tokens
            else:  # a model call whose output the trace does not hold (or repeats): its usage still counts
                data = {k: v for k, v in {"model": span.model, "name": span.name, **(span.data or {})}.items() if v is not None}
                self.emit(span.end, "system.model_call", span, agent_id=self.agent_id(agent), data=data, usage=tokens,
                          metadata=dict(model_meta))

    def read_history(self, span: Span) -> None:
        """An agent run's whole history (pydantic-ai writes it on the run's span): what no model
        call showed (the output tool's return, say) is new, at the run's end."""
        agent = self.agent_of(span)
        for msg in self.new_messages(span, span.history or []):
            self.read_message(msg, span, agent, span.end)

    def read_message(self, msg: Msg, span: Span, agent: str, time: int, *, model_meta: dict[str, Any] | None = None,
                     finish: list[str] | None = None) -> list[dict[str, Any]]:
        """Emit one new message's actions; returns the fields of the actions emitted."""
        emitted: list[dict[str, Any]] = []
        meta = dict(model_meta or {})
        calls: list[dict[str, Any]] = []
        for part in msg.parts:
            if part.kind == "tool_result":
                self.add_result(part, time, span)
            elif part.kind == "tool_call":
                call = self.add_call(part, span, agent, time, meta, from_history=model_meta is None)
                if call is not None:
                    calls.append(call.meta)
        shown = [p for p in msg.parts if p.kind in ("text", "media", "other")]
        if msg.role == "assistant":
            for part in (p for p in msg.parts if p.kind == "reasoning"):
                fields = self.emit(time, "thinking", span, agent_id=self.agent_id(agent), content=part.text,
                                   provider_name=(model_meta or {}).get("provider_name") or "unknown", metadata=dict(meta))
                emitted.append(fields)
            if shown:
                body, unknown = content(shown)
                self.keep_unknown(span, unknown)
                reason = finish_reason(msg.finish_reason or (finish[0] if finish else None))
                fields = self.emit(time, "assistant_message", span, agent_id=self.agent_id(agent), content=body,
                                   finish_reason=reason, metadata=dict(meta))
                fields["_kind"] = "assistant_message"
                emitted.insert(0, fields)
            emitted += calls  # a call's usage is copied onto it when it is emitted
        elif shown:
            body, unknown = content(shown)
            self.keep_unknown(span, unknown)
            kind = "user_message" if msg.role == "user" else "system." + slug(msg.role) + "_message"
            if kind == "user_message":
                self.emit(time, kind, span, content=body, metadata={"to_agent_id": self.agent_id(agent)})
            else:
                self.emit(time, kind, span, data={"role": msg.role, "content": body}, agent_id=self.agent_id(agent))
        return emitted

    def agent_id(self, name: str) -> str:
        return slug(name)

    def add_call(self, part: Part, span: Span, agent: str, time: int, meta: dict[str, Any], *, from_history: bool = False) -> _Call | None:
        call_id = part.id or f"{span.span_id}:{len(self.calls)}"
        if call_id in self.calls:
            return None
        run = self.run_of(span)
        call = _Call(call_id, part.name or "unknown", part.args, run.span_id if run else None, agent, time,
                     {"_span": span, "_model": dict(meta)}, order=len(self.out) - 0.5, from_history=from_history)
        self.calls[call_id] = call
        return call

    def add_result(self, part: Part, time: int, span: Span) -> None:
        call_id = part.id
        if call_id is None:  # a result that names no call: the latest unanswered call of its tool
            open_calls = [c for c in self.calls.values() if c.id not in self.results and (part.name is None or c.name == part.name)]
            call_id = open_calls[-1].id if open_calls else f"{span.span_id}:result:{len(self.results)}"
        if call_id in self.results:
            return
        self.results[call_id] = _Result(call_id, part.name, part.result, time, {"_span": span}, order=len(self.out) - 0.5)

    # --- tools, delegation, handoffs ----------------------------------------------------------
    def link_tools(self) -> None:
        """Tool spans to the calls they ran: by call id, else by name and args (the Agents SDK's
        function spans and OpenInference's TOOL spans name no call id), else a call is made
        from the span itself."""
        for span in (s for s in self.spans if s.role == TOOL):
            call = self.calls.get(span.call_id) if span.call_id else None
            if call is None and not span.call_id:
                call = self._match(span)
            if call is None:
                agent = self.agent_of(span)
                run = self.run_of(span)
                call_id = span.call_id or span.span_id
                call = self.calls[call_id] = _Call(call_id, span.tool_name or span.name, span.args, run.span_id if run else None,
                                                   agent, span.start, {"_span": span, "_model": {}})
            if call.span is None:
                call.span = span

    def _match(self, span: Span) -> _Call | None:
        run = self.run_of(span)
        candidates = [c for c in self.calls.values() if c.span is None and c.name == (span.tool_name or span.name) and (span.untimed or c.time <= span.end)]
        same_run = [c for c in candidates if run is not None and c.run == run.span_id]
        for group in (same_run, candidates):
            exact = [c for c in group if span.args is None or Part("x", args=c.args).key() == Part("x", args=span.args).key()]
            if exact:
                return exact[0]
        # a call the producer recorded only in the next request's history (Langfuse's OpenAI
        # integration keeps a streamed answer's text, not its tool calls): made before its tool ran
        late = [c for c in self.calls.values() if c.span is None and c.from_history and c.name == (span.tool_name or span.name) and c.time > span.end
                and (span.args is None or Part("x", args=c.args).key() == Part("x", args=span.args).key())]
        if late:
            late[0].time = span.start
            return late[0]
        return None

    def read_agent_runs(self) -> None:
        by_span = {c.span.span_id: c for c in self.calls.values() if c.span is not None}
        for span in (s for s in self.spans if s.role == AGENT):
            agent = self.agent_of(span)
            tool = next((a for a in self.ancestors(span) if a.role == TOOL), None)
            if tool is None:
                continue
            inviter = self.agent_of(tool)
            if inviter == agent:
                continue
            call = by_span.get(tool.span_id)
            call_id = call.id if call is not None else tool.call_id
            self.links[span.span_id] = (inviter, call_id)
            data = {"agent_id": self.agent_id(agent), "invited_by": self.agent_id(inviter), "tool_call_id": call_id}
            self.emit(span.start, "system.agent_join", span, data={k: v for k, v in data.items() if v is not None})

    def read_handoff(self, span: Span) -> None:
        source = span.from_agent or self.agent_of(span)
        target = span.to_agent
        if target is None:
            return
        self.agents.setdefault(target, {"created": _time_of(span), "meta": {}})
        transfer = [c for c in self.calls.values() if c.agent == source and (span.untimed or c.time <= span.end) and c.span is None
                    and (c.name.startswith("transfer_to") or slug(target) in slug(c.name))]
        data = {"from_agent_id": self.agent_id(source), "to_agent_id": self.agent_id(target)}
        if transfer:
            data["tool_call_id"] = transfer[-1].id
        self.emit(span.start, "system.handoff", span, data=data)

    def emit_tools(self) -> None:
        for call in self.calls.values():
            span = call.span
            origin = span if span is not None else call.meta["_span"]
            meta = dict(call.meta.get("_model") or {})
            time = span.start if span is not None else call.time
            fields = self.emit(time, "tool_call", origin, order=None if span is not None else call.order, agent_id=self.agent_id(call.agent),
                               tool_name=call.name, tool_call_id=call.id, args=_args(call.args), metadata=meta)
            if call.meta.get("usage") is not None:
                fields["usage"] = call.meta["usage"]
            result = self.results.pop(call.id, None)
            if span is not None and (result is not None or span.has_result or span.error or span.end > span.start):
                body = result.result if result is not None else span.result
                status = "error" if span.error else "success"
                ret = self.emit(span.end, "tool_return", span, tool_call_id=call.id, tool_name=call.name, status=status,
                                content=body)
                if span.error and result is None and not span.has_result:
                    ret["content"] = span.error
            elif result is not None:
                self.emit(result.time, "tool_return", result.meta["_span"], order=result.order, tool_call_id=call.id, tool_name=call.name, content=result.result)
        for result in self.results.values():  # returns of calls the trace does not hold
            self.emit(result.time, "tool_return", result.meta["_span"], order=result.order, tool_call_id=result.id, tool_name=result.name or "unknown",
                      content=result.result)

    # --- the thread -------------------------------------------------------------------------
    def fill(self, builder: ThreadBuilder) -> None:
        """The thread's agents, actions and account, into ``builder``."""
        acting = {f.get("agent_id") for _, _, _, f in self.out} | {self.agent_id(c.agent) for c in self.calls.values()}
        for _, _, kind, f in self.out:
            if kind in ("system.agent_join", "system.handoff") and isinstance(f.get("data"), dict):
                acting |= {f["data"].get("agent_id"), f["data"].get("to_agent_id"), f["data"].get("from_agent_id")}
        for name, info in self.agents.items():
            if self.agent_id(name) not in acting and not info["meta"]:
                continue  # an agent span that only wraps others (OpenInference's trace-level AGENT span)
            created = when(info["created"]) if info["created"] is not None else None  # (none: the thread's first time, ThreadBuilder's)
            builder.agent(name, agent_id=self.agent_id(name), created_at=created, metadata=info["meta"] or None)
        # a join goes before what the joining agent does at the same moment
        for time, _, kind, fields in sorted(self.out, key=lambda x: (x[0], x[2] != "system.agent_join", x[1])):
            clean = {k: v for k, v in fields.items() if not k.startswith("_")}
            meta = {k: v for k, v in clean["metadata"].items() if not k.startswith("_")}
            run = self.run_of(fields["_span"])
            link = self.links.get(run.span_id) if run is not None else None
            if link is not None and link[1] and kind != "system.agent_join":
                meta["parent_tool_call_id"] = link[1]  # a delegated agent's actions name the call that started it
            clean["metadata"] = meta
            builder.add(kind, timestamp=None if fields["_span"].untimed else when(time), **clean)  # (no time: the builder's, said)
        for span in self.spans:
            phrases = self.kept.get(span.span_id, []) + [m for _, m in span.problems]
            if span.role == FOREIGN:
                phrases.insert(0, f"span {span.name!r} follows no GenAI or OpenInference convention; kept as system.span")
            if phrases:
                rule = span.problems[0][0] if span.problems else "unknown-type"
                builder.kept(rule, f"span {span.span_id} ({span.name}): " + "; ".join(phrases), line=span.line)
            else:
                builder.took()


def _time_of(span: Span) -> int | None:
    return None if span.untimed else span.start


def _results_only(msg: Msg) -> bool:
    return bool(msg.parts) and all(p.kind == "tool_result" for p in msg.parts)


def _common_prefix(a: list[Any], b: list[Any]) -> int:
    n = min(len(a), len(b))
    i = 0
    while i < n and same(a[i], b[i]):
        i += 1
    return i


def _args(args: Any) -> Any:
    """Tool args as ThreadProtocol keeps them: a JSON object string becomes the object."""
    value = json_value(args)
    return value if isinstance(value, dict) else args
