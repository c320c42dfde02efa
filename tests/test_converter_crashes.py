"""A bad value costs itself, not its file (issue 24 §7, "no converter crash"): each of these was
the whole file lost as an ``internal`` row.

- 10,000-deep nesting in a span file (a JSON Lines line, or a pretty-printed object): the span
  documents' decoder fell back to the standard library and hit a ``RecursionError``. Now the
  document is a ``json`` problem naming its line; the other documents are read.
- A lone UTF-16 surrogate escape in an OpenInference attribute (``"\\ud83d"``, half an emoji):
  the standard library read it, ``orjson.dumps`` then failed. Now the span is read, the half
  character kept as U+FFFD with an ``encoding`` problem naming the line.
- A delta of the wrong type in an Anthropic stream (``"text": 5``, a usage that is a number,
  a delta type that is a list): the assembler added it. Now a ``schema`` problem names the
  event's line and the value, and the rest of the stream is read."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import orjson
import pytest

import threadlab as tl

FIXTURES = Path(__file__).resolve().parent / "fixtures"
OTLP = FIXTURES / "otel" / "openinference_openai_agents_collector.jsonl"
TRACE = FIXTURES / "openai_agents_trace" / "support_run.jsonl"
STREAM = FIXTURES / "anthropic_messages" / "stream_thinking_tool.sse"
DEEP = "[" * 10_000 + "]" * 10_000


def read(path: Path) -> tuple[list[tl.Thread], list[tl.Problem]]:
    threads = tl.read_all(path, strict=False)
    problems = [p for t in threads for p in t.problems]
    frames = tl.load(path, workers=1, progress=False)
    assert "internal" not in set(frames.problems["rule"]), frames.problems["message"].tolist()
    assert len(frames.actions) == sum(len(t.actions) for t in threads)
    return threads, problems


def otlp_lines() -> list[dict[str, Any]]:
    return [orjson.loads(line) for line in OTLP.read_bytes().splitlines() if line.strip()]


def first_span_attributes(doc: dict[str, Any]) -> list[dict[str, Any]]:
    return doc["resourceSpans"][0]["scopeSpans"][0]["spans"][0]["attributes"]


def actions_of(path: Path, docs: list[Any]) -> int:
    path.write_text("\n".join(json.dumps(d) for d in docs) + "\n")
    return sum(len(t.actions) for t in tl.read_all(path))


@pytest.mark.parametrize("layout", ["lines", "pretty"])
def test_spans_nested_ten_thousand_deep_cost_their_document(layout: str, tmp_path: Path) -> None:
    docs = otlp_lines()
    whole = actions_of(tmp_path / "whole.jsonl", docs[1:])  # what the other documents give
    text = json.dumps(docs[0]).replace('"attributes": [', '"attributes": [{"key": "deep", "value": {"z": ' + DEEP + "}}, ", 1)
    path = tmp_path / "deep.jsonl"
    if layout == "lines":
        path.write_text(text + "\n" + "\n".join(json.dumps(d) for d in docs[1:]) + "\n")
        line = 1
    else:
        head = "\n".join(json.dumps(d, indent=2) for d in docs[1:])
        path.write_text(head + "\n" + text + "\n")
        line = head.count("\n") + 2
    threads, problems = read(path)
    assert sum(len(t.actions) for t in threads) == whole > 0
    assert [(p.rule, p.line) for p in problems] == [("json", line)]
    assert "nests deeper than threadlab reads" in problems[0].message


@pytest.mark.parametrize("layout", ["lines", "pretty"])
def test_a_lone_surrogate_in_an_openinference_attribute_is_kept_as_a_replacement_character(layout: str, tmp_path: Path) -> None:
    docs = otlp_lines()
    whole = actions_of(tmp_path / "whole.jsonl", docs)
    [attribute] = [a for a in first_span_attributes(docs[0]) if a["key"] == "llm.input_messages.1.message.content"]
    attribute["value"]["stringValue"] = "Paris \ud83d weather"  # json.dumps writes the escape "\ud83d"
    path = tmp_path / "surrogate.jsonl"
    path.write_text(("\n" if layout == "lines" else "\n\n").join(json.dumps(d, indent=None if layout == "lines" else 2) for d in docs) + "\n")
    assert b"\\ud83d" in path.read_bytes()
    threads, problems = read(path)
    assert sum(len(t.actions) for t in threads) >= whole  # (the changed prompt differs from its later copies)
    assert [(p.rule, p.line) for p in problems] == [("encoding", 1)]
    assert "Paris \ufffd weather" in [a.content for t in threads for a in t.actions if a.action_type == "user_message"]
    tl.dumps(threads[0])  # writes


@pytest.mark.parametrize("bad", ["deep", "surrogate"])
def test_an_agents_sdk_trace_whose_first_line_is_bad_is_still_detected(bad: str, tmp_path: Path) -> None:
    records = [orjson.loads(line) for line in TRACE.read_bytes().splitlines() if line.strip()]
    whole = sum(len(t.actions) for t in tl.read_all(TRACE))
    text = [json.dumps(r) for r in records]
    text[0] = text[0].replace('"span_data": {', '"span_data": {"odd": ' + (DEEP if bad == "deep" else '"a\\ud83d"') + ", ", 1)
    path = tmp_path / "trace.jsonl"
    path.write_text("\n".join(text) + "\n")
    threads, problems = read(path)
    assert threads[0].origin[1] == "openai-agents-trace"
    assert [(p.rule, p.line) for p in problems] == [("json" if bad == "deep" else "encoding", 1)]
    assert sum(len(t.actions) for t in threads) == (whole if bad == "surrogate" else sum(len(t.actions) for t in threads))


def test_nan_in_a_pretty_printed_span_file_is_no_value(tmp_path: Path) -> None:
    docs = otlp_lines()
    first_span_attributes(docs[0]).append({"key": "score", "value": {"doubleValue": float("nan")}})
    path = tmp_path / "nan.json"
    path.write_text("\n".join(json.dumps(d, indent=2) for d in docs) + "\n")  # Python's json writes NaN
    threads, problems = read(path)
    assert [p.rule for p in problems] == ["json"] and "NaN" not in tl.dumps(threads[0]).decode()


ODD = [5, 1.5, ["x"], {"a": 1}, True]


def _stream_with(tmp_path: Path, event_type: str, path: tuple[str, ...], value: Any) -> tuple[Path, int]:
    lines = STREAM.read_text().split("\n")
    for number, line in enumerate(lines):
        if line.startswith("data: ") and f'"type": "{event_type}"' in line.replace('":"', '": "'):
            event = json.loads(line[6:])
            target = event
            for key in path[:-1]:
                target = target[key]
            if path[-1] in target:
                target[path[-1]] = value
                lines[number] = "data: " + json.dumps(event)
                out = tmp_path / "stream.sse"
                out.write_text("\n".join(lines))
                return out, number + 1
    raise AssertionError(f"no {event_type} event with {path}")


@pytest.mark.parametrize("value", ODD, ids=repr)
@pytest.mark.parametrize(("event_type", "path"), [
    ("message_start", ("message", "usage")),
    ("content_block_start", ("content_block", "thinking")),
    ("content_block_delta", ("delta", "type")),
    ("content_block_delta", ("delta", "thinking")),
    ("content_block_delta", ("delta", "partial_json")),
    ("content_block_delta", ("delta", "signature")),
    ("content_block_delta", ("index",)),
], ids=lambda v: ".".join(v) if isinstance(v, tuple) else v)
def test_an_anthropic_delta_of_the_wrong_type_is_named_and_the_stream_read(event_type: str, path: tuple[str, ...], value: Any, tmp_path: Path) -> None:
    if (path[-1], type(value)) in (("usage", dict), ("index", int)):
        return  # the right type
    whole = len(tl.read(STREAM).actions)
    bad, line = _stream_with(tmp_path, event_type, path, value)
    threads, problems = read(bad)
    named = [p for p in problems if p.line == line and p.rule == "schema"]
    assert named, [str(p) for p in problems]
    assert any(f"{path[-1]} is {value!r}" in p.message for p in named) or path == ("content_block", "thinking")
    assert abs(len(threads[0].actions) - whole) <= 1  # one block at most is lost, the rest is read
