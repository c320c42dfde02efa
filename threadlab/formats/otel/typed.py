"""OTLP JSON read by typed decoding: one ``TracesData`` document → ``RawSpan``, as ``wire.py``
reads it, without a Python dict per span, attribute and ``AnyValue`` along the way.

msgspec decodes the document straight into the Structs below (``resourceSpans → scopeSpans →
spans``, attributes as ``{key, value: AnyValue}``), each field typed as the OTLP/JSON mapping
writes it; what the readers take whole (a resource, a scope, an ``arrayValue`` or
``kvlistValue``) is left as ``msgspec.Raw`` and parsed by orjson as the careful route parses
it. This is only a shortcut: a file it does not take as it is (another container, a value of
another type, an ``AnyValue`` with two values, an integer orjson would read as a float, JSON
Lines, any decoding error) gives None, and ``reading.raw_spans`` reads it the careful way
(``wire.otlp_spans``), which says what is wrong with it. Where it answers, the spans are equal
to the careful route's (``tests/test_otel_typed.py`` holds the two together)."""

from __future__ import annotations

from typing import Any

import msgspec
import orjson
from msgspec import Raw, Struct

from threadlab.formats.common.source import Source
from threadlab.formats.common.spans.times import _NANOS, span_times
from threadlab.formats.otel.wire import _ERROR_CODES, RawSpan, _array, _kvlist, event_time, key_values, span_id

_NONE = Raw()  # every absent raw field is this very object
_INT64 = (-(2**63), 2**64 - 1)  # the integers orjson reads as integers (others as floats)
_DEEP = 512  # brackets in a raw value past which its depth is left to the careful route's parse


class _Refused(ValueError):
    """A value the typed route leaves to the careful one (msgspec reports it as a validation error)."""


def _whole(value: Any) -> Any:
    if type(value) is int and not _INT64[0] <= value <= _INT64[1]:
        raise _Refused("an integer orjson reads as a float")
    return value


def _raw(value: Raw) -> Any:
    """A raw value as orjson parses it (None when absent)."""
    if not value:
        return None
    data = bytes(value)
    if data.count(b"[") + data.count(b"{") > _DEEP:
        raise _Refused("deeply nested")
    return orjson.loads(data)


class AnyValue(Struct, gc=False):
    """An OTLP ``AnyValue``; ``__post_init__`` keeps its Python value in ``value_`` (``wire.any_value``'s)."""

    stringValue: str | None = None
    boolValue: bool | None = None
    intValue: int | str | None = None
    doubleValue: int | float | None = None
    bytesValue: str | None = None
    arrayValue: Raw = _NONE
    kvlistValue: Raw = _NONE
    string_value: str | None = None
    bool_value: bool | None = None
    int_value: int | str | None = None
    double_value: int | float | None = None
    bytes_value: str | None = None
    array_value: Raw = _NONE
    kvlist_value: Raw = _NONE
    value_: Any = None

    def __post_init__(self) -> None:
        # ``any_value`` takes the first value that is not null in the object's key order, which a
        # Struct does not keep: an object with two is left to the careful route
        text = self.stringValue
        if (text is not None and None is self.intValue is self.boolValue is self.doubleValue is self.bytesValue is self.string_value
                is self.int_value is self.bool_value is self.double_value is self.bytes_value
                and _NONE is self.arrayValue is self.kvlistValue is self.array_value is self.kvlist_value):
            self.value_ = text  # (nearly every attribute: a string alone)
            return
        self.value_ = None  # (a key named ``value_`` in the object is no value of it)
        found = [v for v in (self.stringValue, self.string_value, self.boolValue, self.bool_value, self.doubleValue, self.double_value,
                             self.bytesValue, self.bytes_value) if v is not None]
        ints = [v for v in (self.intValue, self.int_value) if v is not None]
        raws = [(r, f) for r, f in ((self.arrayValue, _array), (self.array_value, _array), (self.kvlistValue, _kvlist), (self.kvlist_value, _kvlist)) if r]
        parsed = [(v, f) for v, f in ((_raw(r), f) for r, f in raws) if v is not None]
        if len(found) + len(ints) + len(parsed) > 1:
            raise _Refused("an AnyValue with more than one value")
        if found:
            self.value_ = _whole(found[0])
        elif ints:
            value = _whole(ints[0])
            try:
                self.value_ = int(value)
            except (TypeError, ValueError):
                self.value_ = value
        elif parsed:
            self.value_ = parsed[0][1](parsed[0][0])


class KeyValue(Struct, gc=False):
    key: str
    value: AnyValue | None = None


class Event(Struct, gc=False):
    name: str | None = None
    timeUnixNano: str | int | float | None = None
    time_unix_nano: str | int | float | None = None
    attributes: list[KeyValue] | None = None


class Status(Struct, gc=False):
    code: int | str | None = None
    message: str | None = None


class Span(Struct, gc=False):
    traceId: str | None = None
    trace_id: str | None = None
    spanId: str | None = None
    span_id: str | None = None
    parentSpanId: str | None = None
    parent_span_id: str | None = None
    name: str | None = None
    startTimeUnixNano: str | int | float | None = None
    start_time_unix_nano: str | int | float | None = None
    endTimeUnixNano: str | int | float | None = None
    end_time_unix_nano: str | int | float | None = None
    attributes: list[KeyValue] | None = None
    events: list[Event] | None = None
    status: Status | None = None


class ScopeSpans(Struct, gc=False):
    scope: Raw = _NONE
    instrumentationLibrary: Raw = _NONE
    spans: list[Span] | None = None


class ResourceSpans(Struct, gc=False):
    resource: Raw = _NONE
    scopeSpans: list[ScopeSpans] | None = None
    scope_spans: list[ScopeSpans] | None = None
    instrumentationLibrarySpans: list[ScopeSpans] | None = None
    instrumentation_library_spans: list[ScopeSpans] | None = None


class TracesData(Struct, gc=False):
    resourceSpans: list[ResourceSpans] | None = None
    resource_spans: list[ResourceSpans] | None = None


_DECODER = msgspec.json.Decoder(TracesData)


def typed_spans(source: Source) -> list[RawSpan] | None:
    """The spans of a file that is one OTLP JSON document, read by typed decoding; None for
    anything else (the careful route reads it)."""
    return spans_of(decode(source))


def decode(source: Source) -> TracesData | None:
    """The file as one OTLP JSON document's Structs; None when it is not one (or not as this
    route takes it: see the module doc)."""
    if source.is_object:
        return None
    try:
        return _DECODER.decode(source.data)
    except (msgspec.DecodeError, msgspec.ValidationError, ValueError, RecursionError):  # (ValueError: not UTF-8, _Refused)
        return None


def spans_of(doc: TracesData | None) -> list[RawSpan] | None:
    """The ``RawSpan``s of a decoded document; None for what the careful route must read."""
    if doc is None:
        return None
    try:
        spans = list(_spans(doc, {}))
    except (ValueError, RecursionError):  # (_Refused, orjson's)
        return None
    return spans or None


def _either(a: Any, b: Any) -> Any:
    return b if a is None else a


def _spans(doc: TracesData, ids: dict[tuple[str | None, int], str | None]) -> Any:
    """The spans of ``doc``; ``ids``: each id's ``span_id`` (a trace's id is on every span)."""
    groups = _either(doc.resourceSpans, doc.resource_spans)
    if groups is None:
        raise _Refused("no resourceSpans")
    for rs in groups:
        resource_doc = _raw(rs.resource)
        resource = key_values((resource_doc or {}).get("attributes")) if isinstance(resource_doc, dict) else {}
        scopes = _either(rs.scopeSpans, rs.scope_spans) or _either(rs.instrumentationLibrarySpans, rs.instrumentation_library_spans) or []
        for ss in scopes:
            scope = _raw(ss.scope) or _raw(ss.instrumentationLibrary) or {}
            scope_name = scope.get("name") if isinstance(scope, dict) else None
            for raw in ss.spans or []:
                yield _span(raw, resource or None, scope_name, ids)


def _attributes(items: list[KeyValue] | None) -> dict[str, Any]:
    return {kv.key: kv.value.value_ if kv.value is not None else None for kv in items} if items else {}


def _unix_nanos(value: Any) -> int | None:
    """A unix-nano string (what OTLP/JSON writes) of a moment a thread holds, as ``times.nanos``
    reads it; None for anything else (``span_times`` then reads it)."""
    if type(value) is str and value.isdigit() and value.isascii() and len(value) < 30:
        found = int(value)
        if _NANOS[0] <= found <= _NANOS[1]:
            return found
    return None


def _id(value: str | None, size: int, ids: dict[tuple[str | None, int], str | None]) -> str | None:
    key = (value, size)
    found = ids.get(key, _NONE)
    if found is _NONE:
        found = ids[key] = span_id(value, size)
    return found  # type: ignore[return-value]


def _span(raw: Span, resource: dict[str, Any] | None, scope: Any, ids: dict[tuple[str | None, int], str | None]) -> RawSpan:
    trace = _id(_either(raw.traceId, raw.trace_id), 16, ids)
    sid = span_id(_either(raw.spanId, raw.span_id), 8)
    if trace is None or sid is None:
        raise _Refused("a span without ids")
    problems: list[tuple[str, str]] = []
    first, last = _either(raw.startTimeUnixNano, raw.start_time_unix_nano), _either(raw.endTimeUnixNano, raw.end_time_unix_nano)
    start, end = _unix_nanos(first), _unix_nanos(last)
    if start is None or end is None:  # anything but two unix-nano strings of moments: as the careful route times it
        start, end, untimed = span_times(_whole(first), _whole(last), ("startTimeUnixNano", "endTimeUnixNano"), problems)
    else:
        untimed = False
    status = raw.status
    error = (status.message or "error") if status is not None and status.code in _ERROR_CODES else None
    events = []
    for event in raw.events or ():
        name = str(event.name)
        when = _whole(_either(event.timeUnixNano, event.time_unix_nano))
        events.append((name, event_time(when, start, name, problems), _attributes(event.attributes)))
    return RawSpan(trace, sid, _id(_either(raw.parentSpanId, raw.parent_span_id), 8, ids) or None, str(raw.name or ""),
                   start, end, untimed, _attributes(raw.attributes), events, error, resource, scope, 1, problems)
