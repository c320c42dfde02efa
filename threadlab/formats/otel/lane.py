"""The GenAI lane of the frames route: a file of vouched spans (``lane_spans.py``) straight to
its thread's JSON object, without ``RawSpan``, ``interpret``, ``Span`` or ``Msg`` objects.

It is ``spans/assemble.py``'s reading (with ``calls.py`` and ``tree.py``) for the one shape
``lane_spans`` takes, written over the wire objects: agent runs at the root, so no delegation,
no agent joins and no history above a run to leave out; every tool span names its call, so no
matching by name and arguments; no untimed span, no problem, no unknown part. Each model
call's history is compared with the ones read so far as the assembly compares it
(``assemble._common_prefix`` over the same ``LazyMsg``s: the repeated prefix is the very same
objects, ``spans/repeats.py``), and only its new messages are read, from their wire objects.
A part or message of another shape (media, a part that is no object, parts that are no list)
raises ``Declined``: the file is then read the careful way, which is also the referee
(``tests/test_otel_lane.py``)."""

from __future__ import annotations

from datetime import datetime
from itertools import compress, count
from operator import is_not, itemgetter
from typing import Any

from threadlab.core.model import Thread
from threadlab.core.timefmt import from_unix_nanos
from threadlab.formats.common.documents import DocBuilder, fit_check
from threadlab.formats.common.spans.assemble import _History
from threadlab.formats.common.spans.calls import _args
from threadlab.formats.common.spans.content import finish_reason, usage_counts
from threadlab.formats.common.spans.messages import genai_message
from threadlab.formats.common.spans.model import LazyMsg, same
from threadlab.formats.common.spans.tree import DEFAULT_AGENT, _slug, when
from threadlab.formats.otel.lane_spans import AGENT, HANDOFF, MODEL, TOOL, Declined, File, LaneSpan, lane_file
from threadlab.formats.otel.typed import TracesData

KEY = "otel"


def lane_documents(doc: TracesData, source: str | None) -> list[tuple[Thread, dict[str, Any]]] | None:
    """The file's thread and its JSON object, as ``build_threads(..., documents=True)`` gives
    them; None for a file the lane does not vouch for."""
    try:
        return [_Lane(trace).document(source) for trace in lane_file(doc)]
    except (Declined, ValueError, RecursionError):  # (ValueError, RecursionError: a scope or resource orjson refuses)
        return None


class _Call:
    __slots__ = ("agent", "args", "from_history", "id", "meta", "name", "order", "origin", "span", "time")

    def __init__(self, call_id: str, name: str, args: Any, agent: str, time: int, origin: LaneSpan, model: dict[str, Any],
                 order: float = 0.0, from_history: bool = False) -> None:
        self.id, self.name, self.args, self.agent, self.time, self.origin = call_id, name, args, agent, time, origin
        self.meta: dict[str, Any] = {"_model": model}  # (and "usage", copied onto the call when it is emitted)
        self.order, self.from_history = order, from_history
        self.span: LaneSpan | None = None


class _Result:
    __slots__ = ("id", "name", "order", "result", "span", "time")

    def __init__(self, call_id: str, name: str | None, result: Any, time: int, span: LaneSpan, order: float) -> None:
        self.id, self.name, self.result, self.time, self.span, self.order = call_id, name, result, time, span, order


class _Lane:
    """One vouched file's actions (``emit``), then the thread in time order (``document``)."""

    def __init__(self, file: File) -> None:
        self.file = file
        self.spans = sorted(file.spans, key=lambda s: (s.start, s.depth))
        self.agents: dict[str, tuple[int, dict[str, Any]]] = {}  # name → (created, metadata)
        self.out: list[tuple[int, float, str, dict[str, Any]]] = []  # (time, order, action type, fields)
        self.calls: dict[str, _Call] = {}
        self.results: dict[str, _Result] = {}
        self.histories: list[_History] = []
        self.first_call_of_run: set[str | None] = set()
        self._current = _History(None)
        self.lazy: dict[int, LazyMsg] = {}

    # --- as ``tree.SpanTree`` ---------------------------------------------------------------
    def agent_of(self, span: LaneSpan) -> str:
        run = span if span.role == AGENT else span.run
        name = (run.agent_name if run is not None else None) or span.agent_name or DEFAULT_AGENT
        if name not in self.agents:
            self.agents[name] = ((run or span).start, {})
        return name

    def emit(self, time: int, action_type: str, span: LaneSpan, fields: dict[str, Any], order: float | None = None) -> dict[str, Any]:
        """As ``SpanTree.emit``; ``fields`` and its metadata are the action's own dicts."""
        meta = fields.get("metadata")
        if meta is None:
            fields["metadata"] = {KEY: {"span_id": span.span_id}}
        else:
            meta[KEY] = {"span_id": span.span_id}
        out = self.out
        out.append((time, len(out) if order is None else order, action_type, fields))
        return fields

    # --- as ``assemble.Assembly`` -----------------------------------------------------------
    def read(self) -> None:
        for span in self.spans:
            if span.role != HANDOFF:
                self.agent_of(span)
        for span in self.spans:
            if span.role == MODEL:
                self.read_model_call(span)
        self.link_tools()
        for span in self.spans:
            if span.role == HANDOFF:
                self.read_handoff(span)
        self.emit_tools()

    def read_model_call(self, span: LaneSpan) -> None:
        agent = self.agent_of(span)
        meta = self.agents[agent][1]
        for text in span.system:
            _instruct(meta, text)
        if span.model:
            meta["model_name"] = span.model
        run = span.run
        run_key = run.span_id if run is not None else None
        first = run_key not in self.first_call_of_run
        self.first_call_of_run.add(run_key)
        new = self.new_messages(run_key, span.inputs)  # (no system message among them: ``lane_spans._messages``)
        start = run.start if first and run is not None else span.start
        prompts = [k for k, raw in enumerate(new) if raw["role"] == "user" and not _results_only(_parts(raw))]
        for k, raw in enumerate(new):
            self.read_message(raw, span, agent, start if prompts and k <= prompts[-1] else span.start)
        model_meta = {k: v for k, v in (("model_name", span.model), ("provider_name", span.provider)) if v}
        emitted: list[dict[str, Any]] = []
        for msg in span.outputs:
            emitted += self.read_message(msg, span, agent, span.end, model_meta=model_meta, finish=span.finish_reasons)
        self._current.messages.extend(span.outputs)
        tokens = usage_counts(span.usage)
        if tokens is not None:
            target = next((f for f in emitted if f.get("_kind") == "assistant_message"), emitted[0] if emitted else None)
            if target is not None:
                target["usage"] = tokens
            else:
                data = {k: v for k, v in {"model": span.model, "name": span.name}.items() if v is not None}
                self.emit(span.end, "system.model_call", span, {"agent_id": _slug(agent), "data": data, "usage": tokens, "metadata": dict(model_meta)})

    def new_messages(self, run_key: str | None, talk: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """As ``Assembly.new_messages``, over wire objects; no history is above a run (every run is a root)."""
        best: _History | None = None
        best_len = 0
        for history in self.histories:
            n = self._common_prefix(history.messages, talk)
            if n > best_len or (n == best_len and n and history.run == run_key):
                best, best_len = history, n
        if best is not None and best.run == run_key and best_len == len(best.messages):
            best.messages[:] = talk
            self._current = best
        else:
            self._current = _History(run_key, list(talk))
            self.histories.append(self._current)
        return talk[best_len:]

    def _common_prefix(self, a: list[dict[str, Any]], b: list[dict[str, Any]]) -> int:
        """As ``assemble._common_prefix``: the same objects (compared in C), then equal objects,
        then ``model.same`` of their messages (each wire object's ``LazyMsg`` made once)."""
        n = min(len(a), len(b))
        i = next(compress(count(), map(is_not, a, b)), n)
        while i < n and (a[i] == b[i] or same(self._lazy(a[i]), self._lazy(b[i]))):
            i += 1
        return i

    def _lazy(self, raw: dict[str, Any]) -> LazyMsg:
        found = self.lazy.get(id(raw))  # (each wire object is kept alive by a history)
        if found is None:
            found = self.lazy[id(raw)] = LazyMsg(raw, genai_message)
        return found

    def read_message(self, raw: dict[str, Any], span: LaneSpan, agent: str, time: int, *, model_meta: dict[str, Any] | None = None,
                     finish: list[str] | None = None) -> list[dict[str, Any]]:
        """As ``Assembly.read_message``, from the wire object (``messages.genai_message``'s reading of it)."""
        role = raw["role"]
        meta = dict(model_meta or {})
        emitted: list[dict[str, Any]] = []
        calls: list[dict[str, Any]] = []
        shown: list[str] = []
        reasoning: list[str] = []
        for part in _parts(raw):
            kind = part.get("type") if type(part) is dict else None
            if kind == "text":
                text = part.get("content")
                if type(text) is not str:
                    raise Declined("a text part without text")
                shown.append(text)
            elif type(part) is str:
                shown.append(part)
            elif kind == "tool_call":
                call = self.add_call(_mstr(part.get("id")), _mstr(part.get("name")), part.get("arguments"), span, agent, time, meta,
                                     from_history=model_meta is None)
                if call is not None:
                    calls.append(call.meta)
            elif kind == "tool_call_response":
                self.add_result(_mstr(part.get("id")), _mstr(part.get("name")), part.get("response", part.get("result")), time, span)
            elif kind in ("reasoning", "thinking") and (part.get("content") is None or type(part.get("content")) is str):
                reasoning.append(part.get("content") or "")
            else:
                raise Declined("a part the lane does not read")
        if role == "assistant":
            agent_id = _slug(agent)
            provider = (model_meta or {}).get("provider_name") or "unknown"
            for text in reasoning:
                emitted.append(self.emit(time, "thinking", span, {"agent_id": agent_id, "content": text, "provider_name": provider, "metadata": dict(meta)}))
            if shown:
                reason = raw.get("finish_reason")
                reason = finish_reason((reason if isinstance(reason, str) else None) or (finish[0] if finish else None))
                fields = self.emit(time, "assistant_message", span, {"agent_id": agent_id, "content": _content(shown), "metadata": dict(meta)})
                if reason is not None:
                    fields["finish_reason"] = reason
                fields["_kind"] = "assistant_message"
                emitted.insert(0, fields)
            emitted += calls
        elif shown:
            if role == "user":
                self.emit(time, "user_message", span, {"content": _content(shown), "metadata": {"to_agent_id": _slug(agent)}})
            else:
                self.emit(time, "system." + _slug(role) + "_message", span, {"data": {"role": role, "content": _content(shown)}, "agent_id": _slug(agent)})
        return emitted

    # --- as ``calls.Calls`` -----------------------------------------------------------------
    def add_call(self, part_id: str | None, name: str | None, args: Any, span: LaneSpan, agent: str, time: int, meta: dict[str, Any], *,
                 from_history: bool) -> _Call | None:
        call_id = part_id or f"{span.span_id}:{len(self.calls)}"
        if call_id in self.calls:
            return None
        call = self.calls[call_id] = _Call(call_id, name or "unknown", args, agent, time, span, dict(meta), len(self.out) - 0.5, from_history)
        return call

    def add_result(self, call_id: str | None, name: str | None, result: Any, time: int, span: LaneSpan) -> None:
        if call_id is None:
            open_calls = [c for c in self.calls.values() if c.id not in self.results and (name is None or c.name == name)]
            call_id = open_calls[-1].id if open_calls else f"{span.span_id}:result:{len(self.results)}"
        if call_id not in self.results:
            self.results[call_id] = _Result(call_id, name, result, time, span, len(self.out) - 0.5)

    def link_tools(self) -> None:
        for span in self.spans:
            if span.role == TOOL:
                call = self.calls.get(span.call_id)  # (every vouched tool span names its call)
                if call is None:
                    call = self.calls[span.call_id] = _Call(span.call_id, span.tool_name or span.name, span.args, self.agent_of(span), span.start,
                                                            span, {})
                if call.span is None:
                    call.span = span

    def read_handoff(self, span: LaneSpan) -> None:
        source = span.from_agent or self.agent_of(span)
        target = span.to_agent
        if target not in self.agents:
            self.agents[target] = (span.start, {})
        transfer = [c for c in self.calls.values() if c.agent == source and c.time <= span.end and c.span is None
                    and (c.name.startswith("transfer_to") or _slug(target) in _slug(c.name))]
        data = {"from_agent_id": _slug(source), "to_agent_id": _slug(target)}
        if transfer:
            data["tool_call_id"] = transfer[-1].id
        self.emit(span.start, "system.handoff", span, {"data": data})

    def emit_tools(self) -> None:
        for call in self.calls.values():
            span = call.span
            fields = {"agent_id": _slug(call.agent), "tool_name": call.name, "tool_call_id": call.id, "args": _args(call.args),
                      "metadata": dict(call.meta["_model"])}
            if span is not None:
                self.emit(span.start, "tool_call", span, fields)
            else:
                self.emit(call.time, "tool_call", call.origin, fields, call.order)
            if call.meta.get("usage") is not None:
                fields["usage"] = call.meta["usage"]
            result = self.results.pop(call.id, None)
            if span is not None and (result is not None or span.has_result or span.error or span.end > span.start):
                content = result.result if result is not None else span.error if span.error and not span.has_result else span.result
                self.emit(span.end, "tool_return", span, {"tool_call_id": call.id, "tool_name": call.name,
                                                          "status": "error" if span.error else "success", "content": content})
            elif result is not None:
                self.emit(result.time, "tool_return", result.span, {"tool_call_id": call.id, "tool_name": call.name, "content": result.result},
                          result.order)
        for result in self.results.values():
            self.emit(result.time, "tool_return", result.span, {"tool_call_id": result.id, "tool_name": result.name or "unknown",
                                                                "content": result.result}, result.order)

    # --- the thread (``Assembly.fill``, ``reading._meta``) ------------------------------------
    def document(self, source: str | None) -> tuple[Thread, dict[str, Any]]:
        self.read()
        file = self.file
        by_id = {s.span_id for s in file.spans}
        roots = sorted((s for s in file.spans if s.parent_id not in by_id), key=lambda s: s.start)
        meta: dict[str, Any] = {"trace_ids": [file.trace_id]}
        if file.resource:
            meta["resource"] = file.resource
        builder = DocBuilder(file.trace_id, title=roots[0].name if roots else "", metadata={KEY: meta}, source=source)
        acting = {f.get("agent_id") for _, _, _, f in self.out} | {_slug(c.agent) for c in self.calls.values()}
        for _, _, kind, f in self.out:
            if kind == "system.handoff":
                acting |= {f["data"].get("to_agent_id"), f["data"].get("from_agent_id")}
        for name, (created, info) in self.agents.items():
            if _slug(name) in acting or info:
                builder.agent(name, agent_id=_slug(name), created_at=when(created), metadata=info or None)
        moments: dict[int, datetime] = {}
        fits: dict[str, tuple[Any, tuple[str, ...]]] = {}
        actions = builder.actions
        for time, _, kind, fields in sorted(self.out, key=itemgetter(0, 1)):  # (ties in the order emitted, as ``Assembly.fill``)
            if kind == "assistant_message":
                fields.pop("_kind", None)
            moment = moments.get(time)
            if moment is None:
                moment = moments[time] = from_unix_nanos(time)
            # as ``DocBuilder.add`` (the lane's values hold no None but a free-form one, no model)
            fit = fits.get(kind)
            if fit is None:
                fit = fits[kind] = fit_check(kind)
            check, optional = fit
            fields["action_type"], fields["timestamp"], fields["sequence"] = kind, "", len(actions) + 1
            if check(fields):
                for name in optional:
                    if name in fields and fields[name] is None:
                        del fields[name]
                builder.add_fit(moment, fields)
            else:  # the careful way, with the model's own problems
                del fields["action_type"], fields["timestamp"], fields["sequence"]
                builder.add(kind, timestamp=moment, **fields)
        builder.took(len(file.spans))
        return builder.build_document()


def _instruct(meta: dict[str, Any], text: str) -> None:
    found = meta.setdefault("system_instructions", [])
    if text not in found:
        found.append(text)


def _parts(raw: dict[str, Any]) -> list[Any]:
    parts = raw.get("parts")
    if type(parts) is not list:
        raise Declined("a message whose parts are no list")
    return parts


def _results_only(parts: list[Any]) -> bool:
    return bool(parts) and all(type(p) is dict and p.get("type") == "tool_call_response" for p in parts)


def _content(texts: list[str]) -> Any:
    return texts[0] if len(texts) == 1 else [{"type": "text", "text": t} for t in texts]


def _mstr(value: Any) -> str | None:
    """As ``messages._str``: a string, None, or anything else as its text."""
    return value if isinstance(value, str) else None if value is None else str(value)
