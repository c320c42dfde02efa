"""OTLP JSON with protobuf's field names (``resource_spans``, ``start_time_unix_nano``, base64
ids), as Microsoft Agent Framework's spans are saved from Python (``encode_spans`` +
``MessageToJson(preserving_proto_field_name=True)``), and OTLP spans whose ``attributes`` are a
plain map instead of ``KeyValue`` lists: both read as the console exporter's copy of the same
run (tests/fixtures/otel/make_agent_framework.py)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson

from threadlab.core.canonical import thread_to_dict
from threadlab.formats import detect_format
from threadlab.formats.common.source import Source

HERE = Path(__file__).parent / "fixtures" / "otel"
SNAKE = HERE / "agent_framework_otlp_snake.json"
CONSOLE = HERE / "agent_framework_console.json"


def _actions(source: Source) -> list[list[dict[str, Any]]]:
    module = detect_format(source)
    assert module.NAME == "otel"
    threads = module.to_threads(source)
    out = []
    for thread in sorted(threads, key=lambda t: t.thread_id):
        assert not thread.problems, thread.problems
        out.append([{k: v for k, v in a.items() if k not in ("metadata", "timestamp", "id", "sequence")} for a in thread_to_dict(thread)["actions"]])
    return out


def _as_maps(value: Any) -> Any:
    """Every ``attributes`` list of KeyValue made a map of name → AnyValue (left as is)."""
    if isinstance(value, list):
        return [_as_maps(v) for v in value]
    if isinstance(value, dict):
        return {k: ({kv["key"]: kv["value"] for kv in v} if k == "attributes" and isinstance(v, list) else _as_maps(v)) for k, v in value.items()}
    return value


def _plain(value: Any) -> Any:
    """Every attribute map's AnyValue objects made plain values (``{"int_value": "61"}`` → 61)."""
    if isinstance(value, list):
        return [_plain(v) for v in value]
    if isinstance(value, dict):
        return {k: ({n: _value(a) for n, a in v.items()} if k == "attributes" and isinstance(v, dict) else _plain(v)) for k, v in value.items()}
    return value


def _value(any_value: dict[str, Any]) -> Any:
    (kind, got), = any_value.items()
    return int(got) if kind == "int_value" else got


def test_snake_case_otlp_reads_as_the_console_copy() -> None:
    snake = _actions(Source(SNAKE))
    assert snake == _actions(Source(CONSOLE))
    kinds = [a["action_type"] for thread in snake for a in thread]
    assert kinds.count("tool_call") == 2 and kinds.count("tool_return") == 2


def test_attributes_as_a_map() -> None:
    doc = orjson.loads(SNAKE.read_bytes())
    want = _actions(Source(SNAKE))
    for changed in (_as_maps(doc), _plain(_as_maps(doc))):
        assert _actions(Source(orjson.dumps(changed), name="map.json")) == want


def test_a_later_runs_history_keeps_its_order() -> None:
    """The session's second run is a trace of its own whose model call repeats the first run:
    that history stands before the new prompt in its order (it was all read at the prompt's
    time: the prompts first, the calls last)."""
    second = next(t for t in _actions(Source(CONSOLE)) if any(a.get("content") == "What should I take?" for a in t))
    kinds = [(a["action_type"], a.get("content", a.get("tool_name"))) for a in second]
    assert kinds == [("user_message", "What is the weather in Paris?"), ("tool_call", "get_weather"),
                     ("tool_return", "sunny in Paris, 21 degrees"), ("assistant_message", "It is sunny in Paris, 21 degrees."),
                     ("user_message", "What should I take?"), ("assistant_message", "Take sunglasses.")]
