"""The widgets in a real browser: JupyterLab + Debian Chromium, every cell of the widgets
notebook run, assertions on the DOM, a screenshot of each widget."""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import Any

import pytest

from tests.browser.lab import cell_output
from tests.browser.notebook import index

pytestmark = pytest.mark.browser
DOCS_IMG = Path(__file__).resolve().parents[2] / "docs" / "img"


def _shot(element: Any, artifacts: Path, name: str, *, max_height: int = 900) -> None:
    """Screenshot of the top of ``element`` (at most ``max_height`` px) to tests/artifacts/;
    copied to docs/img/ when missing there (or when THREADLAB_UPDATE_IMG=1)."""
    element.evaluate("e => e.scrollIntoView({block: 'start'})")
    element.page.wait_for_timeout(200)
    box = element.bounding_box()
    view = element.page.viewport_size
    top = max(box["y"], 0)
    clip = {"x": max(box["x"], 0), "y": top, "width": min(box["width"], view["width"] - box["x"]),
            "height": min(box["height"], max_height, view["height"] - top - 30)}
    target = artifacts / f"{name}.png"
    element.page.screenshot(path=str(target), clip=clip, animations="disabled", scale="css")
    assert target.stat().st_size > 2_000, f"{name}: screenshot is empty"
    docs = DOCS_IMG / f"widget_{name}.png"
    if not docs.exists() or os.environ.get("THREADLAB_UPDATE_IMG") == "1":
        DOCS_IMG.mkdir(parents=True, exist_ok=True)
        shutil.copy(target, docs)


def _plot(page: Any, cell: str, nth: int = 0) -> Any:
    plot = cell_output(page, index(cell)).locator(".js-plotly-plot").nth(nth)
    plot.wait_for(state="visible", timeout=20_000)
    return plot


def test_setup_cell_ran(widgets_page) -> None:
    page, _ = widgets_page
    text = cell_output(page, index("setup")).inner_text()
    assert "5 threads" in text, text
    errors = page.locator(".jp-OutputArea-output[data-mime-type='application/vnd.jupyter.stderr']")
    assert errors.count() == 0, errors.first.inner_text()


def test_timeline_draws_lanes_and_traces(widgets_page, artifacts) -> None:
    page, _ = widgets_page
    plot = _plot(page, "timeline")
    assert plot.evaluate("d => d.data.length") == 8
    ticks = plot.locator(".ytick text").evaluate_all("els => els.map(e => e.textContent)")
    assert ticks == ["User", "Planner", "Researcher", "Writer", "Tools", "System"]
    assert plot.locator(".scatterlayer .trace").count() == 8
    assert plot.locator(".legendtext", has_text="tool errors").count() == 1
    _shot(plot, artifacts, "timeline")
    pending = _plot(page, "timeline_pending")
    assert pending.locator(".legendtext", has_text="pending calls").count() == 1
    dash = pending.evaluate("d => d._fullData.find(t => t.name === 'pending calls').line.dash")
    assert dash == "dot"


def test_big_timeline_draws_with_webgl(widgets_page, artifacts) -> None:
    page, _ = widgets_page
    plot = _plot(page, "timeline_webgl")
    assert plot.evaluate("d => d._fullData.map(t => t.type)") == ["scattergl"] * 3  # user, worker, tool spans
    assert plot.locator(".gl-container canvas").count() >= 1
    assert "WebGL is not supported" not in plot.inner_text()
    assert plot.evaluate("d => d.layout.meta.n_actions") == 3000
    _shot(plot, artifacts, "timeline_webgl")


def test_tool_call_view_rows_unfold(widgets_page, artifacts) -> None:
    page, _ = widgets_page
    out = cell_output(page, index("tool_calls"))
    rows = out.locator("details.tl-row")
    rows.first.wait_for(timeout=20_000)
    assert rows.count() == 10
    assert out.locator("details.tl-row-orphan_return").count() == 1 and out.locator("details.tl-row-pending").count() == 1
    row = out.locator("details.tl-row-error").first
    row.locator("summary").click()
    assert row.evaluate("d => d.open") is True
    assert "TimeoutError" in row.locator("pre").nth(1).inner_text()
    plot = out.locator(".js-plotly-plot")
    plot.wait_for(state="visible", timeout=20_000)
    assert plot.evaluate("d => d.data.length") == 6  # 5 tools + the calls' points
    _shot(out, artifacts, "tool_calls")


def test_token_usage_bars_and_runs(widgets_page, artifacts) -> None:
    page, _ = widgets_page
    plot = _plot(page, "token_usage")
    names = plot.evaluate("d => d.data.map(t => t.type + ':' + t.name)")
    assert "bar:input (uncached)" in names and "bar:output" in names and "bar:cost (USD)" in names
    assert plot.locator(".barlayer .trace").count() == sum(n.startswith("bar:") for n in names)
    assert plot.locator(".ytick text", has_text="Researcher").count() == 1  # horizontal bars, costliest first
    _shot(plot, artifacts, "token_usage")


def test_transcript_and_comparisons(widgets_page, artifacts) -> None:
    page, _ = widgets_page
    transcript = cell_output(page, index("transcript")).locator(".tl-transcript")
    transcript.wait_for(timeout=20_000)
    assert transcript.locator(".tl-tool").count() == 6
    thinking = transcript.locator("details.tl-think")
    assert thinking.evaluate("d => d.open") is False
    _shot(transcript, artifacts, "transcript")
    compare = cell_output(page, index("perspectives")).locator(".tl-compare")
    assert int(compare.get_attribute("data-differ")) > 0
    assert compare.locator("text=what Researcher saw").count() == 1
    _shot(compare, artifacts, "compare_perspectives")
    runs = cell_output(page, index("compare_threads")).locator(".tl-compare-threads")
    assert runs.locator("[data-turn]").count() == 2
    _shot(runs, artifacts, "compare_threads")


def test_explorer_tabs_switch(widgets_page, artifacts) -> None:
    page, _ = widgets_page
    app = cell_output(page, index("explorer")).locator(".threadlab-explorer")
    app.wait_for(timeout=20_000)
    app.locator(".js-plotly-plot").first.wait_for(state="visible", timeout=20_000)
    tabs = app.locator(".lm-TabBar-tab")
    assert tabs.all_inner_texts() == ["Timeline", "Transcript", "Tool calls", "Usage", "Findings"]
    _shot(app, artifacts, "explorer")
    tabs.nth(1).click()
    app.locator(".tl-transcript").wait_for(state="visible", timeout=20_000)
    tabs.nth(2).click()
    app.locator(".threadlab-tool-calls").wait_for(state="visible", timeout=20_000)
    tabs.nth(3).click()
    page.wait_for_function("el => [...el.querySelectorAll('.js-plotly-plot')].some(p => p.layout && p.layout.meta && p.layout.meta.threadlab === 'token_usage' && p.offsetParent)", arg=app.element_handle(), timeout=20_000)
    # filter: typing a search narrows the table
    search = app.locator("input[type=text]").first
    search.fill("staging database")
    search.press("Enter")
    page.wait_for_function("el => el.querySelectorAll('tr[data-thread-id]').length === 1", arg=app.element_handle(), timeout=20_000)


def test_compare_runs_and_delegation_graph_draw(widgets_page, artifacts) -> None:
    page, _ = widgets_page
    runs = cell_output(page, index("compare_runs"))
    runs.locator(".threadlab-compare-runs .js-plotly-plot").wait_for(state="visible", timeout=20_000)
    assert runs.locator("details.tl-step").count() > 5
    step = runs.locator("details.tl-step").first
    step.locator("summary").click()
    assert step.locator("table tr").count() == 3  # header + the two runs
    _shot(runs.locator(".threadlab-compare-runs"), artifacts, "compare_runs")
    graph = cell_output(page, index("delegation"))
    plot = graph.locator(".js-plotly-plot")
    plot.wait_for(state="visible", timeout=20_000)
    assert "Planner" in plot.evaluate("d => d.layout.meta.nodes")
    edge = graph.locator("details.tl-edge").first
    edge.locator("summary").click()
    assert "delegate" in edge.inner_text()  # the Planner's delegate call behind the edge
    _shot(graph.locator(".threadlab-delegation"), artifacts, "delegation_graph")


def test_static_copies_stay_hidden_beside_live_widgets(widgets_page) -> None:
    page, _ = widgets_page
    copies = page.locator(".jp-Notebook .tl-static")
    assert copies.count() >= 6  # every widget cell carries its copy for exported pages...
    assert page.evaluate("() => [...document.querySelectorAll('.jp-Notebook .tl-static')].filter(e => e.offsetParent !== null).length") == 0
    # ...which draws nothing in JupyterLab: no second plotly.js, no figure inside a hidden copy
    assert page.evaluate("() => document.querySelectorAll('.tl-static .js-plotly-plot').length") == 0
    assert page.evaluate("() => !!window.__threadlabFetch") is False


def test_xss_thread_renders_as_text_and_runs_nothing(widgets_page, artifacts) -> None:
    page, dialogs = widgets_page
    repr_out = cell_output(page, index("xss_repr"), live=False)
    repr_out.locator(".tl-transcript").wait_for(timeout=20_000)
    assert "<script>window.__xss_script=1" in repr_out.inner_text()
    widgets_out = cell_output(page, index("xss_widgets"), live=False)
    widgets_out.locator(".js-plotly-plot").first.wait_for(state="visible", timeout=20_000)
    assert "Evil <img src=x onerror=" in widgets_out.inner_text()
    page.wait_for_timeout(500)
    assert dialogs == []
    flags = page.evaluate("() => Object.keys(window).filter(k => k.startsWith('__xss'))")
    assert flags == []
    outputs = page.locator(".jp-OutputArea")
    injected = outputs.locator("script:not([data-threadlab]), iframe, img[src='x'], svg[onload], [onerror], [onmouseover], a[href^='javascript']")
    assert injected.count() == 0
    assert page.evaluate("() => getComputedStyle(document.body).display") != "none"
    _shot(repr_out, artifacts, "xss_as_text")
