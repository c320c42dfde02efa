"""tl.scan on planted runs (tests/analysis_plant.py): each built-in finds exactly the rows planted
for it, nothing in the clean runs, and its thresholds are parameters; the registry; n_findings."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

import threadlab as tl
from tests.analysis_plant import PLANTS, Expected, Run, plant_error_streak, write_corpus
from threadlab.analysis import FINDING_COLUMNS, scanner_names, unregister_scanner

BUILTINS = ["repeated_call", "error_streak", "retry_after_error", "pending_call", "orphan_return", "latency_outlier", "subagent_failure",
            "truncated", "refusal", "context_growth", "interrupted", "unanswered"]


@pytest.fixture(scope="module")
def planted(tmp_path_factory: pytest.TempPathFactory) -> tuple[tl.Frames, dict[str, list[Expected]]]:
    folder = tmp_path_factory.mktemp("planted")
    expected = write_corpus(folder)
    return tl.load(folder, progress=False), expected


def _rows(findings: pd.DataFrame) -> list[tuple]:
    def value(v: object) -> object:
        return None if v is None or v is pd.NA or (isinstance(v, float) and v != v) else v

    return sorted((str(r.thread_id), r.scanner, int(r.first_sequence), int(r.last_sequence), value(r.agent_name), value(r.tool_name), r.severity)
                  for r in findings.itertuples())


def _wanted(expected: dict[str, list[Expected]], scanner: str | None = None) -> list[tuple]:
    return sorted((t, *e) for t, rows in expected.items() for e in rows if scanner is None or e.scanner == scanner)


def test_the_built_ins_are_registered_in_the_documented_order() -> None:
    assert scanner_names()[: len(BUILTINS)] == BUILTINS
    assert sorted(PLANTS) == sorted(BUILTINS)  # a plant for every scanner


@pytest.mark.parametrize("scanner", BUILTINS)
def test_each_scanner_finds_exactly_what_was_planted(planted: tuple[tl.Frames, dict[str, list[Expected]]], scanner: str) -> None:
    frames, expected = planted
    rows = _wanted(expected, scanner)
    assert len(rows) == 3
    assert _rows(tl.scan(frames, [scanner])) == rows


def test_all_scanners_together_find_the_plants_and_nothing_in_clean_runs(planted: tuple[tl.Frames, dict[str, list[Expected]]]) -> None:
    frames, expected = planted
    findings = tl.scan(frames)
    assert list(findings.columns) == list(FINDING_COLUMNS)
    assert _rows(findings) == _wanted(expected)
    assert not findings["thread_id"].astype(str).str.startswith("clean").any()
    # thread order of the threads table, then first step
    positions = {t: i for i, t in enumerate(frames.threads["thread_id"].astype(str))}
    keys = [(positions[str(t)], int(s)) for t, s in zip(findings["thread_id"], findings["first_sequence"], strict=True)]
    assert keys == sorted(keys)
    assert str(findings["severity"].dtype) == "category" and list(findings["severity"].cat.categories) == ["info", "warning", "error"]


def test_scan_gives_threads_n_findings_and_keeps_the_findings(planted: tuple[tl.Frames, dict[str, list[Expected]]]) -> None:
    frames, expected = planted
    findings = tl.scan(frames)
    counts = dict(zip(frames.threads["thread_id"].astype(str), frames.threads["n_findings"], strict=True))
    assert counts == {t: len(rows) for t, rows in expected.items()}
    assert frames.findings is findings
    tl.scan(frames, ["truncated"])  # a later scan counts its own findings
    assert int(frames.threads["n_findings"].sum()) == 3


def test_messages_say_what_was_found(tmp_path: Path) -> None:
    run = Run("streak", 1)
    (first, last), = [(e.first_sequence, e.last_sequence) for e in plant_error_streak(run)]
    (tmp_path / "a.json").write_bytes(__import__("orjson").dumps(run.doc()))
    findings = tl.scan(tl.load(tmp_path, progress=False), ["error_streak"])
    assert findings["message"].tolist() == ["3 failed calls in a row (search_api, fetch_page, exec_code); the last said: Traceback: ZeroDivisionError"]
    assert (findings["first_sequence"].tolist(), findings["last_sequence"].tolist()) == ([first], [last])


def _message(frames: tl.Frames, scanner: str, thread_prefix: str) -> str:
    found = tl.scan(frames, [scanner])
    return str(found[found["thread_id"].astype(str).str.startswith(thread_prefix)]["message"].iloc[0])


def test_messages_of_loops_retries_growth_and_unanswered(planted: tuple[tl.Frames, dict[str, list[Expected]]]) -> None:
    frames, _ = planted
    assert _message(frames, "repeated_call", "repeated_call") == (
        'search_web called 3 times with the same arguments within 4 calls: {"limit":5,"query":"the same question again"}')
    assert _message(frames, "retry_after_error", "retry_after_error").endswith("with the same arguments; it succeeded")
    assert _message(frames, "context_growth", "context_growth").endswith("5.0× the first call; 1 call above 4×")
    assert _message(frames, "unanswered", "unanswered") == 'the thread ends on a prompt no agent answered: "And what about April?"'
    assert _message(frames, "refusal", "refusal") == 'refused: "I’m sorry, but I can’t"'
    assert _message(frames, "interrupted", "interrupted") == "the person interrupted Main"


@pytest.mark.parametrize(("scanner", "params"), [
    ("repeated_call", {"min_repeats": 4}),
    ("repeated_call", {"window": 3}),  # the planted calls span 4 of the agent's calls
    ("error_streak", {"min_errors": 4}),
    ("context_growth", {"factor": 5.0}),  # planted at exactly 5×: "more than" 5× finds nothing
    ("latency_outlier", {"factor": 100.0}),
    ("latency_outlier", {"min_calls": 1000}),
    ("latency_outlier", {"min_latency_s": 60.0}),
    ("refusal", {"within_chars": 5}),
    ("refusal", {"phrases": ("never said",)}),
])
def test_thresholds_are_parameters(planted: tuple[tl.Frames, dict[str, list[Expected]]], scanner: str, params: dict) -> None:
    frames, expected = planted
    found = tl.scan(frames, {scanner: params})
    assert len(found) == 0
    assert len(tl.scan(frames, [scanner])) == len(_wanted(expected, scanner))


def test_context_growth_by_agent_names_the_agent(planted: tuple[tl.Frames, dict[str, list[Expected]]]) -> None:
    frames, _ = planted
    found = tl.scan(frames, {"context_growth": {"by_agent": True}})
    assert sorted(found["agent_name"].astype(str)) == ["Main"] * 3


def test_an_unknown_scanner_is_named_with_the_known_ones(planted: tuple[tl.Frames, dict[str, list[Expected]]]) -> None:
    with pytest.raises(ValueError, match=r"no scanner named 'loops'; the known ones are: repeated_call, error_streak, .*unanswered"):
        tl.scan(planted[0], ["pending_call", "loops"])


def test_a_user_scanner_runs_by_name(planted: tuple[tl.Frames, dict[str, list[Expected]]]) -> None:
    frames, _ = planted

    def long_threads(frames: tl.Frames, *, min_actions: int = 30) -> pd.DataFrame:
        t = frames.threads[frames.threads["n_actions"] >= min_actions]
        return pd.DataFrame({"source": t["source"], "thread_id": t["thread_id"], "first_sequence": 1, "last_sequence": t["n_actions"],
                             "severity": "info", "message": "a long thread"})

    tl.register_scanner("long_threads", long_threads)
    try:
        with pytest.raises(ValueError, match="registered already"):
            tl.register_scanner("long_threads", lambda f: f.threads)
        with pytest.raises(ValueError, match="registered already"):
            tl.register_scanner("pending_call", long_threads)
        found = tl.scan(frames, {"long_threads": {"min_actions": 25}})
        wanted = frames.threads[frames.threads["n_actions"] >= 25]
        assert sorted(found["thread_id"].astype(str)) == sorted(wanted["thread_id"].astype(str))
        assert set(found["scanner"].astype(str)) == {"long_threads"}
        assert "long_threads" in tl.scanner_names()
    finally:
        unregister_scanner("long_threads")
    assert "long_threads" not in tl.scanner_names()


def test_a_scanner_with_a_bad_severity_is_refused(planted: tuple[tl.Frames, dict[str, list[Expected]]]) -> None:
    tl.register_scanner("_bad", lambda f: pd.DataFrame({"thread_id": ["x"], "severity": ["fatal"]}))
    try:
        with pytest.raises(ValueError, match="severity must be one of info, warning, error; got 'fatal'"):
            tl.scan(planted[0], ["_bad"])
    finally:
        unregister_scanner("_bad")


def test_scan_takes_threads_too() -> None:
    thread = tl.read(Path(__file__).resolve().parents[1] / "data" / "threadprotocol" / "approval_pending.thread.json")
    found = tl.scan(thread, ["pending_call"])
    assert len(found) == len(tl.pending_tool_calls(thread)) > 0


def test_span_usage_sums_the_model_calls_inside_each_span(tmp_path: Path) -> None:
    run = Run("spent", 2)
    run.prompt()  # 1
    run.answer(input_tokens=100, output_tokens=10)  # 2
    run.call(tool="search_api", status="error")  # 3, 4
    run.answer(input_tokens=200, output_tokens=20)  # 5
    run.call(tool="search_api")  # 6, 7
    run.answer(input_tokens=400, output_tokens=40)  # 8
    (tmp_path / "spent.json").write_bytes(__import__("orjson").dumps(run.doc()))
    frames = tl.load(tmp_path, progress=False)
    spans = tl.find(frames, "failed -> message")  # steps 3 to 5
    spans = pd.concat([spans, tl.scan(frames, ["retry_after_error"])], ignore_index=True)  # steps 3 to 7
    used = tl.analysis.span_usage(frames, spans)
    assert used[["first_sequence", "last_sequence", "n_model_calls", "input_tokens", "output_tokens", "total_tokens"]].values.tolist() == [
        [3, 5, 1, 200, 20, 220], [3, 7, 1, 200, 20, 220]]
    assert used["cost_usd"].round(8).tolist() == frames.usage.loc[frames.usage["sequence"] == 5, "cost_usd"].round(8).tolist() * 2


def test_empty_frames_give_empty_answers() -> None:
    empty = tl.frames_from_threads([])
    assert list(tl.scan(empty).columns) == list(FINDING_COLUMNS) and len(tl.scan(empty)) == 0
    assert len(tl.search(empty, "x")) == 0 and len(tl.find(empty, "call -> call(tool=same)")) == 0
    assert len(tl.judge(empty, lambda t: 1)) == 0
    assert "0 findings in 0 threads" in tl.scan(empty)._repr_html_()
