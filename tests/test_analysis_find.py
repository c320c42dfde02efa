"""tl.find: the pattern grammar (errors name the position), exact matches on planted runs, the
earliest completion that still completes, and agreement with a step-by-step reference matcher
(a plain Python loop over each thread's actions) on the bundled data."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson
import pandas as pd
import pytest

import threadlab as tl
from tests.analysis_plant import Expected, Run, write_corpus
from threadlab.analysis.pattern import parse

DATA = Path(__file__).resolve().parents[1] / "data"


@pytest.fixture(scope="module")
def planted(tmp_path_factory: pytest.TempPathFactory) -> tuple[tl.Frames, dict[str, list[Expected]]]:
    folder = tmp_path_factory.mktemp("planted")
    expected = write_corpus(folder)
    return tl.load(folder, progress=False), expected


def _matches(found: pd.DataFrame) -> list[tuple[str, tuple[int, ...]]]:
    return sorted((str(t), tuple(s)) for t, s in zip(found["thread_id"], found["sequences"], strict=True))


def _plants(expected: dict[str, list[Expected]], scanner: str) -> list[Expected | Any]:
    return [(t, e) for t, rows in expected.items() for e in rows if e.scanner == scanner]


def test_a_failed_search_then_the_same_search_again(planted: tuple[tl.Frames, dict[str, list[Expected]]]) -> None:
    frames, expected = planted
    found = tl.find(frames, "failed(tool=search*) -3-> call(tool=same, args=same)")
    # the retry plant: the failed call, its return, the retry (whose return is the plant's last step)
    assert _matches(found) == sorted((t, (e.first_sequence, e.last_sequence - 1)) for t, e in _plants(expected, "retry_after_error"))
    assert list(found.columns[:9]) == ["source", "thread_id", "scanner", "first_sequence", "last_sequence", "agent_name", "tool_name",
                                       "severity", "message"]
    assert set(found["scanner"].astype(str)) == {"find"} and set(found["tool_name"].astype(str)) == {"search_api"}
    assert found["message"].iloc[0].startswith("failed(tool=search*) -3-> call(tool=same, args=same) at steps ")


def test_within_counts_actions_from_the_first_step_to_the_last(planted: tuple[tl.Frames, dict[str, list[Expected]]]) -> None:
    frames, expected = planted
    retries = sorted((t, (e.first_sequence, e.last_sequence - 1)) for t, e in _plants(expected, "retry_after_error"))
    assert _matches(tl.find(frames, "failed -> call(tool=same)", within=1)) == []
    assert _matches(tl.find(frames, "failed -> call(tool=same)", within=2)) == retries
    assert _matches(tl.find(frames, "failed -1-> call(tool=same)")) == []


def test_same_arguments_chain_through_a_loop(planted: tuple[tl.Frames, dict[str, list[Expected]]]) -> None:
    frames, expected = planted
    found = tl.find(frames, "call(tool=search_web) -> call(args=same)")
    loops = [(t, e.first_sequence) for t, e in _plants(expected, "repeated_call")]
    # calls at c, c+4 (after a read_file call and its return), c+6: each starts a match but the last
    assert _matches(found) == sorted([(t, (c, c + 4)) for t, c in loops] + [(t, (c + 4, c + 6)) for t, c in loops])


def test_kinds_and_conditions(planted: tuple[tl.Frames, dict[str, list[Expected]]]) -> None:
    frames, expected = planted
    interrupts = sorted((t, (e.first_sequence, e.first_sequence + 1, e.first_sequence + 2)) for t, e in _plants(expected, "interrupted"))
    assert _matches(tl.find(frames, "interrupt -1-> prompt -1-> message(agent=Main)")) == interrupts
    helper = sorted((t, (e.last_sequence - 1, e.last_sequence)) for t, e in _plants(expected, "subagent_failure"))
    assert _matches(tl.find(frames, "call(agent=Helper) -1-> error(result~refused)")) == helper
    assert _matches(tl.find(frames, "call(agent=helper, status=failed)")) == [(t, (s,)) for t, (s, _) in helper]
    refusals = sorted((t, (e.first_sequence,)) for t, e in _plants(expected, "refusal"))
    assert _matches(tl.find(frames, r"message(text~/sorry,? but I can.t/)")) == refusals
    assert _matches(tl.find(frames, "message(text~\"I’m sorry\")")) == refusals
    truncations = sorted((t, (e.first_sequence,)) for t, e in _plants(expected, "truncated"))
    assert _matches(tl.find(frames, "any(type=assistant_message, text!=\"Here is what I found.\", text=\"The report begins with\")")) == truncations
    assert len(tl.find(frames, "prompt")) == int(frames.threads["n_human_prompts"].sum())
    assert len(tl.find(frames, "system(type=system.agent_*)")) == 3


def test_each_step_is_the_earliest_that_still_completes(tmp_path: Path) -> None:
    run = Run("t", 1)
    run.prompt("go")  # 1
    run.add("tool_call", agent_id="main", tool_name="b", tool_call_id="c1", args={})  # 2: the earliest b, not followed by an error
    run.add("tool_call", agent_id="main", tool_name="b", tool_call_id="c2", args={})  # 3
    run.add("tool_return", tool_call_id="c2", tool_name="b", status="error", content="no")  # 4
    run.add("tool_return", tool_call_id="c1", tool_name="b", status="success", content="ok")  # 5
    run.answer()  # 6
    (tmp_path / "t.json").write_bytes(orjson.dumps(run.doc()))
    frames = tl.load(tmp_path, progress=False)
    assert _matches(tl.find(frames, "prompt -> call(tool=b) -1-> error")) == [("t", (1, 3, 4))]
    assert _matches(tl.find(frames, "call -> return(tool=same)")) == [("t", (2, 4)), ("t", (3, 4))]


@pytest.mark.parametrize(("pattern", "position", "what"), [
    ("call(tool=)", 10, "expected a value"),
    ("call ->", 7, "expected a step"),
    ("call(tool=x", 11, "expected ',' or ')'"),
    ("call(too=x)", 5, "unknown field 'too'"),
    ("calls", 0, "unknown step 'calls'"),
    ("call -0-> call", 5, "a gap is at least 1"),
    ("call(tool=same)", 10, "same compares with the previous step, and the first step has none"),
    ("call -> call(tool!=same)", 17, "same goes with ="),
    ("call -> call(status=same)", 13, "status cannot be compared with same"),
    ("call -> message(text~/a(/)", 23, "bad regular expression: missing ), unterminated subpattern"),
    ("call(tool=/x/)", 10, "a /regex/ goes with ~"),
    ("call call", 5, "expected an arrow"),
    ("call & call", 5, "unexpected '&'"),
    ("", 0, "the pattern is empty"),
])
def test_a_malformed_pattern_names_the_position(pattern: str, position: int, what: str) -> None:
    with pytest.raises(ValueError) as raised:
        parse(pattern)
    message = str(raised.value)
    assert message.startswith(f"bad pattern at position {position}: {what}")
    assert message.endswith(f"\n  {pattern}\n  {' ' * position}^")


def test_within_must_be_a_positive_number(planted: tuple[tl.Frames, dict[str, list[Expected]]]) -> None:
    with pytest.raises(ValueError, match="within is a number of actions, at least 1"):
        tl.find(planted[0], "call", within=0)


# a reference matcher: each thread's actions one by one, backtracking, the earliest completion first

def _reference(frames: tl.Frames, steps: list[tuple[Any, int | None, tuple[int, ...]]]) -> list[tuple[tuple[str, str], tuple[int, ...]]]:
    a = frames.actions
    rows = list(zip(zip(a["source"].astype(str), a["thread_id"].astype(str), strict=True), a["sequence"].astype(int), a["action_type"].astype(object), a["tool_name"].astype(object),
                    a["status"].astype(object), a["text"].astype(object), strict=True))
    out = []
    by_thread: dict[tuple[str, str], list[tuple]] = {}
    for row in rows:
        by_thread.setdefault(row[0], []).append(row)
    def complete(acts: list[tuple], k: int, i: int) -> list[int] | None:
        if k == len(steps):
            return []
        test, gap, same = steps[k]
        for j in range(i + 1, len(acts) if gap is None else min(len(acts), i + gap + 1)):
            if test(acts[j]) and all(acts[j][f] is not None and acts[j][f] == acts[i][f] for f in same):
                rest = complete(acts, k + 1, j)
                if rest is not None:
                    return [j, *rest]
        return None

    for thread_id, acts in by_thread.items():
        for i, act in enumerate(acts):
            if steps[0][0](act):
                rest = complete(acts, 1, i)
                if rest is not None:
                    out.append((thread_id, tuple(acts[p][1] for p in [i, *rest])))
    return sorted(out)


def _failed(r: tuple) -> bool:
    return r[4] in ("error", "validation_error")


@pytest.mark.parametrize(("pattern", "steps"), [
    ("call -> call(tool=same)", [(lambda r: r[2] == "tool_call", None, ()), (lambda r: r[2] == "tool_call", None, (3,))]),
    ("failed -4-> call(tool=same, args=same)", [(lambda r: r[2] == "tool_call" and _failed(r), None, ()),
                                                 (lambda r: r[2] == "tool_call", 4, (3, 5))]),
    ("message -2-> call -1-> return(tool=same) -> message", [
        (lambda r: r[2] == "assistant_message", None, ()), (lambda r: r[2] == "tool_call", 2, ()),
        (lambda r: r[2] == "tool_return", 1, (3,)), (lambda r: r[2] == "assistant_message", None, ())]),
    ("return(status=failed) -> any -3-> call(tool=search*)", [
        (lambda r: r[2] == "tool_return" and _failed(r), None, ()), (lambda r: True, None, ()),
        (lambda r: r[2] == "tool_call" and str(r[3]).startswith("search"), 3, ())]),
])
def test_the_same_matches_as_a_step_by_step_matcher_on_the_bundled_data(pattern: str, steps: list) -> None:
    frames = tl.load(DATA, progress=False)
    wanted = _reference(frames, steps)
    assert len(wanted) > 0
    found = tl.find(frames, pattern)
    got = sorted(((str(s), str(t)), tuple(q)) for s, t, q in zip(found["source"], found["thread_id"], found["sequences"], strict=True))
    assert got == wanted


def test_matches_show_as_findings_with_their_steps(planted: tuple[tl.Frames, dict[str, list[Expected]]]) -> None:
    page = tl.find(planted[0], "failed -> call(tool=same)")._repr_html_()
    assert page.count("<details") == 3 and "tl-an-in" in page
