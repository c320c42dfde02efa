"""Langfuse exports: every container of the same run reads to the same conversation, a tool call
the SDK recorded only in the next request's history is one call, costs and usage as Langfuse
gave them, and files of other tools are not claimed."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import threadlab as tl
from threadlab.core.problems import ThreadError
from threadlab.formats import detect_format
from threadlab.formats.common.source import Source

HERE = Path(__file__).parent / "fixtures" / "langfuse"
FILES = ("trace_full.json", "observations_page.json", "observations.jsonl", "observations.parquet")


def _steps(source: Path | Source) -> list[tuple[str, object]]:
    return [(a.action_type, getattr(a, "usage", None)) for t in tl.read_all(source) for a in t.actions]


@pytest.mark.parametrize("name", FILES)
def test_every_container_reads_the_same_run(name: str) -> None:
    steps = _steps(HERE / name)
    assert [kind for kind, _ in steps] == ["user_message", "assistant_message", "tool_call", "tool_return", "assistant_message", "user_message", "assistant_message"]
    assert [u.input_tokens for _, u in steps if u is not None] == [1300, 50, 50]


def test_a_session_is_one_thread() -> None:
    threads = tl.read_all(HERE / "trace_full.json")
    assert [t.thread_id for t in threads] == ["session-notes-1"]
    assert [t["name"] for t in threads[0].metadata["langfuse"]["traces"]] == ["notes-run", "greeting"]


def test_costs_add_up_to_the_thread_cost() -> None:
    page = json.loads((HERE / "observations_page.json").read_text())
    for obs in page["data"]:
        if obs["type"] == "GENERATION":
            obs["costDetails"] = {"input": 0.002, "output": 0.001, "total": 0.003}
    threads = tl.read_all(Source(json.dumps(page).encode(), name="page.json"))
    assert [t.metadata.get("cost_usd") for t in threads] == [pytest.approx(0.006), pytest.approx(0.003)]


def test_usage_that_is_no_count_is_named() -> None:
    lines = [json.loads(line) for line in (HERE / "observations.jsonl").read_text().splitlines()]
    generation = next(o for o in lines if o["type"] == "GENERATION")
    generation["usage_details"] = {"input": 1.5, "output": 3}
    data = "".join(json.dumps(o) + "\n" for o in lines).encode()
    threads = tl.read_all(Source(data, name="obs.jsonl"), strict=False)
    assert any(p.rule == "usage" and "1.5" in p.message for t in threads for p in t.problems)
    with pytest.raises(ThreadError, match="usage"):
        tl.read_all(Source(data, name="obs.jsonl"), strict=True)


def test_other_files_with_observations_are_not_claimed() -> None:
    other = {"observations": [{"id": "a", "type": "note", "startTime": "2026-01-01T00:00:00Z"}], "timestamp": "2026-01-01T00:00:00Z", "id": "t"}
    with pytest.raises(ThreadError, match="no format"):
        detect_format(Source(json.dumps(other).encode(), name="notes.json"))


def test_detection_passes_over_files_without_the_marks_common_part() -> None:
    """``detect`` passes over a file without "bservation" in one search: every mark holds it."""
    from threadlab.formats.langfuse import _MARKS

    assert all(b"bservation" in mark for mark in _MARKS)
