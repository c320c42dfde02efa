"""Google ADK sessions: what the real program's session (``tests/fixtures/google_adk/``) and ADK's
first session shape (``tests/fixtures/real/google_adk/``) give."""

from __future__ import annotations

import json
import sqlite3
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


def test_escalation_errors_and_parts_threadlab_does_not_map(tmp_path: Path) -> None:
    """An escalation and an error are system actions; a media part is kept as it came, named."""
    events = [
        {"author": "user", "invocation_id": "e-1", "id": "a", "timestamp": 1.0, "content": {"role": "user", "parts": [{"text": "hi"}, {"inline_data": {"mime_type": "image/png", "data": "AA=="}}]}},
        {"author": "checker", "invocation_id": "e-1", "id": "b", "timestamp": 2.0, "actions": {"escalate": True}},
        {"author": "checker", "invocation_id": "e-1", "id": "c", "timestamp": 3.0, "error_code": "MALFORMED_FUNCTION_CALL", "error_message": "bad call"},
    ]
    path = tmp_path / "s.session.json"
    path.write_text(json.dumps({"id": "s", "app_name": "app", "user_id": "u", "state": {}, "events": events, "last_update_time": 3.0}))
    (thread,) = to_threads(Source(path))
    assert [a.action_type for a in thread.actions] == ["user_message", "system.unknown_part", "system.escalate", "system.error"]
    assert (thread.account.converted, thread.account.kept) == (2, 1)
    assert [p.rule for p in thread.problems] == ["unknown-type"] and "inline_data" in thread.problems[0].message


def test_a_database_row_that_cannot_be_read_is_named_and_events_without_a_session_kept(tmp_path: Path) -> None:
    db = tmp_path / "session.db"
    db.write_bytes((HERE / "google_adk" / "adk-2.13.0" / "session.db").read_bytes())
    with sqlite3.connect(db) as conn:
        conn.execute("UPDATE events SET event_data = '{not json' WHERE rowid = 2")
        conn.execute("DELETE FROM sessions")
    conn.close()
    (thread,) = to_threads(Source(db))
    rules = sorted(p.rule for p in thread.problems)
    assert rules == ["json", "unknown-id"]
    assert next(p for p in thread.problems if p.rule == "json").line == 2
    assert thread.account.failed == 1 and len(thread.actions) == 12
