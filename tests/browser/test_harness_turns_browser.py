"""Harness turns and interrupts in Chromium: a coding agent's session (the harness's context
before the first prompt, an interrupt, a reminder, a hook's feedback) as a transcript and a
timeline on one static page. The harness's turns are muted, labelled and folded when long, the
interrupt is a small marker, the timeline has a harness lane and an interrupt marker whose
hover says who wrote it; no text overlaps, nothing runs. Screenshots: tests/artifacts/
harness_transcript.png and harness_timeline.png."""

from __future__ import annotations

import pytest

import threadlab as tl
from tests.browser.figures import OVERLAPS_JS, static_page
from tests.browser.lab import chromium_page
from tests.test_widgets_authors import coding_run

pytestmark = pytest.mark.browser


def test_harness_turns_and_interrupts_are_shown_as_such(tmp_path, artifacts) -> None:
    run = coding_run()
    page_html = static_page({"timeline": tl.timeline(run)}, width=1000)
    transcript = f'<div id="transcript" style="width:900px;padding:8px">{tl.widgets.transcript_html(run)}</div>'
    page_path = tmp_path / "harness.html"
    page_path.write_text(page_html.replace("<body style='margin:0'>", f"<body style='margin:0'>{transcript}", 1), encoding="utf-8")
    with chromium_page(width=1200, height=1400) as (page, dialogs):
        page.goto(page_path.as_uri())
        page.wait_for_function("() => window.allDrawn === true", timeout=60_000)
        box = page.locator("#transcript")
        harness = box.locator(".tl-harness")
        assert harness.count() == 4
        assert box.locator(".tl-msg .tl-who", has_text="User").count() == 2  # the person's prompts only
        folded = box.locator("details.tl-harness")
        assert folded.count() == 1 and folded.evaluate("d => d.open") is False
        assert folded.locator("summary").inner_text().startswith("harness · user instructions")
        label = harness.first.locator(".tl-who")
        assert label.inner_text() == "harness · environment context"
        muted = tl.widgets.colors.text_color(tl.widgets.colors.HARNESS_COLOR)  # HARNESS_COLOR's grey, dark enough to read (AA)
        assert label.evaluate("e => getComputedStyle(e).color") == "rgb({}, {}, {})".format(*(int(muted[i:i + 2], 16) for i in (1, 3, 5)))
        marker = box.locator(".tl-interrupt")
        assert marker.count() == 1 and marker.is_visible()
        assert marker.inner_text().startswith("interrupted by the user")
        stop = marker.locator(".tl-stop").evaluate("e => [e.getBoundingClientRect().width, getComputedStyle(e).backgroundColor]")
        assert stop == [8, "rgb(109, 40, 217)"]  # the stop square, in INTERRUPT_COLOR
        assert marker.evaluate("e => e.getBoundingClientRect().height") < 30  # a small marker, not a message card
        box.screenshot(path=str(artifacts / "harness_transcript_folded.png"))
        folded.locator("summary").click()
        assert folded.evaluate("d => d.open") is True and not folded.locator(".tl-preview").is_visible()  # the preview goes when the text shows
        assert "Run <b>pytest</b> before you say done." in folded.inner_text()  # escaped: shown as text
        box.screenshot(path=str(artifacts / "harness_transcript.png"))

        figure = page.locator("#timeline")
        ticks = figure.locator(".ytick text").evaluate_all("els => els.map(e => e.textContent)")
        assert ticks == ["User", "Harness", "Coder", "Tools"]
        names = figure.evaluate("d => d._fullData.map(t => t.name)")
        assert names[:3] == ["User", "interrupts", "Harness"]
        assert figure.evaluate("d => d._fullData[1].marker.symbol") == "square"
        result = figure.evaluate(OVERLAPS_JS)
        assert result["n"] >= 3 and result["overlaps"] == [], result["overlaps"][:5]
        hovers = {}
        for curve, name in ((1, "interrupt"), (2, "harness")):
            figure.evaluate(f"d => Plotly.Fx.hover(d, [{{curveNumber: {curve}, pointNumber: 0}}])")
            page.wait_for_timeout(200)
            hovers[name] = figure.locator(".hoverlayer .hovertext").first.evaluate("e => [...e.querySelectorAll(\"tspan.line\")].map(t => t.textContent).join(\"\\n\") || e.textContent")
        assert hovers["interrupt"].startswith("#7 user_message · harness · interrupt")
        assert "[Request interrupted by user for tool use]" in hovers["interrupt"]
        assert hovers["harness"].startswith("#1 user_message · harness · environment context")
        figure.screenshot(path=str(artifacts / "harness_timeline.png"))
        figure.evaluate("d => Plotly.Fx.unhover(d)")
        assert dialogs == [] and page.evaluate("() => window.__x") is None
