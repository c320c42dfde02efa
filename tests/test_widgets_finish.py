"""Widgets that look finished (issue 28): quiet in a plain script, figures that draw only what
they mean (no empty cost chart, no chart repeated under every grouping), labels that say which
agent and which step, nice ticks, the messages of a validation error, a Frames table one line per
thread. The browser tests (tests/browser) check how the same figures and tables look."""

from __future__ import annotations

import math
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import threadlab as tl
from threadlab.widgets import colors
from threadlab.widgets.compare import perspectives_html
from threadlab.widgets.panels import legend_rows, nice_ceil
from threadlab.widgets.text import distinct_names, esc, fit_label

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "data"
SCRIPT = """
import threadlab as tl
frames = tl.load("data/task_runs", progress=False)
team = tl.read("data/threadprotocol/research_team.thread.json")
made = [tl.tool_call_view(team), tl.compare_runs(frames), tl.delegation_graph(frames), tl.explorer(frames), tl.timeline(team),
        tl.token_usage(frames), tl.transcript(team)]
print("REPRS")
for widget in made:
    print(repr(widget))
"""


@pytest.fixture(scope="module")
def claude():
    return tl.load(DATA / "claude_code", progress=False)


@pytest.fixture(scope="module")
def task():
    return tl.load(DATA / "task_runs", progress=False)


def test_widgets_in_a_plain_script_print_nothing_and_repr_as_one_line() -> None:
    done = subprocess.run([sys.executable, "-c", SCRIPT], cwd=ROOT, capture_output=True, text=True, timeout=300, check=True)
    made, _, reprs = done.stdout.partition("REPRS\n")
    assert made == ""  # no figure JSON, no terminal escapes: there is no front end to draw into
    lines = reprs.splitlines()
    assert len(lines) == 7 and all(line.startswith("<threadlab ") and line.endswith(">") for line in lines), lines
    assert "ToolCallView: 6 tool calls" in lines[0] and "8 runs aligned on 11 steps" in lines[1]


def test_run_lines_leave_their_legend_room_above_the_plot(task) -> None:
    fig = tl.token_usage(task, by="thread")
    runs = [t for t in fig.data if t.xaxis == "x2"]
    assert len(runs) == 8 and all(t.legendgroup is None for t in runs)  # grouped entries stack in a column over the title
    rows = legend_rows([t.name for t in runs])
    assert rows >= 2  # eight run titles do not fit on one line
    height = fig.layout.height
    title = next(a for a in fig.layout.annotations if "Cumulative tokens" in a.text)
    assert fig.layout.legend2.y == title.y and fig.layout.legend2.yanchor == "top"  # the legend hangs under the title
    gap_px = (title.y - fig.layout.yaxis2.domain[1]) * height
    assert gap_px >= rows * 26 - 1  # and every line of it fits above the plot
    assert legend_rows(["a"] * 3) == 1 and legend_rows(["x" * 40] * 6, width=700) == 3


def test_cost_per_run_says_no_cost_known_instead_of_empty_axes() -> None:
    frames = tl.load(DATA / "telemetry", progress=False)
    assert frames.threads["cost_usd"].isna().all()
    fig = tl.token_usage(frames, by="thread")
    assert [t for t in fig.data if t.xaxis == "x3"] == []  # no bars of nothing
    assert fig.layout.xaxis3.visible is False and fig.layout.yaxis3.visible is False
    assert any("no cost known" in a.text for a in fig.layout.annotations)
    assert fig.layout.title.text.startswith("Token usage — 3 run(s), cost unknown")  # not "total cost cost unknown"


def test_some_runs_without_a_cost_say_so_on_their_row(task) -> None:
    threads = task.threads.copy()
    threads.loc[threads.index[:2], "cost_usd"] = pd.NA
    partly = tl.Frames(task.actions, task.tool_calls, task.usage, threads, task.problems)
    fig = tl.token_usage(partly, by="thread")
    unknown = next(t for t in fig.data if t.name == "cost unknown" and t.xaxis == "x3")
    assert len(unknown.y) == 2


def test_token_usage_draws_the_per_run_panels_once_not_under_every_grouping(task) -> None:
    figures = {by: tl.token_usage(task, by=by) for by in ("agent", "model", "tool", "thread")}
    for by, fig in figures.items():
        per_run = [t for t in fig.data if t.xaxis in ("x2", "x3")]
        if by == "thread":
            assert per_run and fig.layout.meta["runs"] is True
        else:
            assert per_run == [] and fig.layout.meta["runs"] is False
            assert any('by="thread"' in a.text for a in fig.layout.annotations)  # the figure says where they went
    asked = tl.token_usage(task, by="agent", runs=True)
    assert {t.xaxis for t in asked.data} == {"x", "x2", "x3"}


def test_frames_repr_is_one_short_line_per_thread(claude) -> None:
    html = claude._repr_html_()
    body = html.split("<tbody>", 1)[1]
    rows = body.split("<tr>")[1:]
    assert len(rows) == len(claude.threads)
    cells = rows[0].split("<td")[1:]
    assert len(cells) <= 9  # a few columns; every one is in frames.threads
    assert all("white-space:nowrap" in c and "text-overflow:ellipsis" in c and 'title="' in c for c in cells)
    assert "overflow-x:auto" in html
    source = claude.threads["source"].iloc[0]
    assert f'title="{source}"' in rows[0] and f">{Path(source).name}<" in rows[0]  # the file name shown, the path on hover


def test_compare_perspectives_breaks_labels_between_words() -> None:
    thread = tl.read(DATA / "pydantic_ai" / "router_researcher.thread.json")
    html = perspectives_html(thread, "Router", "Researcher")
    assert "assistant_message" not in html.split("tl-cols", 1)[1].split("tl-msg", 1)[0]
    assert '#2 assistant message<br>Router</div>' in html


def test_two_agents_of_one_name_are_told_apart(claude) -> None:
    graph = tl.delegation_graph(claude)
    nodes = graph.figure.layout.meta["nodes"]
    twins = [n for n in nodes if n.startswith("general-purpose: Count files")]
    assert len(twins) == 2 and len(set(twins)) == 2
    assert all(" · a" in n for n in twins)  # the start of each id
    texts = list(graph.figure.data[-1].text)
    assert len(set(texts)) == len(texts)
    assert sorted(twins) == sorted(graph.edges["child_name"])
    fig = tl.timeline(claude, thread_id=claude.threads["thread_id"].iloc[0])
    agent_lanes = [label for label in fig.layout.meta["lanes"] if label.startswith("general-purpose")]
    assert "…" not in "".join(fig.layout.yaxis.ticktext)  # lane labels whole, on two lines where long
    assert all(len(line) <= 22 for tick in fig.layout.yaxis.ticktext for line in tick.split("<br>"))
    assert agent_lanes and all("Count files" in label for label in agent_lanes)


def test_agents_in_one_graph_have_different_colours_and_a_small_graph_a_small_figure(claude) -> None:
    programs = tl.load([DATA / "claude_code", DATA / "pydantic_ai", DATA / "threadprotocol", DATA / "agency_swarm"], progress=False)
    graph = tl.delegation_graph(programs)
    node_colors = [c for c in graph.figure.data[-1].marker.color if c != "#9ca3af"]
    assert len(set(node_colors)) == len(node_colors) == len(graph.figure.layout.meta["nodes"])
    assert graph.figure.data[-1].marker.opacity == 1  # sized markers default to 0.7, which washes the colours toward each other
    chat = tl.delegation_graph(tl.read(DATA / "agency_swarm" / "ceo_worker_saved_messages.json"))
    assert chat.figure.layout.width <= 600  # two agents, one arrow: not a dot on a page of white (1,100 px)
    assert graph.figure.layout.width > chat.figure.layout.width
    for row in graph.agent_rows.value.split("<tr>")[2:]:
        color = row.split('style="color:', 1)[1].split('"', 1)[0]
        assert colors.contrast_ratio(color, "#ffffff") >= 4.5


def test_an_opened_validation_error_shows_its_messages() -> None:
    team = tl.read(DATA / "threadprotocol" / "research_team.thread.json")
    view = tl.tool_call_view(team)
    calls = view.calls
    assert (calls["result"].astype(object)[calls["status"].astype(object) == "validation_error"] == "[int_parsing]").all()  # what the frames hold
    row = view.table.value.split('data-status="validation_error"', 1)[1].split("</details>", 1)[0]
    assert "rows: Input should be a valid integer (input: all) [int_parsing]" in row
    loaded = tl.load(DATA / "pydantic_ai" / "single_agent.messages.json", progress=False)  # read back from the file
    assert "unable to parse string as an integer (input: three)" in tl.tool_call_view(loaded).table.value


def test_system_events_are_ticks_and_say_what_they_are(claude) -> None:
    fig = tl.timeline(claude, thread_id=claude.threads["thread_id"].iloc[0], x="sequence")
    system = next(t for t in fig.data if t.name == "system events")
    assert system.marker.symbol == "line-ns-open" and system.marker.line.width >= 1
    assert any("system.api_request" in h for h in system.hovertext)


def test_compare_runs_has_round_ticks_and_no_bare_no_step(task) -> None:
    view = tl.compare_runs(task)
    ticks = list(view.figure.layout.yaxis4.tickvals)
    assert len(ticks) == 3 and ticks[0] == 0 and ticks[2] == 2 * ticks[1]
    mantissa = ticks[1] / 10 ** math.floor(math.log10(ticks[1]))
    assert mantissa in (1, 2, 2.5, 5)
    assert np.nanmax(np.nanmedian(view.grids["tokens"], axis=1)) <= ticks[2]
    html = view.step_rows.value + view.run_rows.value
    assert "(no step)" not in html
    assert "most runs have no step here · 3 runs: Researcher · search_papers" in view.step_rows.value
    assert "step 3: had ended (most runs: Router · ask_researcher)" in view.run_rows.value
    assert [nice_ceil(v) for v in (905.5, 0.3, 7, 0)] == [1000, 0.5, 10, 1.0]


def test_label_helpers() -> None:
    names = distinct_names({"a1773dbb": "general-purpose", "af7cd282": "general-purpose", "main": "main", "x": None})
    assert names == {"a1773dbb": "general-purpose · a177", "af7cd282": "general-purpose · af7c", "main": "main", "x": "x"}
    assert fit_label("general-purpose: Count files", 22) == ["general-purpose:", "Count files"]
    assert fit_label("general-purpose: Count files and more words than fit · af7c", 20)[-1].endswith("· af7c")
    assert esc('say "hi"') == "say &#34;hi&#34;"  # plotly.js shows &quot; as it is written
