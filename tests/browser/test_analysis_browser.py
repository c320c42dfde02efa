"""Hits and findings in Chromium: search hits and scan findings over threads full of hostile text
(the widgets' XSS thread, and a planted run whose agent, tools, errors and last prompt are HTML)
are shown as text, never run: no script runs, no dialog opens, no element of the data's making
appears; each hit's match is a <mark>, and a row unfolds to the steps it points at, its own step
highlighted. Screenshots: tests/artifacts/analysis_hits.png and analysis_findings.png."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest

import threadlab as tl
from tests.analysis_plant import Run
from tests.browser.lab import chromium_page

pytestmark = pytest.mark.browser

XSS = Path(__file__).resolve().parents[1] / "fixtures" / "widgets" / "xss.thread.json"
EVIL = "<img src=x onerror=\"window.__xss_plant=1;alert('plant')\">"


def _hostile_run(folder: Path) -> None:
    run = Run("<script>window.__xss_id=1</script>", 5)
    run.prompt(f"xss prompt {EVIL}")
    for tool in ("<b>a</b>", "<i>b</i>", "<u>c</u>"):
        run.call(tool=tool, status="error", result=f"xss failure <script>window.__xss_result=1</script>{EVIL}")
    run.answer(text=f"xss answer {EVIL}")
    run.prompt(f"xss last <iframe src=\"javascript:window.__xss_last=1\"></iframe>{EVIL}")
    doc = run.doc()
    doc["agents"]["main"]["agent_name"] = f"Main {EVIL}"
    (folder / "hostile.json").write_bytes(orjson.dumps(doc))


def test_hostile_text_in_hits_and_findings_is_shown_never_run(tmp_path: Path, artifacts: Path) -> None:
    data = tmp_path / "data"
    data.mkdir()
    (data / "xss.thread.json").write_bytes(XSS.read_bytes())
    _hostile_run(data)
    frames = tl.load(data, progress=False)
    hits = tl.search(frames, "xss")
    findings = tl.scan(frames)
    assert {"error_streak", "unanswered"} <= set(findings["scanner"].astype(str))
    page_path = tmp_path / "analysis.html"
    page_path.write_text(f"<!doctype html><html><body style='margin:8px;width:1100px'>"
                         f"<div id='hits'>{hits._repr_html_()}</div><div id='findings'>{findings._repr_html_()}</div></body></html>",
                         encoding="utf-8")
    with chromium_page(width=1200, height=1600) as (page, dialogs):
        page.goto(page_path.as_uri())
        page.wait_for_load_state("load")
        made = page.evaluate("() => document.querySelectorAll('.tl-an script, .tl-an img, .tl-an iframe, .tl-an svg, .tl-an a, "
                             ".tl-an style, .tl-an b, .tl-an i, .tl-an u, .tl-an [onmouseover]').length")
        assert made == 0
        box = page.locator("#hits")
        marks = box.locator("mark").all_inner_texts()
        assert len(marks) == len(hits) > 5 and {m.lower() for m in marks} == {"xss"}
        text = box.inner_text()
        assert "window.__xss_script=1" in text and "<script>" in text  # shown, as text
        first = box.locator("details").first
        assert first.locator("table").is_visible() is False
        first.locator("summary").click()
        row = first.locator("tr.tl-an-in")
        assert row.count() == 1 and row.is_visible()
        assert row.locator("td").first.evaluate("e => getComputedStyle(e).backgroundColor") == "rgb(255, 246, 213)"
        box.screenshot(path=str(artifacts / "analysis_hits.png"))

        listing = page.locator("#findings")
        streak = listing.locator("details", has_text="error_streak")
        assert streak.count() == 1
        summary = streak.locator("summary").inner_text()
        assert "window.__xss_result=1" in summary and "<b>a</b>" in summary
        streak.locator("summary").click()
        assert streak.locator("tr.tl-an-in").count() == 6  # three calls and their returns
        assert "Main <img src=x onerror=" in streak.inner_text()
        listing.screenshot(path=str(artifacts / "analysis_findings.png"))
        assert page.evaluate("() => Object.keys(window).filter(k => k.startsWith('__xss'))") == []
        assert dialogs == []
