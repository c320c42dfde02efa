"""The HTML widgets and the Frames table drawn in Chromium (a static page, no kernel), read the
way a person reads them: every piece of text against what it is drawn on (WCAG AA, computed
from the browser's own colours), no word broken in the middle, a Frames table of one line per
thread that fits the page, a validation error that opens on its messages, a quote in a figure's
title shown as a quote."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

import threadlab as tl
from tests.browser.lab import chromium_page

pytestmark = pytest.mark.browser
ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "data"
WIDTH = 1000
# what JupyterLab and an nbconvert page put under tables (striped rows): text must read on it too
PAGE_CSS = "body{margin:0;font-family:sans-serif;font-size:13px} tbody tr:nth-child(odd){background:#f5f5f5}"

# every element with text of its own: its colour against the first opaque background behind it
CONTRAST_JS = """() => {
  const rgb = (c) => { const m = c.match(/rgba?\\(([^)]+)\\)/); if (!m) return null;
                       const p = m[1].split(',').map(Number); return {r: p[0], g: p[1], b: p[2], a: p.length > 3 ? p[3] : 1}; };
  const lum = (c) => { const f = (v) => { v /= 255; return v <= 0.03928 ? v / 12.92 : Math.pow((v + 0.055) / 1.055, 2.4); };
                       return 0.2126 * f(c.r) + 0.7152 * f(c.g) + 0.0722 * f(c.b); };
  const background = (el) => { for (let e = el; e; e = e.parentElement) { const c = rgb(getComputedStyle(e).backgroundColor);
                                 if (c && c.a > 0.5) return c; } return {r: 255, g: 255, b: 255, a: 1}; };
  const bad = [];
  let checked = 0;
  for (const el of document.querySelectorAll('body *')) {
    if (el.closest('svg, script, style') || !el.getClientRects().length) continue;
    const own = [...el.childNodes].filter(n => n.nodeType === 3 && n.textContent.trim()).map(n => n.textContent.trim()).join(' ');
    if (!own) continue;
    const fg = rgb(getComputedStyle(el).color), bg = background(el);
    const ratio = (Math.max(lum(fg), lum(bg)) + 0.05) / (Math.min(lum(fg), lum(bg)) + 0.05);
    checked += 1;
    if (ratio < 4.5) bad.push(`${ratio.toFixed(2)} "${own.slice(0, 40)}" ${getComputedStyle(el).color} on rgb(${bg.r},${bg.g},${bg.b})`);
  }
  return {checked, bad};
}"""

# words drawn on two lines: each word of the text under ``selector`` must sit on one line
BROKEN_WORDS_JS = """(selector) => {
  const broken = [];
  for (const el of document.querySelectorAll(selector)) {
    const walker = document.createTreeWalker(el, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      const re = /\\S+/g;
      for (let m = re.exec(node.textContent); m; m = re.exec(node.textContent)) {
        const range = document.createRange();
        range.setStart(node, m.index);
        range.setEnd(node, m.index + m[0].length);
        const tops = new Set([...range.getClientRects()].filter(r => r.width > 0).map(r => Math.round(r.top)));
        if (tops.size > 1) broken.push(m[0]);
      }
    }
  }
  return broken;
}"""


def _widgets() -> dict[str, Any]:
    task = tl.load(DATA / "task_runs", progress=False)
    claude = tl.load(DATA / "claude_code", progress=False)
    team = tl.read(DATA / "threadprotocol" / "research_team.thread.json")
    router = tl.read(DATA / "pydantic_ai" / "router_researcher.thread.json")
    quoted = tl.ThreadBuilder("quoted", title='Say "hi" to the team')
    quoted.add("user_message", content="hello")
    return {
        "frames": tl.load([DATA / "task_runs", DATA / "claude_code", DATA / "threadprotocol"], progress=False),
        "perspectives": tl.compare_perspectives(router, "Router", "Researcher"),
        "tool_calls": tl.tool_call_view(team),
        "transcript": tl.transcript(team),
        "harness": tl.transcript(claude, thread_id=claude.threads["thread_id"].iloc[0]),
        "delegation": tl.delegation_graph(claude),
        "compare_runs": tl.compare_runs(task),
        "explorer": tl.explorer(task),
        "quoted": tl.timeline(quoted.build()),
    }


@pytest.fixture(scope="module")
def page(tmp_path_factory: pytest.TempPathFactory):
    from plotly.offline import get_plotlyjs

    from threadlab.widgets.view import static_of

    parts = []
    for name, item in _widgets().items():
        html = item._repr_html_() if isinstance(item, tl.Frames) else static_of(item)
        parts.append(f'<div id="{name}" style="width:{WIDTH}px">{html}</div>')
    path = tmp_path_factory.mktemp("widget_html") / "widgets.html"
    path.write_text(f"<!doctype html><html><head><meta charset='utf-8'><style>{PAGE_CSS}</style><script>{get_plotlyjs()}</script></head>"
                    f"<body>{''.join(parts)}</body></html>", encoding="utf-8")
    with chromium_page(width=WIDTH + 40, height=1000) as (browser_page, dialogs):
        browser_page.goto(path.as_uri())
        browser_page.wait_for_function("() => [...document.querySelectorAll('.tl-figure')].every(d => d.querySelector('.main-svg'))", timeout=60_000)
        yield browser_page
        assert dialogs == []


def test_every_text_reads_at_wcag_aa_on_what_it_is_drawn_on(page) -> None:
    page.evaluate("() => document.querySelectorAll('details').forEach(d => d.open = true)")  # the rows' contents too
    result = page.evaluate(CONTRAST_JS)
    assert result["checked"] > 500
    assert result["bad"] == [], result["bad"][:10]


def test_no_word_is_broken_across_lines(page) -> None:
    assert page.evaluate(BROKEN_WORDS_JS, "#perspectives .tl-seq, #perspectives .tl-who, .tl-rows summary, .tl-table th") == []


def test_the_frames_table_is_one_line_per_thread_and_fits_the_page(page, artifacts) -> None:
    table = page.locator("#frames table")
    heights = table.evaluate("t => [...t.querySelectorAll('tbody tr')].map(r => r.getBoundingClientRect().height)")
    line = table.evaluate("t => parseFloat(getComputedStyle(t.querySelector('td')).fontSize)")
    assert len(heights) >= 10 and max(heights) < 2 * line  # one line each, never 4–5
    wrapper = page.locator("#frames table").locator("xpath=..")
    assert wrapper.evaluate("w => w.scrollWidth <= w.clientWidth + 1")  # the last column is on the page
    assert table.evaluate("t => t.querySelector('td').title.length > 0")  # the whole value on hover
    page.locator("#frames").screenshot(path=str(artifacts / "widget_html_frames.png"))


def test_an_opened_validation_error_row_shows_the_message(page) -> None:
    page.evaluate("() => document.querySelectorAll('details').forEach(d => d.open = false)")
    row = page.locator('#tool_calls details[data-status="validation_error"]').first
    row.locator("summary").click()
    assert row.evaluate("d => d.open") is True
    assert "Input should be a valid integer" in row.inner_text()


def test_a_quote_in_a_figure_title_is_a_quote(page) -> None:
    title = page.locator("#quoted .gtitle").evaluate("t => t.textContent")
    assert title.startswith('Say "hi" to the team'), title
