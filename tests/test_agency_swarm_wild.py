"""agency-swarm saved lists as they come in the wild: public files other projects committed
(tests/fixtures/real/agency_swarm/, see its README), JSON Lines, FastAPI bodies, and what the
writer says it cannot keep. (Plain Agents SDK item lists, without agency-swarm's tags, are
``openai-agents-session``'s: tests/test_agents_session_items.py.)

Counts the real-file tests compare against are taken from the raw JSON here, without threadlab."""

from __future__ import annotations

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
from threadlab.formats.common.source import Source

ROOT = Path(__file__).resolve().parents[1]
REAL = ROOT / "tests" / "fixtures" / "real" / "agency_swarm"
RUN1 = ROOT / "tests" / "fixtures" / "agency_swarm" / "agency_swarm_saved_messages_run1.json"
SDK_LISTS = sorted([*(ROOT / "tests" / "fixtures" / "openai_agents_session").glob("*.json"), *(ROOT / "tests" / "fixtures" / "real" / "openai_agents_session").glob("*.json")])
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


@pytest.mark.parametrize("path", SDK_LISTS, ids=lambda p: p.name)
def test_untagged_agents_sdk_lists_are_not_agency_swarms(path: Path) -> None:
    """The same Responses items without agency-swarm's agent/callerAgent tags (get_items(),
    to_input_list()) are not claimed, as an array, one a line, or in memory, and a named read
    says what they are not."""
    items = raw_items(path)
    lines = b"\n".join(orjson.dumps(item) for item in items) + b"\n"
    for source in (Source(path), Source(lines), Source(items)):
        assert not fmt.detect(source)
    with pytest.raises(threadlab.ThreadError, match="agency-swarm"):
        threadlab.read(path, format="agency-swarm")


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
