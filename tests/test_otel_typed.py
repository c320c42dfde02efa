"""The typed decode of OTLP JSON (``otel/typed.py``) against the careful route (``wire.otlp_spans``
over orjson): on documents built to tempt it (both spellings of every field, an ``AnyValue``
with several values or none, integers orjson reads as floats, values of other types, nulls),
the typed route either declines (None) or gives exactly the careful route's spans."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from threadlab.formats.common.source import Source
from threadlab.formats.common.spans.documents import read_items
from threadlab.formats.otel.typed import typed_spans
from threadlab.formats.otel.wire import RawSpan, is_otlp, otlp_spans

FIXTURES = Path(__file__).parent / "fixtures"


def careful(data: bytes) -> tuple[list[RawSpan], list[Any]]:
    spans: list[RawSpan] = []

    def take(item: Any, line: int | None) -> bool:
        if is_otlp(item):
            spans.extend(otlp_spans(item, line))
            return True
        return False

    return spans, read_items(Source(data, name="x.json"), take, "OTLP")


def check(data: bytes) -> list[RawSpan] | None:
    got = typed_spans(Source(data, name="x.json"))
    if got is not None:
        spans, failures = careful(data)
        assert not failures
        assert got == spans
        assert repr(got) == repr(spans)  # (types too: 2**64 == float(2**64))
    return got


def rarely(good: Any, bad: Any) -> Any:
    """``good`` mostly, ``bad`` about one time in forty: most documents are read, some tempt the route."""
    return st.integers(0, 39).flatmap(lambda n: bad if n == 0 else good)


_big = st.sampled_from([2**63 - 1, 2**63, 2**64 - 1, 2**64, -(2**63), -(2**63) - 1, 10**30])
_typed = {  # a value of the key's own type (a big integer one time in ten), another type rarely
    "string": st.text(max_size=4), "bytes": st.sampled_from(["AAE=", ""]), "bool": st.booleans(),
    "int": st.one_of(st.integers(-5, 5), st.sampled_from(["12", " 7 ", "x", "1_0"]), _big, st.integers(-5, 5)),
    "double": st.one_of(st.floats(allow_nan=False, allow_infinity=False), st.integers(-5, 5), _big, st.floats(-1, 1)),
}
_value_keys = ["stringValue", "boolValue", "intValue", "doubleValue", "bytesValue", "arrayValue", "kvlistValue",
               "string_value", "bool_value", "int_value", "double_value", "bytes_value", "array_value", "kvlist_value"]


@st.composite
def any_values(draw: Any, depth: int = 0) -> Any:
    count = draw(st.sampled_from([1, 1, 1, 1, 2, 2, 0]))
    keys = draw(st.lists(st.sampled_from(_value_keys), min_size=count, max_size=count, unique=True))
    keys += draw(rarely(st.just([]), st.sampled_from([["other"], ["value_"]])))
    out: dict[str, Any] = {}
    for key in keys:
        kind = key.replace("_value", "Value").removesuffix("Value")
        if kind in ("array", "kvlist") and depth < 2:
            items = draw(st.lists(any_values(depth + 1), max_size=2))
            if kind == "kvlist":
                items = [{"key": f"k{i}", "value": v} for i, v in enumerate(items)]
            out[key] = draw(rarely(st.just({"values": items}), st.sampled_from([items, None])))
        else:
            out[key] = draw(rarely(_typed.get(kind, st.none()), st.one_of(st.none(), st.integers(), st.text(max_size=2))))
    return draw(rarely(st.just(out), st.sampled_from(["bare", None, 3])))


@st.composite
def key_values(draw: Any) -> Any:
    items = []
    for i in range(draw(st.integers(0, 3))):
        item: Any = {"key": draw(rarely(st.sampled_from([f"a{i}", "dup"]), st.just(5))), "value": draw(any_values())}
        if draw(st.integers(0, 29)) == 0:
            item = draw(st.sampled_from([{"value": {"stringValue": "x"}}, {"key": "k"}, "no object"]))
        items.append(item)
    return draw(rarely(st.just(items), st.sampled_from([None, {"plain": "map"}])))


_ids = rarely(st.sampled_from(["eee19b7ec3c1b174", "7uGbfsPBsXQ=", "0xEEE19B7EC3C1B174", "5b8efff798038103", "ab"]), st.sampled_from(["", None, 7]))
_times = rarely(st.sampled_from(["1700000000000000000", "1700000000000000123", "abc", "", 1.7e9, 1700000000000000000, None]), st.one_of(st.just([1, 2]), _big))


@st.composite
def spans(draw: Any) -> Any:
    snake = draw(st.booleans())

    def name(camel: str, snake_name: str) -> str:
        return snake_name if snake else camel

    span: dict[str, Any] = {
        name("traceId", "trace_id"): draw(st.sampled_from(["5b8efff798038103d269b633813fc60c", "W47/95gDgQPSabYzgT/GDA==", "0x5B8EFFF798038103D269B633813FC60C"])),
        name("spanId", "span_id"): draw(_ids),
        "name": draw(rarely(st.sampled_from(["chat gpt-4o", "", None]), st.just(3))),
        name("startTimeUnixNano", "start_time_unix_nano"): draw(_times),
        name("endTimeUnixNano", "end_time_unix_nano"): draw(_times),
        "attributes": draw(key_values()),
    }
    if draw(st.booleans()):
        span[name("parentSpanId", "parent_span_id")] = draw(_ids)
    if draw(st.booleans()):
        span["status"] = draw(rarely(st.sampled_from([{"code": 2}, {"code": "STATUS_CODE_ERROR", "message": "boom"}, {"code": 1},
                                                      {"code": 2, "message": ""}, None]), st.sampled_from([{"code": 2.0}, "ERROR", {"message": 5}])))
    if draw(st.booleans()):
        events = [{"name": draw(rarely(st.sampled_from(["gen_ai.choice", None]), st.just(4))), name("timeUnixNano", "time_unix_nano"): draw(_times),
                   "attributes": draw(key_values())} for _ in range(draw(st.integers(0, 2)))]
        span["events"] = draw(rarely(st.sampled_from([events, None]), st.sampled_from(["no list", [3]])))
    if draw(st.integers(0, 29)) == 0:
        span = draw(st.sampled_from([{}, "no span", {"traceId": "5b8efff798038103d269b633813fc60c"}]))  # type: ignore[assignment]
    return span


@st.composite
def documents(draw: Any) -> Any:
    scopes = [{draw(st.sampled_from(["scope", "instrumentationLibrary"])): draw(rarely(st.sampled_from([{"name": "pydantic-ai"}, {}, None]), st.just({"name": 3}))),
               "spans": draw(st.lists(spans(), max_size=3))} for _ in range(draw(st.integers(1, 2)))]
    group: dict[str, Any] = {draw(st.sampled_from(["scopeSpans", "scope_spans", "instrumentationLibrarySpans"])): scopes}
    if draw(st.booleans()):
        group["resource"] = draw(rarely(st.sampled_from([{"attributes": [{"key": "service.name", "value": {"stringValue": "svc"}}]}, None, {}]),
                                        st.sampled_from([{"attributes": {"service.name": "svc"}}, []])))
    return {draw(st.sampled_from(["resourceSpans", "resource_spans"])): [group]}


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(documents(), st.sampled_from([None, 2]))
def test_typed_is_the_careful_route_or_declines(doc: Any, indent: int | None) -> None:
    check(json.dumps(doc, indent=indent).encode())


def test_typed_takes_plain_otlp() -> None:
    """The shortcut is taken where it should be: every fixture that is one clean OTLP document."""
    taken = [p for p in sorted(FIXTURES.rglob("*.json")) if check(p.read_bytes()) is not None]
    assert len(taken) >= 4, taken


@pytest.mark.parametrize("value", [
    {"stringValue": "a", "intValue": "5"},  # two values: the careful route takes the first in key order
    {"intValue": "5", "stringValue": "a"},
    {"doubleValue": 2**64},  # orjson reads it as a float
    {"intValue": -(2**63) - 1},
])
def test_typed_declines_what_it_cannot_read_alike(value: Any) -> None:
    doc = {"resourceSpans": [{"scopeSpans": [{"spans": [{"traceId": "5b8efff798038103d269b633813fc60c", "spanId": "eee19b7ec3c1b174",
                                                          "name": "s", "attributes": [{"key": "k", "value": value}]}]}]}]}
    assert typed_spans(Source(json.dumps(doc).encode(), name="x.json")) is None


@pytest.mark.parametrize("data", [b'{"resourceSpans": [{"scopeSpans": [{"spans": [{"name": "\xff"}]}]}]}',  # not UTF-8
                                  b'{"resourceSpans": [{"scopeSpans": [{"spans": [{"name": "\\ud83d"}]}]}]}',  # a lone surrogate
                                  b'{"resourceSpans": []}\n{"resourceSpans": []}', b'[{"resourceSpans": []}]', b''])
def test_typed_leaves_other_files_to_the_careful_route(data: bytes) -> None:
    assert typed_spans(Source(data, name="x.json")) is None
