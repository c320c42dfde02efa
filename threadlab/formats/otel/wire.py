"""OpenTelemetry span files, as they reach disk → ``RawSpan``.

Containers read (each checked against real files, see tests/fixtures/otel and real/otel):

- OTLP JSON (``ExportTraceServiceRequest`` / ``TracesData``: ``resourceSpans → scopeSpans →
  spans``), one document or one per line (the collector's file exporter); ids in hex (the
  OTLP/JSON rule) or base64 (protobuf's own JSON mapping, ``json_format.MessageToJson``); times
  as unix-nano strings or numbers; ``AnyValue`` attributes; snake_case field names
  (``preserving_proto_field_name``) and the old ``instrumentationLibrarySpans`` too;
- flat spans, one per line, as a JSON array, or as concatenated pretty-printed objects (the
  SDK's ``ReadableSpan.to_json()``, which ``ConsoleSpanExporter`` prints): ``{name, context:
  {trace_id, span_id}, parent_id, start_time, end_time, status, attributes: {...}, events,
  resource}``; Phoenix's and Logfire's exports of the same (``span_id``/``trace_id`` at the top,
  ``start_timestamp`` ...), attributes flat or nested (``{"llm": {"input_messages": ...}}``);
  the JavaScript SDK's ``ReadableSpan`` objects as ``JSON.stringify`` writes them (what an
  in-memory exporter's spans give, as openinference-vercel's test fixtures keep the AI SDK's):
  ``{name, spanContext: {traceId, spanId}, parentSpanId | parentSpanContext, startTime, endTime,
  attributes, events: [{name, time}]}``, times as ``HrTime`` pairs ``[seconds, nanoseconds]``.

The wire shapes are TypedDicts (documentation and type checks at no cost per span: a 100 MB
export is millions of attributes)."""

from __future__ import annotations

import base64
import binascii
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any, TypedDict

from threadlab.core.problems import short
from threadlab.formats.common.spans.model import SpanHead
from threadlab.formats.common.spans.times import nanos, span_times

_HEX = re.compile(r"[0-9a-fA-F]+")


class AnyValue(TypedDict, total=False):
    stringValue: str
    boolValue: bool
    intValue: str | int
    doubleValue: float
    arrayValue: dict[str, list[AnyValue]]
    kvlistValue: dict[str, list[KeyValue]]
    bytesValue: str


class KeyValue(TypedDict):
    key: str
    value: AnyValue


class OtlpEvent(TypedDict, total=False):
    timeUnixNano: str
    name: str
    attributes: list[KeyValue]


class OtlpStatus(TypedDict, total=False):
    code: int | str
    message: str


class OtlpSpan(TypedDict, total=False):
    traceId: str
    spanId: str
    parentSpanId: str
    name: str
    kind: int | str
    startTimeUnixNano: str
    endTimeUnixNano: str
    attributes: list[KeyValue]
    events: list[OtlpEvent]
    status: OtlpStatus


class ScopeSpans(TypedDict, total=False):
    scope: dict[str, Any]
    spans: list[OtlpSpan]


class ResourceSpans(TypedDict, total=False):
    resource: dict[str, Any]
    scopeSpans: list[ScopeSpans]


class TracesData(TypedDict):
    resourceSpans: list[ResourceSpans]


@dataclass(slots=True)
class RawSpan(SpanHead):
    """One span with its attributes as plain Python values (flat dotted keys)."""

    attributes: dict[str, Any] = field(default_factory=dict)
    events: list[tuple[str, int, dict[str, Any]]] = field(default_factory=list)
    error: str | None = None
    resource: dict[str, Any] | None = None
    scope: str | None = None
    line: int | None = None
    problems: list[tuple[str, str]] = field(default_factory=list)  # (rule, message) of what did not read


def _camel(d: Mapping[str, Any], name: str, snake: str) -> Any:
    value = d.get(name)
    return d.get(snake) if value is None else value


def any_value(value: Any) -> Any:
    """An OTLP ``AnyValue`` as a Python value (an int64 sent as a string is an int again).
    One pass over its (single) key: this runs once per attribute of every span."""
    if type(value) is not dict:
        return value
    if len(value) == 1 and "stringValue" in value:  # most attributes: no lookup, no call
        return value["stringValue"]
    for key, got in value.items():
        convert = _ANY.get(key)
        if convert is not None and got is not None:
            return convert(got)
    return None


def _int(value: Any) -> Any:
    try:
        return int(value)
    except (TypeError, ValueError):
        return value


def _array(value: Any) -> Any:
    return [any_value(v) for v in (value.get("values") or [])] if type(value) is dict else value


def _kvlist(value: Any) -> Any:
    return key_values(value.get("values") if type(value) is dict else None)


def _same(value: Any) -> Any:
    return value


_ANY: dict[str, Any] = {}
for _names, _convert in ((("stringValue", "string_value", "boolValue", "bool_value", "doubleValue", "double_value",
                           "bytesValue", "bytes_value"), _same), (("intValue", "int_value"), _int),
                         (("arrayValue", "array_value"), _array), (("kvlistValue", "kvlist_value"), _kvlist)):
    for _name in _names:
        _ANY[_name] = _convert


def key_values(items: Any) -> dict[str, Any]:
    """OTLP ``attributes``: a list of ``KeyValue`` (the OTLP rule), or a plain map of name →
    value as span files written by hand or by simpler exporters keep it (each value an
    ``AnyValue`` object or the value itself; nested maps as dotted keys, as ``flatten`` reads)."""
    if isinstance(items, Mapping):
        return flatten({k: any_value(v) if _is_any(v) else v for k, v in items.items() if isinstance(k, str)})
    if not isinstance(items, list):
        return {}
    return {kv["key"]: any_value(kv.get("value")) for kv in items if (type(kv) is dict or isinstance(kv, Mapping)) and isinstance(kv.get("key"), str)}


def _is_any(value: Any) -> bool:
    """An ``AnyValue`` object: one key, and that key one of its value fields."""
    return type(value) is dict and len(value) == 1 and next(iter(value)) in _ANY


def span_id(value: Any, size: int) -> str | None:
    """A trace or span id as lower-case hex: OTLP/JSON writes hex, protobuf's JSON mapping
    base64 (a hex string of the right length is taken as hex; the SDK's ``0x`` prefix dropped)."""
    if not isinstance(value, str) or not value:
        return None
    text = value.removeprefix("0x")
    if len(text) == size * 2 and _HEX.fullmatch(text):
        return text.lower()
    try:
        raw = base64.b64decode(value, validate=True)
    except (binascii.Error, ValueError):
        return value
    return raw.hex() if len(raw) == size else value


def event_time(value: Any, start: int, name: str, problems: list[tuple[str, str]]) -> int:
    """An event's time; one given that is none is a ``schema`` problem, and the span's start is used."""
    found = nanos(value)
    if found is None and value is not None:
        problems.append(("schema", f"event {short(name)}'s time is {short(value)}, no time; the span's start is used"))
    return found if found is not None else start


def _listed(value: Any, name: str, problems: list[tuple[str, str]]) -> list[Any]:
    if value is None or isinstance(value, list):
        return value or []
    problems.append(("schema", f"{name} is {short(value)}, not a list; none read"))
    return []


_ERROR_CODES = (2, "2", "STATUS_CODE_ERROR", "ERROR", "StatusCode.ERROR")


# --- OTLP JSON ---------------------------------------------------------------------------


def is_otlp(doc: Any) -> bool:
    return isinstance(doc, Mapping) and isinstance(_camel(doc, "resourceSpans", "resource_spans"), list)


def otlp_spans(doc: Mapping[str, Any], line: int | None) -> Iterator[RawSpan]:
    for rs in _camel(doc, "resourceSpans", "resource_spans") or []:
        if not isinstance(rs, Mapping):
            continue
        resource = key_values((rs.get("resource") or {}).get("attributes")) if isinstance(rs.get("resource"), Mapping) else {}
        scopes = _camel(rs, "scopeSpans", "scope_spans") or _camel(rs, "instrumentationLibrarySpans", "instrumentation_library_spans") or []
        for ss in scopes:
            if not isinstance(ss, Mapping):
                continue
            scope = ss.get("scope") or ss.get("instrumentationLibrary") or {}
            scope_name = scope.get("name") if isinstance(scope, Mapping) else None
            for raw in ss.get("spans") or []:
                yield otlp_span(raw, resource, scope_name, line)


def otlp_span(raw: Any, resource: dict[str, Any] | None, scope: str | None, line: int | None) -> RawSpan:
    if not isinstance(raw, Mapping):
        raise ValueError(f"a span is {type(raw).__name__}, not an object")
    trace = span_id(_camel(raw, "traceId", "trace_id"), 16)
    sid = span_id(_camel(raw, "spanId", "span_id"), 8)
    if trace is None or sid is None:
        raise ValueError(f"span {raw.get('name')!r} has no traceId/spanId")
    problems: list[tuple[str, str]] = []
    start, end, untimed = span_times(_camel(raw, "startTimeUnixNano", "start_time_unix_nano"), _camel(raw, "endTimeUnixNano", "end_time_unix_nano"),
                                     ("startTimeUnixNano", "endTimeUnixNano"), problems)
    status = raw.get("status") if isinstance(raw.get("status"), Mapping) else {}
    error = (status.get("message") or "error") if status.get("code") in _ERROR_CODES else None
    events = []
    for event in _listed(raw.get("events"), "events", problems):
        if isinstance(event, Mapping):
            name = str(event.get("name"))
            events.append((name, event_time(_camel(event, "timeUnixNano", "time_unix_nano"), start, name, problems), key_values(event.get("attributes"))))
    return RawSpan(trace, sid, span_id(_camel(raw, "parentSpanId", "parent_span_id"), 8) or None, str(raw.get("name") or ""),
                   start, end, untimed, key_values(raw.get("attributes")), events, error, resource or None, scope, line, problems)


# --- flat spans ----------------------------------------------------------------------------

_TRACE_KEYS = ("trace_id", "traceId", "TraceId")
_SPAN_KEYS = ("span_id", "spanId", "SpanId")


def _context(item: Mapping[str, Any]) -> Mapping[str, Any]:
    """Where a flat span keeps its ids: ``context`` (Python's ``to_json``), ``spanContext`` (a
    JavaScript ``ReadableSpan``), or the span itself."""
    for key in ("context", "spanContext"):
        if isinstance(item.get(key), Mapping):
            return item[key]
    return item


def is_flat_span(item: Any) -> bool:
    if not isinstance(item, Mapping) or "span_data" in item:
        return False
    ctx = _context(item)
    has_ids = any(k in ctx for k in _TRACE_KEYS) and any(k in ctx for k in _SPAN_KEYS)
    return has_ids and any(k in item for k in ("name", "span_name", "SpanName"))


def flat_span(item: Mapping[str, Any], line: int | None) -> RawSpan:
    ctx = _context(item)
    trace = span_id(next((ctx[k] for k in _TRACE_KEYS if k in ctx), None), 16)
    sid = span_id(next((ctx[k] for k in _SPAN_KEYS if k in ctx), None), 8)
    if trace is None or sid is None:
        raise ValueError("a span without trace_id/span_id")
    parent = next((item[k] for k in ("parent_id", "parent_span_id", "parentSpanId", "ParentSpanId", "parentSpanContext") if item.get(k)), None)
    if isinstance(parent, Mapping):  # some exporters nest the parent's context
        parent = parent.get("span_id", parent.get("spanId"))
    problems: list[tuple[str, str]] = []
    starts = [k for k in ("start_time", "start_timestamp", "startTimeUnixNano", "Timestamp", "startTime") if k in item]
    ends = [k for k in ("end_time", "end_timestamp", "endTimeUnixNano", "endTime") if k in item]
    start, end, untimed = span_times(item[starts[0]] if starts else None, item[ends[0]] if ends else None,
                                     (starts[0] if starts else "start_time", ends[0] if ends else "end_time"), problems)
    status = item.get("status")
    code = (status.get("status_code") or status.get("code")) if isinstance(status, Mapping) else item.get("status_code", status)
    error = None
    if code in _ERROR_CODES:
        error = (status.get("description") or status.get("message") if isinstance(status, Mapping) else None) or item.get("status_message") or "error"
    attributes = item.get("attributes")
    attrs = key_values(attributes) if isinstance(attributes, list) else flatten(attributes) if isinstance(attributes, Mapping) else {}
    events = []
    for event in _listed(item.get("events"), "events", problems):
        if isinstance(event, Mapping):
            ev_attrs = event.get("attributes")
            ev_attrs = key_values(ev_attrs) if isinstance(ev_attrs, list) else flatten(ev_attrs) if isinstance(ev_attrs, Mapping) else {}
            name = str(event.get("name"))
            when = next((event[k] for k in ("timestamp", "timeUnixNano", "time") if k in event), None)
            events.append((name, event_time(when, start, name, problems), ev_attrs))
    kind = item.get("span_kind")
    if isinstance(kind, str) and not kind.startswith("SPAN_KIND") and "openinference.span.kind" not in attrs:
        attrs["openinference.span.kind"] = kind  # Phoenix's export keeps the OpenInference kind at the top
    resource = item.get("resource")
    res_attrs = resource.get("attributes") if isinstance(resource, Mapping) else None
    name = next((item[k] for k in ("name", "span_name", "SpanName") if isinstance(item.get(k), str)), "")
    return RawSpan(trace, sid, span_id(parent, 8) if parent else None, name, start, end, untimed, attrs, events, error,
                   flatten(res_attrs) if isinstance(res_attrs, Mapping) else key_values(res_attrs) or None, None, line, problems)


def flatten(attributes: Mapping[str, Any], prefix: str = "") -> dict[str, Any]:
    """Nested attribute objects (Phoenix's export) as flat dotted keys; lists stay whole."""
    out: dict[str, Any] = {}
    for key, value in attributes.items():
        name = f"{prefix}{key}"
        if isinstance(value, Mapping) and value:
            out.update(flatten(value, name + "."))
        else:
            out[name] = value
    return out
