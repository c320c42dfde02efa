"""The widgets notebook exported with ``nbconvert --to html`` and opened in Chromium with no kernel
and no network: every plotly figure is drawn, every widget shows its static copy."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient
from nbconvert import HTMLExporter

from tests.browser.lab import chromium_page, write_notebook
from tests.browser.notebook import CELLS

pytestmark = pytest.mark.browser
ROOT = Path(__file__).resolve().parents[2]
# cells whose output is a plotly figure, and cells whose output is a widget (each with its copy)
FIGURE_CELLS = {"timeline", "timeline_pending", "token_usage", "timeline_webgl"}
WIDGET_CELLS = {"tool_calls", "transcript", "perspectives", "compare_threads", "explorer", "compare_runs", "delegation", "xss_explorer"}


@pytest.fixture(scope="module")
def exported(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("export")
    data = root / "data"
    shutil.copytree(ROOT / "data" / "threadprotocol", data, ignore=shutil.ignore_patterns("*.py", "*.md"))
    shutil.copy(ROOT / "tests" / "fixtures" / "widgets" / "xss.thread.json", data / "xss.thread.json")
    path = root / "widgets.ipynb"
    write_notebook(path, [source for _, source in CELLS])
    nb = nbformat.read(path, as_version=4)
    NotebookClient(nb, timeout=300, kernel_name="python3", resources={"metadata": {"path": str(root)}}).execute()  # the kernel stops here
    html, _ = HTMLExporter().from_notebook_node(nb)
    target = root / "widgets.html"
    target.write_text(html, encoding="utf-8")
    return target


def test_export_draws_every_figure_and_widget_without_a_kernel(exported: Path, artifacts: Path) -> None:
    names = [name for name, _ in CELLS]
    html = exported.read_text(encoding="utf-8")
    assert "is not able to be represented" not in html
    assert html.count('id="threadlab-plotlyjs"') == 1  # plotly.js embedded once, for the whole page
    requests: list[str] = []
    with chromium_page() as (page, dialogs):
        def block(route):  # no network: what draws must come from the page itself
            requests.append(route.request.url)
            route.abort()

        page.route("http*://**", block)
        page.goto(exported.as_uri(), wait_until="load")
        cells = page.locator(".jp-Cell.jp-CodeCell")
        assert cells.count() == len(CELLS)
        expected_plots = 0
        for name in FIGURE_CELLS:
            plot = cells.nth(names.index(name)).locator(".js-plotly-plot .main-svg").first
            plot.wait_for(state="visible", timeout=30_000)
            expected_plots += 1
        for name in WIDGET_CELLS:
            copy = cells.nth(names.index(name)).locator(".tl-static")
            assert copy.count() == 1, name
            assert copy.is_visible() and len(copy.inner_text()) > 20, name
        # figures inside the widgets' copies (tool latency, explorer's timeline and usage, the runs grid, the graph) draw too
        page.wait_for_function("() => [...document.querySelectorAll('.tl-figure')].every(d => d.querySelector('.main-svg'))", timeout=30_000)
        drawn = page.evaluate("() => [...document.querySelectorAll('.js-plotly-plot')].filter(d => d.data && d.data.length).length")
        assert drawn >= expected_plots + 6
        assert page.evaluate("() => [...document.querySelectorAll('.tl-figure')].filter(d => !d.querySelector('.main-svg')).length") == 0
        # an edge of the delegation graph unfolds to its calls in the static copy, with no kernel
        edge = cells.nth(names.index("delegation")).locator("details.tl-edge").first
        edge.locator("summary").click()
        assert edge.evaluate("d => d.open") is True and edge.locator("table tr").count() >= 2
        assert dialogs == [] and page.evaluate("() => Object.keys(window).filter(k => k.startsWith('__xss'))") == []
        assert not [r for r in requests if "plot.ly" in r]  # the embedded plotly.js was enough
        cells.nth(names.index("compare_runs")).scroll_into_view_if_needed()
        page.screenshot(path=str(artifacts / "export_no_kernel.png"), full_page=False)
    docs = ROOT / "docs" / "img" / "export_no_kernel.png"
    if not docs.exists() or os.environ.get("THREADLAB_UPDATE_IMG") == "1":
        shutil.copy(artifacts / "export_no_kernel.png", docs)
