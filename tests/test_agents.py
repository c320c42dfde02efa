"""Per-agent tables from the five frames: agent_usage and delegations (who started whom), and
the delegation graph widget drawn from them."""

from __future__ import annotations

from pathlib import Path

import hypothesis.strategies as st
import pytest
from hypothesis import HealthCheck, given, settings

import threadlab as tl

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "data"


def _one(frames: tl.Frames, **where: str):
    calls = frames.delegations()
    for column, value in where.items():
        calls = calls[calls[column] == value]
    return calls


def test_agent_join_is_linked_to_the_parents_open_call_and_counts_the_childs_work() -> None:
    frames = tl.load(DATA / "threadprotocol" / "research_team.thread.json", progress=False)
    calls = frames.delegations()
    assert list(zip(calls["parent_agent_id"], calls["child_agent_id"], calls["kind"], strict=True)) == [
        ("planner", "researcher", "agent_join"), ("planner", "writer", "agent_join")]
    researcher = calls.iloc[0]
    # the join names no call; the planner's `delegate` call was open when the researcher first acted
    assert (researcher["tool_call_id"], researcher["tool_name"], researcher["status"]) == ("toolu_01", "delegate", "success")
    usage = frames.usage[frames.usage["agent_id"] == "researcher"]
    assert researcher["child_tokens"] == usage["total_tokens"].sum()
    assert researcher["child_cost_usd"] == pytest.approx(float(usage["cost_usd"].sum()))
    assert researcher["child_tool_errors"] == 2  # a timeout and a validation error
    assert pd_isna(calls.iloc[1]["tool_call_id"])  # the writer was joined without a tool call


def pd_isna(value) -> bool:
    import pandas as pd

    return bool(pd.isna(value))


def test_agency_swarm_send_message_calls_are_joins_naming_their_call() -> None:
    frames = tl.load(DATA / "agency_swarm", progress=False)
    calls = _one(frames, parent_agent_id="ceo")
    assert calls["kind"].tolist() == ["agent_join", "agent_join"]  # the reader's join from each run's parent_run_id
    assert calls["tool_call_id"].tolist() == ["call_ceo_1", "call_ceo_2"]  # two send_message calls, two delegations
    assert calls["child_actions"].tolist() == [2, 2]


def test_agents_started_by_open_calls_without_a_join_are_inferred_per_call() -> None:
    b = tl.ThreadBuilder("inferred")
    ceo, worker = b.agent("CEO"), b.agent("Worker")
    b.add("user_message", content="two tasks")
    for n in (1, 2):
        b.add("tool_call", agent_id=ceo, tool_name="send_message", tool_call_id=f"call_ceo_{n}", args={"recipient": "Worker"})
        b.add("assistant_message", agent_id=worker, content=f"task {n} taken")
        b.add("assistant_message", agent_id=worker, content=f"task {n} done")
        b.add("tool_return", tool_call_id=f"call_ceo_{n}", tool_name="send_message", content="done")
    calls = tl.frames_from_threads([b.build()]).delegations()
    assert calls["kind"].tolist() == ["inferred", "inferred"]
    assert calls["tool_call_id"].tolist() == ["call_ceo_1", "call_ceo_2"]  # two calls open when the worker acted: two delegations
    assert calls["child_actions"].tolist() == [2, 2]


def test_a_background_subagent_is_not_restarted_by_the_parents_other_calls() -> None:
    frames = tl.load(DATA / "claude_code", progress=False)
    calls = frames.delegations()
    assert set(calls["kind"]) == {"agent_join"} and len(calls) == 2  # the Bash call open while the subagent ran is not a delegation
    assert all(str(c).startswith("toolu_agent_") for c in calls["tool_call_id"])


def test_handoff_convention_and_its_older_shape() -> None:
    b = tl.ThreadBuilder("h", title="handoffs")
    triage, billing = b.agent("Triage"), b.agent("Billing")
    b.add("user_message", content="refund please")
    b.add("tool_call", agent_id=triage, tool_name="transfer_to_billing", tool_call_id="t1", args={})
    b.add("system.handoff", data={"from_agent_id": triage, "to_agent_id": billing, "tool_call_id": "t1"})
    b.add("tool_return", tool_call_id="t1", tool_name="transfer_to_billing", content="ok")
    b.add("assistant_message", agent_id=billing, content="done", usage={"input_tokens": 10, "output_tokens": 5, "total_tokens": 15})
    b.add("system.handoff", data={"from_agent": billing, "agent_id": triage})
    b.add("assistant_message", agent_id=triage, content="anything else?")
    calls = tl.frames_from_threads([b.build()]).delegations()
    assert calls[["parent_name", "child_name", "kind"]].values.tolist() == [["Triage", "Billing", "handoff"], ["Billing", "Triage", "handoff"]]
    assert calls["tool_call_id"].iloc[0] == "t1" and pd_isna(calls["tool_call_id"].iloc[1])
    assert calls["child_tokens"].tolist() == [15, 0]


@st.composite
def threads(draw):
    b = tl.ThreadBuilder("p")
    agents = [b.agent(f"A{i}") for i in range(draw(st.integers(1, 4)))]
    open_calls: list[str] = []
    for i in range(draw(st.integers(1, 40))):
        agent = draw(st.sampled_from(agents))
        kind = draw(st.sampled_from(["msg", "call", "ret", "join"]))
        if kind == "msg":
            b.add("assistant_message", agent_id=agent, content="x", usage={"input_tokens": draw(st.integers(0, 99)), "output_tokens": 1})
        elif kind == "call":
            open_calls.append(f"c{i}")
            b.add("tool_call", agent_id=agent, tool_name="t", tool_call_id=f"c{i}", args={})
        elif kind == "ret" and open_calls:
            b.add("tool_return", tool_call_id=open_calls.pop(0), tool_name="t", content="r", status=draw(st.sampled_from(["success", "error"])))
        elif kind == "join":
            b.add("system.agent_join", data={"agent_id": draw(st.sampled_from(agents)), "invited_by": agent})
    return b.build()


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(threads())
def test_agent_usage_adds_up_to_the_frames(thread) -> None:
    frames = tl.frames_from_threads([thread])
    per_agent = frames.agent_usage()
    assert per_agent["total_tokens"].sum() == frames.usage["total_tokens"].sum()
    assert per_agent["n_tool_calls"].sum() == frames.tool_calls["call_sequence"].notna().sum()
    assert per_agent["n_tool_errors"].sum() == frames.tool_calls["status"].isin(["error", "validation_error"]).sum()
    acting = frames.actions[frames.actions["role"] == "agent"]
    assert per_agent["n_actions"].sum() == len(acting)
    calls = frames.delegations()
    # a delegation's work is its child's own: never more actions than the child made
    for child, rows in calls.groupby("child_agent_id"):
        assert rows["child_actions"].sum() <= (acting["agent_id"] == child).sum()


def test_delegation_graph_widget_edges_unfold_to_their_calls_and_escape() -> None:
    b = tl.ThreadBuilder("x", title="xss")
    boss, evil = b.agent("Boss"), b.agent("<img src=x onerror=alert(1)>")
    b.add("tool_call", agent_id=boss, tool_name="ask", tool_call_id="a1", args={"q": "<script>bad()</script>"})
    b.add("assistant_message", agent_id=evil, content="hi")
    b.add("tool_return", tool_call_id="a1", tool_name="ask", content="<b>done</b>", status="error")
    graph = tl.delegation_graph(b.build())
    html = graph.edge_rows.value
    assert html.count('<details class="tl-row tl-edge tl-row-error"') == 1
    assert "&lt;script&gt;bad()" in html and "<script>bad" not in html and "<img src=x" not in html
    assert graph.figure.layout.meta["nodes"] == ["Boss", "<img src=x onerror=alert(1)>"]  # meta is data; the drawn text is escaped
    assert "&lt;img src=x" in graph.figure.data[-1].text[1]
    static = graph.static_html()
    assert "tl-figure" in static and "tl-edges" in static and "Per agent" in static
