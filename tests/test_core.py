"""The canonical model: validation rules, canonical JSON, unknown fields, derivations."""

from __future__ import annotations

import copy
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import threadlab as tl
from threadlab.core import SystemAction, ToolCall, UnknownAction, UnknownPart

DATA = Path(__file__).parent.parent / "data" / "threadprotocol"
VALID = sorted(p for p in DATA.glob("*.json") if not p.name.startswith("invalid-"))


def minimal(**extra: Any) -> dict[str, Any]:
    """A small valid thread: user asks, agent calls a tool, tool answers, agent replies."""
    doc = {
        "version": "1.0.0",
        "thread_id": "t-1",
        "created_at": "2026-01-01T00:00:00Z",
        "updated_at": "2026-01-01T00:00:05Z",
        "title": "minimal",
        "agents": {"a1": {"agent_id": "a1", "agent_identifier": "a1_v1", "agent_name": "A1", "created_at": "2026-01-01T00:00:00Z"}},
        "actions": [
            {"action_type": "user_message", "timestamp": "2026-01-01T00:00:01Z", "sequence": 1, "content": "hi"},
            {"action_type": "tool_call", "timestamp": "2026-01-01T00:00:02Z", "sequence": 2, "agent_id": "a1",
             "tool_name": "search", "tool_call_id": "c1", "args": {"q": "x"}},
            {"action_type": "tool_return", "timestamp": "2026-01-01T00:00:03Z", "sequence": 3, "tool_call_id": "c1",
             "tool_name": "search", "status": "success", "content": "found"},
            {"action_type": "assistant_message", "timestamp": "2026-01-01T00:00:04Z", "sequence": 4, "agent_id": "a1",
             "content": "done"},
        ],
    }
    doc.update(extra)
    return doc


def rules_of(doc: dict[str, Any]) -> set[str]:
    return {p.rule for p in tl.validate(tl.read(doc, strict=False))}


# --- validation rules ------------------------------------------------------------------------


def test_minimal_and_bundled_threads_are_valid() -> None:
    assert tl.validate(tl.read(minimal())) == []
    assert len(VALID) >= 4
    for path in VALID:
        assert tl.validate(tl.read(path)) == [], path


def test_sequence_rule_duplicate_and_missing() -> None:
    doc = minimal()
    doc["actions"][2]["sequence"] = 2
    problems = tl.validate(tl.read(doc, strict=False))
    assert [(p.rule, p.sequence) for p in problems] == [("sequence-order", 2)]
    assert "more than once" in problems[0].message
    doc = minimal()
    doc["actions"][3]["sequence"] = 7
    problems = tl.validate(tl.read(doc, strict=False))
    assert [(p.rule, p.sequence) for p in problems] == [("sequence-order", 7)]
    assert "expected 4" in problems[0].message


def test_tool_call_match_rule() -> None:
    doc = minimal()
    doc["actions"][2]["tool_call_id"] = "c9"
    problems = tl.validate(tl.read(doc, strict=False))
    assert [(p.rule, p.sequence) for p in problems] == [("tool-call-match", 3)]
    doc = minimal()
    doc["actions"][2]["tool_name"] = "fetch"
    problems = tl.validate(tl.read(doc, strict=False))
    assert [(p.rule, p.sequence) for p in problems] == [("tool-call-match", 3)]
    assert "'fetch'" in problems[0].message and "'search'" in problems[0].message


def test_agent_ref_rule_on_actions_and_system_data() -> None:
    doc = minimal()
    doc["actions"][3]["agent_id"] = "ghost"
    assert rules_of(doc) == {"agent-ref"}
    doc = minimal()
    doc["actions"].append({"action_type": "system.agent_join", "timestamp": "2026-01-01T00:00:05Z", "sequence": 5,
                           "data": {"agent_id": "ghost"}})
    problems = tl.validate(tl.read(doc, strict=False))
    assert [(p.rule, p.sequence) for p in problems] == [("agent-ref", 5)]


def test_action_type_name_rule_keeps_the_action() -> None:
    doc = minimal()
    doc["actions"][3]["action_type"] = "AssistantMessage"
    thread = tl.read(doc, strict=False)
    assert isinstance(thread.actions[3], UnknownAction)
    assert [(p.rule, p.sequence) for p in thread.problems] == [("action-type-name", 4)]
    assert orjson.loads(tl.dumps(thread))["actions"][3]["content"] == "done"
    doc["actions"][3]["action_type"] = "system.BadName"
    assert rules_of(doc) == {"action-type-name"}


def test_time_order_rule() -> None:
    doc = minimal()
    doc["actions"][3]["timestamp"] = "2025-12-31T23:59:59Z"
    problems = tl.validate(tl.read(doc, strict=False))
    assert [(p.rule, p.sequence) for p in problems] == [("time-order", 4)]


def test_invalid_bundled_thread_breaks_every_rule_once_each() -> None:
    thread = tl.read(DATA / "invalid-one_of_each_rule.thread.json", strict=False)
    assert {p.rule for p in thread.problems} == set(tl.core.VALIDATION_RULES)
    with pytest.raises(tl.ThreadError) as err:
        tl.read(DATA / "invalid-one_of_each_rule.thread.json")
    assert "invalid-one_of_each_rule.thread.json" in str(err.value)
    assert len(err.value.problems) == len(thread.problems)


# --- canonical JSON ---------------------------------------------------------------------------


def test_canonical_json_is_byte_identical_after_round_trip() -> None:
    for path in VALID:
        thread = tl.read(path)
        first = tl.dumps(thread)
        assert tl.dumps(thread) == first
        assert tl.dumps(tl.read(first)) == first
        assert tl.dumps(tl.read(orjson.loads(first))) == first


def test_canonical_json_key_order_and_timestamps() -> None:
    doc = minimal()
    doc["actions"][0]["timestamp"] = "2026-01-01T01:00:01+01:00"
    doc["actions"][1]["args"] = {"z": 1, "a": {"y": 2, "b": 3}}
    out = orjson.loads(tl.dumps(tl.read(doc)))
    assert list(out)[:6] == ["version", "thread_id", "created_at", "updated_at", "title", "agents"]
    assert out["actions"][0]["timestamp"] == "2026-01-01T00:00:01Z"
    assert list(out["actions"][1]) == ["action_type", "timestamp", "sequence", "agent_id", "tool_name", "tool_call_id", "args"]
    assert list(out["actions"][1]["args"]) == ["a", "z"]
    # the same thread built with keys in another order gives the same bytes
    shuffled = copy.deepcopy(doc)
    shuffled["actions"][1]["args"] = {"a": {"b": 3, "y": 2}, "z": 1}
    shuffled = dict(reversed(list(shuffled.items())))
    assert tl.dumps(tl.read(shuffled)) == tl.dumps(tl.read(doc))


def test_unknown_fields_and_types_survive_a_round_trip(tmp_path: Path) -> None:
    doc = minimal(x_vendor={"b": 1, "a": [1, 2]})
    doc["agents"]["a1"]["team"] = "blue"
    doc["actions"][0]["content"] = [{"type": "text", "text": "look"}, {"type": "hologram", "uri": "holo://1"}]
    doc["actions"][1]["x_latency_ms"] = 12
    doc["actions"].append({"action_type": "system.custom_event", "timestamp": "2026-01-01T00:00:05Z", "sequence": 5,
                           "data": {"k": "v"}, "extra": True})
    thread = tl.read(doc)
    assert isinstance(thread.actions[0].content[1], UnknownPart)
    assert isinstance(thread.actions[4], SystemAction) and thread.actions[4].name == "custom_event"
    path = tl.write(thread, tmp_path / "t.json")
    back = orjson.loads(path.read_bytes())
    assert back["x_vendor"] == {"a": [1, 2], "b": 1}
    assert back["agents"]["a1"]["team"] == "blue"
    assert back["actions"][0]["content"][1] == {"type": "hologram", "uri": "holo://1"}
    assert back["actions"][1]["x_latency_ms"] == 12
    assert back["actions"][4]["extra"] is True
    assert tl.dumps(tl.read(path)) == tl.dumps(thread)


_text = st.text(st.characters(blacklist_categories=("Cs",)), max_size=20)
_json = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**53), 2**53) | _text,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(_text, inner, max_size=3),
    max_leaves=8,
)


@st.composite
def threads(draw: st.DrawFn) -> dict[str, Any]:
    n_agents = draw(st.integers(1, 3))
    agents = {f"ag{i}": {"agent_id": f"ag{i}", "agent_identifier": f"ag{i}_v1", "agent_name": draw(_text) or f"A{i}",
                         "created_at": "2026-01-01T00:00:00Z"} for i in range(n_agents)}
    actions = []
    open_calls: list[tuple[str, str]] = []
    micro = 0
    for seq in range(1, draw(st.integers(0, 12)) + 1):
        micro += draw(st.integers(0, 3_000_000))
        stamp = (datetime(2026, 1, 1, tzinfo=UTC) + timedelta(microseconds=micro)).isoformat()
        agent = f"ag{draw(st.integers(0, n_agents - 1))}"
        kind = draw(st.sampled_from(["user_message", "assistant_message", "thinking", "tool_call", "tool_return", "system.note"]))
        base = {"action_type": kind, "timestamp": stamp, "sequence": seq}
        if kind == "user_message":
            base["content"] = draw(_text | st.lists(st.builds(lambda t: {"type": "text", "text": t}, _text), max_size=2))
        elif kind == "assistant_message":
            base |= {"agent_id": agent, "content": draw(_text), "usage": {"input_tokens": draw(st.integers(0, 10**6)),
                                                                          "output_tokens": draw(st.integers(0, 10**5))}}
        elif kind == "thinking":
            base |= {"agent_id": agent, "content": draw(_text), "provider_name": "anthropic", "signature": draw(_text)}
        elif kind == "tool_call":
            call_id = f"c{seq}"
            open_calls.append((call_id, "tool"))
            base |= {"agent_id": agent, "tool_name": "tool", "tool_call_id": call_id, "args": draw(_json)}
        elif kind == "tool_return":
            if not open_calls:
                continue
            call_id, name = open_calls.pop(0)
            base |= {"tool_call_id": call_id, "tool_name": name,
                     "status": draw(st.sampled_from(["success", "error", "validation_error"])), "content": draw(_json)}
        else:
            base["data"] = draw(_json)
        base["sequence"] = len(actions) + 1
        actions.append(base)
    return {"version": "1.0.0", "thread_id": draw(_text) or "t", "title": draw(_text), "agents": agents,
            "actions": actions, "metadata": draw(st.none() | st.dictionaries(_text, _json, max_size=2))}


@settings(max_examples=150, deadline=None)
@given(threads())
def test_generated_threads_round_trip_byte_identical(doc: dict[str, Any]) -> None:
    thread = tl.read(doc, strict=False)
    first = tl.dumps(thread)
    again = tl.read(first, strict=False)
    assert tl.dumps(again) == first
    assert tl.dumps(tl.read(tl.dumps(thread, indent=True), strict=False)) == first
    assert not [p for p in thread.problems if p.rule == "schema"]


_BREAKS = (
    ("sequence", lambda a, r: r.choice([0, 99, True, "1", None])),
    ("action_type", lambda a, r: r.choice(["Tool_Call", "system.Bad", "system.ok_name", 7])),
    ("agent_id", lambda a, r: r.choice(["ghost", 3, None])),
    ("timestamp", lambda a, r: r.choice(["2020-01-01T00:00:00Z", "yesterday", "2026-01-01T00:00:00", None])),
    ("tool_name", lambda a, r: r.choice(["other", None])),
    ("tool_call_id", lambda a, r: r.choice(["c-none", None, 5])),
    ("data", lambda a, r: {"agent_id": r.choice(["ghost", "ag0"])}),
)


@settings(max_examples=300, deadline=None)
@given(threads(), st.randoms(use_true_random=False), st.integers(0, 3))
def test_quick_validity_check_agrees_with_the_walk(doc: dict[str, Any], rng: Any, n_breaks: int) -> None:
    """validate_dict confirms a valid thread by whole-column checks and walks action by action
    only otherwise: on threads broken at random both must give the same problems."""
    from threadlab.core.validation import _walk, validate_dict

    doc = copy.deepcopy(doc)
    for _ in range(n_breaks if doc["actions"] else 0):
        action = rng.choice(doc["actions"])
        field, value = rng.choice(_BREAKS)
        action[field] = value(action, rng)
    assert validate_dict(doc) == _walk(doc)


# --- derivations ------------------------------------------------------------------------------


def test_tool_pairs_pending_and_orphans() -> None:
    thread = tl.read(DATA / "approval_pending.thread.json")
    pending = tl.pending_tool_calls(thread)
    assert [c.tool_call_id for c in pending] == ["call_rst"]
    assert isinstance(pending[0], ToolCall)
    research = tl.read(DATA / "research_team.thread.json")
    statuses = {p.tool_call_id: p.status for p in tl.tool_pairs(research)}
    assert statuses == {"toolu_01": "success", "call_no": "success", "call_se": "success", "call_fi": "error",
                        "call_fi2": "validation_error", "call_fi3": "success"}
    assert tl.pending_tool_calls(research) == []
    doc = minimal()
    doc["actions"][2]["tool_call_id"] = "c9"
    pairs = tl.tool_pairs(tl.read(doc, strict=False))
    assert [p.status for p in pairs] == ["pending", "orphan_return"]


def test_actions_of_agent_includes_returns_of_its_calls() -> None:
    research = tl.read(DATA / "research_team.thread.json")
    researcher = tl.actions_of_agent(research, "researcher")
    kinds = [a.action_type for a in researcher]
    assert kinds.count("tool_call") == 5 and kinds.count("tool_return") == 5
    assert all(getattr(a, "agent_id", "researcher") == "researcher" for a in researcher)
