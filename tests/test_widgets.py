"""Widgets without a browser: figure traces and lanes, escaping, pairing, sorting, filters,
perspective alignment. The browser tests (tests/browser) check the same widgets render."""

from __future__ import annotations

import re
from pathlib import Path

import ipywidgets
import numpy as np
import plotly.graph_objects as go
import pytest

import threadlab as tl
from threadlab.frames import AmbiguousThreadError, ThreadKey
from threadlab.widgets import colors
from threadlab.widgets.compare import perspectives_html, threads_html, user_turns
from threadlab.widgets.explorer import filter_threads
from threadlab.widgets.perspective_align import align_perspective
from threadlab.widgets.text import preview, safe_url
from threadlab.widgets.timeline import trace_values
from threadlab.widgets.token_usage import SEGMENTS, token_segments, tool_shares
from threadlab.widgets.tool_call_view import pairs_table_html, sorted_pairs

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "data" / "threadprotocol"
XSS = ROOT / "tests" / "fixtures" / "widgets" / "xss.thread.json"
# an HTML tag a payload would inject if it were not escaped
INJECTED = re.compile(r"<(script|img|svg|iframe|a\s+href=\"?javascript)|<[a-z][^>]*\son(error|load|mouseover)=|<style>body", re.IGNORECASE)


def _read(name: str):
    return tl.read(DATA / name, "threadprotocol", strict=False)


@pytest.fixture(scope="module")
def team():
    return _read("research_team.thread.json")


@pytest.fixture(scope="module")
def pending():
    return _read("approval_pending.thread.json")


@pytest.fixture(scope="module")
def frames():
    threads = [t for p in sorted(DATA.glob("*.json")) for t in tl.read_all(p, "threadprotocol", strict=False)]
    return tl.frames_from_threads(threads)


@pytest.fixture(scope="module")
def xss():
    return tl.read(XSS, "threadprotocol")


def _body(html: str) -> str:
    """The markup after threadlab's own stylesheet."""
    return html.split("</style>", 1)[-1]


def _big_thread(n: int) -> tl.Thread:
    b = tl.ThreadBuilder("big", title="big")
    a = b.agent("Worker")
    for i in range(n // 4):
        b.add("user_message", content=f"task {i}")
        b.add("assistant_message", agent_id=a, content=f"on it {i}")
        b.add("tool_call", agent_id=a, tool_name="work", tool_call_id=f"c{i}", args={"i": i})
        b.add("tool_return", tool_call_id=f"c{i}", tool_name="work", content="done")
    return b.build()


# --- timeline -------------------------------------------------------------------------------


def test_timeline_has_one_lane_per_participant_and_a_trace_per_kind(team) -> None:
    fig = tl.timeline(team)
    assert isinstance(fig, go.Figure)
    assert fig.layout.meta["lanes"] == ["User", "Planner", "Researcher", "Writer", "Tools", "System"]
    assert list(fig.layout.yaxis.ticktext) == fig.layout.meta["lanes"]
    names = [t.name for t in fig.data]
    assert names == ["User", "Planner", "Researcher", "Writer", "tool calls · Planner", "tool calls · Researcher", "tool errors", "system events"]
    assert all(t.type == "scatter" for t in fig.data)
    # 6 tool calls: planner 1 + researcher 3 ok spans (2 points + gap each), 1 error + 1 validation error
    assert [len(trace_values(fig.data[i].x)) for i in (4, 5, 6)] == [3 * 1, 3 * 3, 3 * 2]
    assert fig.data[6].line.color == colors.ERROR_COLOR
    # stable agent colour: the planner's marks and spans share it
    assert fig.data[1].marker.color == fig.data[4].line.color == colors.agent_color("planner")


def test_timeline_pending_call_is_open_ended_to_the_end_of_the_thread(pending) -> None:
    fig = tl.timeline(pending, x="sequence")
    trace = next(t for t in fig.data if t.name == "pending calls")
    assert trace.line.dash == "dot"
    assert trace_values(trace.x)[1] == max(a.sequence for a in pending.actions)
    assert fig.layout.xaxis.type == "linear"


def test_timeline_switches_to_webgl_above_the_threshold() -> None:
    big = _big_thread(4000)
    fig = tl.timeline(big)
    assert fig.layout.meta["webgl"] is True and fig.layout.meta["n_actions"] == 4000
    assert {t.type for t in fig.data} == {"scattergl"}
    small = tl.timeline(big, webgl_threshold=10_000)
    assert {t.type for t in small.data} == {"scatter"}
    # x values are epoch milliseconds on a date axis (sent as a binary array)
    assert fig.layout.xaxis.type == "date"
    assert np.nanmin(trace_values(fig.data[0].x)) == pytest.approx(big.actions[0].timestamp.timestamp() * 1000)


def test_timeline_rejects_bad_arguments(team, frames) -> None:
    with pytest.raises(ValueError, match="x must be"):
        tl.timeline(team, x="wallclock")
    with pytest.raises(KeyError, match="no thread 'nope'"):
        tl.timeline(frames, thread_id="nope")
    with pytest.raises(TypeError, match="expected a threadlab Thread or Frames"):
        tl.timeline({"actions": []})


def test_timeline_on_frames_picks_the_thread(frames, team) -> None:
    fig = tl.timeline(frames, thread_id=team.thread_id)
    assert fig.layout.meta["lanes"][1:4] == ["Planner", "Researcher", "Writer"]
    assert "pass thread_id=" not in fig.layout.title.text
    assert "pass thread_id=" in tl.timeline(frames).layout.title.text


# --- escaping -------------------------------------------------------------------------------


def test_every_widget_escapes_the_xss_thread(xss) -> None:
    htmls = {
        "transcript": tl.transcript(xss).value,
        "repr": xss._repr_html_(),
        "tool calls": pairs_table_html(tl.frames_from_threads([xss]).tool_calls),
        "explorer": tl.explorer(xss).table.value,
    }
    for name, html in htmls.items():
        body = _body(html)
        assert not INJECTED.search(body), f"{name}: {INJECTED.search(body)}"
        assert "javascript:" not in re.sub(r"<[^>]*>", "", body) or 'href="javascript' not in body
    assert "&lt;script&gt;window.__xss_script=1" in htmls["transcript"]
    assert "Evil &lt;img src=x onerror=" in htmls["transcript"]
    assert "(not a safe link)" in htmls["transcript"]  # the javascript: media URL shown as text


def test_plotly_text_is_escaped(xss) -> None:
    fig = tl.timeline(xss)
    strings = [fig.layout.title.text, *fig.layout.yaxis.ticktext, *(t.name for t in fig.data)]
    strings += [h for t in fig.data if t.hovertext is not None for h in t.hovertext]
    assert any("&lt;img src=x onerror" in s for s in strings)
    assert not any(INJECTED.search(s) for s in strings)


def test_safe_url_and_preview() -> None:
    assert safe_url("https://example.org/a.png") == "https://example.org/a.png"
    assert safe_url(" JavaScript:alert(1)") is None
    assert safe_url("data:text/html;base64,PHNjcmlwdD4=") is None
    assert safe_url("data:image/png;base64,iVBORw0KGgo=") is not None
    assert preview("<b>x</b>\n\n  y" * 50, 20) == "&lt;b&gt;x&lt;/b&gt; y&lt;b&gt;x&lt;/b&gt; …"


# --- transcript -----------------------------------------------------------------------------


def test_transcript_folds_thinking_pairs_tools_and_thins_system_actions(team, pending) -> None:
    html = tl.transcript(team).value
    assert html == tl.widgets.transcript_html(team) == team._repr_html_()
    assert html.count('<details class="tl-think"') == 1
    assert html.count('class="tl-tool"') == 6  # 6 calls, each card holding its return
    assert html.count('class="tl-sys"') == 4
    assert html.count("result #") == 6
    assert f"border-left-color:{colors.agent_color('researcher')}" in html
    assert "waiting for a return (pending)" in tl.transcript(pending).value


def test_transcript_media_are_links_unless_asked() -> None:
    b = tl.ThreadBuilder("m")
    b.add("user_message", content=[{"type": "text", "text": "see"},
                                   {"type": "file", "content_type": "url", "media_type": "image/png", "media_category": "image", "url": "https://example.org/cat.png"},
                                   {"type": "image", "image_base64": "iVBORw0KGgo=", "media_type": "image/png"}])
    thread = b.build()
    plain = tl.widgets.transcript_html(thread)
    assert '<a href="https://example.org/cat.png"' in plain and '<img alt="image/png" src="https://' not in plain
    assert 'src="data:image/png;base64,iVBORw0KGgo="' in plain
    fetched = tl.widgets.transcript_html(thread, fetch_media=True)
    assert 'src="https://example.org/cat.png"' in fetched


def test_transcript_caps_each_text_and_says_how_much_is_cut() -> None:
    """A 100 MB message must not become hundreds of MB of HTML: the head is shown, the rest up
    to TEXT_MAX under "show more", what is beyond counted; the cut keeps every text escaped."""
    from threadlab.widgets.text import TEXT_HEAD, TEXT_MAX

    huge = "<script>x</script>" + "a" * (3 * TEXT_MAX)
    b = tl.ThreadBuilder("huge")
    a = b.agent("Worker")
    b.add("user_message", content=huge)
    b.add("thinking", agent_id=a, content=huge, provider_name="anthropic")
    b.add("tool_call", agent_id=a, tool_name="dump", tool_call_id="c1", args={"blob": huge})
    b.add("tool_return", tool_call_id="c1", tool_name="dump", content=huge)
    b.add("assistant_message", agent_id=a, content=[{"type": "text", "text": "short"}, {"type": "text", "text": huge}])
    html = tl.widgets.transcript_html(b.build())
    assert len(html) < 6 * (TEXT_MAX + 10_000), len(html)  # five big texts, each written at most TEXT_MAX
    assert "<script>" not in html and "&lt;script&gt;x&lt;/script&gt;" in html
    assert html.count("show more (") == 5 and "short" in html
    assert f"… {len(huge) - TEXT_MAX:,} more characters not shown" in html
    assert f"show more ({len(huge) - TEXT_HEAD:,} more characters)" in html
    small = tl.ThreadBuilder("small")
    small.add("user_message", content="b" * TEXT_HEAD)
    assert "show more" not in tl.widgets.transcript_html(small.build())


# --- token usage ----------------------------------------------------------------------------


def test_token_segments_never_count_twice(frames) -> None:
    seg = token_segments(frames.usage)
    usage = frames.usage
    out = usage["output_tokens"].astype("Float64").fillna(0).to_numpy(dtype=float)
    inp = usage["input_tokens"].astype("Float64").fillna(0).to_numpy(dtype=float)
    think = usage["thinking_tokens"].astype("Float64").fillna(0).to_numpy(dtype=float)
    inside = think <= out
    total = seg[["input_uncached", "cache_read", "cache_write", "output_visible", "thinking"]].sum(axis=1).to_numpy()
    assert np.allclose(total, inp + out + np.where(inside, 0, think))


def test_token_usage_by_agent_and_cost(frames) -> None:
    fig = tl.token_usage(frames, by="agent")
    cost = frames.usage.groupby(frames.usage["agent_name"].astype(object))["cost_usd"].sum()
    assert fig.layout.meta["groups"] == list(cost.sort_values(ascending=False).index)  # costliest first, as the title says
    assert "costliest first" in fig.layout.annotations[0].text
    assert fig.layout.meta["total_cost_usd"] == pytest.approx(float(frames.usage["cost_usd"].sum()))
    bars = [t for t in fig.data if t.type == "bar" and t.xaxis == "x"]
    assert {t.name for t in bars} >= {"input (uncached)", "output"} and all(t.orientation == "h" for t in bars)
    labels = next(t for t in fig.data if t.type == "scatter" and t.mode == "text")
    assert all("$" in str(text) or "cost unknown" in str(text) for text in labels.text)
    per_run = tl.token_usage(frames, by="agent", runs=True)
    lines = [t for t in per_run.data if t.type == "scatter" and t.xaxis == "x2"]
    assert len(lines) == frames.usage["thread_id"].nunique()  # one cumulative line per run (few runs)
    runs = [t for t in per_run.data if t.name == "cost (USD)"]
    assert len(runs) == 1 and len(runs[0].y) == len(frames.threads)  # per-run comparison
    with pytest.raises(ValueError, match="by must be"):
        tl.token_usage(frames, by="colour")


def test_token_usage_keeps_the_top_groups_and_one_other_bar(tmp_path) -> None:
    from tests.browser.figures import corpus

    many = tl.load(corpus(tmp_path / "runs", 60), progress=False)
    fig = tl.token_usage(many, by="thread", top=5)
    groups = fig.layout.meta["groups"]
    assert len(groups) == 6 and groups[-1] == f"other ({fig.layout.meta['n_groups'] - 5} more)"
    bars = [t for t in fig.data if t.type == "bar" and t.xaxis == "x"]
    shown = sum(trace_values(t.x) for t in bars)
    assert shown.sum() == pytest.approx(float(token_segments(many.usage)[[n for n, _ in SEGMENTS]].to_numpy().sum()))  # nothing lost
    cost = many.threads["cost_usd"].astype(float).to_numpy()
    assert next(t for t in fig.data if t.name == "cost (USD)").y[0] == pytest.approx(np.nanmax(cost))  # ranked, costliest first
    names = [t.name for t in fig.data if t.xaxis == "x2" and t.name]
    assert names[:2] == ["10–90 % of runs", "median run"] and len(names) == 2 + 5  # a band, not 60 lines
    assert len(set(fig.layout.meta["groups"])) == len(groups)  # labels unique, so bars never merge


def test_tool_shares_split_a_response_over_its_tool_calls(frames) -> None:
    shares = tool_shares(frames)
    assert shares.groupby("row")["share"].sum().round(9).eq(1).all()
    web = shares[shares["group"] == "web_search"]
    assert len(web) == 3 and web["share"].round(6).eq(round(1 / 3, 6)).all()
    fig = tl.token_usage(frames, by="tool")
    assert "web_search" in fig.layout.meta["groups"] and "(no tool call)" in fig.layout.meta["groups"]


# --- tool calls -----------------------------------------------------------------------------


def test_tool_call_view_sorts_filters_and_flags(frames) -> None:
    view = tl.tool_call_view(frames)
    assert isinstance(view, ipywidgets.VBox)
    slow = sorted_pairs(frames.tool_calls, "latency (slowest first)")
    lat = slow["latency_s"].astype("Float64").dropna().to_numpy(dtype=float)
    assert list(lat) == sorted(lat, reverse=True)
    view.status.value = "pending"
    assert view.table.value.count("<details") == 1 and 'data-status="pending"' in view.table.value
    view.status.value = "all"
    assert "tl-row-orphan_return" in view.table.value and "tl-row-error" in view.table.value
    assert view.table.value.count("<details") == len(frames.tool_calls)
    with pytest.raises(ValueError, match="sort must be one of"):
        sorted_pairs(frames.tool_calls, "random")


# --- comparisons ----------------------------------------------------------------------------


def test_perspective_parts_align_on_the_thread_sequence(team) -> None:
    from threadlab.formats.pydantic_ai import perspective

    parts = align_perspective(team, "researcher", perspective(team, "researcher", others="summarize"))
    assert all(p.traced for p in parts)
    seqs = [p.sequence for p in parts]
    assert seqs == sorted(seqs)
    assert 2 not in seqs  # the planner's thinking is never shown to the researcher
    assert {8, 9, 10, 11, 12, 13} <= set(seqs)
    html = perspectives_html(team, "Researcher", "planner")
    assert 'data-seq="2"' in html and "— not in this history" in html
    assert int(re.search(r'data-differ="(\d+)"', html).group(1)) > 0
    hidden = perspectives_html(team, "Researcher", "planner", others="hide")
    assert "[used tool delegate" not in hidden and "[used tool delegate" in html


def test_compare_threads_aligns_user_turns(team) -> None:
    branch = _read("research_team_branch.thread.json")
    assert [len(t) for t in user_turns(branch)] == [3, 2]
    html = threads_html(team, branch)
    assert html.count('data-turn="') == max(len(user_turns(team)), len(user_turns(branch)))
    assert isinstance(tl.compare_threads(team, branch), ipywidgets.HTML)


def test_compare_perspectives_escapes(xss) -> None:
    html = tl.compare_perspectives(xss, "evil", "helper", others="show").value
    assert not INJECTED.search(_body(html))


# --- explorer -------------------------------------------------------------------------------


def _key(thread: tl.Thread) -> ThreadKey:
    return ThreadKey(thread.origin[0], thread.thread_id)


def test_explorer_filters_and_tabs(frames, team, pending) -> None:
    app = tl.explorer(frames)
    assert len(app.picker.options) == len(frames.threads)
    assert filter_threads(frames, status="pending calls") == [_key(pending)]
    assert _key(team) in filter_threads(frames, search="finland")
    assert filter_threads(frames, tool="web_search") == [_key(team)]
    assert _key(pending) not in filter_threads(frames, agent="Researcher")
    app.search.value = "staging database"
    assert app.selected == _key(pending) and app.table.value.count("<tr data-thread-id") == 1
    app.tabs.selected_index = 1
    assert "Rotate the staging database credentials" in app.panes[1].value
    app.tabs.selected_index = 2
    assert app._drawn == {0: _key(pending), 1: _key(pending), 2: _key(pending)}  # drawn once each, when opened
    assert isinstance(app._content(2, _key(pending)), tl.widgets.ToolCallView)
    app.search.value = "no thread says this"
    assert app.selected is None and app._drawn == {} and "no thread matches" in app.panes[1].value  # no stale thread in the tabs
    app.search.value = ""
    assert app.selected == filter_threads(frames)[0]


# --- the same thread id in two files ------------------------------------------------------------


@pytest.fixture(scope="module")
def twins(tmp_path_factory):
    """Two files holding one thread id (a run saved after each turn), and one other thread."""
    folder = tmp_path_factory.mktemp("twins")
    for name in ("approval_step1.messages.json", "approval_step2.messages.json"):
        (folder / name).write_bytes((ROOT / "data" / "pydantic_ai" / name).read_bytes())
    (folder / "team.json").write_bytes((DATA / "research_team.thread.json").read_bytes())
    return folder, tl.load(folder, progress=False)


def test_frames_thread_names_the_sources_of_an_ambiguous_id(twins) -> None:
    folder, frames = twins
    tid = "a36e07cb-b7f7-5307-94a6-206b49abf6da"
    assert (frames.threads["thread_id"] == tid).sum() == 2
    with pytest.raises(AmbiguousThreadError, match=r"approval_step1.*approval_step2.*pass source="):
        frames.thread(tid)
    first = frames.thread(tid, source=str(folder / "approval_step1.messages.json"))
    second = frames.thread(tid, source=str(folder / "approval_step2.messages.json"))
    assert (len(first.actions), len(second.actions)) == (4, 8)
    assert frames.thread(ThreadKey(str(folder / "approval_step2.messages.json"), tid)) is second
    with pytest.raises(KeyError, match=r"from source 'elsewhere\.json'"):
        frames.thread(tid, source="elsewhere.json")
    assert len(set(frames.keys())) == len(frames.threads) == 3


def test_widgets_work_when_two_files_hold_one_thread_id(twins) -> None:
    folder, frames = twins
    tid = "a36e07cb-b7f7-5307-94a6-206b49abf6da"
    app = tl.explorer(frames)  # crashed with "The truth value of a Series is ambiguous"
    keys = filter_threads(frames, search="deploy")
    assert [k.source.rsplit("/", 1)[-1] for k in keys] == ["approval_step1.messages.json", "approval_step2.messages.json"]
    app.search.value = "deploy"
    app.picker.value = app.picker.options[1][1]
    assert app.selected == keys[1]
    app.tabs.selected_index = 1
    assert app.panes[1].value.count('class="tl-tool"') == 2 and "dep-5521" in app.panes[1].value  # step 2: answered calls
    assert app.table.value.count("<tr data-thread-id") == 2 and "approval_step2" in app.table.value
    step2 = str(folder / "approval_step2.messages.json")
    fig = tl.timeline(frames, thread_id=tid, source=step2)
    assert fig.layout.meta["n_actions"] == 8
    with pytest.raises(AmbiguousThreadError):
        tl.timeline(frames, thread_id=tid)
    assert tl.tool_call_view(frames, thread_id=tid, source=step2).calls["status"].tolist() == ["error", "success"]


# --- timelines at scale -------------------------------------------------------------------------


def test_timeline_folds_agents_beyond_the_lane_limit_into_one_lane() -> None:
    from threadlab.widgets.timeline import MAX_AGENT_LANES

    b = tl.ThreadBuilder("crowd", title="many agents")
    ids = [b.agent(f"Agent {i:02d}") for i in range(25)]
    for i, agent in enumerate(ids):
        for _ in range(1 + i % 3):
            b.add("assistant_message", agent_id=agent, content=f"hello from {i}")
    fig = tl.timeline(b.build())
    lanes = fig.layout.meta["lanes"]
    assert len(lanes) == MAX_AGENT_LANES and lanes[-1] == f"{25 - (MAX_AGENT_LANES - 1)} other agents"
    counted = sum(len(trace_values(t.x)) for t in fig.data)
    assert counted == sum(1 + i % 3 for i in range(25))  # every action drawn, on its own lane or the shared one


def test_huge_timeline_is_binned_and_a_window_is_drawn_in_detail() -> None:
    big = _big_thread(4000)
    binned = tl.timeline(big, aggregate=True)
    heat = binned.data[0]
    assert heat.type == "heatmap" and binned.layout.meta["binned"] > 0
    counts = np.nan_to_num(10 ** (np.asarray(heat.z, dtype=float) - 0.3))
    lanes = binned.layout.meta["lanes"]
    assert lanes == ["User", "Worker", "Tools"]
    assert round(counts[0].sum()) == 1000 and round(counts[1].sum()) == 2000 and round(counts[2].sum()) == 1000  # every action in a bin
    assert all("actions:" in h for h in heat.hovertext[1] if h)
    start = big.actions[400].timestamp
    end = big.actions[799].timestamp
    window = tl.timeline(big, x_range=(start, end))
    assert window.layout.meta["n_actions"] == 400 and "400 in the window" in window.layout.title.text
    assert {t.type for t in window.data} == {"scatter"}
    by_seq = tl.timeline(big, x="sequence", x_range=(10, 19))
    assert by_seq.layout.meta["n_actions"] == 10


# --- static copies (exported pages, no kernel) ---------------------------------------------------


def test_static_copies_of_every_widget_escape_and_carry_only_our_scripts(xss) -> None:
    frames = tl.frames_from_threads([xss])
    views = {"explorer": tl.explorer(xss), "tool calls": tl.tool_call_view(xss), "transcript": tl.transcript(xss),
             "graph": tl.delegation_graph(xss), "runs": tl.compare_runs(frames)}
    for name, view in views.items():
        html = view.static_html()
        assert not re.findall(r"<script(?! data-threadlab)", html), name
        body = re.sub(r"<script data-threadlab[^>]*>.*?</script>", "", html, flags=re.DOTALL)
        assert not INJECTED.search(_body(body)), f"{name}: {INJECTED.search(_body(body))}"
    spec = re.search(r'type="application/json" id="[^"]+">(.*?)</script>', views["explorer"].static_html(), re.DOTALL).group(1)
    assert "<" not in spec and "\\u003c" in spec  # nothing in a figure's JSON can close its script element


def test_figure_bundle_holds_plotly_json_and_html_and_plotlyjs_once() -> None:
    from threadlab.widgets import view

    thread = _read("research_team.thread.json")
    view._STATE["plotlyjs_sent"] = False
    first, second = tl.timeline(thread)._repr_mimebundle_(), tl.token_usage(thread)._repr_mimebundle_()
    assert set(first) == {"application/vnd.plotly.v1+json", "text/plain", "text/html"}
    assert first["text/html"].count('id="threadlab-plotlyjs"') == 1 and 'id="threadlab-plotlyjs"' not in second["text/html"]
    assert first["application/vnd.plotly.v1+json"]["layout"]["meta"]["threadlab"] == "timeline"
    with view.nested():  # inside another widget: the outer widget's copy holds the HTML
        assert "text/html" not in tl.timeline(thread)._repr_mimebundle_()
    view.set_static_copies(False)
    try:
        assert "text/html" not in tl.timeline(thread)._repr_mimebundle_()
    finally:
        view.set_static_copies(True)
