"""The Claude Code writer: what it read it gives back exactly (every fixture, the bundled data,
the public corpus), subagents and their sidecars included, in the dialect they came in; any
other thread comes back with the same messages, agents and tools, and a WriteLoss names what a
transcript cannot hold."""

from __future__ import annotations

import warnings
from pathlib import Path
from typing import Any

import orjson
import pytest

import threadlab as tl
from tests.wild.expected import listed_files
from threadlab.core import Thread, iter_text
from threadlab.core.loss import WriteLoss
from threadlab.core.model import CORE_ACTION_TYPES
from threadlab.formats import Source, claude

ROOT = Path(__file__).parent.parent
CLAUDE_FILES = sorted(
    p
    for base in (ROOT / "tests" / "fixtures" / "claude", ROOT / "data" / "claude_code", ROOT / "tests" / "fixtures" / "real" / "claude")
    for p in base.rglob("*.json*")
    if "subagents" not in p.parts and not p.name.startswith("agent-") and not p.name.endswith(".meta.json") and p not in listed_files()  # those: tests/wild
)
FOREIGN = [ROOT / "data" / "pydantic_ai" / "router_researcher.thread.json", ROOT / "data" / "threadprotocol" / "research_team_branch.thread.json",
           ROOT / "data" / "agency_swarm" / "ceo_worker_saved_messages.json", ROOT / "data" / "vercel_ai" / "ai6_agents.sse",
           ROOT / "data" / "aitp" / "aitp_flight_booking_thread.json", ROOT / "data" / "threadprotocol" / "spec_example_weather.json"]


def write(thread: Thread) -> tuple[bytes, list[WriteLoss]]:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        wire = claude.from_thread(thread)
    return wire, [w.message for w in caught if isinstance(w.message, WriteLoss)]


def projection(thread: Thread) -> list[tuple[Any, ...]]:
    return [(a.action_type, thread.agent_name(getattr(a, "agent_id", None)), "".join(iter_text(getattr(a, "content", None))),
             getattr(a, "tool_name", None), getattr(a, "tool_call_id", None), getattr(a, "status", None), orjson.dumps(getattr(a, "args", None)))
            for a in thread.actions if a.action_type in CORE_ACTION_TYPES]


@pytest.mark.parametrize("path", CLAUDE_FILES, ids=lambda p: str(p.relative_to(ROOT)))
def test_what_was_read_is_written_back_exactly(path: Path) -> None:
    threads = tl.read_all(path, strict=False)
    for thread in threads:
        wire, losses = write(thread)
        others = len(threads) - 1  # a file of several sessions: each is written alone, and the writer says what it left out
        assert [str(loss) for loss in losses] == ([f"the claude-code writer could not keep, of thread {thread.thread_id}: the file's other {others} session(s) "
                                                   "(each thread is written alone)"] if others else [])
        if others:  # written alone, a session's lines are another file (tests/test_corpus_classes.py)
            continue
        (again,) = tl.read_all(Source(wire, name=str(path)), strict=False)
        assert again.to_dict() == thread.to_dict()
        sidecars = sum(1 for line in wire.splitlines() if b'"type":"agent_metadata"' in line)  # a sidecar file is a line inline
        assert again.account is not None and thread.account is not None
        assert (again.account.records, again.account.unconverted) == (thread.account.records + sidecars, thread.account.unconverted)


def test_a_sessions_subagent_files_are_written_inline_with_their_sidecars() -> None:
    session = ROOT / "tests" / "fixtures" / "claude" / "projects" / "-home-user-proj" / "0ef0a474-bbb2-424e-a9c2-86afff841aa0.jsonl"
    thread = tl.read(session)
    lines = [orjson.loads(x) for x in write(thread)[0].splitlines()]
    sidecar = orjson.loads(next((session.parent / session.stem / "subagents").glob("*.meta.json")).read_bytes())
    (entry,) = [x for x in lines if x["type"] == "agent_metadata"]
    assert entry == {"type": "agent_metadata", **sidecar, "agentId": "a8bcae662df56d596"}
    own = [orjson.loads(x) for x in next((session.parent / session.stem / "subagents").glob("*.jsonl")).read_bytes().splitlines()]
    assert [x for x in lines if x.get("agentId") == "a8bcae662df56d596" and x["type"] != "agent_metadata"] == own


def test_stream_json_comes_back_as_stream_json() -> None:
    path = ROOT / "tests" / "fixtures" / "claude" / "stream_json_sync_subagent_partial_messages.jsonl"
    lines = [orjson.loads(x) for x in write(tl.read(path))[0].splitlines()]
    assert lines == [orjson.loads(x) for x in path.read_bytes().splitlines()]  # every line, stream events included, in order


@pytest.mark.parametrize("path", FOREIGN, ids=lambda p: p.name)
def test_any_thread_keeps_its_messages_agents_and_tools(path: Path) -> None:
    thread = tl.read(path, strict=False)
    wire, losses = write(thread)
    again = tl.read(Source(wire, name="written.jsonl"), strict=False)
    assert projection(again) == projection(thread)
    assert again.title == thread.title
    assert all(loss.format == "claude-code" and loss.lost for loss in losses)


def test_what_a_transcript_cannot_hold_is_named() -> None:
    thread = tl.read(ROOT / "data" / "threadprotocol" / "research_team.thread.json")
    _, (loss,) = write(thread)
    assert "tool return status validation_error (written as is_error)" in loss.lost
    assert any("system.tool_grant actions" in what for what in loss.lost)
    again = tl.read(Source(write(thread)[0], name="written.jsonl"), strict=False)
    assert [a.status for a in again.actions if a.action_type == "tool_return"] != [a.status for a in thread.actions if a.action_type == "tool_return"]


def test_an_orphan_return_and_a_backwards_timestamp_are_named() -> None:
    thread = tl.read(ROOT / "data" / "threadprotocol" / "invalid-one_of_each_rule.thread.json", strict=False)
    _, (loss,) = write(thread)
    assert {"tool names of returns that answer no call", "actions of a type no transcript entry stands for (AssistantMessage)",
            "the order of actions whose timestamps go backwards (a transcript is read in time order)"} <= set(loss.lost)
