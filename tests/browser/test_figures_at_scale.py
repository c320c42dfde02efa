"""Every figure at 1, 30 and 3,000 runs, drawn in Chromium: no two pieces of text overlap (tick
labels, legend entries, titles, axis titles, text on marks), and a screenshot of each."""

from __future__ import annotations

import pytest

import threadlab as tl
from tests.browser.figures import OVERLAPS_JS, corpus, figures_of, static_page
from tests.browser.lab import chromium_page

pytestmark = pytest.mark.browser


@pytest.mark.parametrize("n_runs", [1, 30, 3000])
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
            if result["overlaps"]:
                problems[name] = result["overlaps"][:5]
            figure.screenshot(path=str(artifacts / f"scale_{name}_{n_runs}.png"))
        assert problems == {}, f"overlapping text at {n_runs} runs: {problems}"
        assert dialogs == []
