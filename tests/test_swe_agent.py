"""SWE-agent ``.traj`` and mini-swe-agent trajectories: the calls a text-based agent runs are tool
calls (derived, marked so), a trajectory's steps are checked against its history, and an
agent's saved trajectory is no OpenAI Chat request."""

from __future__ import annotations

import copy
from pathlib import Path

import orjson

import threadlab
from threadlab.formats.common.registry import FORMATS, load_module
from threadlab.formats.common.source import Source

FIXTURES = Path(__file__).parent / "fixtures"
MINI = FIXTURES / "mini_swe_agent"
SWE = FIXTURES / "real" / "swe_agent"


def _claimed(path: Path) -> list[str]:
    return [spec.name for spec in FORMATS if load_module(spec).detect(Source(path))]


def test_a_text_based_answer_is_a_derived_bash_call_and_its_observation_the_return() -> None:
    (thread,) = threadlab.read_all(MINI / "v1-textbased.traj.json")
    calls = [a for a in thread.actions if a.action_type == "tool_call"]
    returns = [a for a in thread.actions if a.action_type == "tool_return"]
    assert [c.args for c in calls] == [{"command": "ls"}, {"command": "echo hello > hello.txt && cat hello.txt"}, {"command": "cat missing.txt"},
                                       {"command": "echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT"}]
    assert all(c.tool_name == "bash" and c.metadata["mini_swe_agent"]["derived"] for c in calls)
    assert [r.tool_call_id for r in returns] == [c.tool_call_id for c in calls]
    assert [r.status for r in returns] == ["success", "success", "error", "success"]  # <returncode>1</returncode>
    # the answer with two blocks ran nothing: the format error after it is the harness's
    harness = [a for a in thread.actions if (a.metadata or {}).get("author") == "harness"]
    assert len(harness) == 1 and harness[0].content.startswith("Please always provide EXACTLY ONE action")


def test_the_tool_calls_frame_has_a_row_per_command() -> None:
    frames = threadlab.load(MINI / "textbased.traj.json", progress=False)
    assert len(frames.tool_calls) == 4
    assert list(frames.threads["format"]) == ["mini-swe-agent"]


def test_a_saved_trajectory_is_no_chat_request() -> None:
    assert _claimed(MINI / "v1-textbased.traj.json") == ["mini-swe-agent"]


def test_a_submission_longer_than_the_sniffed_head_is_still_a_trajectory(tmp_path: Path) -> None:
    """``info`` is written first: a submitted diff of 2 MB (a real SWE-bench run's) pushes every
    marker but the closing ``trajectory_format`` past the head detectors sniff."""
    value = orjson.loads((MINI / "v1-textbased.traj.json").read_bytes())
    value["info"] = {**value["info"], "submission": "+x\n" * 40_000}  # (the first key)
    path = tmp_path / "big.traj.json"
    path.write_bytes(orjson.dumps(value))
    assert b"mini" not in path.read_bytes()[:65536]
    assert _claimed(path) == ["mini-swe-agent"]
    (big,), (small,) = threadlab.read_all(path), threadlab.read_all(MINI / "v1-textbased.traj.json")
    assert [(a.action_type, getattr(a, "content", None)) for a in big.actions] == [(a.action_type, getattr(a, "content", None)) for a in small.actions]


def test_the_run_s_last_step_which_the_history_lacks_is_a_call_of_its_own() -> None:
    (thread,) = threadlab.read_all(SWE / "test-repo-function-calling.traj")
    last_call, last_return = [a for a in thread.actions if a.action_type in ("tool_call", "tool_return")][-2:]
    assert last_call.args == {"command": "submit"} and last_call.metadata["swe_agent"]["from_step"] == 5
    assert last_return.tool_call_id == last_call.tool_call_id and not thread.problems
    assert thread.metadata["usage_total"] == {"input_tokens": 7141, "output_tokens": 243}


def test_a_step_that_disagrees_with_its_history_action_is_kept_and_named(tmp_path: Path) -> None:
    value = orjson.loads((SWE / "demo-ctf-networking_1.traj").read_bytes())
    changed = copy.deepcopy(value)
    changed["trajectory"][1]["action"] = "rm -rf /"
    path = tmp_path / "changed.traj"
    path.write_bytes(orjson.dumps(changed))
    (thread,) = threadlab.read_all(path, strict=False)
    (problem,) = thread.problems
    assert problem.rule == "trajectory-history" and "step 2" in problem.message
    kept = [a for a in thread.actions if a.action_type == "system.trajectory_step"]
    assert [k.data["action"] for k in kept] == ["rm -rf /"]
    assert thread.account.kept == 1


def test_a_responses_api_model_s_items_are_read_as_the_messages_they_stand_for() -> None:
    (thread,) = threadlab.read_all(MINI / "responses.traj.json")
    kinds = [a.action_type for a in thread.actions]
    assert kinds == ["system.prompt", "user_message", "assistant_message", "tool_call", "tool_return", "tool_call", "tool_return", "tool_call", "system.exit"]
    assert [a.tool_call_id for a in thread.actions if a.action_type == "tool_return"] == ["call_1", "call_2"]
    assert not thread.problems


def test_every_answer_s_usage_is_counted_also_of_an_answer_of_calls_only() -> None:
    frames = threadlab.load(MINI / "litellm.traj.json", progress=False)
    assert int(frames.usage["output_tokens"].sum()) == 21 + 22 + 23 + 24  # the scripted server's figures
    assert len(frames.usage) == 4


def test_thinking_blocks_are_thinking(tmp_path: Path) -> None:
    value = orjson.loads((SWE / "test-repo-function-calling.traj").read_bytes())
    value["history"][2]["thinking_blocks"] = [{"type": "thinking", "thinking": "find it first", "signature": "sig"}]
    path = tmp_path / "thinking.traj"
    path.write_bytes(orjson.dumps(value))
    (thread,) = threadlab.read_all(path)
    (thinking,) = [a for a in thread.actions if a.action_type == "thinking"]
    assert (thinking.content, thinking.signature) == ("find it first", "sig")
    value = orjson.loads((MINI / "litellm.traj.json").read_bytes())
    value["messages"][4]["reasoning_content"] = "then write"
    path = tmp_path / "thinking.traj.json"
    path.write_bytes(orjson.dumps(value))
    (thread,) = threadlab.read_all(path)
    assert [a.content for a in thread.actions if a.action_type == "thinking"] == ["then write"]


def test_a_role_of_another_type_is_kept_as_an_unknown_message(tmp_path: Path) -> None:
    value = orjson.loads((MINI / "v1-textbased.traj.json").read_bytes())
    value["messages"][3]["role"] = {"not": "a role"}
    path = tmp_path / "odd.traj.json"
    path.write_bytes(orjson.dumps(value))
    (thread,) = threadlab.read_all(path, strict=False)
    assert [p.rule for p in thread.problems] == ["unknown-type"] and thread.account.kept == 1


def test_a_retry_agent_s_file_is_a_thread_per_attempt(tmp_path: Path) -> None:
    first = orjson.loads((SWE / "test-repo-function-calling.traj").read_bytes())
    second = orjson.loads((SWE / "demo-ctf-networking_1.traj").read_bytes())
    chosen = copy.deepcopy(second)
    chosen["info"]["best_attempt_idx"] = 1  # as RetryAgent.get_trajectory_data(choose=True) writes it
    path = tmp_path / "retry.traj"
    path.write_bytes(orjson.dumps({"attempts": [first, second], **chosen}))
    threads = threadlab.read_all(path)
    assert [t.metadata["swe_agent"].get("best_attempt") for t in threads] == [None, True]
    assert sum(t.account.records for t in threads) == (10 + 5) + (9 + 4)  # each attempt once, the chosen copy not again
