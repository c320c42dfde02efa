"""Findings in the widgets: the timeline shades each finding's span (its hover escaped), the
transcript opens at a step, and the explorer filters threads by scanner, lists a thread's
findings in its Findings tab and opens the transcript at a finding's first step."""

from __future__ import annotations

import orjson
import pytest

import threadlab as tl
from tests.analysis_plant import Run, plant_error_streak, plant_repeated_call
from threadlab.widgets.explorer import TAB_TITLES, filter_threads
from threadlab.widgets.transcript import transcript_html


@pytest.fixture(scope="module")
def frames(tmp_path_factory: pytest.TempPathFactory) -> tl.Frames:
    folder = tmp_path_factory.mktemp("runs")
    for name, plant in (("loop", plant_repeated_call), ("streak", plant_error_streak), ("clean", None)):
        run = Run(name, 4)
        if plant is None:
            run.prompt()
            run.turns(2)
        else:
            plant(run)
        doc = run.doc()
        if name == "streak":  # a hostile error text: the finding's message repeats it
            for action in doc["actions"]:
                if action.get("content") == "Traceback: ZeroDivisionError":
                    action["content"] = "<img src=x onerror=alert(1)>"
        (folder / f"{name}.json").write_bytes(orjson.dumps(doc))
    return tl.load(folder, progress=False)


def test_the_timeline_shades_each_finding_over_its_span(frames: tl.Frames) -> None:
    findings = tl.scan(frames)
    loop = findings[findings["scanner"] == "repeated_call"].iloc[0]
    fig = tl.timeline(frames, thread_id="loop", findings=findings, x="sequence")
    (band,) = fig.layout.shapes
    assert (band.x0, band.x1) == (loop.first_sequence, loop.last_sequence)
    assert fig.data[-1].name == "findings" and fig.layout.meta["findings"] == 1
    assert fig.data[-1].hovertext[0].startswith("<b>repeated_call</b> · warning · steps ")
    plain = tl.timeline(frames, thread_id="loop", x="sequence")
    assert not plain.layout.shapes and [t.name for t in plain.data] == [t.name for t in fig.data[:-1]]
    clean = tl.timeline(frames, thread_id="clean", findings=findings)
    assert not clean.layout.shapes and "findings" not in [t.name for t in clean.data]


def test_a_finding_hover_is_escaped(frames: tl.Frames) -> None:
    findings = tl.scan(frames, ["error_streak"])
    fig = tl.timeline(frames, thread_id="streak", findings=findings)
    (hover,) = fig.data[-1].hovertext
    assert "&lt;img src=x onerror=alert(1)&gt;" in hover and "<img" not in hover
    assert len(fig.layout.shapes) == 1 and fig.layout.shapes[0].fillcolor == "#d62728"  # error: red


def test_the_transcript_opens_at_a_step(frames: tl.Frames) -> None:
    thread = frames.thread("streak")
    call = next(a for a in thread.actions if a.action_type == "tool_call" and a.tool_name == "fetch_page")
    page = transcript_html(thread, start=call.sequence + 1)  # from the call's return on
    assert f"… {call.sequence} earlier actions (shown from step {call.sequence + 1} on)" in page
    assert "validation_error" in page or "required" in page  # the return, shown without its call
    assert "search_api" not in page.split("earlier actions")[1]  # nothing before the step
    assert "earlier actions" not in transcript_html(thread)


def test_the_explorer_filters_by_scanner_and_opens_a_finding(frames: tl.Frames) -> None:
    frames.findings = None
    assert TAB_TITLES[-1] == "Findings"
    assert [k.thread_id for k in filter_threads(frames, finding="repeated_call")] == ["loop"]  # scans once, keeps the findings
    assert frames.findings is not None and "n_findings" in frames.threads
    app = tl.explorer(frames)
    assert list(app.finding.options)[:1] == ["(any)"] and "error_streak" in app.finding.options
    app.finding.value = "error_streak"
    assert [k.thread_id for k in app.matching] == ["streak"]
    app.tabs.selected_index = 4
    options = app.findings_pane.picker.options
    assert [label.split(" · ")[0] for label, _ in options] == ["error_streak"]
    assert "&lt;img src=x onerror=alert(1)&gt;" in app.findings_pane.view.value
    first = int(frames.findings.loc[frames.findings["scanner"] == "error_streak", "first_sequence"].iloc[0])
    app.findings_pane.picker.value = 0
    assert app.tabs.selected_index == 1
    assert f"earlier actions (shown from step {first} on)" in app.panes[1].value
    assert "<b>Findings</b>" in app.static_html()
    app.tabs.selected_index = 4
    app.search.value = "no thread says this"  # nothing matches: the tab must not go on showing the last thread's findings
    assert app.findings_pane.picker.options == () and "no thread matches the filters" in app.findings_pane.view.value


def test_an_explorer_copy_starts_no_scan(frames: tl.Frames) -> None:
    frames.findings = None
    app = tl.explorer(frames)
    assert "<b>Findings</b>" not in app.static_html()
    assert frames.findings is None
