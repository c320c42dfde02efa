"""AITP / NEAR AI threads both ways.

Fixtures: nearai_hub_thread_and_messages.json (shared examples) and nearai_hub_trip_thread.json
were built with the NEAR AI hub's own Message/Thread classes and their ``to_openai()``;
aitp_flight_booking_thread.json is the AITP spec shape (no library writes it; see
data/aitp/README.md). Bad input below is hand-written."""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

import orjson
import pytest

import threadlab
from threadlab.cli import main as cli_main
from threadlab.core import model_to_dict, tool_pairs, validate
from threadlab.formats import aitp as fmt
from threadlab.formats.common.source import Source

FIX = Path(__file__).resolve().parent / "fixtures" / "aitp"
EXAMPLE = FIX / "nearai_hub_thread_and_messages.json"
HUB = FIX / "nearai_hub_trip_thread.json"
SPEC = FIX / "aitp_flight_booking_thread.json"
TRAVEL = "alice.near/travel-agent/0.1.0"
FLIGHTS = "flights.near/flight-booker/1.2.0"
DECISIONS = "https://aitp.dev/capabilities/aitp-02-decisions/v1.0.0/schema.json"


def load_json(path: Path) -> Any:
    return orjson.loads(path.read_bytes())


def kinds(thread: threadlab.Thread) -> list[tuple[str, str | None]]:
    return [(a.action_type, getattr(a, "agent_id", None)) for a in thread.actions]


def test_hub_example_thread() -> None:
    thread = threadlab.read(EXAMPLE)
    assert thread.origin[1] == "aitp"
    assert thread.thread_id == "thread_3984a07b7136424bb1f13b42" and thread.title == "trip"
    assert thread.metadata["agent_ids"] == [TRAVEL] and thread.metadata["owner_id"] == "alice.near"
    assert list(thread.agents) == [TRAVEL] and thread.agents[TRAVEL].agent_name == "travel-agent"
    assert Counter(a.action_type for a in thread.actions) == {"user_message": 1, "assistant_message": 1, "system.log": 1, "system.output_file": 1}
    log = thread.actions[2]
    assert log.data["message_type"] == "agent:log" and log.data["agent_id"] == TRAVEL
    assert log.data["text"] == 'tool call: search_flights({"to":"NYC"})'
    output = thread.actions[3]
    assert output.metadata["aitp"]["attachments"][0]["file_id"] == "file_abc123"
    assert [int(a.timestamp.timestamp()) for a in thread.actions] == [m["created_at"] for m in load_json(EXAMPLE)["messages"]]
    assert validate(thread) == []


def test_hub_trip_thread_two_agents() -> None:
    thread = threadlab.read(HUB)
    assert set(thread.agents) == {TRAVEL, FLIGHTS}
    assert thread.metadata["child_thread_ids"] == ["thread_9a8b7c6d5e4f30211f0e9d8c"]  # decoded from its JSON string
    assert kinds(thread) == [
        ("user_message", None),
        ("assistant_message", TRAVEL),
        ("system.log", None),
        ("assistant_message", FLIGHTS),
        ("system.output_file", None),
    ]
    assert validate(thread) == []


@pytest.mark.parametrize("path", [EXAMPLE, HUB, SPEC], ids=lambda p: p.stem)
def test_written_back_exactly(path: Path) -> None:
    thread = threadlab.read(path)
    assert orjson.loads(fmt.from_thread(thread)) == load_json(path)
    # also after a trip through canonical ThreadProtocol JSON
    again = threadlab.read(threadlab.dumps(thread))
    assert orjson.loads(fmt.from_thread(again)) == load_json(path)


def test_spec_thread_actors_and_capability_payloads() -> None:
    thread = threadlab.read(SPEC)
    assert thread.parent_thread_id == "thread_5f1c0e2a9b7d4c3e8a6f1b20"
    assert set(thread.agents) == {TRAVEL, FLIGHTS}
    caps = thread.agents[FLIGHTS].metadata["capabilities"]
    assert [c["schema"] for c in caps] == [DECISIONS, "https://aitp.dev/capabilities/aitp-04-transactions/v1.0.0/schema.json"]
    assert Counter(a.action_type for a in thread.actions) == {"user_message": 3, "assistant_message": 3}
    # the initiator is an agent: role user, actor kept
    assert all(a.metadata["actor"] == TRAVEL for a in thread.actions if a.action_type == "user_message")
    assert all(a.agent_id == FLIGHTS for a in thread.actions if a.action_type == "assistant_message")
    request = model_to_dict(thread.actions[1])["content"]
    assert request[0] == {"type": "text", "text": "Two flights fit:"}
    structured = request[1]
    assert structured["type"] == "aitp" and structured["capability"] == "aitp-02-decisions" and structured["version"] == "1.0.0"
    assert structured["kind"] == "request_decision" and structured["data"]["request_decision"]["options"][0]["id"] == "b6_1104"
    payloads = [p["kind"] for a in thread.actions for p in model_to_dict(a)["content"] if isinstance(a.content, list) and p["type"] == "aitp"]
    assert payloads == ["request_decision", "decision", "quote", "payment_authorization"]
    assert validate(thread) == []


@pytest.mark.parametrize("path", [EXAMPLE, HUB, SPEC], ids=lambda p: p.stem)
def test_shapes_convert_both_ways(path: Path) -> None:
    thread = threadlab.read(path)
    for shape in ("aitp", "hub"):
        doc = fmt.to_aitp(thread, shape=shape)
        if shape == "aitp":
            assert all(isinstance(c, str) for m in doc["messages"] for c in m["content"])
            assert {a["id"] for a in doc["metadata"]["actors"]} == set(thread.agents)
        else:
            assert doc["thread"]["object"] == "thread" and all(m["object"] == "thread.message" for m in doc["messages"])
            assert all(isinstance(v, str) for v in doc["thread"]["metadata"].values())  # OpenAI metadata is str -> str
        back = threadlab.from_aitp(doc)
        assert back.problems == []
        assert kinds(back) == kinds(thread)
        assert set(back.agents) == set(thread.agents)
        assert [model_to_dict(a).get("content") for a in back.actions] == [model_to_dict(a).get("content") for a in thread.actions]
        assert back.parent_thread_id == thread.parent_thread_id


def test_thread_from_another_format_survives_aitp() -> None:
    """Tool calls, returns and thinking have no AITP message: they travel as agent:log messages
    carrying the action, and come back as the same actions."""
    chat = threadlab.read(Path(__file__).parent / "fixtures" / "agency_swarm" / "agency_swarm_saved_messages_run1.json")
    for shape in ("aitp", "hub"):
        doc = fmt.to_aitp(chat, shape=shape)
        logs = [m for m in doc["messages"] if (m.get("metadata") or {}).get("message_type") == "agent:log"]
        assert len(logs) == 6  # thinking, 2 tool calls, 2 returns, the Worker's join
        assert any(str(m["content"]).find("tool call: add(") >= 0 for m in logs)
        back = fmt.from_aitp(doc)
        assert kinds(back) == kinds(chat)
        assert {a.agent_name for a in back.agents.values()} == {"CEO", "Worker"}  # names travel beside the ids
        assert [(p.tool_name, p.status) for p in tool_pairs(back)] == [(p.tool_name, p.status) for p in tool_pairs(chat)]
        assert validate(back) == []


def test_message_list_and_page_shapes() -> None:
    messages = load_json(EXAMPLE)["messages"]
    bare = threadlab.read(orjson.dumps(messages))
    assert bare.thread_id == "thread_3984a07b7136424bb1f13b42" and len(bare.actions) == 4
    assert orjson.loads(fmt.from_thread(bare)) == messages
    page = {"object": "list", "data": messages, "first_id": messages[0]["id"], "last_id": messages[-1]["id"], "has_more": False}
    paged = fmt.from_aitp(page)
    assert kinds(paged) == kinds(bare)
    assert orjson.loads(fmt.from_thread(paged)) == page


def test_bad_input_is_read_with_problems() -> None:
    doc = {
        "id": "thread_bad",
        "metadata": {"actors": [{"id": "a.near"}, "not an actor"]},
        "messages": [
            {"created_at": "yesterday", "thread_id": "thread_bad", "content": ["hi"], "role": "user", "metadata": {"actor": "a.near"}},
            42,
            {"created_at": 1740830401, "thread_id": "thread_bad", "content": ["x"], "role": "assistant", "metadata": {"threadlab_action": {"action_type": "tool_call"}}},
            {"created_at": 1740830402, "thread_id": "thread_bad", "content": ["done"], "role": "tool", "metadata": {"tool_call_id": "t1", "name": "search"}},
        ],
    }
    thread = threadlab.read(orjson.dumps(doc), strict=False)
    messages = [p.message for p in thread.problems]
    assert any("'not an actor'" in m for m in messages)
    assert any("'yesterday'" in m and "message #1" in m for m in messages)
    assert any("message #2 is int" in m for m in messages)
    assert any("threadlab_action" in m for m in messages)
    assert [a.action_type for a in thread.actions] == ["user_message", "system.log", "system.tool_message"]
    assert thread.actions[2].data["text"] == "done" and thread.actions[2].metadata["aitp"]["metadata"]["tool_call_id"] == "t1"
    with pytest.raises(threadlab.ThreadError):
        threadlab.read(orjson.dumps(doc))
    with pytest.raises(ValueError, match="from_aitp"):
        fmt.from_aitp({"id": "x"})
    hub_string_actors = {"id": "t", "metadata": {"actors": "not json"}, "messages": []}
    problems = fmt.from_aitp(hub_string_actors).problems
    assert len(problems) == 1 and "metadata.actors must be a list" in problems[0].message


def test_detection_claims_only_aitp_documents() -> None:
    for path in (EXAMPLE, HUB, SPEC):
        assert fmt.detect(Source(path)), path
        assert fmt.detect(Source(load_json(path))), path
    others = [
        FIX.parent / "vercel_ai_messages" / "ai6_onfinish_uimessages.json",
        FIX.parent / "pydantic_ai" / "pydantic_ai_all_messages.json",
        FIX.parents[2] / "data" / "threadprotocol" / "research_team.thread.json",
        FIX.parent / "claude" / "sdk_get_session_messages.json",
        FIX.parent / "agency_swarm" / "agency_swarm_saved_messages_run1.json",
    ]
    for path in others:
        assert not fmt.detect(Source(path)), path
        assert not fmt.detect(Source(load_json(path))), path
    assert not fmt.detect(Source(threadlab.read(EXAMPLE)))
    assert threadlab.formats.get_format("nearai") is fmt


def test_cli_summary_and_convert(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert cli_main(["summary", str(SPEC), str(HUB)]) == 0
    out = capsys.readouterr().out
    assert "thread_9a8b7c6d5e4f30211f0e9d8c" in out and "thread_5f1c0e2a9b7d4c3e8a6f1b20" in out
    converted = tmp_path / "spec.thread.json"
    assert cli_main(["convert", str(SPEC), "-o", str(converted)]) == 0
    back = tmp_path / "spec.aitp.json"
    assert cli_main(["convert", str(converted), "--to", "aitp", "-o", str(back)]) == 0
    assert load_json(back) == load_json(SPEC)


def test_bundled_data_matches_fixtures() -> None:
    data = Path(__file__).parents[1] / "data" / "aitp"
    for name in ("nearai_hub_trip_thread.json", "aitp_flight_booking_thread.json"):
        assert load_json(data / name) == load_json(FIX / name)
        assert threadlab.read(data / name).problems == []
