"""ATIF (Harbor's trajectory.json): what each step becomes, delegations, totals, broken steps, and
the writer, on the fixtures Harbor made (``tests/fixtures/atif/``), public trajectories
(``tests/fixtures/real/atif/``) and threads of other formats."""

from __future__ import annotations

import warnings
from pathlib import Path
from typing import Any

import orjson
import pytest

import threadlab
from tests.conformance.test_formats import _projection
from threadlab.core.builder import ThreadBuilder
from threadlab.core.loss import WriteLoss
from threadlab.core.model import Thread
from threadlab.formats.atif import detect, from_thread, to_threads
from threadlab.formats.common.source import Source

FIXTURES = Path(__file__).parent / "fixtures"
ATIF = sorted((FIXTURES / "atif").glob("*.json")) + sorted((FIXTURES / "real" / "atif").glob("*.json"))


def read(path: Path) -> Thread:
    (thread,) = threadlab.read_all(path, "auto")
    assert thread.origin[1] == "atif"
    return thread


def write(thread: Thread) -> tuple[bytes, list[WriteLoss]]:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        wire = from_thread(thread)
    return wire, [w.message for w in caught if isinstance(w.message, WriteLoss)]


def back(wire: bytes) -> Thread:
    (thread,) = to_threads(Source(wire, name="written.json"))
    return thread


@pytest.mark.parametrize("path", ATIF, ids=lambda p: p.name)
def test_a_trajectory_is_written_back_as_it_came(path: Path) -> None:
    thread = read(path)
    wire, losses = write(thread)
    assert losses == []
    assert orjson.loads(wire) == orjson.loads(path.read_bytes())
    assert thread.account.unconverted == 0 and not thread.problems


def test_user_steps_copied_from_an_earlier_trajectory_are_the_harness_s() -> None:
    """Terminus 2's continuation after summarizing starts with the original prompt, its hand-over
    and the other agent's answers, each ``is_copied_context``: nobody typed them into this run."""
    path = FIXTURES / "real" / "atif" / "terminus_2_hello-world-context-summarization-linear-history.trajectory.cont-1.json"
    thread = read(path)
    users = [a for a in thread.actions if a.action_type == "user_message"]
    assert [(a.metadata or {}).get("author") for a in users] == ["harness"] * 3
    assert {(a.metadata or {}).get("harness") for a in users} == {"copied_context"}
    frames = threadlab.load(path, progress=False)
    assert frames.threads[["n_human_prompts", "n_harness_turns"]].values.tolist() == [[0, 3]]
    doc = orjson.loads(path.read_bytes())
    doc["steps"] = [{k: v for k, v in step.items() if k != "is_copied_context"} for step in doc["steps"]]
    (fresh,) = to_threads(Source(orjson.dumps(doc), name="t.json"))
    assert [(a.metadata or {}).get("author") for a in fresh.actions if a.action_type == "user_message"] == [None] * 3


def test_an_embedded_subagent_is_a_delegation_with_the_childs_actions() -> None:
    thread = read(FIXTURES / "atif" / "models_v1.7_embedded_subagent.json")
    kinds = [(a.action_type, getattr(a, "agent_id", None)) for a in thread.actions]
    join = next(i for i, a in enumerate(thread.actions) if a.action_type == "system.agent_join")
    data = thread.actions[join].data
    assert data["agent_id"] == "sub-reviewer-1" and data["invited_by"] == "orchestrator" and data["tool_call_id"] == "call-review"
    assert thread.agents["sub-reviewer-1"].agent_name == "reviewer"
    # the child's prompt, call, return and answer, then the parent's return of the delegating call
    child = thread.actions[join + 1 : join + 6]
    assert [a.action_type for a in child] == ["user_message", "tool_call", "tool_return", "assistant_message", "tool_return"]
    assert kinds[join + 2][1] == "sub-reviewer-1" and child[-1].tool_call_id == "call-review" and child[-1].content == "Looks fine."
    assert thread.actions[join + 2].usage == {"input_tokens": 100, "output_tokens": 10}  # a usage on a step of calls only
    times = [a.timestamp for a in thread.actions]
    assert times == sorted(times)  # the parent's return comes after the child's steps
    frames = threadlab.load(FIXTURES / "atif" / "models_v1.7_embedded_subagent.json", progress=False)
    assert set(frames.actions["agent_id"].dropna()) == {"orchestrator", "sub-reviewer-1"}


def test_a_file_referenced_subagent_is_joined_and_its_path_not_opened() -> None:
    thread = read(FIXTURES / "atif" / "models_v1.6_images_file_ref.json")
    join = next(a for a in thread.actions if a.action_type == "system.agent_join")
    assert join.data["ref"]["trajectory_path"] == "trajectory.summarization-1-summary.json"
    assert not [a for a in thread.actions if getattr(a, "agent_id", None) == join.data["agent_id"]]
    user = thread.actions[0]
    assert user.content[1].image_url == "images/step_2_screenshot.png" and user.content[1].media_type == "image/png"
    observation = next(a for a in thread.actions if a.action_type == "system.observation")  # a result naming no call
    assert observation.data["content"][0]["type"] == "image"
    assert "cost_usd" not in thread.metadata  # a subagent lives in another file: the total is not this thread's


def test_metrics_are_the_steps_usage_and_final_metrics_the_threads_totals() -> None:
    thread = read(FIXTURES / "atif" / "models_v1.5_tool_definitions.json")
    answer = next(a for a in thread.actions if a.action_type == "assistant_message")
    assert answer.usage.input_tokens == 520 and answer.usage.output_tokens == 80 and answer.usage.cache_read_tokens == 200
    assert answer.metadata["model_name"] == "gemini-2.5-flash"
    assert thread.metadata["usage_total"] == {"input_tokens": 1120, "output_tokens": 124, "cache_read_tokens": 200}
    assert thread.metadata["cost_usd"] == 0.00078
    frames = threadlab.load(FIXTURES / "atif" / "models_v1.5_tool_definitions.json", progress=False)
    assert frames.threads["input_tokens"].iloc[0] == 1120 and frames.threads["cost_usd"].iloc[0] == 0.00078


def test_broken_steps_are_accounted_for() -> None:
    doc = {"schema_version": "ATIF-v1.6", "session_id": "s", "agent": {"name": "a", "version": "1"}, "steps": [
        {"step_id": 1, "source": "user", "message": "hi", "timestamp": "yesterday"},
        "not a step",
        {"step_id": 3, "source": "agent", "message": [{"type": "video", "url": "v.mp4"}]},
        {"step_id": 4, "source": "agent", "message": "", "tool_calls": [{"function_name": "x"}],
         "observation": {"results": [{"source_call_id": "nope", "content": "?"}]}},
        {"step_id": 5, "source": "tool", "message": "odd source"},
    ]}
    (thread,) = to_threads(Source(orjson.dumps(doc), name="broken.json"))
    assert (thread.account.converted, thread.account.kept, thread.account.failed) == (0, 4, 1)
    rules = sorted(p.rule for p in thread.problems)
    assert rules == ["missing-id", "schema", "schema", "schema", "unknown-id", "unknown-type"]
    wire, _ = write(thread)
    # the steps after the one that is no step come back as they were (numbered on from 2)
    assert orjson.loads(wire)["steps"][1:] == [dict(s, step_id=s["step_id"] - 1) for s in doc["steps"][2:]]


@pytest.mark.parametrize("doc", [
    {"steps": [{"step_id": 1}], "agent": {"name": "x"}},  # no schema_version
    {"schema_version": "1.4", "agent": {"name": "x"}, "steps": []},  # not "ATIF-v…"
    {"trajectory_format": "mini-swe-agent-1", "messages": [], "info": {}},  # mini-swe-agent's own file
], ids=["no-version", "bare-version", "mini-swe-agent"])
def test_other_trajectory_files_are_not_claimed(doc: dict[str, Any]) -> None:
    assert not detect(Source(orjson.dumps(doc), name="trajectory.json"))


@pytest.mark.parametrize("path", [
    FIXTURES / "claude" / "projects" / "-home-user-proj" / "8eee8ed4-825d-4007-a1d5-393272c20fb2.jsonl",
    FIXTURES / "pydantic_ai" / "pydantic_ai_all_messages.json",
    FIXTURES / "agency_swarm" / "agency_swarm_saved_messages_run1.json",
], ids=lambda p: p.name)
def test_a_thread_of_another_format_keeps_its_projection_and_names_what_it_loses(path: Path) -> None:
    for thread in threadlab.read_all(path, "auto", strict=False):
        wire, losses = write(thread)
        again = back(wire)
        assert _projection(again) == _projection(thread)
        assert losses and all(loss.format == "atif" and loss.lost for loss in losses)
        assert any("metadata '" in phrase for loss in losses for phrase in loss.lost)  # the other format's own fields
        _holds_harbors_rules(orjson.loads(wire))


def _holds_harbors_rules(doc: dict[str, Any]) -> None:
    """Harbor's validators (``harbor.models.trajectories``), checked without Harbor (it needs
    Python 3.12): step ids run 1, 2, 3; agent-only fields on agent steps only; arguments are
    objects; a result's ``source_call_id`` names a call of its step; every embedded trajectory has
    a unique ``trajectory_id``; a ref names a trajectory id or path."""
    for trajectory in [doc, *doc.get("subagent_trajectories", [])]:
        assert trajectory["schema_version"].startswith("ATIF-v") and set(trajectory["agent"]) >= {"name", "version"}
        assert [s["step_id"] for s in trajectory["steps"]] == list(range(1, len(trajectory["steps"]) + 1))
        for step in trajectory["steps"]:
            assert step["source"] in ("system", "user", "agent") and "message" in step
            if step["source"] != "agent":
                assert not {"model_name", "reasoning_effort", "reasoning_content", "tool_calls", "metrics"} & set(step)
            calls = {c["tool_call_id"] for c in step.get("tool_calls", []) if isinstance(c["arguments"], dict)}
            assert len(calls) == len(step.get("tool_calls", []))
            for result in step.get("observation", {}).get("results", []):
                assert result.get("source_call_id") is None or result["source_call_id"] in calls
                assert all(ref.get("trajectory_id") or ref.get("trajectory_path") for ref in result.get("subagent_trajectory_ref", []))
    ids = [t["trajectory_id"] for t in doc.get("subagent_trajectories", [])]
    assert len(ids) == len(set(ids))


def test_errors_values_arguments_and_agents_survive_the_trip() -> None:
    """What ATIF has no field for, written in its ``extra`` fields as Harbor's converters do
    (``is_error``, arguments that are no object as ``{"value": ...}``) or under threadlab's keys."""
    b = ThreadBuilder("t1")
    triage, billing = b.agent("triage"), b.agent("billing")
    b.add("user_message", timestamp="2026-01-01T00:00:00Z", content="refund me")
    b.add("tool_call", timestamp="2026-01-01T00:00:01Z", agent_id=triage, tool_name="lookup", tool_call_id="c1", args="order 7")
    b.add("tool_return", timestamp="2026-01-01T00:00:02Z", tool_call_id="c1", tool_name="lookup", status="error", content={"code": 404})
    b.add("system.handoff", timestamp="2026-01-01T00:00:03Z", data={"from_agent": triage, "to_agent": billing})
    b.add("assistant_message", timestamp="2026-01-01T00:00:04Z", agent_id=billing, content="Refunded.")
    thread = b.build()
    wire, _ = write(thread)
    again = back(wire)
    assert _projection(again) == _projection(thread)
    assert [a.action_type for a in again.actions] == [a.action_type for a in thread.actions]
    assert again.actions[2].status == "error" and again.actions[2].content == {"code": 404}
    assert again.actions[3].data == {"from_agent": "triage", "to_agent": "billing"}
    assert again.actions[4].agent_id == "billing" and again.agents["billing"].agent_name == "billing"
    _holds_harbors_rules(orjson.loads(wire))


def test_convert_to_atif_on_the_command_line(tmp_path: Path) -> None:
    from threadlab.cli import main

    out = tmp_path / "out.json"
    source = FIXTURES / "pydantic_ai" / "pydantic_ai_all_messages.json"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert main(["convert", str(source), "--to", "atif", "-o", str(out)]) == 0
    doc = orjson.loads(out.read_bytes())
    assert doc["schema_version"] == "ATIF-v1.7" and _projection(back(out.read_bytes())) == _projection(threadlab.read(source))


def test_a_harbor_jobs_folder_lists_its_configs_and_results(tmp_path: Path) -> None:
    trial = tmp_path / "jobs" / "2026-02-09__12-22-47" / "task__abc"
    (trial / "agent").mkdir(parents=True)
    (trial / "verifier").mkdir()
    (trial / "agent" / "trajectory.json").write_bytes((FIXTURES / "atif" / "models_v1.5_tool_definitions.json").read_bytes())
    (trial / "verifier" / "reward.txt").write_text("1\n")
    for folder in (trial, trial.parent):
        (folder / "config.json").write_text('{"job_name": "j", "agent": {"name": "terminus-2"}}')
        (folder / "result.json").write_text('{"id": "r", "reward": 1.0}')
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        frames = threadlab.load(tmp_path / "jobs", progress=False)
    assert list(frames.threads["format"]) == ["atif"] and len(frames.problems) == 0
    reasons = dict(zip(frames.skipped["path"].map(lambda p: Path(p).relative_to(tmp_path).as_posix()), frames.skipped["reason"], strict=True))
    assert reasons["jobs/2026-02-09__12-22-47/config.json"] == "a Harbor job's configuration, not a conversation"
    assert reasons["jobs/2026-02-09__12-22-47/task__abc/result.json"] == "a Harbor trial's result (reward, timings), not a conversation"


def test_subagents_nested_past_the_limit_cost_their_steps_not_the_file() -> None:
    def level(i: int) -> dict[str, Any]:
        ref = {"observation": {"results": [{"subagent_trajectory_ref": [{"trajectory_id": f"t{i + 1}"}]}]}}
        return {"schema_version": "ATIF-v1.7", "trajectory_id": f"t{i}", "agent": {"name": f"a{i}", "version": "1"},
                "steps": [{"step_id": 1, "source": "agent", "message": "m", **ref}]}

    doc = level(0)
    inner = doc
    for i in range(1, 100):
        inner["subagent_trajectories"] = [level(i)]
        inner = inner["subagent_trajectories"][0]
    (thread,) = to_threads(Source(orjson.dumps(doc), name="deep.json"))
    assert thread.account.records == 100 and thread.account.failed == 100 - 64
    assert [p.rule for p in thread.problems] == ["size-limit"]


def test_harbors_inline_subagent_steps_are_the_subagents() -> None:
    """Harbor's Claude Code converter writes a subagent's steps inline, each with ``extra.is_sidechain``
    and the subagent's ``extra.agent_id``: those steps' actions are that agent's."""
    thread = read(FIXTURES / "atif" / "harbor_claude_code_8eee8ed4.json")
    answers = {a.content: a.agent_id for a in thread.actions if a.action_type == "assistant_message"}
    assert answers["Subagent report: 42 files."] == "afaccb42b23698e5d"
    assert answers["All done: bash said hello, subagent reported 42 files."] == "claude_code"
