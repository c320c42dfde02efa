"""Times kept or named, never invented (issue 24 §7): a span time that cannot be read put the
span at 0 unix nanoseconds, 1970-01-01, with no problem (OTel spans, OpenInference, the Agents
SDK's traces). Now it is a ``schema`` problem naming the field and the value; the span keeps its
other time, and with neither it has none: its actions get the builder's made-up time (after the
action before, counted in ``metadata.synthetic_timestamps``), never 1970.

The builder itself made up 1970 for actions (and agents) before the first action that has a
time: a file whose first records carry none started in 1970, and its thread lasted 56 years.
Those now take that first time (``ThreadBuilder.settle_leading``); a file with no time at all
keeps the epoch's (there is nothing to go by), as before.

A Claude Code line's or an AI SDK message's time that does not read was dropped without a word
(the line took its neighbour's time, the message none): now each is a ``schema`` problem naming it."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import orjson
import pytest

import threadlab as tl

FIXTURES = Path(__file__).resolve().parent / "fixtures"
OTLP = FIXTURES / "otel" / "openinference_openai_agents_collector.jsonl"
TRACE = FIXTURES / "openai_agents_trace" / "support_run.jsonl"


def _otlp_spans(doc: dict[str, Any]) -> Iterator[dict[str, Any]]:
    for resource in doc.get("resourceSpans", []):
        for scope in resource.get("scopeSpans", []):
            yield from scope.get("spans", [])


def _kind(span: dict[str, Any]) -> str | None:
    return next((a["value"].get("stringValue") for a in span.get("attributes", []) if a["key"] == "openinference.span.kind"), None)


KEEP = object()  # a time left as it is


def _set(holder: dict[str, Any], names: tuple[str, str], start: Any, end: Any) -> None:
    for name, value in zip(names, (start, end), strict=True):
        if value is None:
            holder.pop(name, None)
        elif value is not KEEP:
            holder[name] = value


def _otlp(kind: str, start: Any, end: Any) -> Callable[[Any], bool]:
    def change(doc: Any) -> bool:
        span = next((s for s in _otlp_spans(doc) if _kind(s) == kind), None)
        if span is None:
            return False
        _set(span, ("startTimeUnixNano", "endTimeUnixNano"), start, end)
        return True
    return change


def _trace(kind: str, start: Any, end: Any) -> Callable[[Any], bool]:
    def change(record: Any) -> bool:
        if (record.get("span_data") or {}).get("type") != kind:
            return False
        _set(record, ("started_at", "ended_at"), start, end)
        return True
    return change


def _changed(source: Path, target: Path, change: Callable[[Any], bool]) -> int:
    lines = source.read_bytes().split(b"\n")
    for number, line in enumerate(lines):
        if line.strip() and change(record := orjson.loads(line)):
            lines[number] = orjson.dumps(record)
            target.write_bytes(b"\n".join(lines))
            return number + 1
    raise AssertionError("nothing changed")


def _times(thread: tl.Thread) -> list[Any]:
    return [a.timestamp for a in thread.actions] + [a.created_at for a in thread.agents.values()] + [thread.created_at]


BAD = "not a time"
CASES = {  # (file, a span kind, its start and end names, the change)
    "otel-llm": (OTLP, "LLM", ("startTimeUnixNano", "endTimeUnixNano"), _otlp),
    "otel-tool": (OTLP, "TOOL", ("startTimeUnixNano", "endTimeUnixNano"), _otlp),
    "otel-agent": (OTLP, "AGENT", ("startTimeUnixNano", "endTimeUnixNano"), _otlp),
    "trace-generation": (TRACE, "generation", ("started_at", "ended_at"), _trace),
    "trace-function": (TRACE, "function", ("started_at", "ended_at"), _trace),
    "trace-agent": (TRACE, "agent", ("started_at", "ended_at"), _trace),
}


@pytest.mark.parametrize("which", ["start", "end", "both"])
@pytest.mark.parametrize("case", list(CASES))
def test_a_span_time_that_does_not_read_is_named_and_no_time_is_invented(case: str, which: str, tmp_path: Path) -> None:
    source, kind, names, make = CASES[case]
    good = tl.read(source)
    start, end = (BAD if which in ("start", "both") else KEEP), (BAD if which in ("end", "both") else KEEP)
    path = tmp_path / source.name
    line = _changed(source, path, make(kind, start, end))
    thread = tl.read(path, strict=False)
    assert all(t.year != 1970 for t in _times(thread)), [a.timestamp for a in thread.actions]
    said = [p for p in thread.problems if p.rule == "schema" and p.line == line]
    assert len(said) == 1 and f"'{BAD}', no time" in said[0].message, [str(p) for p in thread.problems]
    bad = [name for name, value in zip(names, (start, end), strict=True) if value == BAD]
    assert all(name in said[0].message for name in bad)
    assert ("the span has no time" in said[0].message) == (which == "both")
    if which != "both":  # the span keeps its other time: read as before, no time made up
        assert len(thread.actions) == len(good.actions) and "synthetic_timestamps" not in (thread.metadata or {})
    else:  # no time: its actions' times are the builder's, and counted
        assert (thread.metadata or {}).get("synthetic_timestamps", 0) >= 1
    tl.validate(thread)
    frames = tl.load(path, workers=1, progress=False)
    assert "internal" not in set(frames.problems["rule"]) and frames.actions["timestamp"].dt.year.min() > 1970


def test_a_span_without_times_at_all_gets_none_and_no_problem(tmp_path: Path) -> None:
    """No time given is not a broken value: the span has none (no problem), its actions get the
    builder's made-up time, counted."""
    path = tmp_path / TRACE.name
    _changed(TRACE, path, _trace("function", None, None))
    thread = tl.read(path, strict=False)
    assert not [p for p in thread.problems if "no time" in p.message]
    assert thread.metadata["synthetic_timestamps"] >= 1 and all(t.year != 1970 for t in _times(thread))


def test_the_first_records_without_a_time_take_the_first_time_not_1970(tmp_path: Path) -> None:
    """An Agents SDK trace whose first spans lost their times: the builder's made-up times before
    the first real one were 1970's (and the agents' creation times with them)."""
    records = [orjson.loads(line) for line in TRACE.read_bytes().splitlines() if line.strip()]
    for record in records[:4]:
        record.pop("started_at", None)
        record.pop("ended_at", None)
    path = tmp_path / TRACE.name
    path.write_bytes(b"\n".join(orjson.dumps(r) for r in records) + b"\n")
    thread = tl.read(path, strict=False)
    assert thread.metadata["synthetic_timestamps"] >= 1
    assert all(t.year != 1970 for t in _times(thread)), [a.timestamp for a in thread.actions]
    assert tl.load(path, workers=1, progress=False).threads["created_at"].dt.year.min() > 1970


def test_a_file_with_no_time_at_all_keeps_the_epoch() -> None:
    """Nothing to go by: a provider's response holds no time, and its actions keep the epoch's
    made-up times, counted (what the writers look at to write no time back)."""
    thread = tl.read(FIXTURES / "real" / "openai_responses" / "pydantic_ai_tool_call_pair.json", strict=False)
    assert thread.metadata["synthetic_timestamps"] == len(thread.actions)
    assert {a.timestamp.year for a in thread.actions} == {1970}


# --- other readers' times that do not read ------------------------------------------------------

CLAUDE = FIXTURES / "real" / "claude" / "cli-2.1.38-interrupt-and-local-command" / "short.jsonl"
AI4 = FIXTURES / "vercel_ai_messages" / "ai4_multistep_client_messages.json"
AI6 = FIXTURES / "vercel_ai_messages" / "ai6_onfinish_uimessages.json"


def test_a_claude_line_time_that_does_not_read_is_named(tmp_path: Path) -> None:
    """It took its neighbour's time without a word; the line still does (chain ordering), said."""
    path = tmp_path / CLAUDE.name
    line = _changed(CLAUDE, path, lambda record: record.get("type") == "user" and bool(record.update(timestamp=BAD) or True))
    thread = tl.read(path, strict=False)
    assert [(p.rule, p.line) for p in thread.problems if BAD in p.message] == [("schema", line)]
    assert all(t.year != 1970 for t in _times(thread))


@pytest.mark.parametrize("source", [AI4, AI6], ids=["v4-createdAt", "metadata-createdAt"])
def test_an_ai_sdk_message_time_that_does_not_read_is_named(source: Path, tmp_path: Path) -> None:
    doc = orjson.loads(source.read_bytes())
    messages = doc["messages"] if isinstance(doc, dict) else doc  # (onFinish's argument holds them)
    holder = next(m if "createdAt" in m else m["metadata"] for m in messages if "createdAt" in m or "createdAt" in (m.get("metadata") or {}))
    holder["createdAt"] = BAD
    path = tmp_path / source.name
    path.write_bytes(orjson.dumps(doc))
    thread = tl.read(path, strict=False)
    assert [p.rule for p in thread.problems if f"createdAt '{BAD}' is no time" in p.message] == ["schema"], [str(p) for p in thread.problems]
    assert thread.metadata["synthetic_timestamps"] >= 1  # the message has no time: the builder's, counted
