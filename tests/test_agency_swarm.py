"""agency-swarm saved lists → threads, per-pair views, and the load/save stores.

Fixtures: agency_swarm_*.json are agency-swarm 1.11's own output (copied from the shared
examples); generated/ was made by data/agency_swarm/make_data.py running the real agency-swarm
1.11 with a scripted model, persisting through FileThreadStore (pair_store/) and reloading turn 1
into a fresh Agency through it. missing_parent_call.json is run1 with the CEO's send_message
call removed (hand-made bad input)."""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

import orjson
import pytest

import threadlab
from threadlab.cli import main as cli_main
from threadlab.core import model_to_dict, tool_pairs, validate
from threadlab.core.derive import actions_of_agent
from threadlab.formats import agency_swarm as fmt
from threadlab.formats.common.source import Source

ROOT = Path(__file__).resolve().parents[1]
FIX = ROOT / "tests" / "fixtures" / "agency_swarm"
INPUTS = ROOT / "tests" / "fixtures" / "inputs" / "agency_swarm"  # usage stats beside the runs (not conversations)
PAIR_STORE = ROOT / "tests" / "fixtures" / "threadprotocol" / "agency_pair_store"  # FileThreadStore writes ThreadProtocol
GEN = FIX / "generated"
RUN1 = FIX / "agency_swarm_saved_messages_run1.json"
RUN2 = FIX / "agency_swarm_saved_messages_run2_reloaded.json"
STREAMED = FIX / "agency_swarm_saved_messages_streamed_run.json"
TOKEN_KEYS = ("input_tokens", "output_tokens", "total_tokens", "thinking_tokens", "cache_read_tokens")


def load_json(path: Path) -> Any:
    return orjson.loads(path.read_bytes())


def counts(thread: threadlab.Thread) -> dict[str, int]:
    return dict(Counter(a.action_type for a in thread.actions))


def usage_totals(thread: threadlab.Thread) -> dict[str, int]:
    totals = dict.fromkeys(TOKEN_KEYS, 0)
    for action in thread.actions:
        usage = model_to_dict(action).get("usage") or {}
        for key in TOKEN_KEYS:
            totals[key] += usage.get(key) or 0
    return totals


RUN1_COUNTS = {"user_message": 2, "thinking": 1, "tool_call": 2, "tool_return": 2, "assistant_message": 2, "system.agent_join": 1}


def test_run1_counts_agents_and_pairs() -> None:
    thread = threadlab.read(RUN1)
    assert thread.origin[1] == "agency-swarm"
    assert thread.thread_id == "agency_swarm_saved_messages_run1"
    assert counts(thread) == RUN1_COUNTS
    assert set(thread.agents) == {"ceo", "worker"}
    assert {a.agent_name for a in thread.agents.values()} == {"CEO", "Worker"}
    pairs = tool_pairs(thread)
    assert [(p.tool_name, p.status) for p in pairs] == [("send_message", "success"), ("add", "success")]
    assert validate(thread) == []
    # the sub-agent's actions are its own; the caller's delegation is the CEO's
    worker = [a.action_type for a in actions_of_agent(thread, "worker")]
    assert worker == ["tool_call", "tool_return", "assistant_message"]
    send = next(a for a in thread.actions if getattr(a, "tool_name", None) == "send_message" and a.action_type == "tool_call")
    assert send.agent_id == "ceo" and send.metadata["recipient_agent_id"] == "worker"


def test_run1_is_renested_in_causal_order() -> None:
    thread = threadlab.read(RUN1)
    kinds = [(a.action_type, getattr(a, "agent_id", None) or a.metadata.get("recipient_agent_id")) for a in thread.actions]
    assert kinds == [
        ("user_message", "ceo"),
        ("thinking", "ceo"),
        ("tool_call", "ceo"),  # send_message ...
        ("system.agent_join", None),  # ... the Worker joins for that call ...
        ("user_message", "worker"),  # ... and its block follows
        ("tool_call", "worker"),
        ("tool_return", None),
        ("assistant_message", "worker"),
        ("tool_return", None),  # send_message's result
        ("assistant_message", "ceo"),
    ]
    join = thread.actions[3]
    assert join.data == {"agent_id": "worker", "invited_by": "ceo", "tool_call_id": "call_ceo_1"}
    delegated = thread.actions[4]
    assert delegated.content == "Please add 2 and 3." and delegated.metadata["sender_agent_id"] == "ceo"
    # the Worker's actions name the call that started them
    assert {a.metadata.get("parent_tool_call_id") for a in thread.actions[4:8]} == {"call_ceo_1"}
    assert "parent_tool_call_id" not in thread.actions[2].metadata
    # the CEO's items were stamped when persisted (after the Worker's): pulled back, originals kept
    assert thread.metadata["agency_swarm"]["retimed_items"] == 2
    assert thread.actions[2].metadata["agency_swarm"]["timestamp"] == 1795300330518707
    assert thread.actions[2].timestamp == thread.actions[3].timestamp
    times = [a.timestamp for a in thread.actions]
    assert times == sorted(times)


@pytest.mark.parametrize("path", [RUN1, RUN2, STREAMED, GEN / "turn2_saved_messages.json"], ids=lambda p: p.stem)
def test_saved_list_round_trip_is_exact(path: Path) -> None:
    raw = load_json(path)
    thread = fmt.from_agency_swarm(raw)
    assert fmt.to_agency_swarm(thread) == raw
    # and through canonical ThreadProtocol JSON on disk
    again = threadlab.read(threadlab.dumps(thread))
    assert fmt.to_agency_swarm(again) == raw


def test_usage_totals_equal_agency_swarm_usage_stats() -> None:
    stats = load_json(INPUTS / "agency_swarm_usage_stats_run1.json")
    thread = fmt.from_agency_swarm(load_json(RUN1), usage=stats)
    assert thread.problems == []
    expected = stats["usage_stats"]
    assert usage_totals(thread) == {
        "input_tokens": expected["input_tokens"],
        "output_tokens": expected["output_tokens"],
        "total_tokens": expected["total_tokens"],
        "thinking_tokens": expected["reasoning_tokens"],
        "cache_read_tokens": expected["cached_tokens"],
    }
    assert thread.metadata["usage"]["total_tokens"] == 480 and thread.metadata["request_count"] == 4
    carrying = [a for a in thread.actions if model_to_dict(a).get("usage")]
    assert len(carrying) == expected["request_count"]  # once per model response


def test_usage_entries_follow_agency_swarm_request_order() -> None:
    """agency-swarm reports the entry agent's requests, then its sub-agents'. The scripted model
    gives CEO requests 100/200 input tokens and Worker requests 1100/1200."""
    usage = load_json(INPUTS / "turn2_usage.json")
    thread = fmt.from_agency_swarm(load_json(GEN / "turn2_saved_messages.json"), usage=usage, chat_id="shop_chat")
    assert thread.problems == []
    placed = [(a.action_type, a.agent_id, model_to_dict(a)["usage"]["input_tokens"]) for a in thread.actions if model_to_dict(a).get("usage")]
    assert placed == [("tool_call", "ceo", 100), ("tool_call", "worker", 1100), ("assistant_message", "worker", 1200), ("assistant_message", "ceo", 200)]
    assert usage_totals(thread)["input_tokens"] == usage["usage_stats"]["input_tokens"]
    # the usage of one run does not fit a list holding two runs' responses any other way
    wrong = {"usage_stats": usage["usage_stats"], "request_usage_entries": usage["request_usage_entries"][:3]}
    partial = fmt.from_agency_swarm(load_json(GEN / "turn2_saved_messages.json"), usage=wrong)
    assert [p.rule for p in partial.problems] == ["usage"] and "3 model requests" in partial.problems[0].message
    assert usage_totals(partial)["input_tokens"] == 0 and partial.metadata["usage"]["input_tokens"] == 2600


def test_run2_reloaded_extends_run1() -> None:
    run1 = threadlab.read(RUN1)
    run2 = threadlab.read(RUN2)
    assert counts(run2) == {**RUN1_COUNTS, "user_message": 3, "assistant_message": 3}
    assert [model_to_dict(a) for a in run2.actions[:10]] == [model_to_dict(a) for a in run1.actions]
    assert [a.action_type for a in run2.actions[10:]] == ["user_message", "assistant_message"]
    assert run2.actions[-1].content == "Still 5." and run2.actions[-1].agent_id == "ceo"
    assert validate(run2) == []


def test_streamed_run_reads_like_the_plain_run() -> None:
    """The streamed save gives the Worker's items two agent_run_ids; one parent_run_id still
    puts them all under the CEO's call."""
    streamed = threadlab.read(STREAMED)
    run1 = threadlab.read(RUN1)
    shape = [(a.action_type, getattr(a, "agent_id", None), getattr(a, "tool_call_id", None)) for a in streamed.actions]
    assert shape == [(a.action_type, getattr(a, "agent_id", None), getattr(a, "tool_call_id", None)) for a in run1.actions]
    run_ids = {a.metadata["agency_swarm"]["agent_run_id"] for a in streamed.actions if a.metadata["agency_swarm"].get("agent") == "Worker" and a.action_type != "system.agent_join"}
    assert len(run_ids) == 2
    assert validate(streamed) == []


@pytest.mark.parametrize("path", [RUN1, RUN2, GEN / "turn2_saved_messages.json"], ids=lambda p: p.stem)
def test_pair_threads_and_merge_round_trip(path: Path) -> None:
    chat = fmt.from_agency_swarm(load_json(path), chat_id="chat42")
    pairs = threadlab.pair_threads(chat)
    assert set(pairs) == {"chat42__CEO__USER", "chat42__CEO__Worker"}
    for pair in pairs.values():
        assert validate(pair) == []
        assert pair.parent_thread_id == "chat42"
    ceo_worker = pairs["chat42__CEO__Worker"]
    # only what the two exchanged: the Worker's side of the delegation, as agency-swarm sees it
    assert {(a.metadata["agency_swarm"]["agent"], a.metadata["agency_swarm"]["callerAgent"]) for a in ceo_worker.actions} == {("Worker", "CEO")}
    assert ceo_worker.actions[0].action_type == "system.agent_join" and ceo_worker.actions[0].data["invited_by"] == "ceo"
    assert ceo_worker.actions[1].action_type == "user_message" and ceo_worker.actions[1].metadata["sender_agent_id"] == "ceo"
    assert sum(len(p.actions) for p in pairs.values()) == len(chat.actions)
    merged = threadlab.merge_pair_threads(pairs)
    assert merged.to_dict() == chat.to_dict()
    # pair threads from elsewhere (no chat_sequence) merge by time
    for pair in pairs.values():
        for action in pair.actions:
            action.metadata.pop("chat_sequence")
    by_time = threadlab.merge_pair_threads(list(pairs.values()))
    assert Counter(a.action_type for a in by_time.actions) == Counter(a.action_type for a in chat.actions)
    assert validate(by_time) == []


def test_pair_key_follows_the_seed() -> None:
    assert fmt.pair_key("c", "Worker", "CEO") == "c__CEO__Worker" == fmt.pair_key("c", "CEO", "Worker")
    assert fmt.pair_key("c", "CEO") == "c__CEO__USER"
    assert threadlab.ThreadStore.thread_key("c", "B", "A") == "c__A__B"


def test_file_thread_store_round_trip(tmp_path: Path) -> None:
    chat = fmt.from_agency_swarm(load_json(RUN2), chat_id="chat 7/β")
    store = threadlab.FileThreadStore(tmp_path / "store")
    keys = store.save_chat(chat)
    assert sorted(keys) == ["chat 7/β__CEO__USER", "chat 7/β__CEO__Worker"]
    files = sorted(p.name for p in (tmp_path / "store").iterdir())
    assert len(files) == 2 and all(name.endswith(".json") for name in files) and not any("/" in n for n in files)
    fresh = threadlab.FileThreadStore(tmp_path / "store")
    assert fresh.load_chat("chat 7/β").to_dict() == chat.to_dict()
    pair = fresh.get_thread("chat 7/β", "Worker", "CEO")
    assert pair.thread_id == "chat 7/β__CEO__Worker" and len(pair.actions) == 5  # the Worker's join and its 4 items
    assert fresh.get_thread("chat 7/β", "Nobody").actions == []  # unknown pair: a new empty thread
    # the files are canonical ThreadProtocol that threadlab reads directly
    on_disk = threadlab.read(store.path_of("chat 7/β__CEO__USER"))
    assert on_disk.origin[1] == "threadprotocol" and on_disk.to_dict() == pair_of(chat, "chat 7/β__CEO__USER")
    assert fresh.load_chat("other chat") is None


def pair_of(chat: threadlab.Thread, key: str) -> dict[str, Any]:
    return threadlab.pair_threads(chat)[key].to_dict()


def test_store_callbacks_are_agency_swarm_callbacks(tmp_path: Path) -> None:
    raw = load_json(RUN2)
    saved: list[threadlab.Thread] = []
    memory: dict[str, threadlab.Thread] = {}

    def save(thread: threadlab.Thread) -> None:
        saved.append(thread)
        memory[thread.thread_id] = thread

    store = threadlab.ThreadStore(load=memory.get, save=save, keys=lambda chat: [k for k in memory if k.startswith(chat + "__")])
    load_threads, save_threads = store.agency_callbacks("c1")
    assert load_threads() == []
    save_threads(raw)
    assert len(saved) == 2
    assert threadlab.ThreadStore(load=memory.get, keys=lambda chat: list(memory)).agency_callbacks("c1")[0]() == raw


def test_real_agency_persisted_through_file_store() -> None:
    """generated/pair_store was written by a running agency-swarm 1.11 Agency through
    FileThreadStore.agency_callbacks; a fresh Agency reloaded turn 1 from it (turn 2's list
    starts with turn 1's exactly)."""
    turn1 = load_json(GEN / "turn1_saved_messages.json")
    turn2 = load_json(GEN / "turn2_saved_messages.json")
    assert turn2[: len(turn1)] == turn1
    stored = threadlab.FileThreadStore(PAIR_STORE).load_chat("shop_chat")
    assert stored is not None
    assert stored.to_dict() == fmt.from_agency_swarm(turn2, chat_id="shop_chat").to_dict()
    assert counts(stored) == {"user_message": 4, "thinking": 1, "tool_call": 4, "tool_return": 4, "assistant_message": 4, "system.agent_join": 2}


def test_missing_parent_is_read_with_problems() -> None:
    path = FIX / "missing_parent_call.json"
    with pytest.raises(threadlab.ThreadError) as err:
        threadlab.read(path)
    assert "call_ceo_1" in str(err.value) and "missing_parent_call.json" in str(err.value)
    thread = threadlab.read(path, strict=False)
    assert len(thread.actions) == len(load_json(path)) == 8  # nothing dropped
    rules = Counter(p.rule for p in thread.problems)
    assert rules["agency-parent"] == 1 and rules["tool-call-match"] >= 1
    parent = next(p for p in thread.problems if p.rule == "agency-parent")
    assert "'call_ceo_1'" in parent.message and "'Worker'" in parent.message and parent.source == str(path)
    # the orphan block stays where it was saved, in one piece
    assert [a.metadata["agency_swarm"]["agent"] for a in thread.actions[1:5]] == ["Worker"] * 4


def test_odd_items_are_kept_and_reported() -> None:
    items = [
        {"role": "user", "content": [{"type": "input_text", "text": "hi"}], "agent": "A", "callerAgent": None, "timestamp": 1_700_000_000_000_000},
        {"type": "web_search_call", "id": "ws_1", "status": "completed", "action": {"type": "search", "query": "q"}, "agent": "A", "callerAgent": None, "timestamp": 1_700_000_000_000_010},
        {"type": "message", "role": "assistant", "content": [{"type": "refusal", "refusal": "no"}], "agent": None, "callerAgent": None},
        "not an item",
        {"type": "function_call_output", "call_id": "nope", "output": "x", "agent": "A", "callerAgent": None, "timestamp": 1_700_000_000_000_020},
        {"type": "mystery_event", "agent": "A", "callerAgent": None, "timestamp": 1_700_000_000_000_030},
    ]
    thread = fmt.from_agency_swarm(items, chat_id="odd")
    kinds = [a.action_type for a in thread.actions]
    # a hosted tool call (web search) is a call with its result from the same item
    assert kinds == ["user_message", "tool_call", "tool_return", "system.unknown_item", "tool_return", "system.unknown_item"]
    assert thread.actions[0].content == "hi"  # one text part reads as its text (written back as the part)
    search = thread.actions[1]
    assert (search.tool_name, search.tool_call_id, search.args) == ("web_search", "ws_1", {"type": "search", "query": "q"})
    assert thread.actions[2].tool_call_id == "ws_1" and thread.actions[2].status == "success"
    rules = sorted(p.rule for p in thread.problems)
    assert rules == ["agent-ref", "schema", "tool-call-match", "unknown-type"]
    assert any("item #4" in p.message for p in thread.problems)
    assert any("'mystery_event'" in p.message for p in thread.problems if p.rule == "unknown-type")
    # every item accounted for: 3 converted, 2 kept (no agent, unknown type), 1 failed (not an object)
    assert (thread.account.converted, thread.account.kept, thread.account.failed) == (3, 2, 1)
    back = fmt.to_agency_swarm(thread)
    assert back == [items[0], items[1], items[2], items[4], items[5]]


def test_detection_claims_only_agency_lists() -> None:
    for path in (RUN1, RUN2, STREAMED, GEN / "turn1_saved_messages.json"):
        assert fmt.detect(Source(path)), path
    assert fmt.detect(Source(load_json(RUN1)))
    assert fmt.detect(Source({"response": "ok", "new_messages": load_json(RUN1)}))
    others = [
        FIX.parent / "vercel_ai_messages" / "ai6_onfinish_uimessages.json",
        FIX.parent / "pydantic_ai" / "pydantic_ai_all_messages.json",
        ROOT / "data" / "threadprotocol" / "research_team.thread.json",
        FIX.parent / "claude" / "sdk_get_session_messages.json",
        FIX.parent / "aitp" / "nearai_hub_thread_and_messages.json",
    ]
    for path in others:
        assert not fmt.detect(Source(path)), path
        assert not fmt.detect(Source(load_json(path))), path
    assert not fmt.detect(Source(PAIR_STORE))
    assert threadlab.formats.get_format("agencyswarm") is fmt
    # untagged Agents SDK items are openai-agents-session's (its own name for them: openai-agents)
    assert threadlab.formats.get_format("openai-agents") is threadlab.formats.get_format("openai-agents-session")


def test_cli_summary_and_convert(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert cli_main(["summary", str(RUN1)]) == 0
    out = capsys.readouterr().out
    assert "agency_swarm_saved_messages_run1" in out and "agency-swarm" in out
    converted = tmp_path / "run1.thread.json"
    assert cli_main(["convert", str(RUN1), "-o", str(converted)]) == 0
    assert threadlab.read(converted).origin[1] == "threadprotocol"
    back = tmp_path / "run1.saved.json"
    assert cli_main(["convert", str(converted), "--to", "agency-swarm", "-o", str(back)]) == 0
    assert load_json(back) == load_json(RUN1)


def test_bundled_data_reads_clean() -> None:
    path = Path(__file__).parents[1] / "data" / "agency_swarm" / "ceo_worker_saved_messages.json"
    thread = threadlab.read(path)
    assert {a.agent_name for a in thread.agents.values()} == {"CEO", "Worker"}
    assert all(p.status == "success" for p in tool_pairs(thread))
    assert len(threadlab.pair_threads(thread)) == 2


def test_thread_from_another_format_writes_agency_items() -> None:
    other = threadlab.read(ROOT / "data" / "threadprotocol" / "research_team.thread.json", format="threadprotocol")
    items = fmt.to_agency_swarm(other)
    assert items and all("agent" in i and "callerAgent" in i for i in items)
    again = fmt.from_agency_swarm(items)
    n_calls = sum(a.action_type == "tool_call" for a in other.actions)
    assert sum(a.action_type == "tool_call" for a in again.actions) == n_calls
    assert [p.status for p in tool_pairs(again)].count("orphan_return") == 0
