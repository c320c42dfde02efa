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

from dataclasses import dataclass, field
from datetime import datetime
from itertools import compress, count
from operator import is_not
from typing import Any

from threadlab.core.builder import ThreadBuilder, slug
from threadlab.formats.common.spans.calls import Calls
from threadlab.formats.common.spans.content import content, finish_reason, usage
from threadlab.formats.common.spans.model import AGENT, FOREIGN, HANDOFF, MODEL, SYSTEM, TOOL, LazyMsg, Msg, Part, Span, same
from threadlab.formats.common.spans.tree import when


@dataclass(slots=True)
class _History:
    run: str | None
    messages: list[Any] = field(default_factory=list)


class Assembly(Calls):
    """Collects the actions of one thread's spans (``emit``), then adds them to a builder in
    time order (ties keep the order they were found in). The span tree is ``tree.SpanTree``'s,
    the call/return bookkeeping ``calls.Calls``'; here the messages of model calls and agent
    runs are read against the histories seen so far, and the thread is filled."""

    def __init__(self, spans: list[Span], key: str) -> None:
        super().__init__(spans, key)
        self.histories: list[_History] = []
        self.first_call_of_run: set[str | None] = set()

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
        new = [_read(m) for m in self.new_messages(span, span.inputs or [])]
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
            emitted += self.read_message(_read(msg), span, agent, span.end, model_meta=answer_meta, finish=span.finish_reasons)
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
            self.read_message(_read(msg), span, agent, span.end)

    def read_message(self, msg: Msg, span: Span, agent: str, time: int, *, model_meta: dict[str, Any] | None = None,
                     finish: list[str] | None = None) -> list[dict[str, Any]]:
        """Emit one new message's actions (``msg`` read: ``_read``); returns the fields of the actions emitted."""
        emitted: list[dict[str, Any]] = []
        meta = dict(model_meta or {})
        calls: list[dict[str, Any]] = []
        shown: list[Part] = []
        reasoning: list[Part] = []
        for part in msg.parts:
            kind = part.kind
            if kind == "text" or kind == "media" or kind == "other":
                shown.append(part)
            elif kind == "tool_result":
                self.add_result(part, time, span)
            elif kind == "tool_call":
                call = self.add_call(part, span, agent, time, meta, from_history=model_meta is None)
                if call is not None:
                    calls.append(call.meta)
            elif kind == "reasoning":
                reasoning.append(part)
        if msg.role == "assistant":
            for part in reasoning:
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

    # --- the thread -------------------------------------------------------------------------
    def fill(self, builder: ThreadBuilder) -> None:
        """The thread's agents, actions and account, into ``builder``."""
        acting = {f.get("agent_id") for _, _, _, f, _ in self.out} | {self.agent_id(c.agent) for c in self.calls.values()}
        for _, _, kind, f, _ in self.out:
            if kind in ("system.agent_join", "system.handoff") and isinstance(f.get("data"), dict):
                acting |= {f["data"].get("agent_id"), f["data"].get("to_agent_id"), f["data"].get("from_agent_id")}
        for name, info in self.agents.items():
            if self.agent_id(name) not in acting and not info["meta"]:
                continue  # an agent span that only wraps others (OpenInference's trace-level AGENT span)
            created = when(info["created"]) if info["created"] is not None else None  # (none: the thread's first time, ThreadBuilder's)
            builder.agent(name, agent_id=self.agent_id(name), created_at=created, metadata=info["meta"] or None)
        # a join goes before what the joining agent does at the same moment; each action's fields
        # (and metadata) are its own dicts, handed over as they are (the metadata keys are the
        # assembly's own: ``emit``'s callers give model, provider, agent and span names only)
        moments: dict[int, datetime] = {}  # the actions of one span's end share their time, made once
        links = self.links
        for time, _, kind, fields, span in sorted(self.out, key=lambda x: (x[0], x[2] != "system.agent_join", x[1])):
            fields.pop("_kind", None)
            if links:
                run = self.run_of(span)
                link = links.get(run.span_id) if run is not None else None
                if link is not None and link[1] and kind != "system.agent_join":
                    fields["metadata"]["parent_tool_call_id"] = link[1]  # a delegated agent's actions name the call that started it
            if span.untimed:
                moment = None  # (no time: the builder's, said)
            else:
                moment = moments.get(time)
                if moment is None:
                    moment = moments[time] = when(time)
            builder.add(kind, timestamp=moment, **fields)
        taken = 0
        for span in self.spans:
            kept = self.kept.get(span.span_id)
            if not kept and not span.problems and span.role != FOREIGN:
                taken += 1
                continue
            phrases = (kept or []) + [m for _, m in span.problems]
            if span.role == FOREIGN:
                phrases.insert(0, f"span {span.name!r} follows no GenAI or OpenInference convention; kept as system.span")
            rule = span.problems[0][0] if span.problems else "unknown-type"
            builder.kept(rule, f"span {span.span_id} ({span.name}): " + "; ".join(phrases), line=span.line)
        builder.took(taken)


def _read(msg: Msg | LazyMsg) -> Msg:
    """The message itself (a ``LazyMsg`` parsed once, not asked again for each of its fields)."""
    return msg.get() if type(msg) is LazyMsg else msg


def _results_only(msg: Msg) -> bool:
    return bool(msg.parts) and all(p.kind == "tool_result" for p in msg.parts)


def _common_prefix(a: list[Any], b: list[Any]) -> int:
    n = min(len(a), len(b))
    # the very same objects first, compared in C: most of a repeated history (``spans.repeats``)
    i = next(compress(count(), map(is_not, a, b)), n)
    while i < n and same(a[i], b[i]):
        i += 1
    return i
