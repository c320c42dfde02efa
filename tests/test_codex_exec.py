"""codex exec --json output (the codex-exec format), on what the real Codex CLI printed
(tests/fixtures/codex_exec/, made with tests/fixtures/codex/make_rollouts.py): tool calls,
returns, messages, prompts and usage equal to counts computed here from the raw events; the
stream and the rollout of one run agree; written back line for line; any list of lines reads
without raising, every line accounted for."""

from __future__ import annotations

import warnings
from pathlib import Path
from typing import Any

import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import threadlab
from tests.counting import action_kinds as _kinds
from tests.counting import token_total as _tokens
from threadlab.core.loss import WriteLoss
from threadlab.formats import get_format
from threadlab.formats.common.source import Source

FIXTURES = Path(__file__).parent / "fixtures"
CODEX_RUNS = sorted((FIXTURES / "codex").glob("codex-*/rollout-*.jsonl"))
CODEX_EXEC = sorted((FIXTURES / "codex_exec").glob("codex-*/exec-*.jsonl"))


def _lines(path: Path) -> list[dict[str, Any]]:
    return [orjson.loads(x) for x in path.read_bytes().splitlines() if x.strip()]


@pytest.mark.parametrize("path", CODEX_EXEC, ids=lambda p: f"{p.parent.name}-{p.name}")
def test_codex_exec_output_is_written_back_line_for_line(path: Path) -> None:
    (thread,) = threadlab.read_all(path)
    with warnings.catch_warnings():
        warnings.simplefilter("error", WriteLoss)
        wire = get_format("codex-exec").from_thread(thread)
    assert _lines_of(wire) == _lines(path)


def _exec_counts(path: Path) -> dict[str, int]:
    """Tool calls, returns, messages, prompts and output tokens of codex exec --json output,
    from the raw events."""
    lines = _lines(path)
    out = {"tool_call": 0, "tool_return": 0, "assistant_message": 0, "thinking": 0, "user_message": 0, "output_tokens": 0}
    tools = ("command_execution", "file_change", "mcp_tool_call", "web_search", "todo_list")
    started: set[str] = set()
    for x in lines:
        if "msg" in x:
            kind = x["msg"]["type"]
            out["tool_call"] += kind.endswith("_begin") and kind != "task_begin"
            out["tool_return"] += kind in ("exec_command_end", "patch_apply_end", "mcp_tool_call_end", "web_search_end")
            out["assistant_message"] += kind == "agent_message"
            out["thinking"] += kind == "agent_reasoning"
            out["output_tokens"] += x["msg"].get("output_tokens", 0) if kind == "token_count" else 0
        elif "prompt" in x:
            out["user_message"] += 1
        elif x.get("type", "").startswith("item.") and x["type"] != "item.updated":
            item = x["item"]
            # a call when first seen: item.started, or item.completed alone (Codex 0.50 writes a file_change only completed)
            out["tool_call"] += item["type"] in tools and item["id"] not in started
            started.add(item["id"])
            out["tool_return"] += item["type"] in tools and x["type"] == "item.completed"
            out["assistant_message"] += item["type"] == "agent_message"
            out["thinking"] += item["type"] == "reasoning"
        elif x.get("type") == "turn.completed":
            out["output_tokens"] += x["usage"]["output_tokens"]
    return out


@pytest.mark.parametrize("path", CODEX_EXEC, ids=lambda p: f"{p.parent.name}-{p.name}")
def test_codex_exec_output_matches_counts_from_the_raw_events(path: Path) -> None:
    threads = threadlab.read_all(path)
    assert [t.origin[1] for t in threads] == ["codex-exec"]
    want = _exec_counts(path)
    kinds = _kinds(threads)
    for kind in ("tool_call", "tool_return", "assistant_message", "thinking", "user_message"):
        assert kinds.get(kind, 0) == want[kind], kind
    assert _tokens(threads, "output_tokens") == want["output_tokens"]
    assert threads[0].account.unconverted == 0 and threads[0].problems == []


def test_codex_exec_output_and_rollout_of_one_run_agree() -> None:
    """Codex 0.169's --json output and the rollout it wrote in the same run: the same thread
    id, tool calls in the same order, the same final answer, and the turn's usage equal to the
    sum of the responses' usage in the rollout."""
    (rollout,) = threadlab.read_all(next(p for p in CODEX_RUNS if p.parent.name == "codex-0.169.0" and "01a2078f" in p.name))
    (stream,) = threadlab.read_all(next(p for p in CODEX_EXEC if p.parent.name == "codex-0.169.0" and p.name == "exec-gpt-5.5.jsonl"))
    assert stream.thread_id == rollout.thread_id
    assert [a.tool_name for a in stream.actions if a.action_type == "tool_call"] == ["command_execution", "file_change"]
    assert len([a for a in rollout.actions if a.action_type == "tool_call"]) == 2
    answer = [a.content for t in (rollout, stream) for a in t.actions if a.action_type == "assistant_message"]
    assert answer[0] == answer[1]
    for key in ("input_tokens", "output_tokens", "cache_read_tokens", "thinking_tokens"):
        assert _tokens([stream], key) == _tokens([rollout], key), key


def test_turn_completed_usage_is_the_sessions_running_total() -> None:
    """Codex 0.169 run for real: an interrupted exec (no turn.completed: its usage never
    printed), ``exec resume`` and ``exec fork`` of that session. Each ``turn.completed`` carries
    the session's running total (the rollout's last ``total_token_usage``), not the turn's own:
    it is the thread's ``usage_total``, and two turns in one stream are not added twice."""
    runs = CODEX_RUNS[0].parents[1] / "codex-0.169.0"
    streams = CODEX_RUNS[0].parents[2] / "codex_exec" / "codex-0.169.0"
    for run, rollout_id in (("resumed", "01a21f1a-0bf7"), ("forked", "01a21f1a-1328")):
        (stream,) = threadlab.read_all(streams / f"exec-gpt-5.5-{run}.jsonl")
        (rollout,) = threadlab.read_all(next(runs.glob(f"rollout-*{rollout_id}*.jsonl")))
        assert stream.thread_id == rollout.thread_id
        assert stream.metadata["usage_total"] == rollout.metadata["usage_total"], run
    (interrupted,) = threadlab.read_all(streams / "exec-gpt-5.5-interrupted.jsonl")
    assert "usage_total" not in interrupted.metadata and all(getattr(a, "usage", None) is None for a in interrupted.actions)
    lines = _lines_of((streams / "exec-gpt-5.5-resumed.jsonl").read_bytes())
    twice = b"".join(orjson.dumps(x) + b"\n" for x in [*lines, *lines[1:]])  # a second turn: the total again, unchanged
    frames = threadlab.load(Source(twice, name="twice.jsonl"), progress=False)
    assert frames.usage["input_tokens"].tolist() == [lines[-1]["usage"]["input_tokens"], 0]
    assert frames.threads["input_tokens"].tolist() == [lines[-1]["usage"]["input_tokens"]] and frames.problems.empty


def test_a_thread_of_another_format_is_written_as_codex_exec_events_saying_what_is_lost() -> None:
    (thread,) = threadlab.read_all(next(p for p in CODEX_RUNS if p.parent.name == "codex-0.169.0" and "01a2078f" in p.name))
    with pytest.warns(WriteLoss) as caught:
        wire = get_format("codex-exec").from_thread(thread)
    lost = " ".join(str(w.message) for w in caught)
    assert "user messages" in lost and "system.session_meta" in lost and "MCP tool calls" in lost
    lines = _lines_of(wire)
    assert lines[0] == {"type": "thread.started", "thread_id": thread.thread_id} and lines[-1]["type"] == "turn.completed"
    assert lines[-1]["usage"]["output_tokens"] == _tokens([thread], "output_tokens")
    (back,) = threadlab.read_all(Source(wire, name="written.jsonl"), "codex-exec")
    calls = [(a.tool_name, a.tool_call_id, a.args) for t in (thread, back) for a in t.actions if a.action_type == "tool_call"]
    assert calls[:2] == calls[2:]


def _lines_of(data: bytes) -> list[dict[str, Any]]:
    return [orjson.loads(x) for x in data.splitlines() if x.strip()]


_ITEM = st.fixed_dictionaries(
    {"id": st.sampled_from(["item_0", "item_1", "call_1"]), "type": st.sampled_from(["agent_message", "reasoning", "command_execution", "file_change", "mcp_tool_call", "web_search", "todo_list", "error", "other"])},
    optional={"text": st.text(max_size=5), "command": st.text(max_size=5), "aggregated_output": st.one_of(st.none(), st.text(max_size=5)),
              "exit_code": st.one_of(st.none(), st.integers(-2, 2)), "status": st.sampled_from(["in_progress", "completed", "failed"]),
              "tool": st.text(max_size=5), "arguments": st.dictionaries(st.text(max_size=3), st.integers(-99, 99), max_size=2), "result": st.none()},
)
_EVENT = st.one_of(
    st.fixed_dictionaries({"type": st.sampled_from(["item.started", "item.updated", "item.completed"]), "item": _ITEM}),
    st.fixed_dictionaries({"type": st.sampled_from(["thread.started", "turn.started", "turn.failed", "error"])}, optional={"thread_id": st.text(max_size=5)}),
    st.fixed_dictionaries({"type": st.just("turn.completed")}, optional={"usage": st.dictionaries(st.sampled_from(["input_tokens", "output_tokens", "cached_input_tokens"]), st.one_of(st.integers(0, 99), st.text(max_size=2)))}),
    st.fixed_dictionaries({"id": st.just("1"), "msg": st.fixed_dictionaries({"type": st.sampled_from(["agent_message", "agent_reasoning", "exec_command_begin", "exec_command_end", "patch_apply_end", "mcp_tool_call_begin", "mcp_tool_call_end", "token_count", "turn_diff"])},
                                                                             optional={"call_id": st.sampled_from(["c1", "c2"]), "message": st.text(max_size=5), "text": st.text(max_size=5), "stdout": st.text(max_size=5),
                                                                                       "exit_code": st.integers(-1, 1), "output_tokens": st.integers(0, 9), "invocation": st.just({"server": "s", "tool": "t", "arguments": {}})})}),
    st.sampled_from([{"prompt": "hi"}, [], 3, "x", {"model": "m", "provider": "p", "sandbox": "s"}]),
)


@settings(max_examples=150, deadline=None)
@given(events=st.lists(_EVENT, max_size=12), garbage=st.booleans())
def test_any_event_lines_read_without_raising_every_line_accounted_for(events: list[Any], garbage: bool) -> None:
    first = [{"type": "thread.started", "thread_id": "t"}]
    data = b"".join(orjson.dumps(x) + b"\n" for x in first + events) + (b"{not json\n" if garbage else b"")
    (thread,) = threadlab.read_all(Source(data, name="run.jsonl"), "codex-exec", strict=False)
    assert thread.account.records == len(first) + len(events) + garbage
    assert len(thread.problems) >= thread.account.unconverted
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", WriteLoss)
        again = get_format("codex-exec").from_thread(thread)
    threadlab.read_all(Source(again, name="run.jsonl"), "codex-exec", strict=False)
