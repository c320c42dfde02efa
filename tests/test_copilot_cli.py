"""GitHub Copilot CLI sessions (``threadlab/formats/copilot_cli``): the real program's events
file against the raw counter (``tests/wild/rules_copilot.py``, no threadlab), usage placed on the
answer it names, subagents, unknown events kept, a live file's torn last line, the single-file
generation, and the ``~/.copilot`` home read as a folder."""

from __future__ import annotations

import warnings
from pathlib import Path

import orjson
import pytest

import threadlab as tl
from tests.wild.compare import disagreements
from threadlab.core.problems import ThreadError
from threadlab.formats import copilot_cli
from threadlab.formats.common.source import Source

HERE = Path(__file__).resolve().parent
HOME = HERE / "fixtures" / "copilot_cli" / "copilot-1.0.102" / "copilot-home"
SESSIONS = sorted(HOME.glob("session-state/*/events.jsonl"))
LIVE = next(p for p in SESSIONS if b"Create notes.txt" in p.read_bytes())  # a tool call
SUB = next(p for p in SESSIONS if b"subagent.started" in p.read_bytes())  # a subagent's
RESUMED = next(p for p in SESSIONS if b"session.resume" in p.read_bytes())  # run twice (--resume)


def _jsonl(*records: object) -> bytes:
    return b"".join(orjson.dumps(r) + b"\n" for r in records)


def _event(n: int, kind: str, **data: object) -> dict[str, object]:
    return {"type": kind, "data": data, "id": f"e{n}", "timestamp": f"2026-01-01T00:00:{n:02d}.000Z", "parentId": f"e{n - 1}" if n > 1 else None}


START = _event(1, "session.start", sessionId="s-1", version=1, producer="copilot-agent", copilotVersion="1.0.102", startTime="2026-01-01T00:00:01.000Z")


@pytest.mark.parametrize("path", SESSIONS, ids=lambda p: p.parent.name)
def test_the_real_programs_sessions_count_as_the_raw_counter_does(path: Path) -> None:
    assert disagreements(path, "copilot-cli") == {}


def test_the_real_programs_subagent_is_an_agent_of_its_own() -> None:
    thread = tl.read(SUB)
    sub = next(a for a in thread.agents if a != "copilot")
    assert thread.agents[sub].agent_name == "finder" and thread.agents[sub].metadata["agentType"] == "task"
    join = next(a for a in thread.actions if a.action_type == "system.agent_join")
    assert join.data == {"agent_id": sub, "invited_by": "copilot", "tool_call_id": "call_task_1"}
    prompt = next(a for a in thread.actions if a.action_type == "user_message" and a.sequence > join.sequence)
    assert prompt.metadata["author"] == "harness" and prompt.metadata["harness"] == "task_prompt"  # the envelope's agentId names the subagent
    answers = [(a.agent_id, a.content) for a in thread.actions if a.action_type == "assistant_message"]
    assert answers == [("copilot", "I'll ask a subagent."), (sub, "notes.txt says hello."), ("copilot", "The subagent found notes.txt.")]
    assert [a.agent_id for a in thread.actions if a.action_type == "tool_call"] == ["copilot", sub]
    assert copilot_cli.from_thread(thread) == SUB.read_bytes()


def test_the_1_0_102_session_reads_as_the_program_wrote_it() -> None:
    thread = tl.read(LIVE)
    kinds = [a.action_type for a in thread.actions]
    assert kinds == ["user_message", "system.prompt", "thinking", "assistant_message", "tool_call", "tool_return", "assistant_message", "system.session_end"]
    assert thread.thread_id == LIVE.parent.name and thread.title == "Create notes.txt saying hello."
    first, last = thread.actions[3], thread.actions[6]
    # each usage record comes before the answer whose apiCallId it names
    assert (first.usage.input_tokens, first.usage.cache_read_tokens, last.usage.input_tokens, last.usage.cache_read_tokens) == (1300, 0, 1600, 256)
    assert thread.actions[4].args["command"].startswith("printf") and thread.actions[5].content.startswith("hello\n")
    assert thread.account.records == len(LIVE.read_bytes().splitlines()) and thread.account.unconverted == 0
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        written = copilot_cli.from_thread(thread)
    assert written == LIVE.read_bytes()  # every event given back as it came


def test_a_resumed_session_is_one_thread_and_its_last_shutdown_holds_the_whole_runs_totals() -> None:
    thread = tl.read(RESUMED)
    kinds = [a.action_type for a in thread.actions]
    assert kinds.count("user_message") == 2 and kinds.count("system.session_end") == 2
    assert kinds.index("system.session_resumed") == kinds.index("system.session_end") + 1
    answers = [a for a in thread.actions if a.action_type == "assistant_message"]
    assert [a.content for a in answers] == ["Hi.", "Goodbye."]
    # the second run's session.shutdown counts both runs' calls (measured on 1.0.102): the sum of the records
    assert thread.metadata["usage_total"]["input_tokens"] == sum(a.usage.input_tokens for a in answers)
    frames = tl.load(RESUMED, progress=False)
    assert list(frames.threads["tokens_source"]) == ["reported"] and len(frames.problems) == 0
    assert copilot_cli.from_thread(thread) == RESUMED.read_bytes()


def test_subagents_unknown_events_and_figures_after_their_answer() -> None:
    data = _jsonl(
        START,
        _event(2, "user.message", content="look around"),
        _event(3, "assistant.message", messageId="m1", content="", toolRequests=[{"toolCallId": "t1", "name": "task", "arguments": {"prompt": "find it"}}]),
        _event(4, "assistant.usage", model="m", inputTokens=10, outputTokens=2, cacheReadTokens=4),
        _event(5, "subagent.started", toolCallId="t1", agentName="explore", agentDisplayName="Explore"),
        _event(6, "user.message", content="find it", parentToolCallId="t1"),
        _event(7, "assistant.message", messageId="m2", content="found", toolRequests=[], parentToolCallId="t1"),
        _event(8, "subagent.completed", toolCallId="t1", agentName="explore"),
        _event(9, "tool.execution_complete", toolCallId="t1", success=False, result={"content": "no"}),
        _event(10, "session.brand_new", x=1),
        {"not": "an event"},
    )
    (thread,) = tl.read_all(Source(data, name="events.jsonl"), strict=False)
    kinds = [a.action_type for a in thread.actions]
    assert kinds == ["user_message", "tool_call", "system.agent_join", "user_message", "assistant_message", "system.subagent_completed", "tool_return",
                     "system.unknown_event", "system.unknown_event"]
    call, join, prompt, answer, back = thread.actions[1], thread.actions[2], thread.actions[3], thread.actions[4], thread.actions[6]
    assert call.usage == {"input_tokens": 10, "output_tokens": 2, "cache_read_tokens": 4}  # a message of calls only: its call holds them
    assert join.data["agent_id"] == answer.agent_id == "subagent-t1" and thread.agents["subagent-t1"].agent_name == "Explore"
    assert prompt.metadata["author"] == "harness" and prompt.metadata["harness"] == "task_prompt"
    assert back.status == "error" and back.tool_name == "task"
    assert thread.account.records == 11 and thread.account.unconverted == 2
    assert [p.rule for p in thread.problems] == ["unknown-type", "unknown-type"]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        again = tl.read_all(Source(copilot_cli.from_thread(thread), name="events.jsonl"), strict=False)[0]
    assert not caught, [str(w.message) for w in caught]
    assert again.to_dict() == thread.to_dict()


def test_a_torn_last_line_is_a_problem_and_the_rest_loads(tmp_path: Path) -> None:
    lines = LIVE.read_bytes().splitlines(keepends=True)
    last = max(i for i, line in enumerate(lines) if b'"assistant.message"' in line)
    torn = tmp_path / "events.jsonl"
    torn.write_bytes(b"".join(lines[:last]) + lines[last][: len(lines[last]) // 2])
    (thread,) = tl.read_all(torn, strict=False)
    # the torn answer's usage record was written before it: its figures name no answer left
    assert [(p.rule, p.line) for p in thread.problems] == [("truncated", last + 1), ("usage", None)]
    assert [a.action_type for a in thread.actions][-1] == "tool_return"  # all but the answer it was writing
    with pytest.raises(ThreadError, match="truncated"):
        tl.read(torn)
    frames = tl.load(torn, progress=False)
    assert list(frames.problems["rule"]) == ["truncated", "usage"] and len(frames.threads) == 1


def test_the_copilot_home_reads_as_a_folder_and_lists_what_it_skips() -> None:
    frames = tl.load(HOME, progress=False)
    assert list(frames.threads["format"]) == ["copilot-cli"] * 3 and len(frames.problems) == 0
    assert sorted(frames.threads["n_human_prompts"]) == [1, 1, 2] and sorted(frames.threads["n_harness_turns"]) == [0, 0, 1]
    reasons = {Path(p).name: r for p, r in zip(frames.skipped["path"], frames.skipped["reason"], strict=True)}
    assert reasons["config.json"].startswith("a Copilot CLI home's config.json")
    assert reasons["logs"] == "a Copilot CLI home's process logs (no conversations)"
    assert reasons["workspace.yaml"].startswith("a Copilot CLI session's workspace.yaml")
    assert reasons[".workspace-fork.lock"].startswith("a hidden file")  # (the walk's own reason for dot names)
    assert set(reasons) == {"config.json", "logs", "settings.json.lock", "workspace.yaml", "checkpoints", "rewind-file-snapshots", ".workspace-fork.lock", ".session-operation-locks"}


def test_the_single_file_generation_reads_and_writes_as_events() -> None:
    session = {"sessionId": "h-1", "startTime": "2025-10-08T21:10:16.398Z", "chatMessages": [
        {"role": "system", "content": "You are Copilot."},
        {"role": "user", "content": "please list files"},
        {"role": "assistant", "content": "", "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "bash", "arguments": '{"command":"ls"}'}}]},
        {"role": "tool", "tool_call_id": "c1", "content": "a.txt"},
        {"role": "assistant", "content": "One file."},
        {"role": "critic", "content": "?"},
    ], "timeline": [{"type": "tool_call_completed", "toolTitle": "bash"}]}
    (thread,) = tl.read_all(Source(orjson.dumps(session), name="session_h-1.json"), strict=False)
    assert [a.action_type for a in thread.actions] == ["system.prompt", "user_message", "tool_call", "tool_return", "assistant_message", "system.unknown_message"]
    assert thread.actions[2].args == {"command": "ls"} and thread.actions[3].tool_name == "bash"
    assert thread.account.records == 6 and thread.account.unconverted == 1
    with pytest.warns(tl.WriteLoss, match="history-session-state"):
        written = copilot_cli.from_thread(thread)
    again = tl.read_all(Source(written, name="events.jsonl"), strict=False)[0]
    assert [a.action_type for a in again.actions if not a.action_type.startswith("system.")] == ["user_message", "tool_call", "tool_return", "assistant_message"]


def test_detection_needs_the_clis_events() -> None:
    assert copilot_cli.detect(Source(_jsonl(START), name="events.jsonl"))
    cut = _jsonl(_event(2, "user.message", content="hi"), _event(3, "assistant.turn_start", turnId="0"))
    assert copilot_cli.detect(Source(cut, name="events.jsonl"))  # a file without its start: events in the CLI's envelope
    assert not copilot_cli.detect(Source(_jsonl({"type": "user.message", "data": {"content": "hi"}}), name="a.jsonl"))
    assert not copilot_cli.detect(Source(_jsonl(_event(2, "message", content="hi")), name="a.jsonl"))
    assert not copilot_cli.detect(Source(_jsonl({"type": "session.start", "data": {"sessionId": "s"}}), name="a.jsonl"))
    assert not copilot_cli.detect(Source(orjson.dumps({"sessionId": "s", "messages": []}), name="a.json"))


def test_odd_events_are_kept_and_given_back_byte_for_byte() -> None:
    data = _jsonl(
        START,
        _event(2, "assistant.message", content="x", toolRequests=[3, {"toolCallId": "a", "name": "n"}]),  # no arguments at all
        {"type": "user.message", "data": {"content": None}, "id": "e3"},
        _event(4, "tool.execution_complete", toolCallId="a", success=False, error={"message": "boom"}),
        _event(5, "tool.execution_complete", toolCallId="b", result=[1, 2]),
        _event(6, "assistant.reasoning", reasoningId="r"),
        _event(7, "session.todos_changed", todos=[]),  # a type the CLI's schema declares: named after it
        _event(8, "session.compaction_complete", success=True, summaryContent="We wrote a file."),
    )
    (thread,) = tl.read_all(Source(data, name="events.jsonl"), strict=False)
    assert [(a.action_type, getattr(a, "content", None)) for a in thread.actions] == [
        ("assistant_message", "x"), ("system.unknown_tool_request", None), ("tool_call", None), ("user_message", ""),
        ("tool_return", "boom"), ("tool_return", [1, 2]), ("thinking", None), ("system.session_todos_changed", None),
        ("system.compaction", None)]
    assert thread.actions[-1].metadata["author"] == "harness" and thread.actions[-1].metadata["harness"] == "compaction_summary"
    assert [p.rule for p in thread.problems] == ["unknown-type", "schema", "tool-call-match"]
    assert copilot_cli.from_thread(thread) == data
