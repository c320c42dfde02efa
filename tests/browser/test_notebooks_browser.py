"""The three journey notebooks in a real browser: each opened in JupyterLab, every cell run in
Debian's Chromium, no error output, and every widget the notebook makes drawn on the page."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import nbformat
import pytest

from tests.browser.lab import Lab, chromium_page, open_notebook, run_all, running_lab

pytestmark = pytest.mark.browser
ROOT = Path(__file__).resolve().parents[2]
NOTEBOOKS = sorted((ROOT / "notebooks").glob("0*.ipynb"))
ERRORS = ".jp-OutputArea-output[data-mime-type='application/vnd.jupyter.stderr']"


@pytest.fixture(scope="module")
def journey_lab(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Lab]:
    """A Lab on a copy of notebooks/ and data/, laid out as in the repository."""
    root = tmp_path_factory.mktemp("journeys")
    shutil.copytree(ROOT / "notebooks", root / "notebooks")
    shutil.copytree(ROOT / "data", root / "data", ignore=shutil.ignore_patterns("*.py"))
    with running_lab(root) as lab:
        yield lab


def expected_widgets(path: Path) -> tuple[int, int]:
    """(plotly figures, widget views) the notebook's code asks for, counted from its cells."""
    plots = views = 0
    for cell in nbformat.read(path, as_version=4).cells:
        if cell.cell_type != "code":
            continue
        last = cell.source.strip().splitlines()[-1] if cell.source.strip() else ""
        plots += last.startswith(("tl.timeline(", "tl.token_usage("))
        views += last.startswith(("tl.compare_perspectives(", "tl.compare_threads(", "tl.tool_call_view(", "tl.transcript(", "tl.compare_runs(",
                                  "tl.delegation_graph(", "tl.explorer("))
    return plots, views


def count(page: Any, selector: str) -> int:
    return page.locator(f".jp-Notebook .jp-Cell-outputArea {selector}").count()


@pytest.mark.parametrize("notebook", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_journey_notebook_runs_and_every_widget_draws(journey_lab: Lab, notebook: Path) -> None:
    plots, views = expected_widgets(notebook)
    assert plots + views > 0, f"{notebook.name} shows no widget"
    with chromium_page() as (page, dialogs):
        open_notebook(page, journey_lab, f"notebooks/{notebook.name}")
        run_all(page, timeout_s=240)
        errors = page.locator(ERRORS)
        assert errors.count() == 0, errors.first.inner_text()
        page.wait_for_function(
            f"() => document.querySelectorAll('.jp-Notebook .jp-Cell-outputArea .js-plotly-plot .main-svg').length >= {plots}",
            timeout=60_000,
        )
        drawn_plots = count(page, ".js-plotly-plot")
        assert drawn_plots >= plots, f"{notebook.name}: {drawn_plots} plotly figures drawn, {plots} expected"
        # every plotly figure has at least one trace on the page
        empty = page.evaluate(
            "() => [...document.querySelectorAll('.jp-Notebook .js-plotly-plot')].filter(d => !d.data || d.data.length === 0).length"
        )
        assert empty == 0, f"{notebook.name}: {empty} figure(s) drew with no trace"
        drawn_views = count(page, ".jupyter-widgets")
        assert drawn_views >= views, f"{notebook.name}: {drawn_views} widget views drawn, {views} expected"
        assert "Error displaying widget" not in page.locator(".jp-Notebook").inner_text()
        assert dialogs == []
