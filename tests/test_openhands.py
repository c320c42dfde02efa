"""OpenHands runs: the SDK's own conversation folder (``tests/fixtures/openhands/``), OpenHands'
public V0 trajectories and a public V1 conversation (``tests/fixtures/real/openhands/``), the
evaluation row and session-store shapes made from those events, delegation, broken files; and a
Harbor trial folder holding one run twice (mini-swe-agent's own file and Harbor's ATIF of it)."""

from __future__ import annotations

import shutil
import warnings
from pathlib import Path
from typing import Any

import orjson

import threadlab
from threadlab.core.model import Thread
from threadlab.formats import get_format
from threadlab.formats.common.source import Source
from threadlab.formats.openhands import to_threads

FIXTURES = Path(__file__).parent / "fixtures"
SDK = next((FIXTURES / "openhands" / "sdk-1.49.1" / "conversations").iterdir())
REAL = FIXTURES / "real" / "openhands"


def load(path: Path) -> threadlab.Frames:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return threadlab.load(path, progress=False)


def kinds(thread: Thread) -> list[str]:
    return [a.action_type for a in thread.actions]


def test_the_sdks_conversation_folder_is_one_thread_with_each_responses_usage() -> None:
    frames = load(SDK.parent)
    assert list(frames.threads["format"]) == ["openhands"] and len(frames.problems) == 0 and len(frames.skipped) == 0
    (thread,) = to_threads(Source(SDK / "base_state.json"))
    assert kinds(thread) == ["system.prompt", "user_message", "thinking", "assistant_message", "tool_call", "tool_return", "assistant_message", "user_message", "assistant_message"]
    call, ret = thread.actions[4], thread.actions[5]
    assert (call.tool_name, call.tool_call_id, call.args) == ("terminal", "call_terminal_1", {"command": "printf 'hello\\n' > notes.txt && cat notes.txt"})
    assert (ret.tool_call_id, ret.status, ret.content) == ("call_terminal_1", "success", "hello")
    usage = frames.usage
    assert list(usage["input_tokens"]) == [1300, 1600, 1900] and list(usage["cache_read_tokens"]) == [0, 256, 512] and list(usage["cache_write_tokens"]) == [128, 0, 0]
    assert thread.metadata["usage_total"]["input_tokens"] == 4800 and round(thread.metadata["cost_usd"], 6) == 0.008976
    assert thread.account.records == 8 and thread.account.converted == 8  # base_state.json and 7 events
    alone = load(SDK / "events")  # the events folder by itself: one thread, with the state beside it
    assert len(alone.threads) == 1 and list(alone.usage["input_tokens"]) == [1300, 1600, 1900]


def test_v0_events_map_calls_returns_and_harness_states() -> None:
    (thread,) = to_threads(Source(REAL / "basic_gui_mode.json"))
    harness = [a for a in thread.actions if (a.metadata or {}).get("author") == "harness"]
    assert len(harness) == 5 and {a.metadata["harness"] for a in harness} == {"agent_state"}
    calls = [a for a in thread.actions if a.action_type == "tool_call"]
    assert [c.tool_name for c in calls] == ["execute_bash", "str_replace_editor", "str_replace_editor", "execute_bash"]
    assert calls[0].tool_call_id == "toolu_01W9Z8jBctr8X2frZV9p1RYs" and "thought" not in calls[0].args
    returns = {a.tool_call_id: a for a in thread.actions if a.action_type == "tool_return"}
    assert set(returns) == {c.tool_call_id for c in calls}
    assert sum(1 for a in thread.actions if getattr(a, "usage", None) is not None) == 4  # one per model response, not on its observation's copy


def _events() -> list[dict[str, Any]]:
    return orjson.loads((REAL / "wrong_initial_state.json").read_bytes())


def test_an_evaluation_row_and_json_lines_of_rows() -> None:
    row = {"instance_id": "repo__pkg-1", "instruction": "rename", "history": _events(), "metrics": {"accumulated_cost": 0.5}}
    (thread,) = to_threads(Source(orjson.dumps(row), name="row.json"))
    assert thread.thread_id == "repo__pkg-1" and thread.metadata["openhands"]["metrics"] == {"accumulated_cost": 0.5}
    assert thread.account.records == len(row["history"])
    lines = orjson.dumps(row) + b"\n" + orjson.dumps({**row, "instance_id": "repo__pkg-2"}) + b"\n"
    threads = to_threads(Source(lines, name="output.jsonl"))
    assert [t.thread_id for t in threads] == ["repo__pkg-1", "repo__pkg-2"]


def test_a_v0_session_store_is_read_from_its_first_event_file(tmp_path: Path) -> None:
    session = tmp_path / "sessions" / "abc"
    (session / "events").mkdir(parents=True)
    for event in _events():
        (session / "events" / f"{event['id']}.json").write_bytes(orjson.dumps(event))
    (session / "metadata.json").write_text('{"title": "rename"}')
    (session / "event_cache").mkdir()
    (session / "event_cache" / "0-25.json").write_bytes(orjson.dumps(_events()))  # the same events again, a page
    frames = load(tmp_path / "sessions")
    assert len(frames.threads) == 1 and int(frames.threads["n_actions"].iloc[0]) == 12 and len(frames.problems) == 0
    assert sorted(Path(p).name for p in frames.skipped["path"]) == ["event_cache", "metadata.json"]


def test_a_delegate_acts_as_its_own_agent_until_its_observation() -> None:
    events = [
        {"id": 1, "source": "user", "action": "message", "args": {"content": "browse"}, "timestamp": "2025-01-01T00:00:00"},
        {"id": 2, "source": "agent", "action": "delegate", "args": {"agent": "BrowsingAgent", "inputs": {"task": "t"}}, "timestamp": "2025-01-01T00:00:01"},
        {"id": 3, "source": "agent", "action": "browse", "args": {"url": "u"}, "timestamp": "2025-01-01T00:00:02"},
        {"id": 4, "source": "environment", "observation": "browse", "cause": 3, "content": "page", "extras": {}, "timestamp": "2025-01-01T00:00:03"},
        {"id": 5, "source": "agent", "observation": "delegate", "cause": 2, "content": "done", "extras": {"outputs": {}}, "timestamp": "2025-01-01T00:00:04"},
        {"id": 6, "source": "agent", "action": "message", "args": {"content": "ok"}, "timestamp": "2025-01-01T00:00:05"},
    ]
    (thread,) = to_threads(Source(orjson.dumps(events), name="t.json"))
    assert kinds(thread) == ["user_message", "tool_call", "system.agent_join", "tool_call", "tool_return", "tool_return", "assistant_message"]
    join = thread.actions[2]
    child = join.data["agent_id"]
    assert join.data["invited_by"] == "main" and thread.actions[3].agent_id == child and thread.actions[6].agent_id == "main"


def test_a_broken_event_file_costs_only_itself(tmp_path: Path) -> None:
    folder = tmp_path / "conv"
    shutil.copytree(SDK, folder)
    victim = sorted((folder / "events").iterdir())[3]
    victim.write_bytes(victim.read_bytes()[:40])
    (thread,) = to_threads(Source(folder / "base_state.json"))
    assert [p.rule for p in thread.problems] == ["json"] and victim.name in thread.problems[0].message
    assert thread.account.failed == 1 and "tool_return" not in kinds(thread)


def test_a_harbor_trial_holding_an_agents_file_and_its_atif_reads_the_run_once(tmp_path: Path) -> None:
    """Harbor keeps mini-swe-agent's own trajectory beside the ATIF it converts from it: before,
    a walk read both (two threads of one run); now the agent's own file, the ATIF listed."""
    native = FIXTURES / "mini_swe_agent" / "litellm.traj.json"
    trial = tmp_path / "task__abc"
    (trial / "agent").mkdir(parents=True)
    (trial / "config.json").write_text('{"agent": {"name": "mini-swe-agent"}}')
    shutil.copy(native, trial / "agent" / "mini-swe-agent.trajectory.json")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        atif = get_format("atif").from_thread(threadlab.read(native))
    (trial / "agent" / "trajectory.json").write_bytes(atif)
    frames = load(trial)
    assert list(frames.threads["format"]) == ["mini-swe-agent"]
    reasons = dict(zip(frames.skipped["path"].map(lambda p: Path(p).relative_to(trial).as_posix()), frames.skipped["reason"], strict=True))
    assert reasons["agent/trajectory.json"] == "Harbor's ATIF conversion of mini-swe-agent.trajectory.json beside it (the same run, read from the agent's own file)"
    assert list(load(trial / "agent" / "trajectory.json").threads["format"]) == ["atif"]  # named by itself, it is read


def test_an_openhands_home_reads_its_conversations_and_lists_the_rest(tmp_path: Path) -> None:
    home = tmp_path / "openhands-home"
    shutil.copytree(SDK, home / "conversations" / SDK.name)
    (home / "secrets.json").write_text('{"provider_tokens": {}}')
    (home / "agent_settings.json").write_text('{"llm": {"model": "m"}}')
    (home / "bin").mkdir()
    frames = load(home)
    assert list(frames.threads["format"]) == ["openhands"] and len(frames.problems) == 0
    reasons = dict(zip(frames.skipped["path"].map(lambda p: Path(p).name), frames.skipped["reason"], strict=True))
    assert reasons == {"secrets.json": "an OpenHands home's secrets store (never opened)",
                       "agent_settings.json": "an OpenHands home's agent settings (not a conversation)",
                       "bin": "in an OpenHands home, beside conversations/ and sessions/ (only they hold conversations)"}


V0 = FIXTURES / "openhands" / "v0-0.62.0" / "trajectory.json"


def test_openhands_own_v0_classes_delegate_think_recall_condense_and_total() -> None:
    (thread,) = to_threads(Source(V0))
    join = next(a for a in thread.actions if a.action_type == "system.agent_join")
    delegate = join.data["agent_id"]
    assert [a.tool_name for a in thread.actions if a.action_type == "tool_call" and a.agent_id == delegate] == ["browse_interactive"]
    think = next(a for a in thread.actions if a.action_type == "tool_call" and a.tool_name == "think")
    assert think.args["thought"] == "The assertion compares strings."  # the think tool's argument, no message of its own
    harness = [(a.action_type, a.metadata["harness"]) for a in thread.actions if (a.metadata or {}).get("author") == "harness"]
    assert ("system.condensation", "compaction_summary") in harness and ("system.error", "error") in harness and len(harness) == 6
    assert [a.status for a in thread.actions if a.action_type == "tool_return"] == ["error", "success", "success", "error", "success", "success"]
    assert thread.metadata["usage_total"] == {"input_tokens": 21000, "output_tokens": 261, "cache_read_tokens": 13500, "cache_write_tokens": 600}


def test_the_fixtures_hold_what_the_raw_counter_counts() -> None:
    from tests.wild.compare import disagreements

    assert disagreements(V0, "openhands") == {} and disagreements(SDK / "base_state.json", "openhands") == {}
