"""Numbers and times kept or named (issue 24 §7).

Token counts: a float count (``60.0``, ``1.5``, ``1e308``) in Agents SDK traces, OTel
attributes or ``codex exec`` output left the token cells empty with no problem row. A float that
is a whole number up to 2**53 is the count (exact as an int); any other value is a ``usage``
problem naming the field and the value (``formats/common/counts.py``)."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

import threadlab as tl

FIXTURES = Path(__file__).resolve().parent / "fixtures"
TRACE = FIXTURES / "openai_agents_trace" / "support_run.jsonl"
OTLP = FIXTURES / "otel" / "openinference_openai_agents_collector.jsonl"
EXEC = FIXTURES / "codex_exec" / "codex-0.169.0" / "exec-gpt-5.5.jsonl"


def _tokens(path: Path) -> tuple[float, list[tuple[str, int | None, str]]]:
    frames = tl.load(path, workers=1, progress=False)
    rows = frames.problems[~frames.problems["message"].str.contains("finer than a microsecond")]  # (OTel's nanosecond times, below)
    problems = [(r.rule, None if pd.isna(r.line) else int(r.line), r.message) for r in rows.itertuples()]
    return float(frames.usage["input_tokens"].sum()), problems


def _rewrite(source: Path, target: Path, change: Any) -> Path:
    """``source`` with ``change(record)`` applied to its first record that it changes (returns
    True), each line a JSON record."""
    lines = source.read_text().splitlines()
    for number, line in enumerate(lines):
        record = json.loads(line)
        if change(record):
            lines[number] = json.dumps(record)
            target.write_text("\n".join(lines) + "\n")
            return target
    raise AssertionError("nothing changed")


def _trace_usage(value: Any) -> Any:
    def change(record: dict[str, Any]) -> bool:
        usage = (record.get("span_data") or {}).get("usage")
        if isinstance(usage, dict) and isinstance(usage.get("input_tokens"), int):
            usage["input_tokens"] = value if value is not None else float(usage["input_tokens"])
            return True
        return False
    return change


def _otel_usage(value: Any) -> Any:
    def change(record: dict[str, Any]) -> bool:
        for resource in record["resourceSpans"]:
            for scope in resource["scopeSpans"]:
                for span in scope["spans"]:
                    for attribute in span["attributes"]:
                        if attribute["key"] == "llm.token_count.prompt":
                            attribute["value"] = {"doubleValue": value if value is not None else float(attribute["value"]["intValue"])}
                            return True
        return False
    return change


def _exec_usage(value: Any) -> Any:
    def change(record: dict[str, Any]) -> bool:
        if record.get("type") == "turn.completed":
            usage = record["usage"]
            usage["input_tokens"] = value if value is not None else float(usage["input_tokens"])
            return True
        return False
    return change


CASES = {
    "agents-trace": (TRACE, _trace_usage, "usage.input_tokens"),
    "otel": (OTLP, _otel_usage, "llm.token_count.prompt"),
    "codex-exec": (EXEC, _exec_usage, "usage.input_tokens"),
}


@pytest.mark.parametrize("case", list(CASES))
def test_a_float_that_is_a_whole_number_is_the_count(case: str, tmp_path: Path) -> None:
    source, change, _ = CASES[case]
    whole, problems = _tokens(source)
    assert whole > 0 and not problems
    assert _tokens(_rewrite(source, tmp_path / source.name, change(None))) == (whole, [])


@pytest.mark.parametrize("value", [1.5, 1e308, 2.0**60, "60", True], ids=repr)
@pytest.mark.parametrize("case", list(CASES))
def test_any_other_value_is_a_usage_problem_naming_it(case: str, value: Any, tmp_path: Path) -> None:
    source, change, field = CASES[case]
    whole, _ = _tokens(source)
    got, problems = _tokens(_rewrite(source, tmp_path / source.name, change(value)))
    assert got < whole  # that count is left out, the others kept
    usage = [p for p in problems if p[0] == "usage"]
    assert len(usage) == 1 and f"{field}: {value!r} is " in usage[0][2], problems
    assert usage[0][1] is not None  # the line


# --- times finer than a microsecond ----------------------------------------------------------
# A nanosecond time (OTel's *_unix_nano, ISO text with nine fraction digits) was cut to
# microseconds without a word. The thread keeps it exactly (``core.timefmt.Moment``: written
# back with its nine digits, its unix nanoseconds given back to the span writers); the frames
# hold microseconds and say so once per file (a ``time-precision`` note row: a strict load does not raise for it).

DATA = Path(__file__).resolve().parent.parent / "data" / "threadprotocol" / "research_team.thread.json"


def _notes(frames: tl.Frames) -> list[tuple[str, str]]:
    rows = frames.problems[frames.problems["message"].str.contains("finer than a microsecond")]
    return list(zip(rows["source"], rows["rule"], strict=True))


def test_threadprotocol_nanoseconds_are_written_back_and_said_once(tmp_path: Path) -> None:
    doc = json.loads(DATA.read_text())
    for n, action in enumerate(doc["actions"]):
        action["timestamp"] = action["timestamp"].replace("Z", "").split(".")[0] + f".{n:03d}456789Z"
    path = tmp_path / "ns.thread.json"
    path.write_text(json.dumps(doc, indent=2))
    thread = tl.read(path)
    written = json.loads(tl.dumps(thread))
    assert [a["timestamp"] for a in written["actions"]] == [a["timestamp"] for a in doc["actions"]]
    frames = tl.load([path, DATA], workers=1, progress=False)
    assert _notes(frames) == [(str(path), "time-precision")]  # once for the file, none for the other
    assert frames.actions["timestamp"].iloc[0].microsecond == 456  # (.000456789: the microseconds)


def test_otel_unix_nanoseconds_are_kept_and_written_back(tmp_path: Path) -> None:
    from threadlab.core.timefmt import unix_nanos
    from threadlab.formats import get_format

    starts = {int(s) for s in re.findall(r'"startTimeUnixNano": "(\d+)"', OTLP.read_text())}
    assert any(s % 1000 for s in starts)
    thread = tl.read(OTLP)
    stamps = {unix_nanos(a.timestamp) for a in thread.actions}
    assert stamps & starts and all(s % 1000 == 0 or s in starts or s in _ends() for s in stamps)
    written = get_format("otel").from_thread(thread)
    again = tl.read(written, "otel")
    assert [unix_nanos(a.timestamp) for a in again.actions] == [unix_nanos(a.timestamp) for a in thread.actions]
    assert _notes(tl.load(OTLP, workers=1, progress=False)) == [(str(OTLP), "time-precision")]


def _ends() -> set[int]:
    return {int(s) for s in re.findall(r'"endTimeUnixNano": "(\d+)"', OTLP.read_text())}


def test_an_agents_sdk_trace_time_with_nine_digits_is_kept(tmp_path: Path) -> None:
    lines = TRACE.read_text().splitlines()
    records = [json.loads(line) for line in lines]
    for n, record in enumerate(records):
        if record.get("started_at"):
            record["started_at"] = record["started_at"].replace("+00:00", f"{n:03d}+00:00")  # .975732 -> .975732007
    path = tmp_path / "trace.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in records) + "\n")
    times = [a["timestamp"] for a in json.loads(tl.dumps(tl.read(path)))["actions"]]
    assert any(len(t) == len("2026-11-23T07:27:54.975732007Z") for t in times)


def test_a_strict_load_raises_for_broken_rules_not_for_notes() -> None:
    """The nanoseconds of an OTel file are kept by the thread and noted in the frames: a note
    (``NOTE_RULES``), which a strict load does not raise for, while a broken rule still raises."""
    frames = tl.load(OTLP, workers=1, progress=False, strict=True)
    assert set(frames.problems["rule"]) == {"time-precision"}
    broken = Path(__file__).resolve().parent / "fixtures" / "lookalikes"
    with pytest.raises(tl.ThreadError):
        tl.load(broken / "duckai_chat.json", progress=False, strict=True)  # no format reads it
