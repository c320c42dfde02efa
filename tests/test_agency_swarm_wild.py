"""agency-swarm / OpenAI Agents SDK item lists as they come in the wild: public files other
projects committed (tests/fixtures/real/agency_swarm/, see its README), JSON Lines, plain SDK
lists (Python and JS SDK), handoffs, FastAPI bodies, and what the writer says it cannot keep.

Counts the real-file tests compare against are taken from the raw JSON here, without threadlab."""

from __future__ import annotations

import ast
import warnings
from pathlib import Path
from typing import Any

import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import threadlab
from threadlab.core import model_to_dict, tool_pairs
from threadlab.core.loss import WriteLoss
from threadlab.formats import agency_swarm as fmt
from threadlab.formats.source import Source

ROOT = Path(__file__).resolve().parents[1]
REAL = ROOT / "tests" / "fixtures" / "real" / "agency_swarm"
RUN1 = ROOT / "tests" / "fixtures" / "agency_swarm" / "agency_swarm_saved_messages_run1.json"
SDK_SESSION = ROOT / "tests" / "fixtures" / "agency_swarm" / "openai_agents" / "session_get_items.json"  # data/agency_swarm/make_sdk_session.py
REAL_FILES = sorted(REAL.glob("*.json"))
TOKENS = ("input_tokens", "output_tokens")


def raw_items(path: Path) -> list[dict[str, Any]]:
    doc = orjson.loads(path.read_bytes())
    return doc["new_messages"] if isinstance(doc, dict) else doc


def raw_counts(items: list[dict[str, Any]]) -> dict[str, int]:
    """What the items hold, by their own fields: calls are ``*_call`` items; each output item is
    a return, and a hosted call (no call_id: web search ...) carries its own result."""
    kinds = [item.get("type", "message") for item in items]
    calls = [item for item, kind in zip(items, kinds, strict=True) if kind.endswith("_call")]
    outputs = [kind for kind in kinds if kind.endswith(("_call_output", "_call_result"))]
    hosted = [call for call in calls if "call_id" not in call and "callId" not in call]
    prompts = [item for item, kind in zip(items, kinds, strict=True) if kind == "message" and item.get("role") == "user"]
    return {"tool_call": len(calls), "tool_return": len(outputs) + len(hosted), "user_message": len(prompts)}


def thread_counts(thread: threadlab.Thread) -> dict[str, int]:
    return {kind: sum(a.action_type == kind for a in thread.actions) for kind in ("tool_call", "tool_return", "user_message")}


def usage_sum(thread: threadlab.Thread, key: str) -> int:
    return sum((model_to_dict(a).get("usage") or {}).get(key) or 0 for a in thread.actions)


@pytest.mark.parametrize("path", REAL_FILES, ids=lambda p: p.name)
def test_public_files_read_with_their_counts(path: Path) -> None:
    items = raw_items(path)
    thread = threadlab.read(path)  # auto-detected, strict: no problem at all
    assert thread.origin[1] == "agency-swarm"
    assert thread_counts(thread) == raw_counts(items)
    assert thread.account.records == len(items) and thread.account.unconverted == 0
    for key in TOKENS:  # usage: what the items carry (none of these do) on the actions ...
        assert usage_sum(thread, key) == sum((item.get("usage") or {}).get(key) or 0 for item in items)
    frames = threadlab.load(path, progress=False)
    assert len(frames.tool_calls) == raw_counts(items)["tool_call"]
    assert frames.threads["n_records"].tolist() == [len(items)] and frames.threads["n_unconverted"].tolist() == [0]
    assert [p.status for p in tool_pairs(thread)].count("pending") == 0


def test_fastapi_body_keeps_its_usage_and_comes_back_whole() -> None:
    path = REAL / "vrsen_fastapi_response_body.json"
    raw = orjson.loads(path.read_bytes())
    thread = threadlab.read(path)
    assert thread.metadata["usage"] == {k: raw["usage"][k] for k in TOKENS} | {"total_tokens": sum(raw["usage"][k] for k in TOKENS)}
    assert thread.metadata["cost_usd"] == raw["usage"]["total_cost"]
    # millisecond stamps (the docs' example) read as milliseconds
    assert [a.timestamp.year for a in thread.actions] == [2024, 2024]
    with warnings.catch_warnings():
        warnings.simplefilter("error", WriteLoss)
        assert orjson.loads(fmt.from_thread(thread)) == raw


def test_handoffs_of_a_plain_sdk_list() -> None:
    """Each ``transfer_to_*`` output names the next agent (here as a Python dict's repr); the
    items after it are that agent's."""
    path = REAL / "rubber_duck_handoff_history.json"
    items = raw_items(path)
    calls = {item["call_id"]: item["name"] for item in items if item.get("type") == "function_call"}
    targets = [
        ast.literal_eval(item["output"])["assistant"]
        for item in items
        if item.get("type") == "function_call_output" and calls[item["call_id"]].startswith("transfer_to_")
    ]
    thread = threadlab.read(path)
    handoffs = [a for a in thread.actions if a.action_type == "system.handoff"]
    assert [thread.agent_name(h.data["to_agent_id"]) for h in handoffs] == targets == ["Dog Agent", "Dispatch Agent", "Cat Agent"]
    assert [thread.agent_name(h.data["from_agent_id"]) for h in handoffs] == ["Assistant", "Dog Agent", "Dispatch Agent"]
    speakers = [thread.agent_name(a.agent_id) for a in thread.actions if a.action_type in ("tool_call", "assistant_message")]
    assert speakers == ["Assistant", "Assistant", "Dog Agent", "Dog Agent", "Dispatch Agent", "Cat Agent", "Cat Agent", "Cat Agent"]
    assert fmt.to_agency_swarm(thread) == items  # the handoffs are the reader's: no item is written for them
    named = fmt.from_agency_swarm(items, agent="Triage")
    assert thread_counts(named) == thread_counts(thread) and named.agent_name(named.actions[2].agent_id) == "Triage"


def test_real_agents_sdk_session_items() -> None:
    """``SQLiteSession.get_items()`` of the real openai-agents 0.24 (scripted model): a handoff,
    a hosted web search (no call_id, no output item: its return comes from the same item), a
    function tool; two turns."""
    items = raw_items(SDK_SESSION)
    thread = threadlab.read(SDK_SESSION)
    assert thread.origin[1] == "agency-swarm" and thread_counts(thread) == raw_counts(items)
    search = next(a for a in thread.actions if a.action_type == "tool_call" and a.tool_name == "web_search")
    assert search.tool_call_id == "ws_billing_1" and search.args == {"type": "search", "query": "invoice INV-7 payment terms"}
    assert [p.status for p in tool_pairs(thread)] == ["success"] * 4
    (handoff,) = [a for a in thread.actions if a.action_type == "system.handoff"]
    assert (thread.agent_name(handoff.data["from_agent_id"]), thread.agent_name(handoff.data["to_agent_id"])) == ("Assistant", "Billing agent")
    answers = [thread.agent_name(a.agent_id) for a in thread.actions if a.action_type == "assistant_message"]
    assert answers == ["Billing agent", "Billing agent"]  # the second turn too: the session's agent is still billing
    assert thread.metadata["synthetic_timestamps"] == len(thread.actions)  # session items carry no time
    assert fmt.to_agency_swarm(thread) == items


def test_json_lines_read_as_the_array(tmp_path: Path) -> None:
    items = orjson.loads(RUN1.read_bytes())
    lines = tmp_path / f"{RUN1.stem}.jsonl"
    lines.write_bytes(b"\n".join(orjson.dumps(item) for item in items) + b"\n")
    assert fmt.detect(Source(lines))
    assert threadlab.read(lines).to_dict() == threadlab.read(RUN1).to_dict()
    # a broken line costs that line: named, counted as failed, the rest read
    broken = tmp_path / "broken.jsonl"
    raw = lines.read_bytes().splitlines()
    broken.write_bytes(b"\n".join([*raw[:3], b'{"type": "message", "role": "us', *raw[3:]]) + b"\n")
    thread = threadlab.read(broken, strict=False)
    assert thread.account.records == len(items) + 1 and thread.account.failed == 1
    (problem,) = [p for p in thread.problems if p.rule == "json"]
    assert problem.line == 4 and problem.source == str(broken)
    assert sum(a.action_type == "tool_call" for a in thread.actions) == 2


def test_plain_sdk_items_one_per_line_are_read_when_named(tmp_path: Path) -> None:
    """A session log of plain Agents SDK items (no agency tags) is not claimed by detection
    (it is the Agents SDK session format's), but reads when named."""
    items = raw_items(REAL / "vrsen_openai_shell_apply_patch_items.json")
    log = tmp_path / "session.jsonl"
    log.write_bytes(b"\n".join(orjson.dumps(item) for item in items))
    assert not fmt.detect(Source(log))
    thread = threadlab.read(log, format="agency-swarm")
    assert thread_counts(thread) == raw_counts(items)


@pytest.mark.parametrize(
    "doc",
    [
        [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "hello"}],  # which API? not claimed
        [{"role": "user", "content": "hi"}, {"role": "assistant", "content": None, "tool_calls": [{"id": "c", "type": "function"}]}],
        [{"role": "user", "content": [{"type": "text", "text": "hi"}]}, {"role": "assistant", "content": [{"type": "tool_use", "id": "t"}]}],
        [{"kind": "request", "parts": [{"part_kind": "user-prompt", "content": "hi"}]}],
        [{"id": "m", "role": "user", "parts": [{"type": "text", "text": "hi"}]}],
        {"thread": {"id": "t"}, "messages": [{"role": "user", "content": "hi", "thread_id": "t"}]},
    ],
    ids=["bare-chat", "chat-completions", "anthropic", "pydantic-ai", "ui-messages", "aitp-hub"],
)
def test_other_message_lists_are_not_claimed(doc: Any) -> None:
    assert not fmt.detect(Source(orjson.dumps(doc)))
    assert not fmt.detect(Source(doc))


def test_js_sdk_items_read_and_round_trip() -> None:
    """The JS Agents SDK's history: ``callId``, ``function_call_result`` with an output object,
    ``providerData``, reasoning text in ``content``; a handoff result as an output object."""
    items = [
        {"type": "message", "role": "user", "content": "Create customer Bob."},
        {"type": "reasoning", "id": "rs_1", "content": [{"type": "input_text", "text": "Route to the customer agent."}], "providerData": {"id": "rs_1"}},
        {"type": "function_call", "id": "fc_1", "callId": "call_1", "name": "transfer_to_CustomerAgent", "status": "completed", "arguments": "{}"},
        {"type": "function_call_result", "name": "transfer_to_CustomerAgent", "callId": "call_1", "status": "completed", "output": {"type": "text", "text": '{"assistant":"CustomerAgent"}'}},
        {"type": "function_call", "id": "fc_2", "callId": "call_2", "name": "create_customer", "status": "completed", "arguments": '{"name":"Bob"}'},
        {"type": "function_call_result", "name": "create_customer", "callId": "call_2", "status": "completed", "output": {"type": "text", "text": '{"id": "CUST-1"}'}},
        {"type": "message", "role": "assistant", "status": "completed", "id": "msg_1", "content": [{"type": "output_text", "text": "Bob is CUST-1."}]},
    ]
    assert fmt.detect(Source(orjson.dumps(items)))
    thread = threadlab.read(orjson.dumps(items))
    kinds = [a.action_type for a in thread.actions]
    assert kinds == ["user_message", "thinking", "tool_call", "tool_return", "system.handoff", "tool_call", "tool_return", "assistant_message"]
    assert thread.actions[1].content == "Route to the customer agent."
    assert thread.actions[6].content == '{"id": "CUST-1"}' and thread.actions[5].args == {"name": "Bob"}
    assert thread.agent_name(thread.actions[-1].agent_id) == "CustomerAgent"
    assert [(p.tool_name, p.status) for p in tool_pairs(thread)] == [("transfer_to_CustomerAgent", "success"), ("create_customer", "success")]
    assert fmt.to_agency_swarm(thread) == items


def test_odd_times_cost_only_their_time() -> None:
    items = [
        {"type": "message", "role": "user", "content": "a", "agent": "A", "callerAgent": None, "timestamp": "yesterday"},
        {"type": "message", "role": "assistant", "content": "b", "agent": "A", "callerAgent": None, "timestamp": 10**30},
        {"type": "message", "role": "assistant", "content": "c", "agent": "A", "callerAgent": None, "timestamp": True},
    ]
    thread = fmt.from_agency_swarm(items, chat_id="odd")
    assert [a.action_type for a in thread.actions] == ["user_message", "assistant_message", "assistant_message"]
    assert [p.rule for p in thread.problems] == ["schema", "schema", "schema"]
    assert thread.metadata["synthetic_timestamps"] == 3
    assert fmt.to_agency_swarm(thread) == items


def test_writer_names_what_a_saved_list_cannot_hold() -> None:
    other = threadlab.read(ROOT / "data" / "threadprotocol" / "research_team.thread.json", format="threadprotocol")
    with pytest.warns(WriteLoss) as caught:
        fmt.from_thread(other)
    (loss,) = [w.message for w in caught if isinstance(w.message, WriteLoss)]
    lost = " ".join(loss.lost)
    errors = sum(1 for a in other.actions if a.action_type == "tool_return" and a.status == "error")
    assert errors and f"{errors} tool return statuses (error" in lost
    for what in ("usage figures", "system.agent_join actions", "thread title", "media or other content parts"):
        assert what in lost, what
    # a chat read from agency-swarm is written back without a word
    with warnings.catch_warnings():
        warnings.simplefilter("error", WriteLoss)
        fmt.from_thread(threadlab.read(RUN1))


_AGENTS = st.sampled_from(["CEO", "Worker", None, ""])
_CALL_IDS = st.sampled_from(["c1", "c2", "c3"])


def _item() -> st.SearchStrategy[Any]:
    tags = st.fixed_dictionaries({"agent": _AGENTS, "callerAgent": st.sampled_from([None, "CEO"])})
    stamp = st.one_of(st.none(), st.integers(min_value=-(10**20), max_value=10**20), st.text(max_size=5))
    bodies = st.one_of(
        st.fixed_dictionaries({"type": st.just("message"), "role": st.sampled_from(["user", "assistant", "system", "tool"]), "content": st.one_of(st.text(max_size=8), st.lists(st.fixed_dictionaries({"type": st.sampled_from(["input_text", "output_text", "refusal"]), "text": st.text(max_size=5)}), max_size=2))}),
        st.fixed_dictionaries({"type": st.just("function_call"), "call_id": _CALL_IDS, "name": st.sampled_from(["send_message", "add", "transfer_to_b"]), "arguments": st.sampled_from(['{"recipient_agent": "Worker"}', "{}", "not json"])}),
        st.fixed_dictionaries({"type": st.just("function_call_output"), "call_id": _CALL_IDS, "output": st.sampled_from(["5", '{"assistant": "B"}', "{'assistant': 'C'}"])}),
        st.fixed_dictionaries({"type": st.sampled_from(["web_search_call", "mystery", "reasoning", "item_reference"]), "id": st.text(min_size=1, max_size=4)}),
    )
    tagged = st.builds(lambda body, tag, parent, ts: {**body, **tag, **({"parent_run_id": parent} if parent else {}), **({"timestamp": ts} if ts is not None else {})}, bodies, tags, st.one_of(st.none(), _CALL_IDS), stamp)
    return st.one_of(tagged, bodies, st.integers(), st.text(max_size=3), st.none())


@settings(max_examples=150, deadline=None)
@given(st.lists(_item(), max_size=12))
def test_any_item_list_is_read_whole_and_written_back(items: list[Any]) -> None:
    """Whatever the list holds: no exception, every item accounted for, every problem's item
    named; the objects come back as they were saved."""
    thread = fmt.from_agency_swarm(items, chat_id="p")
    assert thread.account.records == len(items)
    assert len(thread.problems) >= thread.account.unconverted
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", WriteLoss)
        assert fmt.to_agency_swarm(thread) == [item for item in items if isinstance(item, dict)]
