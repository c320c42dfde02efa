"""Claude Code transcripts, stream-json output and Claude Agent SDK messages → threads.

Fixtures are real output of Claude Code 2.1.330 (the CLI bundled in claude-agent-sdk 0.2.187)
talking to a local mock of the Messages API, copied from ../shared/examples/claude_code with
the CLI's own prompt text removed (data/claude_code/strip_vendor_text.py). Three runs: a
background subagent (stream-json), a foreground subagent (stream-json with partial messages),
and two SDK ``query()`` turns (the second via ``resume``)."""

from __future__ import annotations

import shutil
from collections import Counter
from pathlib import Path
from typing import Any

import orjson
import pytest

import threadlab as tl
from threadlab.cli import main as cli_main
from threadlab.core import Thread, iter_text, tool_pairs, validate
from threadlab.formats import Source, claude, detect_format, get_format

FIX = Path(__file__).parent / "fixtures" / "claude"
PROJECT = FIX / "projects" / "-home-user-proj"
DATA = Path(__file__).parent.parent / "data" / "claude_code"
BACKGROUND = "0ef0a474-bbb2-424e-a9c2-86afff841aa0"  # stream_json_background_subagent.jsonl
FOREGROUND = "8eee8ed4-825d-4007-a1d5-393272c20fb2"  # stream_json_sync_subagent_partial_messages.jsonl
SDK_RUN = "88439d2a-5a0e-43f4-9ad2-d82e0e364156"  # sdk_query_parsed_messages.json (two turns)
AGENT_CALL = "toolu_01TaskMock000000000002"
CORE = ("user_message", "assistant_message", "thinking", "tool_call", "tool_return")


def session(sid: str) -> Thread:
    return tl.read(PROJECT / f"{sid}.jsonl")


def lines(path: Path) -> list[dict[str, Any]]:
    return [orjson.loads(line) for line in path.read_bytes().splitlines() if line.strip()]


def core_counts(thread: Thread) -> dict[str, int]:
    return dict(Counter(a.action_type for a in thread.actions if a.action_type in CORE))


def shape(thread: Thread) -> list[tuple[Any, ...]]:
    """What two reads of the same run must agree on: core actions, who did them, tools, text."""
    out = []
    for a in thread.actions:
        if a.action_type not in CORE:
            continue
        text = "".join(iter_text(a.content)) if a.action_type in ("user_message", "assistant_message", "thinking") else None
        agent = getattr(a, "agent_id", None) or (a.metadata or {}).get("to_agent_id")
        out.append((a.action_type, agent, getattr(a, "tool_name", None), getattr(a, "tool_call_id", None), text))
    return out


def wire_totals(model_usage: dict[str, Any]) -> dict[str, int]:
    usage = next(iter(model_usage.values()))
    return {k: usage[k] for k in ("inputTokens", "outputTokens", "cacheReadInputTokens", "cacheCreationInputTokens")}


def usage_totals(actions: list[Any]) -> dict[str, int]:
    """Summed usage back in the producer's terms (Anthropic input excludes the cached part)."""
    used = [a.usage for a in actions if getattr(a, "usage", None) is not None]
    get = lambda u, k: (u.get(k) if isinstance(u, dict) else getattr(u, k)) or 0  # noqa: E731
    read = sum(get(u, "cache_read_tokens") for u in used)
    write = sum(get(u, "cache_write_tokens") for u in used)
    return {
        "inputTokens": sum(get(u, "input_tokens") for u in used) - read - write,
        "outputTokens": sum(get(u, "output_tokens") for u in used),
        "cacheReadInputTokens": read,
        "cacheCreationInputTokens": write,
    }


# --- folders, files and detection -----------------------------------------------------------


def test_project_folder_and_config_root_give_one_thread_per_session(tmp_path: Path) -> None:
    threads = tl.read_all(PROJECT)
    assert sorted(t.thread_id for t in threads) == sorted([BACKGROUND, FOREGROUND, SDK_RUN])
    assert all(t.origin[1] == "claude-code" and len(t.agents) == 2 for t in threads)
    root = tmp_path / "claude-config"
    shutil.copytree(FIX / "projects", root / "projects")
    (root / "history.jsonl").write_text('{"display": "not a session"}\n')
    assert detect_format(Source(root)).NAME == "claude-code"
    assert sorted(t.thread_id for t in tl.read_all(root)) == sorted(t.thread_id for t in threads)
    assert len(claude.from_claude(root / "projects")) == 3  # type: ignore[arg-type]


def test_detection_is_specific(tmp_path: Path) -> None:
    assert claude.detect(Source(PROJECT / f"{BACKGROUND}.jsonl"))
    assert claude.detect(Source(FIX / "stream_json_background_subagent.jsonl"))
    assert claude.detect(Source(FIX / "sdk_query_parsed_messages.json"))
    assert claude.detect(Source(PROJECT))
    shutil.copy(FIX / "stream_json_background_subagent.jsonl", tmp_path)
    assert not claude.detect(Source(tmp_path))  # stream-json files do not make a project folder
    assert not claude.detect(Source(Path(__file__).parent.parent / "data" / "threadprotocol" / "spec_example_weather.json"))
    assert not claude.detect(Source([{"type": "message", "role": "user", "content": "agency-swarm item"}]))
    assert get_format("stream-json") is claude and get_format("claude-agent-sdk") is claude


# --- one transcript ------------------------------------------------------------------------


def test_background_session_actions_and_nothing_dropped() -> None:
    thread = session(BACKGROUND)
    assert core_counts(thread) == {"user_message": 2, "thinking": 1, "assistant_message": 3, "tool_call": 2, "tool_return": 2}
    assert validate(thread) == [] and thread.problems == []
    types = {a.action_type for a in thread.actions}
    assert {"system.cost_state", "system.queue_operation", "system.attachment.queued_command", "system.api_request", "system.agent_join"} <= types
    thinking = next(a for a in thread.actions if a.action_type == "thinking")
    assert thinking.signature == "EqQBCkYIBxgCKkBmocksignature==" and thinking.provider_name == "anthropic"
    assert thread.title == "PLEASE-RUN the plan"


@pytest.mark.parametrize("sid", [BACKGROUND, FOREGROUND, SDK_RUN])
def test_every_line_of_every_file_is_in_the_thread(sid: str) -> None:
    """Nothing is dropped: every content block (or blockless line) of the session and subagent
    files is converted, and every line's uuid is on an action (its envelope or its data)."""
    thread = session(sid)
    files = [PROJECT / f"{sid}.jsonl", *(PROJECT / sid / "subagents").glob("*.jsonl")]
    rows = [row for f in files for row in lines(f)]
    blocks = sum(len(r["message"]["content"]) if isinstance(r.get("message"), dict) and isinstance(r["message"].get("content"), list) else 1 for r in rows)
    assert thread.account is not None and (thread.account.records, thread.account.unconverted) == (blocks, 0)
    seen = {(a.metadata or {}).get("claude", {}).get("uuid") for a in thread.actions}
    seen |= {a.data.get("uuid") for a in thread.actions if isinstance(getattr(a, "data", None), dict)}
    assert {r["uuid"] for r in rows if "uuid" in r} <= seen


def test_tool_calls_pair_with_returns_and_keep_tool_use_result() -> None:
    for sid in (BACKGROUND, FOREGROUND, SDK_RUN):
        pairs = tool_pairs(session(sid))
        assert [p.tool_name for p in pairs] == ["Bash", "Agent"]
        assert all(p.status == "success" for p in pairs)
    agent_return = next(p.ret for p in tool_pairs(session(BACKGROUND)) if p.tool_name == "Agent")
    assert agent_return is not None and agent_return.metadata["claude"]["toolUseResult"]["status"] == "async_launched"
    bash_return = next(p.ret for p in tool_pairs(session(FOREGROUND)) if p.tool_name == "Bash")
    assert bash_return is not None and bash_return.content.startswith("hello-from-bash")
    assert bash_return.metadata["claude"]["toolUseResult"]["stdout"] == "hello-from-bash"


def test_subagent_is_an_agent_linked_to_the_agent_call() -> None:
    thread = session(FOREGROUND)
    meta = orjson.loads(next((PROJECT / FOREGROUND / "subagents").glob("*.meta.json")).read_bytes())
    sub = thread.agents["afaccb42b23698e5d"]
    assert sub.agent_name == "general-purpose: Count files"
    assert sub.metadata["parent_tool_call_id"] == meta["toolUseId"] == AGENT_CALL
    assert sub.metadata["model_name"] == "claude-sonnet-4-5"
    call = next(a for a in thread.actions if a.action_type == "tool_call" and a.tool_name == "Agent")
    assert call.agent_id == "main" and call.tool_call_id == AGENT_CALL
    own = [a for a in thread.actions if getattr(a, "agent_id", None) == sub.agent_id or (a.metadata or {}).get("to_agent_id") == sub.agent_id]
    assert own and all(a.sequence > call.sequence and a.timestamp >= call.timestamp for a in own)
    assert all((a.metadata or {}).get("parent_tool_call_id") == AGENT_CALL for a in own if a.action_type != "system.agent_join")
    join = next(a for a in thread.actions if a.action_type == "system.agent_join")
    assert join.data == {"agent_id": sub.agent_id, "invited_by": "main", "tool_call_id": AGENT_CALL,
                         "agent_type": "general-purpose", "description": "Count files"}
    reply = next(a for a in own if a.action_type == "assistant_message")
    assert reply.content == "Subagent report: 42 files."
    # the parent's tool_return stays where it is: after the call, in the main chain
    ret = next(a for a in thread.actions if a.action_type == "tool_return" and a.tool_call_id == AGENT_CALL)
    assert ret.sequence > reply.sequence


def test_parallel_tool_results_follow_the_forked_chain() -> None:
    thread = session(BACKGROUND)
    order = [(a.action_type, getattr(a, "tool_name", None)) for a in thread.actions if a.action_type in ("tool_call", "tool_return")]
    assert order == [("tool_call", "Bash"), ("tool_call", "Agent"), ("tool_return", "Agent"), ("tool_return", "Bash")]
    stamps = [a.timestamp for a in thread.actions]
    assert stamps == sorted(stamps)


def test_chain_order_not_file_order() -> None:
    """parentUuid decides: a line written before its parent comes after it."""
    sid = "s-1"
    rows = [
        {"type": "user", "uuid": "a", "parentUuid": None, "sessionId": sid, "timestamp": "2026-01-01T00:00:00Z", "message": {"role": "user", "content": "hi"}},
        {"type": "assistant", "uuid": "c", "parentUuid": "b", "sessionId": sid, "timestamp": "2026-01-01T00:00:02Z",
         "message": {"id": "m2", "model": "claude-sonnet-4-5", "role": "assistant", "stop_reason": "end_turn", "content": [{"type": "text", "text": "second"}]}},
        {"type": "assistant", "uuid": "b", "parentUuid": "a", "sessionId": sid, "timestamp": "2026-01-01T00:00:01Z",
         "message": {"id": "m1", "model": "claude-sonnet-4-5", "role": "assistant", "stop_reason": "end_turn", "content": [{"type": "text", "text": "first"}]}},
        {"type": "assistant", "uuid": "d", "parentUuid": "gone", "sessionId": sid, "timestamp": "2026-01-01T00:00:03Z",
         "message": {"id": "m3", "role": "assistant", "stop_reason": "end_turn", "content": [{"type": "text", "text": "orphan"}]}},
    ]
    thread = tl.read(b"\n".join(orjson.dumps(r) for r in rows), strict=False)
    assert [a.content for a in thread.actions] == ["hi", "first", "second", "orphan"]
    assert [(p.rule, p.line) for p in thread.problems] == [("chain", 4)]


# --- usage ------------------------------------------------------------------------------------


@pytest.mark.parametrize("sid", [BACKGROUND, FOREGROUND, SDK_RUN])
def test_usage_once_per_message_equals_cost_state(sid: str) -> None:
    thread = session(sid)
    files = [PROJECT / f"{sid}.jsonl", *(PROJECT / sid / "subagents").glob("*.jsonl")]
    message_ids = {r["message"]["id"] for f in files for r in lines(f) if r.get("type") == "assistant"}
    with_usage = [a for a in thread.actions if getattr(a, "usage", None) is not None]
    assert len(with_usage) == len(message_ids)  # one per API message, never per line
    cost_state = [r for r in lines(PROJECT / f"{sid}.jsonl") if r["type"] == "cost-state"][-1]
    assert usage_totals(with_usage) == wire_totals(cost_state["modelUsage"])
    assert thread.metadata["total_cost_usd"] == cost_state["totalCostUSD"]


def test_main_chain_usage_equals_the_result_message() -> None:
    transcript = session(FOREGROUND)
    stream = tl.read(FIX / "stream_json_sync_subagent_partial_messages.jsonl")
    result = lines(FIX / "stream_json_sync_subagent_partial_messages.jsonl")[-1]
    assert result["type"] == "result"
    expected = {"inputTokens": result["usage"]["input_tokens"], "outputTokens": result["usage"]["output_tokens"],
                "cacheReadInputTokens": result["usage"]["cache_read_input_tokens"],
                "cacheCreationInputTokens": result["usage"]["cache_creation_input_tokens"]}
    for thread in (transcript, stream):  # stream: message_delta events make the snapshots final
        main = [a for a in thread.actions if getattr(a, "agent_id", None) == "main"]
        assert usage_totals(main) == expected
    assert stream.metadata["total_cost_usd"] == result["total_cost_usd"]
    assert stream.metadata["model_usage"] == result["modelUsage"]
    assert stream.metadata["usage"]["output_tokens"] == result["usage"]["output_tokens"]


def test_frames_price_claude_actions_like_the_cli() -> None:
    """A transcript's cost is Claude Code's own (the last cost-state total, subagents included),
    and the thread's usage rows priced by genai-prices agree with it: shown once, not added."""
    frames = tl.load(PROJECT)
    threads = frames.threads.set_index("thread_id")
    priced = frames.usage.groupby("thread_id", observed=True)["cost_usd"].sum()
    for sid in (BACKGROUND, FOREGROUND, SDK_RUN):
        cost_state = [r for r in lines(PROJECT / f"{sid}.jsonl") if r["type"] == "cost-state"][-1]
        assert (threads.loc[sid, "cost_usd"], threads.loc[sid, "cost_source"]) == (cost_state["totalCostUSD"], "reported")
        assert priced.loc[sid] == pytest.approx(cost_state["totalCostUSD"], rel=1e-6)
    assert set(frames.actions.loc[frames.actions.action_type == "tool_call", "model_name"].astype(str)) == {"claude-sonnet-4-5"}


def test_a_streams_cost_is_what_its_runs_cost_not_the_session_so_far() -> None:
    """The result's ``total_cost_usd`` after a resume counts the runs before it too; a stream's
    cost is its results' ``model_usage_since_last_result`` costs, so the first run's file and the
    resumed run's file add up to the session's total, counted once."""
    frames = tl.load(GENERATED, progress=False)
    cost = {Path(str(s)).name: (c, src) for s, c, src in zip(frames.threads["source"], frames.threads["cost_usd"], frames.threads["cost_source"], strict=True)}
    first = [r for r in lines(GENERATED / "foreground.stream.jsonl") if r["type"] == "result"][-1]
    resumed = [r for r in lines(GENERATED / "resumed.stream.jsonl") if r["type"] == "result"][-1]
    since = sum(u["costUSD"] for u in resumed["model_usage_since_last_result"].values())
    assert cost["resumed.stream.jsonl"] == (since, "reported") and since < resumed["total_cost_usd"]
    assert cost["foreground.stream.jsonl"] == (first["total_cost_usd"], "reported")  # a first run: its total is its own
    assert cost["foreground.stream.jsonl"][0] + cost["resumed.stream.jsonl"][0] == pytest.approx(resumed["total_cost_usd"], rel=1e-12)
    sdk = tl.read(FIX / "sdk_query_parsed_messages.json")  # the SDK's ResultMessage keeps only the session total
    assert sdk.metadata["cost_usd"] == sdk.metadata["total_cost_usd"] == 0.027534


# --- stream-json and SDK messages -----------------------------------------------------------


def test_stream_json_has_the_transcripts_shape() -> None:
    transcript = shape(session(BACKGROUND))
    stream = tl.read(FIX / "stream_json_background_subagent.jsonl")
    streamed = shape(stream)
    assert streamed == [x for x in transcript if x in streamed]
    assert {x[0] for x in transcript if x not in streamed} == {"user_message"}  # prompts are not echoed
    assert stream.agents["a8bcae662df56d596"].metadata["parent_tool_call_id"] == AGENT_CALL
    snapshot = next(a for a in stream.actions if a.action_type == "assistant_message")
    assert snapshot.metadata["claude"]["usage_is_snapshot"] is True  # no partial messages: output_tokens is a snapshot


def test_sdk_message_objects_read_like_stream_json() -> None:
    from claude_agent_sdk._internal.message_parser import parse_message

    raw = lines(FIX / "stream_json_sync_subagent_partial_messages.jsonl")
    objects = [m for m in (parse_message(r) for r in raw) if m is not None]
    assert {type(m).__name__ for m in objects} >= {"AssistantMessage", "UserMessage", "ResultMessage", "TaskStartedMessage", "StreamEvent"}
    from_objects = claude.from_claude(objects)
    from_lines = tl.read(FIX / "stream_json_sync_subagent_partial_messages.jsonl")
    assert isinstance(from_objects, Thread)
    assert shape(from_objects) == shape(from_lines)
    assert usage_totals(from_objects.actions) == usage_totals(from_lines.actions)
    assert from_objects.metadata["total_cost_usd"] == from_lines.metadata["total_cost_usd"]


def test_sdk_dump_has_the_transcripts_shape() -> None:
    dumped = tl.read(FIX / "sdk_query_parsed_messages.json")
    transcript = shape(session(SDK_RUN))
    assert shape(dumped) == [x for x in transcript if x in shape(dumped)]
    assert [r["total_cost_usd"] for r in dumped.metadata["claude"]["results"]] == [0.020646, 0.027534]
    assert dumped.metadata["total_cost_usd"] == 0.027534  # cumulative for the session after resume
    assert core_counts(dumped)["assistant_message"] == 3


# --- bad input ------------------------------------------------------------------------------


@pytest.fixture()
def project_copy(tmp_path: Path) -> Path:
    target = tmp_path / "-home-user-proj"
    shutil.copytree(PROJECT, target)
    return target


def test_truncated_last_line_is_reported_and_the_rest_read(project_copy: Path) -> None:
    path = project_copy / f"{BACKGROUND}.jsonl"
    data = path.read_bytes().rstrip(b"\n")
    path.write_bytes(data[: len(data) - 40])
    n = len(data.splitlines())
    thread = tl.read(path, strict=False)
    cut = [p for p in thread.problems if p.rule == "truncated"]
    assert len(cut) == 1 and cut[0].line == n and [p.rule for p in thread.problems] == ["truncated"]
    assert f"{path}:{n}" in cut[0].message and "cut-off last line" in cut[0].message
    assert thread.account is not None and (thread.account.kept, thread.account.failed) == (1, 0)
    assert core_counts(thread) == core_counts(session(BACKGROUND))
    assert thread.actions[-1].action_type == "system.unparsed_line"
    with pytest.raises(tl.ThreadError, match="truncated"):
        tl.read(path)


def test_unknown_entry_type_is_kept_and_reported(project_copy: Path) -> None:
    path = project_copy / f"{FOREGROUND}.jsonl"
    entry = {"type": "hologram-snapshot", "sessionId": FOREGROUND, "frames": [1, 2, 3]}
    path.write_bytes(path.read_bytes() + orjson.dumps(entry) + b"\n")
    thread = tl.read(path, strict=False)
    kept = [a for a in thread.actions if a.action_type == "system.unknown_entry"]
    assert len(kept) == 1 and kept[0].data["frames"] == [1, 2, 3]
    (problem,) = [p for p in thread.problems if p.rule == "unknown-type"]
    line = len(lines(path))
    assert problem.line == line and f"{path}:{line}" in problem.message and "hologram-snapshot" in problem.message


def test_subagent_without_sidecar_is_linked_from_the_transcript(project_copy: Path) -> None:
    """CLI versions before sidecars wrote none: the agent is linked from the Agent call's result
    (``toolUseResult.agentId``) with no problem; only an agent nothing links is reported."""
    meta = next((project_copy / BACKGROUND / "subagents").glob("*.meta.json"))
    meta.unlink()
    thread = tl.read(project_copy / f"{BACKGROUND}.jsonl")
    sub = thread.agents["a8bcae662df56d596"]
    assert sub.metadata["parent_tool_call_id"] == AGENT_CALL  # found from toolUseResult.agentId
    assert sub.metadata["agent_type"] == "general-purpose"  # from the Agent call's input
    assert core_counts(thread) == core_counts(session(BACKGROUND))
    session_file = project_copy / f"{BACKGROUND}.jsonl"
    session_file.write_text(session_file.read_text().replace("a8bcae662df56d596", "elsewhere"))  # no result or notification names it
    by_prompt = tl.read(session_file)  # older CLIs: the one Agent/Task call whose prompt is the subagent's first prompt
    assert by_prompt.agents["a8bcae662df56d596"].metadata["parent_tool_call_id"] == AGENT_CALL
    sub_file = next((project_copy / BACKGROUND / "subagents").glob("*.jsonl"))
    sub_file.write_text(sub_file.read_text().replace("SUBAGENT-TASK", "another task", 1))
    unlinked = tl.read(session_file, strict=False)
    (problem,) = unlinked.problems
    assert problem.rule == "subagent-meta" and "agent-a8bcae662df56d596.jsonl" in problem.message and meta.name in problem.message
    assert "not linked" in problem.message and "parent_tool_call_id" not in unlinked.agents["a8bcae662df56d596"].metadata


def test_an_unreadable_sidecar_is_reported(project_copy: Path) -> None:
    meta = next((project_copy / BACKGROUND / "subagents").glob("*.meta.json"))
    meta.write_text("{not json")
    thread = tl.read(project_copy / f"{BACKGROUND}.jsonl", strict=False)
    (problem,) = thread.problems
    assert problem.rule == "subagent-meta" and "cannot be read" in problem.message and "linked to tool call" in problem.message


def test_a_broken_file_does_not_stop_the_folder(project_copy: Path) -> None:
    (project_copy / "empty.jsonl").write_bytes(b"")
    (project_copy / "garbage.jsonl").write_bytes(b"not json at all\n")
    frames = tl.load(project_copy)
    assert set(frames.threads.thread_id) >= {BACKGROUND, FOREGROUND, SDK_RUN}
    messages = " ".join(frames.problems.message.astype(str))
    assert "empty.jsonl is empty" in messages and "garbage.jsonl: no format threadlab reads recognises this (text, not JSON)" in messages
    assert set(frames.problems.rule) == {"empty", "format"}


# --- writing back, CLI ----------------------------------------------------------------------


@pytest.mark.parametrize("sid", [BACKGROUND, SDK_RUN])
def test_transcript_round_trip(sid: str) -> None:
    thread = session(sid)
    again = tl.read(claude.from_thread(thread))
    assert [(a.action_type, getattr(a, "agent_id", None), getattr(a, "tool_call_id", None)) for a in thread.actions] == [
        (a.action_type, getattr(a, "agent_id", None), getattr(a, "tool_call_id", None)) for a in again.actions
    ]
    assert usage_totals(again.actions) == usage_totals(thread.actions)
    assert again.metadata["claude"]["entry_counts"] == thread.metadata["claude"]["entry_counts"]
    (sub,) = [a for a in thread.agents if a != "main"]  # the subagent file was written inline; its link survives
    assert again.agents[sub].metadata["parent_tool_call_id"] == thread.agents[sub].metadata["parent_tool_call_id"] == AGENT_CALL


def test_any_thread_writes_as_a_readable_transcript() -> None:
    thread = tl.read(Path(__file__).parent.parent / "data" / "threadprotocol" / "spec_example_weather.json")
    again = tl.read(claude.from_thread(thread))
    assert core_counts(again) == core_counts(thread)
    assert [p.status for p in tool_pairs(again)] == [p.status for p in tool_pairs(thread)]


def test_cli_summary_of_a_project_folder(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli_main(["summary", str(PROJECT)]) == 0
    out = capsys.readouterr().out
    assert all(sid in out for sid in (BACKGROUND, FOREGROUND, SDK_RUN)) and "claude-code" in out


def test_cli_summary_of_the_bundled_data(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli_main(["summary", str(DATA)]) == 0
    out = capsys.readouterr().out
    assert "claude-code" in out and "problem(s)" not in out


def test_block_types_beyond_the_fixtures() -> None:
    """Hand-written edge cases in the CLI's shape: image input, redacted thinking, a server tool
    with its result, a failing tool, a meta line and a compaction boundary."""
    sid = "edge"

    def line(uuid: str, parent: str | None, kind: str, second: int, **fields: Any) -> dict[str, Any]:
        return {"type": kind, "uuid": uuid, "parentUuid": parent, "sessionId": sid, "timestamp": f"2026-01-01T00:00:{second:02d}Z", **fields}

    def block(uuid: str, parent: str, second: int, content: dict[str, Any]) -> dict[str, Any]:
        message = {"id": "m1", "role": "assistant", "model": "claude-sonnet-4-5", "stop_reason": "tool_use", "content": [content],
                   "usage": {"input_tokens": 10, "output_tokens": 5, "cache_read_input_tokens": 100, "cache_creation_input_tokens": 0}}
        return line(uuid, parent, "assistant", second, message=message)

    image = {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "iVBORw0KGgo="}}
    rows = [
        line("u1", None, "user", 1, message={"role": "user", "content": [image, {"type": "text", "text": "what is this?"}]}),
        block("a1", "u1", 2, {"type": "redacted_thinking", "data": "opaque=="}),
        block("a2", "a1", 3, {"type": "server_tool_use", "id": "srvtoolu_1", "name": "web_search", "input": {"query": "png"}}),
        block("a3", "a2", 4, {"type": "web_search_tool_result", "tool_use_id": "srvtoolu_1", "content": [{"type": "web_search_result", "url": "https://e.org"}]}),
        block("a4", "a3", 5, {"type": "tool_use", "id": "toolu_1", "name": "Read", "input": {"file_path": "/nope"}}),
        line("u2", "a4", "user", 6, message={"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_1", "content": "no such file", "is_error": True}]},
             toolUseResult="Error: no such file"),
        line("u3", "u2", "user", 7, isMeta=True, message={"role": "user", "content": "<local-command-caveat>meta</local-command-caveat>"}),
        line("s1", None, "system", 8, subtype="compact_boundary", logicalParentUuid="u3", compactMetadata={"trigger": "auto"}),
    ]
    thread = tl.read(b"\n".join(orjson.dumps(r) for r in rows))
    kinds = [a.action_type for a in thread.actions]
    assert kinds == ["user_message", "thinking", "tool_call", "tool_return", "tool_call", "tool_return", "system.meta_message", "system.compact_boundary"]
    prompt, thinking, search, found, read, failed = thread.actions[:6]
    assert prompt.content[0].media_category == "image" and prompt.content[0].data == "iVBORw0KGgo="
    assert thinking.content is None and thinking.metadata["claude"]["block"] == {"type": "redacted_thinking", "data": "opaque=="}
    assert thinking.usage is not None and thinking.usage.input_tokens == 110  # no text in the message: its first block carries it
    assert (search.tool_name, found.tool_name, found.status) == ("web_search", "web_search", "success")
    assert (read.tool_name, failed.status, failed.metadata["claude"]["toolUseResult"]) == ("Read", "error", "Error: no such file")
    assert thread.actions[-1].data["logicalParentUuid"] == "u3"
    again = tl.read(claude.from_thread(thread))
    assert [a.action_type for a in again.actions] == kinds
    assert again.to_dict() == thread.to_dict()  # redacted thinking, server tools, images and meta lines come back exactly


# --- the bundled data: a fresh run of the real CLI (data/claude_code/generate.py) -----------

DATA_SESSIONS = sorted((DATA / "projects").glob("*/*.jsonl"))
GENERATED = FIX / "generated"


def data_session(first_prompt: str) -> tuple[Path, Thread]:
    for path in DATA_SESSIONS:
        thread = tl.read(path)
        if thread.title == first_prompt:
            return path, thread
    raise AssertionError(f"no session starting {first_prompt!r} in {DATA}")


@pytest.mark.parametrize("prompt", ["PLEASE-RUN the plan", "PLEASE-RUN SYNC the plan"])
def test_bundled_sessions(prompt: str) -> None:
    path, thread = data_session(prompt)
    assert validate(thread) == [] and thread.problems == []
    pairs = tool_pairs(thread)
    assert sorted((p.tool_name, p.status) for p in pairs) == [("Agent", "success"), ("Bash", "error"), ("Bash", "success"), ("Bash", "success")]
    failed = next(p.ret for p in pairs if p.status == "error")
    assert failed is not None and "No such file" in failed.metadata["claude"]["toolUseResult"]
    (sub,) = [a for a in thread.agents if a != "main"]
    sub_calls = [p for p in pairs if p.call is not None and p.call.agent_id == sub]
    assert len(sub_calls) == 1 and sub_calls[0].ret is not None and sub_calls[0].ret.content.strip().startswith("3")
    agent_call = next(p.call for p in pairs if p.tool_name == "Agent")
    assert thread.agents[sub].metadata["parent_tool_call_id"] == agent_call.tool_call_id
    cost_state = [r for r in lines(path) if r["type"] == "cost-state"][-1]
    assert usage_totals(thread.actions) == wire_totals(cost_state["modelUsage"])


def test_bundled_streams_match_their_transcripts() -> None:
    _, background = data_session("PLEASE-RUN the plan")
    streamed = shape(tl.read(GENERATED / "background.stream.jsonl"))
    assert streamed == [x for x in shape(background) if x in streamed]
    assert len(streamed) >= len(shape(background)) - 3  # prompts are not echoed; the rest overlaps
    _, foreground = data_session("PLEASE-RUN SYNC the plan")
    both_turns = (GENERATED / "foreground.stream.jsonl").read_bytes() + (GENERATED / "resumed.stream.jsonl").read_bytes()
    stream = tl.read(both_turns)
    assert shape(stream) == [x for x in shape(foreground) if x in shape(stream)]
    results = [r for r in lines(GENERATED / "resumed.stream.jsonl") if r["type"] == "result"]
    assert stream.metadata["total_cost_usd"] == results[-1]["total_cost_usd"]


# --- containers, look-alikes and lines the reader once failed on ---------------------------


def test_a_tool_result_without_tool_use_id_is_kept_not_a_crash() -> None:
    """Such a line raised KeyError even in lenient mode; it is now kept as it came, named."""
    rows = [{"type": "user", "uuid": "u1", "parentUuid": None, "sessionId": "s", "message": {"role": "user", "content": "go"}},
            {"type": "user", "uuid": "u2", "parentUuid": "u1", "sessionId": "s",
             "message": {"role": "user", "content": [{"type": "tool_result", "content": "queued output"}, {"type": "text", "text": "and this"}]}}]
    thread = tl.read(b"\n".join(orjson.dumps(r) for r in rows), strict=False)
    assert [a.action_type for a in thread.actions] == ["user_message", "system.unknown_block", "user_message"]
    (problem,) = thread.problems
    assert problem.rule == "schema" and ":2 content block 0: a tool_result without tool_use_id" in problem.message
    assert thread.account is not None and (thread.account.records, thread.account.kept) == (3, 1)
    with pytest.raises(tl.ThreadError, match="tool_result without tool_use_id"):
        tl.read(b"\n".join(orjson.dumps(r) for r in rows))


def test_stream_json_saved_as_an_array_reads_as_its_lines(tmp_path: Path) -> None:
    source = FIX / "stream_json_background_subagent.jsonl"
    as_array = tmp_path / "stream.json"
    as_array.write_bytes(orjson.dumps(lines(source), option=orjson.OPT_INDENT_2))
    assert detect_format(Source(as_array)).NAME == "claude-code"
    assert tl.read(as_array).to_dict() == tl.read(source).to_dict()
    # ``claude -p --output-format json --verbose`` prints such an array; without --verbose, the result alone
    verbose = [{"type": "system", "subtype": "init", "session_id": "s1", "model": "claude-sonnet-4-5"},
               {"type": "assistant", "session_id": "s1", "message": {"id": "m", "role": "assistant", "content": [{"type": "text", "text": "hi"}]}},
               {"type": "result", "subtype": "success", "is_error": False, "num_turns": 1, "session_id": "s1", "total_cost_usd": 0.01}]
    thread = tl.read(orjson.dumps(verbose))
    assert [a.action_type for a in thread.actions] == ["system.init", "assistant_message", "system.result"] and thread.metadata["cost_usd"] == 0.01
    result_only = tl.read(orjson.dumps(verbose[-1], option=orjson.OPT_INDENT_2), strict=False)
    assert [p.rule for p in result_only.problems] == ["no-actions"] and result_only.metadata["cost_usd"] == 0.01


def test_a_transcript_saved_as_an_array_keeps_its_chain(tmp_path: Path) -> None:
    path = tmp_path / "session.json"
    path.write_bytes(orjson.dumps(lines(PROJECT / f"{SDK_RUN}.jsonl")))
    thread = tl.read(path)
    assert thread.thread_id == "session" and shape(thread) == [x for x in shape(session(SDK_RUN)) if x[1] in (None, "main")]


def test_claude_ai_export_in_memory() -> None:
    export = {"loglines": [{"type": "user", "timestamp": "2026-01-01T00:00:00Z", "message": {"role": "user", "content": "hello"}},
                           {"type": "assistant", "timestamp": "2026-01-01T00:00:01Z", "message": {"role": "assistant", "content": [{"type": "text", "text": "hi"}]}}]}
    thread = claude.from_claude(export)
    assert isinstance(thread, Thread) and [a.action_type for a in thread.actions] == ["user_message", "assistant_message"]
    assert thread.thread_id == claude.from_claude(export).thread_id  # an id made from the content: the same every time


@pytest.mark.parametrize("data", [
    b'{\n\t"entries": [\n\t\t{"timestamp": "2025-09-22T10:00:00Z", "sessionId": "s", "model": "claude-sonnet-4", "costUSD": null}\n\t]\n}',
    b'[{"role": "user", "content": "hi"}, {"role": "assistant", "content": "hello"}]',
    b'[{"type": "message", "role": "user", "content": "agency-swarm item"}]',
    b'{"type": "message", "role": "assistant", "content": [{"type": "text", "text": "an Anthropic API message"}]}\n',
    b'{"loglines": [{"level": "info", "msg": "a log line"}]}',
], ids=["usage-export", "chat-messages", "agents-sdk-items", "anthropic-message", "other-loglines"])
def test_look_alikes_are_not_claude(data: bytes) -> None:
    assert not claude.detect(Source(data, name="x.json"))


def test_a_session_whose_first_line_is_broken_still_keeps_its_subagents(project_copy: Path) -> None:
    path = project_copy / f"{BACKGROUND}.jsonl"
    path.write_bytes(b"{not json\n" + path.read_bytes())
    frames = tl.load(project_copy, progress=False)
    assert sorted(frames.threads["thread_id"]) == sorted([BACKGROUND, FOREGROUND, SDK_RUN])  # no subagent file read as a session
    broken = tl.read(path, strict=False)
    assert "a8bcae662df56d596" in broken.agents and [p.rule for p in broken.problems] == ["json"]
