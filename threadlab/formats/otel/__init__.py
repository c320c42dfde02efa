"""OpenTelemetry spans of LLM agents: OTLP JSON and span files, GenAI and OpenInference.

What teams keep when they instrument their agents instead of saving message lists: pydantic-ai
with ``instrument=True`` (what Logfire shows), OpenInference instrumentors (Arize Phoenix),
OpenLLMetry, MLflow, Langfuse exports. One reader for every container (``wire.py``) and every
attribute convention (``conventions.py``: GenAI old events and new attributes, OpenInference),
because one trace can mix them (an OpenInference-instrumented LangChain tool inside a
pydantic-ai agent). One thread per trace, or per conversation id when the spans name one;
agents, delegation and handoffs from the span tree; each message once although every model
call repeats the history (``spans/assemble.py``).

A record is a span: each ends in the thread's actions (or repeats what another span gave), in
a ``system.span`` action kept with a problem (a span of no GenAI convention: HTTP, database),
or in a problem (a line that is not JSON, a span without ids).

The writer writes OTLP JSON (the collector's file exporter's shape, ``/v1/traces`` bodies)
in the GenAI conventions' newer attributes: any thread can go to an OTLP backend."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import orjson

from threadlab.core.finite import refuses_non_finite
from threadlab.core.model import Thread
from threadlab.core.problems import ThreadError
from threadlab.formats.common.json_lines import complete_lines, past_cut_first
from threadlab.formats.common.source import Source
from threadlab.formats.common.spans.documents import Repaired, iter_documents
from threadlab.formats.common.spans.verify import written_and_checked
from threadlab.formats.otel.reading import read_threads
from threadlab.formats.otel.wire import is_flat_span, is_otlp
from threadlab.formats.otel.writing import to_otlp

NAME = "otel"
_OTLP_MARKS = (b'"resourceSpans"', b'"resource_spans"')
_ID_MARKS = ((b'"trace_id"', b'"traceId"', b'"TraceId"'), (b'"span_id"', b'"spanId"', b'"SpanId"'))


def detect(source: Source) -> bool:
    """OTLP trace data (``resourceSpans``), or spans with trace and span ids (not the Agents
    SDK's ``span_data`` objects, which ``openai-agents-trace`` reads)."""
    if source.is_dir:
        return False
    if source.is_object:
        obj = source.obj
        items = obj if isinstance(obj, list) else [obj]
        return bool(items) and all(is_otlp(i) or is_flat_span(i) for i in items[:20])
    head = source.head(8192)
    if past_cut_first(head).lstrip()[:1] not in (b"{", b"["):  # a capture begun mid-line: the lines after it decide
        return False
    if any(m in head for m in _OTLP_MARKS):
        return True
    if b'"span_data"' in head or not all(any(m in head for m in marks) for marks in _ID_MARKS):
        return False
    first = _first_item(source)
    return first is not None and is_flat_span(first)


def _first_item(source: Source) -> Any:
    value = source.try_json()
    if value is None:
        lines = complete_lines(source.head(1 << 20))  # a capture's cut first line left out
        line = lines[0] if lines else b""
        try:
            value = orjson.loads(line)
        except orjson.JSONDecodeError:
            value = next((v.value if isinstance(v, Repaired) else v for _, v in iter_documents(source.head(1 << 20)) if not isinstance(v, ValueError)), None)
    if isinstance(value, list):
        return value[0] if value and isinstance(value[0], Mapping) else None
    return value


def to_threads(source: Source) -> list[Thread]:
    return read_threads(source)


def to_documents(source: Source) -> list[tuple[Thread, dict[str, Any]]] | None:
    """The frames route (``formats/common/documents.py``): each thread without actions and its JSON
    object, no model per action; None (``to_threads`` reads the source) for an in-memory object
    and for anything the route meets that it was not written for."""
    if source.is_object:
        return None
    try:
        return read_threads(source, documents=True)
    except ThreadError:
        raise
    except Exception:  # whatever it was, the careful way meets it again and says what it is
        return None


@refuses_non_finite
def from_thread(thread: Thread) -> bytes:
    """The thread as one OTLP JSON document (``resourceSpans``); a ``WriteLoss`` names what
    reading it back would not give again."""
    return written_and_checked(NAME, thread, lambda t: orjson.dumps(to_otlp(t)) + b"\n", to_threads)


__all__ = ["NAME", "detect", "from_thread", "to_documents", "to_otlp", "to_threads"]
