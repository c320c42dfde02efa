"""OpenTelemetry span files → Threads (see the package docstring)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from threadlab.formats.common.source import Source
from threadlab.formats.common.spans.documents import Failure, read_items
from threadlab.formats.common.spans.grouping import build_threads
from threadlab.formats.common.spans.model import Span
from threadlab.formats.common.spans.repeats import Repeats
from threadlab.formats.otel.conventions import interpret
from threadlab.formats.otel.lane import lane_documents
from threadlab.formats.otel.typed import TracesData, decode, spans_of
from threadlab.formats.otel.wire import RawSpan, flat_span, is_flat_span, is_otlp, otlp_spans

KEY = "otel"


_UNREAD: Any = object()


def raw_spans(source: Source, doc: TracesData | None = _UNREAD) -> tuple[list[RawSpan], list[Failure]]:
    """Every span of the file, and what could not be read: (line, rule, message). A file that
    is one OTLP JSON document is read by typed decoding (``typed.py``; ``doc``: the file already
    decoded, None when it is no such document), anything else here."""
    typed = spans_of(decode(source) if doc is _UNREAD else doc)
    if typed is not None:
        return typed, []
    spans: list[RawSpan] = []

    def take(item: Any, line: int | None) -> bool:
        if is_otlp(item):
            spans.extend(otlp_spans(item, line))
        elif is_flat_span(item):
            spans.append(flat_span(item, line))
        else:
            return False
        return True

    failures = read_items(source, take, "OTLP trace data or a span")
    return spans, failures


def read_threads(source: Source, *, documents: bool = False) -> list[Any]:
    """Threads, or with ``documents`` (the frames route) each thread without actions and its JSON
    object: by the GenAI lane (``lane.py``) for a file it vouches for."""
    doc = decode(source)
    if documents and doc is not None:
        found = lane_documents(doc, source.name)
        if found is not None:
            return found
    raws, failures = raw_spans(source, doc)
    return threads_of(source, raws, failures, documents=documents)


def threads_of(source: Source, raws: list[RawSpan], failures: list[Failure], *, documents: bool = False) -> list[Any]:
    """The threads of spans read from ``source`` by any container (``phoenix`` hands its
    dataframe rows here as flat spans), and what could not be read."""
    if not raws:
        rule = failures[0][1] if failures else "empty"
        raise source.error(rule, "holds no span" + (f" ({failures[0][2]})" if failures else ""), line=failures[0][0] if failures else None)
    resources = {r.span_id: r.resource for r in raws if r.resource}
    repeats = Repeats()  # each repeated history parsed once
    spans = [interpret(r, repeats) for r in raws]
    return build_threads(spans, key=KEY, source=source.name, failures=failures, thread_meta=lambda tid, ss: _meta(tid, ss, resources), documents=documents)


def _meta(thread_id: str, spans: list[Span], resources: Mapping[str, Any]) -> tuple[str, dict[str, Any]]:
    by_id = {s.span_id for s in spans}
    roots = sorted((s for s in spans if s.parent_id not in by_id), key=lambda s: s.start)
    trace_ids = list(dict.fromkeys(s.trace_id for s in spans))
    meta: dict[str, Any] = {"trace_ids": trace_ids}
    resource = next((resources[s.span_id] for s in spans if s.span_id in resources), None)
    if resource:
        meta["resource"] = resource
    if thread_id not in trace_ids:
        meta["conversation_id"] = thread_id
    return (roots[0].name if roots else ""), {KEY: meta}
