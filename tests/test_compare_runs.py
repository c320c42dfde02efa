"""compare_runs: the center-star alignment of N runs, where each run first diverges, and the
per-step deltas the widget shows."""

from __future__ import annotations

from pathlib import Path

import hypothesis.strategies as st
import numpy as np
import pytest
from hypothesis import given, settings

import threadlab as tl
from threadlab.widgets.run_alignment import align_pair, align_runs, distance

DATA = Path(__file__).resolve().parents[1] / "data" / "threadprotocol"
labels = st.lists(st.sampled_from("ABCDE"), max_size=12)


def edit_distance(a: list[str], b: list[str]) -> int:
    row = list(range(len(b) + 1))
    for i, x in enumerate(a, 1):
        prev, row[0] = row[0], i
        for j, y in enumerate(b, 1):
            prev, row[j] = row[j], min(prev + (x != y), row[j] + 1, row[j - 1] + 1)
    return row[-1]


@settings(max_examples=200, deadline=None)
@given(labels, labels)
def test_pair_alignment_is_optimal_and_keeps_every_step_in_order(a, b) -> None:
    pairs = align_pair(a, b)
    assert [i for i, _ in pairs if i is not None] == list(range(len(a)))
    assert [j for _, j in pairs if j is not None] == list(range(len(b)))
    assert distance(a, b) == edit_distance(a, b)


@settings(max_examples=100, deadline=None)
@given(st.lists(labels, min_size=1, max_size=7))
def test_multiple_alignment_holds_every_run_once_in_order(runs) -> None:
    alignment = align_runs(runs)
    for r, run in enumerate(runs):
        assert [col[r] for col in alignment.columns if col[r] is not None] == list(range(len(run)))
    center = runs[alignment.center]
    # the center is never split: its steps are its columns, in order
    assert [runs[alignment.center][col[alignment.center]] for col in alignment.columns if col[alignment.center] is not None] == center
    if len({tuple(r) for r in runs}) == 1:
        assert alignment.first_divergence == [None] * len(runs)


def test_a_retry_in_one_run_shifts_nothing_and_marks_only_that_run() -> None:
    base = ["user", "P · reply", "R · search", "R · reply", "P · reply"]
    retry = ["user", "P · reply", "R · search", "R · search", "R · reply", "P · reply"]
    alignment = align_runs([base, base, retry, base])
    assert len(alignment.columns) == 6  # index by index would misalign the last three steps
    assert alignment.first_divergence == [None, None, 3, None]
    assert alignment.consensus == ["user", "P · reply", "R · search", None, "R · reply", "P · reply"]


def test_compare_runs_widget_on_two_runs_of_one_task() -> None:
    frames = tl.load(DATA, progress=False)
    keys = [k for k in frames.keys() if "research_team" in k.source]
    view = tl.compare_runs(frames, keys)
    assert isinstance(view, tl.widgets.CompareRuns)
    n_steps = view.figure.layout.meta["n_steps"]
    assert view.step_rows.value.count('<details class="tl-row tl-step') == n_steps
    first = view.alignment.first_divergence
    assert first[0] is not None and first[0] == first[1]  # the branch leaves the run at one step
    # token deltas are against the step's median: they sum to zero over two runs at every shared step
    grid = view.grids["tokens"]
    both = ~np.isnan(grid).any(axis=1)
    assert np.allclose((grid[both] - np.median(grid[both], axis=1, keepdims=True)).sum(axis=1), 0)
    team = next(r for r in view.runs if "research_team." in r.key.source)
    calls = team.label.count("Researcher · web_search")
    assert calls == 3 and int(team.values["error"].sum()) == 2
    assert "tl-figure" in view.static_html()
    with pytest.raises(ValueError, match="metric must be"):
        tl.compare_runs(frames, keys, metric="colour")


def test_compare_runs_of_many_runs_shows_the_center_and_the_earliest_divergers(tmp_path) -> None:
    from tests.browser.figures import corpus

    frames = tl.load(corpus(tmp_path / "runs", 40), progress=False)
    view = tl.compare_runs(frames, max_rows=10)
    rows = view.shown(10)
    assert rows[0] == view.alignment.center and len(rows) == 10
    firsts = [view.alignment.first_divergence[r] for r in rows[1:]]
    others = [f for r, f in enumerate(view.alignment.first_divergence) if r not in rows]
    key = [(f is None, f or 0) for f in firsts]
    assert key == sorted(key) and all((f is None, f or 0) >= key[-1] for f in others)
    assert len(view.figure.data[0].y) == 10
