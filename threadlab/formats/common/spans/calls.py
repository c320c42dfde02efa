"""Tool calls and their returns in one conversation's spans: the calls and results read from
model calls' messages (``add_call``, ``add_result``), tied to the tool spans that ran them
(``link_tools``: by call id, else by name and args), delegations and handoffs
(``read_agent_runs``, ``read_handoff``), and their actions (``emit_tools``: a call at its tool
span's start, its return at the span's end; a call no tool span ran at its response's time, its
return where it was first shown)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from threadlab.core.builder import slug
from threadlab.formats.common.spans.model import AGENT, TOOL, Part, Span, json_value
from threadlab.formats.common.spans.tree import SpanTree, time_of


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


class Calls(SpanTree):
    """The call/return bookkeeping of the assembly (``assemble.Assembly`` reads the messages)."""

    def __init__(self, spans: list[Span], key: str) -> None:
        super().__init__(spans, key)
        self.calls: dict[str, _Call] = {}
        self.results: dict[str, _Result] = {}

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
        self.agents.setdefault(target, {"created": time_of(span), "meta": {}})
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


def _args(args: Any) -> Any:
    """Tool args as ThreadProtocol keeps them: a JSON object string becomes the object."""
    value = json_value(args)
    return value if isinstance(value, dict) else args
