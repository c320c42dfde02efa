"""pydantic-ai data in every container apps save it in: a JSON array, one message a line, one
history (or a run's new messages) a line, the history saved again each turn, stream events
(``TypeAdapter(AgentStreamEvent)``) between the messages, a bare ``run_stream_events`` log; and
each input record accounted for. The JSON Lines fixtures were made by the real pydantic-ai with
``tests/fixtures/pydantic_ai/make_jsonl.py``; broken lines are written here."""

from __future__ import annotations

import itertools
import json
from pathlib import Path
from typing import Any

import orjson
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pydantic_ai.messages import ModelMessagesTypeAdapter

import threadlab as tl
from tests.conformance.records import COUNTERS
from threadlab.core import SystemAction, validate
from threadlab.formats import detect_format
from threadlab.formats.common.source import Source

FIXTURES = Path(__file__).resolve().parent / "fixtures" / "pydantic_ai"
DATA = Path(__file__).resolve().parents[1] / "data" / "pydantic_ai"
V2 = "pydantic_ai_v2.68.0_"
SHAPES = ("messages_one_per_line", "new_messages_per_line", "all_messages_each_turn")


def shape(thread: tl.Thread) -> list[tuple[Any, ...]]:
    return [(a.action_type, getattr(a, "tool_call_id", None), json.dumps(getattr(a, "content", None), default=str)) for a in thread.actions]


def lines(path: Path) -> list[Any]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


@pytest.fixture(scope="module")
def whole() -> tl.Thread:
    """The two-turn run as one JSON array (its messages one a line, joined)."""
    history = lines(FIXTURES / f"{V2}messages_one_per_line.jsonl")
    return tl.read(json.dumps(history).encode(), format="pydantic-ai")


@pytest.mark.parametrize("name", SHAPES)
def test_every_container_of_one_conversation_reads_the_same(name: str, whole: tl.Thread) -> None:
    path = FIXTURES / f"{V2}{name}.jsonl"
    assert detect_format(Source(path)).NAME == "pydantic-ai"
    (thread,) = tl.read_all(path)
    assert shape(thread) == shape(whole) and len(thread.actions) == 10
    assert thread.account.records == COUNTERS["pydantic-ai"](path) and thread.account.unconverted == 0
    assert validate(thread) == []


def test_a_history_saved_again_each_turn_counts_its_repeats_once(whole: tl.Thread) -> None:
    path = FIXTURES / f"{V2}all_messages_each_turn.jsonl"
    (thread,) = tl.read_all(path)
    first, second = lines(path)
    repeated = sum(max(1, len(m["parts"])) for m in first)
    assert thread.account.records == repeated + sum(max(1, len(m["parts"])) for m in second)
    assert len(thread.actions) == len(whole.actions)


def test_stream_events_repeat_the_messages_and_add_the_turn_never_saved(whole: tl.Thread) -> None:
    path = FIXTURES / f"{V2}stream_events_and_messages.jsonl"
    (thread,) = tl.read_all(path, strict=False)
    placed = [a for a in thread.actions if "message" in (a.metadata or {}).get("pydantic_ai", {})]  # each has its message
    assert thread.account.records == COUNTERS["pydantic-ai"](path) == 27 and thread.account.unconverted == 0
    # turn 1 from the messages; turn 2 (events only: thinking, call, result, answer) after them
    assert [a.action_type for a in thread.actions] == ["user_message", "thinking", "tool_call", "tool_return", "assistant_message",
                                                        "thinking", "tool_call", "tool_return", "assistant_message"]
    assert thread.actions[6].args == {"city": "Porto"} and thread.actions[8].content == "Porto: sunny, 24 °C."  # deltas applied
    assert [p.rule for p in thread.problems] == ["stream-event"] and "4 part(s)" in thread.problems[0].message
    assert len(placed) == len(thread.actions)
    assert shape(thread)[:5] == shape(whole)[:5]


def test_a_run_stream_events_log_reads_the_history_in_its_result_event(whole: tl.Thread) -> None:
    path = FIXTURES / f"{V2}run_stream_events_log.jsonl"
    assert lines(path)[-1]["event_kind"] == "agent_run_result"
    (thread,) = tl.read_all(path)
    assert shape(thread) == shape(whole)[:5]
    assert thread.account.records == len(lines(path)) and thread.account.unconverted == 0


def test_events_alone_rebuild_the_responses(whole: tl.Thread) -> None:
    events = [e for e in lines(FIXTURES / f"{V2}run_stream_events_log.jsonl") if e["event_kind"] != "agent_run_result"]
    (thread,) = tl.read_all("\n".join(json.dumps(e) for e in events).encode(), "pydantic-ai")
    assert [a.action_type for a in thread.actions] == ["thinking", "tool_call", "tool_return", "assistant_message"]
    assert [a.content for a in thread.actions if a.action_type == "assistant_message"] == ["Lisbon: sunny, 24 °C."]
    assert thread.problems == [] and thread.account.records == len(events)


def test_broken_lines_cost_only_themselves(tmp_path: Path) -> None:
    good = (FIXTURES / f"{V2}messages_one_per_line.jsonl").read_text().splitlines()
    bad = tmp_path / "chat.jsonl"
    bad.write_text("\n".join([
        good[0],
        '{"event_kind": "part_delta", "index": 7, "delta": {"content_delta": "x", "part_delta_kind": "text"}}',
        "{not json",
        '{"some": "other object"}',
        '{"event_kind": "telepathy", "thought": 1}',
        *good[1:],
    ]) + "\n")
    (thread,) = tl.read_all(bad, strict=False)
    assert len([a for a in thread.actions if a.action_type in ("user_message", "tool_call", "assistant_message")]) == 6
    found = {(p.rule, p.line) for p in thread.problems}
    assert {("unknown-id", 2), ("json", 3), ("schema", 4), ("stream-event", 5)} <= found
    assert thread.account.records == COUNTERS["pydantic-ai"](bad)
    assert (thread.account.failed, thread.account.kept) == (3, 1)
    kept = [a for a in thread.actions if a.action_type == "system.pydantic_ai.event"]
    assert [a.data["event_kind"] for a in kept] == ["telepathy"]
    with pytest.raises(tl.ThreadError) as err:
        tl.read_all(bad)  # strict: every problem listed, each with its line
    assert "chat.jsonl:3" in str(err.value) and "chat.jsonl:2" in str(err.value)


def test_other_json_lines_are_not_claimed(tmp_path: Path) -> None:
    for name, text in {
        "otel.jsonl": '{"role": "user", "parts": [{"type": "text", "content": "hi"}]}\n',
        "chunks.jsonl": '{"type": "text-delta", "id": "0", "delta": "hi"}\n',
        "events.json": '{"event_kind": "part_start"}',
    }.items():
        path = tmp_path / name
        path.write_text(text)
        assert not tl.formats.get_format("pydantic-ai").detect(Source(path)), name


def test_an_array_of_histories_is_one_thread_each() -> None:
    router = json.loads((DATA / "router.messages.json").read_bytes())
    researcher = json.loads((DATA / "researcher.messages.json").read_bytes())
    threads = tl.read_all(json.dumps([router, researcher]).encode())
    assert [t.origin[1] for t in threads] == ["pydantic-ai", "pydantic-ai"]
    assert [len(t.actions) for t in threads] == [len(tl.read(DATA / "router.messages.json").actions), len(tl.read(DATA / "researcher.messages.json").actions)]


# --- property: any history, in any container, reads as the same actions --------------------


HISTORIES = [DATA / "single_agent.messages.json", DATA / "router.messages.json", DATA / "approval_step2.messages.json",
             FIXTURES / "pydantic_ai_v1.0.0_all_messages.json", FIXTURES / "pydantic_ai_v2.68.0_retry_flow_messages.json"]


def as_lines(history: list[Any], cuts: list[int], repeat: bool) -> bytes:
    """The history as JSON Lines: single messages, or arrays split at ``cuts`` (each array the
    whole history so far when ``repeat``)."""
    if not cuts:
        return b"".join(orjson.dumps(m) + b"\n" for m in history)
    bounds = sorted({c % len(history) for c in cuts} | {0, len(history)})
    chunks = [history[(0 if repeat else a):b] for a, b in itertools.pairwise(bounds) if b > a]
    return b"".join(orjson.dumps(chunk) + b"\n" for chunk in chunks)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(HISTORIES), st.lists(st.integers(1, 50), max_size=3), st.booleans())
def test_containers_of_a_history_read_as_the_history(path: Path, cuts: list[int], repeat: bool) -> None:
    history = json.loads(path.read_bytes())
    if cuts and not any(m.get("conversation_id") for m in history) and not repeat:
        history = [{**m, "conversation_id": "conv-1"} for m in history]  # new messages a line join by conversation id
    want = tl.read(json.dumps(history).encode(), format="pydantic-ai", strict=False)
    (got,) = tl.read_all(as_lines(history, cuts, repeat), "pydantic-ai", strict=False)
    assert shape(got) == shape(want) and got.thread_id == want.thread_id
    assert got.account.unconverted == 0
    assert not [a for a in got.actions if isinstance(a, SystemAction) and a.action_type.endswith("event")]
    written = ModelMessagesTypeAdapter.validate_json(tl.formats.get_format("pydantic-ai").from_thread(got))
    assert [m.kind for m in written] == [m["kind"] for m in history]
