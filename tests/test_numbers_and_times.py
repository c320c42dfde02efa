"""Numbers and times kept or named (issue 24 §7).

Token counts: a float count (``60.0``, ``1.5``, ``1e308``) in Agents SDK traces, OTel
attributes or ``codex exec`` output left the token cells empty with no problem row. A float that
is a whole number up to 2**53 is the count (exact as an int); any other value is a ``usage``
problem naming the field and the value (``formats/counts.py``)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import threadlab as tl

FIXTURES = Path(__file__).resolve().parent / "fixtures"
TRACE = FIXTURES / "openai_agents_trace" / "support_run.jsonl"
OTLP = FIXTURES / "otel" / "openinference_openai_agents_collector.jsonl"
EXEC = FIXTURES / "codex_exec" / "codex-0.169.0" / "exec-gpt-5.5.jsonl"


def _tokens(path: Path) -> tuple[float, list[tuple[str, int | None, str]]]:
    frames = tl.load(path, workers=1, progress=False)
    problems = [(r.rule, None if r.line != r.line else int(r.line), r.message) for r in frames.problems.itertuples()]
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
