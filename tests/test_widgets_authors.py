"""The widgets show what the harness wrote in the user's role as the harness's, not as a
person's prompt: the transcript mutes, labels and folds it (an interrupt is a small marker), the
timeline gives it a lane of its own (interrupts: a marker on the user's lane), the comparisons
align runs on the prompts a person wrote, the explorer counts those prompts and interrupts."""

from __future__ import annotations

import re

import numpy as np
import pandas as pd
import pytest

import threadlab as tl
from threadlab.core.authors import harness_metadata
from threadlab.core.html import thread_summary_html
from threadlab.widgets import colors, compare
from threadlab.widgets.authorship import lane_masks
from threadlab.widgets.compare import perspectives_html, threads_html, user_turns
from threadlab.widgets.compare_runs import run_steps
from threadlab.widgets.explorer import filter_threads
from threadlab.widgets.text import TEXT_HEAD
from threadlab.widgets.timeline import trace_values

INSTRUCTIONS = "# AGENTS.md instructions for /repo\n" + "Run <b>pytest</b> before you say done.\n" * 30
ENVIRONMENT = "<environment_context>\n  <cwd>/repo</cwd>\n  <shell>bash</shell>\n</environment_context>"
INTERRUPTED = "[Request interrupted by user for tool use]"


def coding_run(thread_id: str = "codex-run", *, preamble: bool = True) -> tl.Thread:
    """A coding agent's session as the Codex and Claude Code readers give it: the harness's
    context before the first prompt (when ``preamble``), an interrupt, a reminder, a hook."""
    b = tl.ThreadBuilder(thread_id, title=f"Fix the flaky test ({thread_id})")
    a = b.agent("Coder")
    clock = iter(range(0, 3600, 37))  # seconds after 10:00

    def add(kind: str, **fields: object) -> None:
        minutes, seconds = divmod(next(clock), 60)
        b.add(kind, timestamp=f"2026-03-02T10:{minutes:02d}:{seconds:02d}Z", **fields)

    if preamble:
        add("user_message", content=ENVIRONMENT, metadata=harness_metadata("environment_context"))
        add("user_message", content=INSTRUCTIONS, metadata=harness_metadata("user_instructions"))
    add("user_message", content="fix the flaky test in tests/test_io.py")
    add("assistant_message", agent_id=a, content="Running the tests first.")
    add("tool_call", agent_id=a, tool_name="shell", tool_call_id="c1", args={"cmd": "pytest -x"})
    add("tool_return", tool_call_id="c1", tool_name="shell", content="1 failed")
    add("user_message", content=INTERRUPTED, metadata=harness_metadata("interrupt"))
    add("user_message", content="only the io test <script>window.__x=1</script>")
    add("user_message", content="<system-reminder>todo list is empty</system-reminder>", metadata=harness_metadata("system_reminder"))
    add("assistant_message", agent_id=a, content="Fixed.")
    add("system.meta_message", data="Stop hook feedback: <img src=x onerror=alert(1)> run ruff", metadata=harness_metadata("hook"))
    return b.build()


@pytest.fixture(scope="module")
def run() -> tl.Thread:
    return coding_run()


def _body(html: str) -> str:
    return html.split("</style>", 1)[-1]


# --- transcript -------------------------------------------------------------------------------


def test_transcript_shows_harness_turns_as_the_harness_s(run) -> None:
    html = _body(tl.widgets.transcript_html(run))
    # the person's two prompts are the only "User" cards
    assert html.count(">User<") == 2
    assert "3 harness" not in html and "2 prompts, 5 harness turns, 1 interrupt" in html
    # long context is folded under its label, short context is shown open, both muted
    folded = re.findall(r'<details class="tl-harness" data-harness="([a-z_]+)"', html)
    shown = re.findall(r'<div class="tl-harness" data-harness="([a-z_]+)"', html)
    assert folded == ["user_instructions"]
    assert shown == ["environment_context", "system_reminder", "hook"]
    assert "harness · user instructions" in html and "harness · environment context" in html and "harness · hook" in html
    assert f"border-left-color:{colors.HARNESS_COLOR}" in html
    # the interrupt: a small marker, not a message card, the harness's own words kept beside it
    marker = re.search(r'<div class="tl-interrupt" data-harness="interrupt"[^>]*>(.*?)</div>', html)
    assert marker and "interrupted by the user" in marker.group(1) and "tl-stop" in marker.group(1) and "[Request interrupted by user for tool use]" in marker.group(1)
    # every text escaped, in the fold's preview too
    assert "<script>" not in html and "<img" not in html and "&lt;b&gt;pytest&lt;/b&gt;" in html
    assert html == _body(run._repr_html_())


def test_a_long_harness_turn_is_folded_and_still_capped() -> None:
    b = tl.ThreadBuilder("long")
    b.add("user_message", content="x" * (3 * TEXT_HEAD), metadata=harness_metadata("compaction_summary"))
    html = tl.widgets.transcript_html(b.build())
    assert '<details class="tl-harness" data-harness="compaction_summary"' in html and "show more (" in html


def test_bare_thread_summary_says_who_wrote_each_action(run) -> None:
    html = thread_summary_html(run)
    assert "<th>who</th>" in html
    assert html.count("<td>human</td>") == 2 and "<td>harness · interrupt</td>" in html and "<td>harness · hook</td>" in html


# --- timeline ---------------------------------------------------------------------------------


def test_timeline_puts_harness_turns_on_their_lane_and_interrupts_on_the_user_s(run) -> None:
    fig = tl.timeline(run, x="sequence")
    assert fig.layout.meta["lanes"] == ["User", "Harness", "Coder", "Tools"]
    traces = {t.name: t for t in fig.data}
    assert list(trace_values(traces["User"].x)) == [3, 8]  # only the person's prompts
    assert list(trace_values(traces["Harness"].x)) == [1, 2, 9, 11]
    assert set(trace_values(traces["Harness"].y)) == {1.0} and traces["Harness"].marker.color == colors.HARNESS_COLOR
    assert list(trace_values(traces["interrupts"].x)) == [7] and set(trace_values(traces["interrupts"].y)) == {0.0}
    assert traces["interrupts"].marker.symbol == "square" and traces["interrupts"].marker.color == colors.INTERRUPT_COLOR
    hover = list(traces["Harness"].hovertext)
    assert hover[0].startswith("#1 user_message · harness · environment context<br>")
    assert hover[3].startswith("#11 system.meta_message · harness · hook<br>") and "&lt;img" in hover[3]
    assert traces["User"].hovertext[0].startswith("#3 user_message · human<br>")


def test_binned_timeline_counts_harness_turns_and_marks_interrupts(run) -> None:
    fig = tl.timeline(run, x="sequence", aggregate=True)
    assert fig.layout.meta["lanes"] == ["User", "Harness", "Coder", "Tools"]
    cells = [text for row in fig.data[0].hovertext for text in row if text]
    user = [c for c in cells if c.startswith("User")]
    assert sum("1 user_message" in c for c in user) == 2 and sum("1 interrupts" in c for c in user) == 1
    assert all("harness turns" in c for c in cells if c.startswith("Harness"))
    stops = next(t for t in fig.data if t.name == "interrupts")
    assert len(stops.x) == 1 and list(stops.hovertext) == ["1 interrupted by the user"]


def test_lanes_of_frames_saved_before_the_author_columns() -> None:
    acts = pd.DataFrame({"role": ["user", "agent", "system"], "action_type": ["user_message", "assistant_message", "system.x"]})
    lanes = lane_masks(acts)
    assert lanes["user"].tolist() == [True, False, False] and not lanes["harness"].any() and lanes["system"].tolist() == [False, False, True]


# --- comparisons ------------------------------------------------------------------------------


def test_compare_threads_aligns_on_the_person_s_prompts(run) -> None:
    plain = coding_run("claude-run", preamble=False)
    before, turns = compare.prompt_turns(run)
    assert [a.sequence for a in before] == [1, 2]
    assert [t[0].sequence for t in turns] == [3, 8]  # the interrupt and the reminder start no turn
    assert [len(t) for t in user_turns(plain)] == [5, 4]
    html = threads_html(run, plain)
    assert re.findall(r'data-turn="(\d+)"', html) == ["0", "1", "2"]
    turn_1 = html.split('data-turn="1"', 1)[1].split('data-turn="2"', 1)[0]
    assert turn_1.count("fix the flaky test in tests/test_io.py") == 2  # both runs' turn 1 is the person's prompt
    assert "— nothing before the first prompt" in html


def test_compare_runs_aligns_a_run_with_harness_context_on_human_turns(run) -> None:
    frames = tl.frames_from_threads([run, coding_run("claude-run", preamble=False)])
    steps = run_steps(frames, frames.keys())
    assert steps[0].label == steps[1].label == ["user", "Coder · reply", "Coder · shell", "user · interrupted", "user", "Coder · reply"]
    assert steps[0].sequence[0] == 3
    runs = tl.compare_runs(frames)
    assert runs.alignment.first_divergence == [None, None]
    assert runs.alignment.consensus[0] == "user"


def test_compare_perspectives_labels_harness_prompts(run) -> None:
    b = tl.ThreadBuilder("two", title="two agents")
    lead, helper = b.agent("Lead"), b.agent("Helper")
    b.add("user_message", content=ENVIRONMENT, metadata=harness_metadata("environment_context"))
    b.add("user_message", content="summarise the repo")
    b.add("assistant_message", agent_id=lead, content="on it")
    b.add("assistant_message", agent_id=helper, content="here it is")
    html = perspectives_html(b.build(), "Lead", "Helper")
    row = html.split('data-seq="1"', 1)[1].split("data-seq=", 1)[0]
    assert "#1 user message<br>harness · environment context" in html
    assert "request · harness · environment context" in row and "user prompt" not in row
    assert "request · user prompt" in html.split('data-seq="2"', 1)[1].split("data-seq=", 1)[0]


# --- explorer ---------------------------------------------------------------------------------


def test_explorer_counts_prompts_and_interrupts(run) -> None:
    plain = tl.ThreadBuilder("calm", title="calm")
    plain.add("user_message", content="hello")
    frames = tl.frames_from_threads([run, plain.build()])
    app = tl.explorer(frames)
    table = app.table.value
    assert '<th title="n_human_prompts">prompts</th><th title="n_interrupts">interrupts</th>' in table
    row = re.search(r'<tr data-thread-id="codex-run".*?</tr>', table).group(0)
    cells = re.findall(r"<td>([^<]*)</td>", row)
    assert cells[2:5] == ["11", "2", "1"]  # 11 actions; 2 prompts typed, 1 interrupt
    assert [k.thread_id for k in filter_threads(frames, status="interrupted")] == ["codex-run"]
    assert np.array_equal(frames.threads["n_human_prompts"].to_numpy(), [2, 1])
