"""Every figure at 1, 3, 8, 30 and 3,000 runs, drawn in Chromium: no two pieces of text overlap
(tick labels, legend entries, titles, axis titles, text on marks), none runs past the figure's
edge, no panel has axes and nothing on them, and a screenshot of each. 3 and 8 runs are where
the cumulative chart has a legend of one line per run under its title."""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

import orjson
import pytest

import threadlab as tl
from tests.browser.figures import EMPTY_JS, OVERLAPS_JS, corpus, figures_of, static_page
from tests.browser.lab import chromium_page

pytestmark = pytest.mark.browser
ROOT = Path(__file__).resolve().parents[2]
README_SHOTS = {("token_usage_thread", 3000): "token_usage_3000_runs.png", ("delegation", 3000): "delegation_3000_runs.png"}


@pytest.mark.parametrize("n_runs", [1, 3, 8, 30, 3000])
def test_every_figure_is_legible_at_this_many_runs(n_runs: int, tmp_path, artifacts) -> None:
    frames = tl.load(corpus(tmp_path / "runs", n_runs), progress=False)
    assert len(frames.threads) == n_runs
    figures = figures_of(frames)
    page_path = tmp_path / "figures.html"
    page_path.write_text(static_page(figures), encoding="utf-8")
    with chromium_page(width=1200, height=1000) as (page, dialogs):
        page.goto(page_path.as_uri())
        page.wait_for_function("() => window.allDrawn === true", timeout=120_000)
        problems = {}
        for name in figures:
            figure = page.locator(f"#{name}")
            assert figure.evaluate("d => d.data.length") > 0, f"{name}: no trace at {n_runs} runs"
            result = figure.evaluate(OVERLAPS_JS)
            assert result["n"] >= 3, f"{name}: only {result['n']} text boxes found"  # the check saw the labels
            empty = figure.evaluate(EMPTY_JS)
            if result["overlaps"] or result["cut"] or empty:
                problems[name] = result["overlaps"][:5] + result["cut"][:5] + [f"panel {p} has axes and no data" for p in empty]
            figure.screenshot(path=str(artifacts / f"scale_{name}_{n_runs}.png"))
            if (name, n_runs) in README_SHOTS:
                _to_docs(artifacts / f"scale_{name}_{n_runs}.png", README_SHOTS[(name, n_runs)])
        assert problems == {}, f"overlapping text at {n_runs} runs: {problems}"
        assert dialogs == []


def _to_docs(shot: Path, name: str) -> None:
    """Copy a screenshot the README shows to docs/img/ when missing there (or THREADLAB_UPDATE_IMG=1)."""
    target = ROOT / "docs" / "img" / name
    if not target.exists() or os.environ.get("THREADLAB_UPDATE_IMG") == "1":
        shutil.copy(shot, target)


def _check(figures: dict, tmp_path: Path, artifacts: Path, tag: str) -> dict[str, Path]:
    page_path = tmp_path / f"{tag}.html"
    page_path.write_text(static_page(figures), encoding="utf-8")
    shots = {}
    with chromium_page(width=1200, height=1000) as (page, _):
        page.goto(page_path.as_uri())
        page.wait_for_function("() => window.allDrawn === true", timeout=120_000)
        for name in figures:
            figure = page.locator(f"#{name}")
            result = figure.evaluate(OVERLAPS_JS)
            assert result["n"] >= 3 and result["overlaps"] == [] and result["cut"] == [], f"{name} ({tag}): {result['overlaps'][:5]} {result['cut'][:5]}"
            assert figure.evaluate(EMPTY_JS) == [], f"{name} ({tag}): a panel with axes and no data"
            shots[name] = artifacts / f"{tag}_{name}.png"
            figure.screenshot(path=str(shots[name]))
    return shots


def test_bundled_runs_of_one_task_and_their_delegations(tmp_path, artifacts) -> None:
    frames = tl.load(ROOT / "data" / "task_runs", progress=False)
    runs = tl.compare_runs(frames)
    assert runs.alignment.first_divergence[6] == 2  # run 7 answers without delegating: it leaves the others at step 3
    shots = _check({"compare_runs": runs.figure, "delegation": tl.delegation_graph(frames).figure}, tmp_path, artifacts, "task_runs")
    _to_docs(shots["compare_runs"], "compare_runs_task.png")


def test_a_200000_action_timeline_is_binned_and_legible(tmp_path, artifacts) -> None:
    sys.path.insert(0, str(ROOT))
    from benchmarks.widgets_browser import thread_json

    path = tmp_path / "big.json"
    path.write_bytes(orjson.dumps(thread_json(200_000)))
    fig = tl.timeline(tl.load(path, progress=False))
    assert fig.layout.meta["binned"] and fig.layout.meta["n_actions"] == 200_000
    assert len(fig.to_json()) < 2_000_000  # a few thousand cells, whatever the length
    shots = _check({"timeline": fig}, tmp_path, artifacts, "binned_200k")
    _to_docs(shots["timeline"], "timeline_binned_200k.png")
