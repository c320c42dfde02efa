"""Google ADK sessions: what the real program's session (``tests/fixtures/google_adk/``) and ADK's
first session shape (``tests/fixtures/real/google_adk/``) give."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import threadlab as tl
from threadlab.formats.common.source import Source
from threadlab.formats.google_adk import to_threads

HERE = Path(__file__).parent / "fixtures"
RUN = sorted((HERE / "google_adk" / "adk-2.13.0").iterdir())


@pytest.mark.parametrize("path", [p for p in RUN if p.suffix in (".json", ".db")], ids=lambda p: p.name)
def test_the_transfer_is_a_handoff_and_each_agent_acts_as_itself(path: Path) -> None:
    (thread,) = to_threads(Source(path))
    kinds = [a.action_type for a in thread.actions]
    handoff = next(a for a in thread.actions if a.action_type == "system.handoff")
    assert handoff.data == {"from_agent_id": "coordinator", "to_agent_id": "weather_agent", "tool_call_id": "call_transfer_to_agent_2"}
    assert sorted(thread.agents) == ["coordinator", "weather_agent"]
    assert kinds.count("thinking") == 2 and kinds.count("tool_call") == 3 and kinds.count("tool_return") == 3
    answers = [a for a in thread.actions if a.action_type == "assistant_message"]
    assert [a.agent_id for a in answers] == ["weather_agent", "weather_agent"]
    assert answers[0].usage is not None and answers[0].usage.cache_read_tokens == 256
    assert thread.problems == []


def test_the_three_saves_of_one_session_give_the_same_actions() -> None:
    def shape(path: Path) -> list[tuple[object, ...]]:
        (thread,) = to_threads(Source(path))
        return [(a.action_type, getattr(a, "agent_id", None), getattr(a, "tool_call_id", None), a.timestamp) for a in thread.actions]

    assert shape(RUN[0]) == shape(RUN[1]) == shape(RUN[2])


def test_calls_without_ids_are_paired_with_their_responses() -> None:
    """ADK's first sessions gave calls and responses no ids: each response answers the oldest open
    call of its tool, so no return is left unmatched."""
    frames = tl.load(HERE / "real" / "google_adk" / "flow_complex_spark.session.json", progress=False)
    calls = frames.actions[frames.actions.action_type == "tool_call"].tool_call_id.tolist()
    returns = frames.actions[frames.actions.action_type == "tool_return"].tool_call_id.tolist()
    assert calls == returns and len(calls) == 2
    assert "tool-call-match" not in set(frames.problems.rule)


def test_an_event_array_reads_as_one_thread(tmp_path: Path) -> None:
    """``POST /run``'s answer: the events of one invocation, no session around them."""
    session = json.loads((HERE / "google_adk" / "adk-2.13.0" / "s1.session.json").read_text())
    path = tmp_path / "run.json"
    path.write_text(json.dumps(session["events"][:6]))
    frames = tl.load(path, progress=False)
    assert set(frames.threads.format) == {"google-adk"}
    assert frames.actions.action_type.tolist()[:4] == ["user_message", "tool_call", "tool_return", "system.handoff"]
