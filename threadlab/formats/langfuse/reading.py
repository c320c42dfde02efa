"""Langfuse observations → the span model (``formats/common/spans``) → threads.

An observation is a span of a trace, so it is read as one and assembled as the span readers
assemble theirs (``spans/assemble.py``): a ``GENERATION`` is a model call whose ``input`` is the
conversation sent (OpenAI-chat-style messages as Langfuse's OpenAI, LangChain and OTel
integrations record them; a string is one user message) and whose ``output`` is the answer (a
message, a list of them, or text), so a history repeated on every generation is read once; an
``AGENT`` observation is an agent run (its name the agent's), a ``TOOL`` a tool execution (``input``
the arguments, ``output`` the result, matched to the model's call by name and arguments); ``SPAN``
and ``CHAIN`` are structure; ``EVENT``, ``RETRIEVER``, ``EMBEDDING``, ``EVALUATOR`` and
``GUARDRAIL`` are ``system.<type>`` actions keeping their input and output. One thread per trace,
or per ``sessionId``. Each observation is a record; a trace's own fields go to the thread's
metadata (``metadata.langfuse``), and the costs Langfuse computed (``totalCost``, else
``costDetails.total``) add up to ``metadata.cost_usd``."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from threadlab.core.problems import short
from threadlab.formats.common.counts import counts_of
from threadlab.formats.common.parquet import is_parquet, read_rows
from threadlab.formats.common.source import Source
from threadlab.formats.common.spans.documents import Failure, read_items
from threadlab.formats.common.spans.grouping import build_threads
from threadlab.formats.common.spans.messages import chat_message, message_list
from threadlab.formats.common.spans.model import AGENT, MODEL, STRUCTURE, SYSTEM, TOOL, Msg, Part, Span, json_value
from threadlab.formats.common.spans.times import span_times
from threadlab.formats.langfuse.wire import LEGACY, USAGE, is_observation, is_page, is_trace, key, trace_parts

KEY = "langfuse"
_STRUCTURE = ("SPAN", "CHAIN")


def read_threads(source: Source, *, documents: bool = False) -> list[Any]:
    spans, traces, costs, failures = _spans(source)
    if not spans:
        rule = failures[0].rule if failures else "empty"
        raise source.error(rule, "holds no Langfuse observation" + (f" ({failures[0].message})" if failures else ""), line=failures[0].line if failures else None)
    sessions = {tid: key(t, "sessionId") for tid, t in traces.items() if isinstance(key(t, "sessionId"), str)}
    for span in spans:
        span.conversation_id = span.conversation_id or sessions.get(span.trace_id)
    return build_threads(spans, key=KEY, source=source.name, failures=failures, thread_meta=lambda tid, ss: _meta(tid, ss, traces, costs), documents=documents)


def _spans(source: Source) -> tuple[list[Span], dict[str, dict[str, Any]], dict[str, float], list[Failure]]:
    spans: list[Span] = []
    traces: dict[str, dict[str, Any]] = {}
    costs: dict[str, float] = {}

    def span_of(obs: Mapping[str, Any], line: int | None, trace_id: Any = None) -> Span:
        span = observation_span(obs, line, trace_id)
        cost = cost_of(obs)
        if cost is not None:
            costs[span.trace_id] = costs.get(span.trace_id, 0.0) + cost
        return span

    def take(item: Any, line: int | None) -> bool:
        if is_observation(item):
            spans.append(span_of(item, line))
        elif is_trace(item):
            trace, observations = trace_parts(item)
            if isinstance(trace.get("id"), str):
                traces[trace["id"]] = trace
            for obs in observations:
                if not is_observation(obs):
                    raise ValueError(f"trace {short(trace.get('id'))}: {short(obs)} is not an observation")
                spans.append(span_of(obs, line, trace.get("id")))
        elif is_page(item):
            for entry in item["data"]:
                if not take(entry, line):
                    raise ValueError(f"{short(entry)} in data is not an observation or a trace with its observations")
        else:
            return False
        return True

    if is_parquet(source):

        def row(item: dict[str, Any], number: int) -> bool:
            if not is_observation(item):
                return False
            spans.append(span_of(item, number))
            return True

        failures = read_rows(source, row, "an observation")
    else:
        failures = read_items(source, take, "a Langfuse observation, trace or page of them")
    return spans, traces, costs, failures


def observation_span(obs: Mapping[str, Any], line: int | None, trace_id: Any = None) -> Span:
    problems: list[tuple[str, str]] = []
    start, end, untimed = span_times(key(obs, "startTime"), key(obs, "endTime") or key(obs, "startTime"), ("startTime", "endTime"), problems)
    parent = key(obs, "parentObservationId")
    kind = obs["type"]
    name = obs.get("name") if isinstance(obs.get("name"), str) else kind.lower()
    span = Span(str(key(obs, "traceId") or trace_id or ""), obs["id"], parent if isinstance(parent, str) and parent else None, name, start, end, untimed, line=line)
    span.problems.extend(problems)
    if key(obs, "level") == "ERROR":
        span.error = key(obs, "statusMessage") or "error"
    session = key(obs, "sessionId")
    span.conversation_id = session if isinstance(session, str) and session else None
    if kind == "GENERATION":
        _generation(span, obs)
    elif kind == "AGENT":
        span.role, span.agent_name = AGENT, name
    elif kind == "TOOL":
        span.role, span.tool_name, span.args = TOOL, name, json_value(obs.get("input"))
        span.result, span.has_result = obs.get("output"), obs.get("output") is not None
    elif kind in _STRUCTURE:
        span.role = STRUCTURE
    else:
        span.role = SYSTEM
        span.data = {"kind": kind.lower(), **{k: obs[k] for k in ("input", "output", "metadata") if obs.get(k) is not None}}
    return span


def _generation(span: Span, obs: Mapping[str, Any]) -> None:
    span.role = MODEL
    given = json_value(obs.get("input"))  # the blob export keeps input and output as JSON text
    if isinstance(given, Mapping) and isinstance(given.get("messages"), list):
        given = given["messages"]
    span.inputs = _messages(span, "input", given, "user")
    span.outputs = _messages(span, "output", json_value(obs.get("output")), "assistant")
    model = obs.get("model") or key(obs, "providedModelName")  # the ClickHouse column the blob export writes
    span.model = model if isinstance(model, str) and model else None
    span.usage = _usage(obs, span.problems)


def _messages(span: Span, field: str, value: Any, role: str) -> list[Any]:
    if value is None:
        return []
    if isinstance(value, str):
        return [Msg(role, [Part("text", text=value)])]
    if isinstance(value, Mapping) and isinstance(value.get("choices"), list):  # a whole completion
        value = [c.get("message") for c in value["choices"] if isinstance(c, Mapping) and isinstance(c.get("message"), Mapping)]
    if isinstance(value, Mapping):
        value = [value]
    return message_list(span.problems, field, value, chat_message)


def _usage(obs: Mapping[str, Any], problems: list[tuple[str, str]]) -> dict[str, int] | None:
    """``usageDetails``, else the legacy ``usage`` object, else ``promptTokens`` ... at the top."""
    details = key(obs, "usageDetails")
    if isinstance(details, list) and all(isinstance(p, tuple | list) and len(p) == 2 for p in details):
        details = dict(details)  # a Parquet map column
    if not isinstance(details, Mapping) or not details:
        details = obs.get("usage") if isinstance(obs.get("usage"), Mapping) else {k: obs[k] for k in LEGACY if k in obs}
    said: list[str] = []
    found = counts_of({theirs: details[theirs] for theirs, _ in USAGE if theirs in details}, said, "usage.")
    problems.extend(("usage", phrase) for phrase in said)
    usage: dict[str, int] = {}
    for theirs, ours in USAGE:
        if theirs in found:
            usage.setdefault(ours, found[theirs])  # the first of Langfuse's names for a figure
    return usage or None


def cost_of(obs: Mapping[str, Any]) -> float | None:
    """What Langfuse priced the observation at (USD): ``totalCost``, else ``costDetails.total``."""
    total = key(obs, "totalCost")
    if total is None:
        total = key(obs, "calculatedTotalCost")
    if total is None and isinstance(key(obs, "costDetails"), Mapping):
        total = key(obs, "costDetails").get("total")
    return float(total) if isinstance(total, int | float) and not isinstance(total, bool) and total == total else None


def _meta(thread_id: str, spans: list[Span], traces: Mapping[str, dict[str, Any]], costs: Mapping[str, float]) -> tuple[str, dict[str, Any]]:
    trace_ids = list(dict.fromkeys(s.trace_id for s in spans))
    meta: dict[str, Any] = {"trace_ids": trace_ids}
    kept = [traces[t] for t in trace_ids if t in traces]
    if kept:
        meta["traces"] = kept
    if thread_id not in trace_ids:
        meta["session_id"] = thread_id
    title = next((t["name"] for t in kept if isinstance(t.get("name"), str)), "")
    priced = [costs[t] for t in trace_ids if t in costs]
    return title, ({KEY: meta, "cost_usd": sum(priced)} if priced else {KEY: meta})
