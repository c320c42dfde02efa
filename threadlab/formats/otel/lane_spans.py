"""The spans the GenAI lane (``lane.py``) vouches for, read from the typed Structs (``typed.py``).

A span is taken only in the shape whose meaning ``conventions.interpret`` gives without a
branch the lane does not copy: an ``invoke_agent`` run at the root of its trace, a model call
(``chat`` ...) whose messages are the ≥ 1.37 attributes, an ``execute_tool`` span naming its
call id, an OpenInference ``handoff to`` span; under an agent run or at the root; both times
unix-nano strings; no events; no attribute the careful route reads that the lane does not (a
conversation id, so one thread a trace; pydantic-ai's histories; OpenInference's messages ...);
every message list a list of objects with a role. Anything else raises ``Declined`` and the whole
file goes the careful way (``RawSpan`` → ``interpret`` → ``assemble``), which is also the
referee: ``tests/test_otel_lane.py`` holds the two to the same frames, problems and account."""

from __future__ import annotations

from itertools import islice
from typing import Any

from opentelemetry.semconv._incubating.attributes import gen_ai_attributes as G

from threadlab.formats.common.spans.messages import texts
from threadlab.formats.common.spans.model import json_value
from threadlab.formats.common.spans.repeats import Repeats
from threadlab.formats.otel import conventions as C
from threadlab.formats.otel.typed import Span as TypedSpan
from threadlab.formats.otel.typed import TracesData, _either, _id, _raw, _unix_nanos
from threadlab.formats.otel.wire import _ERROR_CODES, key_values, span_id

AGENT, MODEL, TOOL, HANDOFF = "agent", "model", "tool", "handoff"
SYSTEM_ROLES = ("system", "developer")  # messages the assembly keeps out of the histories
_OP, _NAME = G.GEN_AI_OPERATION_NAME, G.GEN_AI_AGENT_NAME
_INPUT, _OUTPUT = G.GEN_AI_INPUT_MESSAGES, G.GEN_AI_OUTPUT_MESSAGES
_KIND = C.OI.OPENINFERENCE_SPAN_KIND
# what the careful route reads of each role's spans that the lane does not: a span holding one
# is declined (any other attribute is one ``interpret`` never reads for that role)
_READ_BY_ALL = frozenset((G.GEN_AI_CONVERSATION_ID, C.OI.SESSION_ID, C.PAI_AGENT_NAME, C.OI.AGENT_NAME))
_DENIED = {
    AGENT: _READ_BY_ALL | {C.PAI_ALL_MESSAGES, C.PAI_ALL_MESSAGES_EVENTS, G.GEN_AI_AGENT_DESCRIPTION},
    MODEL: _READ_BY_ALL,  # (pydantic-ai's ``events`` only when neither message attribute is there, which the lane asks)
    TOOL: _READ_BY_ALL | {C.PAI_TOOL_ARGUMENTS, C.PAI_TOOL_RESPONSE, C.LOGFIRE_JSON_SCHEMA},
    HANDOFF: _READ_BY_ALL | {_INPUT, _OUTPUT},
}
_USAGE = frozenset(k for _, keys in C._USAGE_KEYS for k in keys)
_LOWER_HEX = frozenset("0123456789abcdef")
_NO_TEXT = object()


class Declined(Exception):
    """A file (or a span of it) the lane does not vouch for: the careful route reads it."""


class LaneSpan:
    """One vouched span, as far as the lane needs it (``spans.model.Span``'s fields of the same names)."""

    __slots__ = ("agent_name", "args", "call_id", "depth", "end", "error", "finish_reasons", "from_agent", "has_result", "inputs", "model",
                 "name", "outputs", "parent_id", "provider", "result", "role", "run", "span_id", "start", "system", "to_agent", "tool_name",
                 "usage")

    def __init__(self, span_id: str, parent_id: str | None, name: str, start: int, end: int, role: str) -> None:
        self.span_id, self.parent_id, self.name, self.start, self.end, self.role = span_id, parent_id, name, start, end, role
        self.agent_name: str | None = None
        self.run: LaneSpan | None = None
        self.depth = 0


class File:
    """A vouched trace: its spans in file order, its id, the first span's resource."""

    __slots__ = ("resource", "spans", "trace_id")

    def __init__(self, spans: list[LaneSpan], trace_id: str, resource: dict[str, Any] | None) -> None:
        self.spans, self.trace_id, self.resource = spans, trace_id, resource


def lane_file(doc: TracesData) -> list[File]:
    """The vouched spans of a decoded document, one ``File`` a trace in order of first appearance
    (``grouping.group_traces``, no span naming a conversation); ``Declined`` for anything else."""
    groups = _either(doc.resourceSpans, doc.resource_spans)
    if not groups:
        raise Declined("no resourceSpans")
    ids: dict[tuple[str | None, int], str | None] = {}
    repeats = Repeats()
    traces: dict[str, File] = {}
    trace: File | None = None
    trace_text: Any = _NO_TEXT
    for rs in groups:
        resource_doc = _raw(rs.resource)
        found = key_values((resource_doc or {}).get("attributes")) if isinstance(resource_doc, dict) else {}
        for ss in _either(rs.scopeSpans, rs.scope_spans) or _either(rs.instrumentationLibrarySpans, rs.instrumentation_library_spans) or []:
            _raw(ss.scope) or _raw(ss.instrumentationLibrary)  # (as the careful route parses them: a bad one declines)
            for raw in ss.spans or ():
                text = _either(raw.traceId, raw.trace_id)
                if text != trace_text or trace is None:  # (the spans of a trace mostly follow each other: its id read once)
                    tid = _id(text, 16, ids)
                    if tid is None:
                        raise Declined("a span without a trace id")
                    trace = traces.get(tid)
                    if trace is None:
                        trace = traces[tid] = File([], tid, None)
                    trace_text = text
                trace.spans.append(_span(raw, ids, repeats))
                if found and trace.resource is None:  # (the thread's: the first span's that has one)
                    trace.resource = found
    if not traces:
        raise Declined("no span")
    if len(traces) > 1 and len({s.span_id for t in traces.values() for s in t.spans}) < sum(len(t.spans) for t in traces.values()):
        raise Declined("a span id in two traces")  # (``reading._meta`` finds a span's resource by its id alone)
    for found_trace in traces.values():
        _tree(found_trace.spans)
    return list(traces.values())


def _span(raw: TypedSpan, ids: dict[tuple[str | None, int], str | None], repeats: Repeats) -> LaneSpan:
    sid = raw.spanId
    if not (type(sid) is str and len(sid) == 16 and _LOWER_HEX.issuperset(sid)):  # (as ``span_id`` gives it: most ids)
        sid = span_id(_either(sid, raw.span_id), 8)
    start, end = raw.startTimeUnixNano, raw.endTimeUnixNano
    if (type(start) is str and type(end) is str and len(start) < 20 and len(end) < 20 and start.isdigit() and end.isdigit()
            and start.isascii() and end.isascii()):
        start, end = int(start), int(end)  # (as ``_unix_nanos`` reads them: up to 19 digits are within its range)
    else:
        start = _unix_nanos(start if start is not None else raw.start_time_unix_nano)
        end = _unix_nanos(end if end is not None else raw.end_time_unix_nano)
    if sid is None or start is None or end is None or raw.events:
        raise Declined("a span without an id, without unix-nano times, or with events")
    items = raw.attributes
    a = {kv.key: kv.value.value_ if kv.value is not None else None for kv in items} if items else {}
    name = str(raw.name or "")
    op = a.get(_OP)
    if op is not None and type(op) is not str:
        raise Declined("an operation name that is no string")
    if op is None:
        kind = a.get(_KIND)
        if not (isinstance(kind, str) and kind.upper() == C._KIND_TOOL and name.startswith("handoff to ")):
            raise Declined("a span of no operation the lane reads")
        role = HANDOFF
    elif op == C._INVOKE_AGENT:
        role = AGENT
    elif op in C._MODEL_OPS and (_INPUT in a or _OUTPUT in a):
        role = MODEL
    elif op == C._EXECUTE_TOOL:
        role = TOOL
    else:
        raise Declined(f"operation {op!r}")
    if not _DENIED[role].isdisjoint(a):
        raise Declined("an attribute the lane does not read")
    span = LaneSpan(sid, _id(_either(raw.parentSpanId, raw.parent_span_id), 8, ids) or None, name, start, end, role)
    span.agent_name = _str(a.get(_NAME))
    if role == MODEL:
        _model(span, a, repeats)
    elif role == TOOL:
        status = raw.status
        span.error = (status.message or "error") if status is not None and status.code in _ERROR_CODES else None
        span.tool_name = _str(a.get(G.GEN_AI_TOOL_NAME)) or name.removeprefix(C._EXECUTE_TOOL + " ")
        span.call_id = _str(a.get(G.GEN_AI_TOOL_CALL_ID))
        if span.call_id is None:
            raise Declined("a tool span naming no call")  # (the careful route matches it by name and args)
        span.args = a.get(G.GEN_AI_TOOL_CALL_ARGUMENTS)
        span.has_result = G.GEN_AI_TOOL_CALL_RESULT in a
        span.result = a.get(G.GEN_AI_TOOL_CALL_RESULT)
    elif role == AGENT:
        span.agent_name = span.agent_name or name.removeprefix(C._INVOKE_AGENT + " ") or None
    else:
        span.from_agent = _str(a.get(C.OI.INPUT_VALUE))
        span.to_agent = _str(a.get(C.OI.OUTPUT_VALUE)) or name.removeprefix("handoff to ")
    return span


def _model(span: LaneSpan, a: dict[str, Any], repeats: Repeats) -> None:
    value = repeats.value(a.get(_INPUT))
    span.inputs = _messages(value, repeats.shared)
    span.outputs = _messages(json_value(a.get(_OUTPUT)), 0)
    problems: list[tuple[str, str]] = []
    system = a.get(G.GEN_AI_SYSTEM_INSTRUCTIONS, a.get(C.SYSTEM_INSTRUCTIONS_DOTTED))
    span.system = texts(json_value(system)) if system is not None else []
    span.usage = None if _USAGE.isdisjoint(a) else C._usage(a, problems)
    if problems:
        raise Declined("a usage figure that is no count")
    span.model = _str(a.get(G.GEN_AI_RESPONSE_MODEL)) or _str(a.get(G.GEN_AI_REQUEST_MODEL))
    span.provider = _str(a.get(G.GEN_AI_PROVIDER_NAME)) or _str(a.get(G.GEN_AI_SYSTEM))
    reasons = a.get(G.GEN_AI_RESPONSE_FINISH_REASONS)
    span.finish_reasons = [r for r in reasons if isinstance(r, str)] if isinstance(reasons, list) else None


def _messages(value: Any, checked: int) -> list[dict[str, Any]]:
    """A message list as its wire objects, each an object with a role, none a system message
    (``messages.message_list`` makes each a ``LazyMsg``; the assembly leaves system messages
    out of the histories); ``checked``: how many leading ones an earlier list of the file held
    (``Repeats.shared``: the very objects, checked then)."""
    if value is None:
        return []
    if type(value) is not list:
        raise Declined("a message list that is no list")
    for item in islice(value, checked, None):
        role = item.get("role") if type(item) is dict else None
        if type(role) is not str or role in SYSTEM_ROLES:
            raise Declined("a message that is no object with a role, or a system message")
    return value


def _tree(spans: list[LaneSpan]) -> None:
    """Each span's agent run and depth, as ``spans.tree`` finds them, for the one shape the lane
    takes: agent runs at the root, everything else under one or at the root."""
    by_id: dict[str, LaneSpan] = {}
    for span in spans:
        if span.span_id in by_id or span.parent_id == span.span_id:
            raise Declined("a span id twice, or a span its own parent")
        by_id[span.span_id] = span
    for span in spans:
        parent = by_id.get(span.parent_id) if span.parent_id is not None else None
        if parent is None:
            continue
        if span.role == AGENT or parent.role != AGENT or (parent.parent_id is not None and parent.parent_id in by_id):
            raise Declined("a span tree deeper than agent runs and their steps")
        span.run, span.depth = parent, 1


def _str(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None
