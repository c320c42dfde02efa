"""The tool_calls frame is taken from the actions table by row (``arrow._tool_calls``): each pair
is the action rows of its call and its return. Checked here against ``core.tool_pairs`` (the
pairing a user gets from a Thread) on generated threads with reused ids, pending calls, orphan
returns and every status, several threads per file and enough of them that a chunk spans many
blocks of ``extract`` (so rows are counted from the right block), read by the typed fast path
and by the careful path alike."""

from __future__ import annotations

import json
import tempfile
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pandas as pd
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import threadlab as tl
from threadlab.core import Thread, tool_pairs
from threadlab.frames.cell_text import json_text
from threadlab.frames.extract import BLOCK_ACTIONS

START = datetime(2026, 1, 5, 9, 0, tzinfo=UTC)
STATUSES = ("success", "error", "validation_error")
# one step of a thread: a call (id, tool) or a return (id, status), ids drawn from a few so
# they repeat: a return may answer an earlier call, the latest of two open ones, or nothing
STEPS = st.lists(
    st.one_of(
        st.tuples(st.just("call"), st.integers(0, 3), st.sampled_from(("search", "fetch"))),
        st.tuples(st.just("return"), st.integers(0, 3), st.sampled_from(STATUSES)),
        st.tuples(st.just("say"), st.integers(0, 0), st.just("")),
    ),
    max_size=40,
)


def thread_doc(index: int, steps: list[tuple[str, int, str]]) -> dict[str, Any]:
    actions: list[dict[str, Any]] = [
        {"action_type": "user_message", "content": f"task {index}", "timestamp": _at(0), "sequence": 1}
    ]
    for kind, n, value in steps:
        action: dict[str, Any] = {"timestamp": _at(len(actions)), "sequence": len(actions) + 1}
        if kind == "call":
            action |= {"action_type": "tool_call", "agent_id": "a" if n % 2 else "b", "tool_name": value,
                       "tool_call_id": f"c{n}", "args": {"q": n, "at": len(actions)}}
        elif kind == "return":
            action |= {"action_type": "tool_return", "tool_name": "search", "tool_call_id": f"c{n}",
                       "status": value, "content": f"result {len(actions)}"}
        else:
            action |= {"action_type": "assistant_message", "agent_id": "a", "content": "thinking aloud"}
        actions.append(action)
    agents = {
        name: {"agent_id": name, "agent_identifier": name, "agent_name": f"Agent {name.upper()}", "created_at": _at(0)} for name in ("a", "b")
    }
    return {"version": "1.0.0", "thread_id": f"t{index}", "agents": agents, "actions": actions}


def _at(n: int) -> str:
    return (START + timedelta(seconds=n)).isoformat().replace("+00:00", "Z")


def expected_rows(thread: Thread) -> list[tuple[Any, ...]]:
    names = {k: v.agent_name for k, v in thread.agents.items()}
    rows = []
    for pair in tool_pairs(thread):
        call, ret = pair.call, pair.ret
        agent = call.agent_id if call is not None else None
        rows.append((
            thread.thread_id,
            pair.tool_call_id,
            agent,
            names.get(agent, agent) if agent is not None else None,
            (call or ret).tool_name,  # type: ignore[union-attr]
            call.sequence if call is not None else None,
            ret.sequence if ret is not None else None,
            pair.status,
            json_text(call.args) if call is not None else None,
            ret.content if ret is not None else None,
            (ret.timestamp - call.timestamp).total_seconds() if call is not None and ret is not None else None,
        ))
    return rows


def frame_rows(frame: pd.DataFrame) -> list[tuple[Any, ...]]:
    columns = ["thread_id", "tool_call_id", "agent_id", "agent_name", "tool_name", "call_sequence", "return_sequence",
               "status", "args", "result", "latency_s"]
    return [tuple(None if pd.isna(v) else v for v in row) for row in frame[columns].astype(object).itertuples(index=False)]


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(threads=st.lists(STEPS, min_size=1, max_size=30), per_file=st.integers(1, 4), lines=st.booleans())
def test_tool_calls_rows_are_the_pairs_of_core(threads: list[list[tuple[str, int, str]]], per_file: int, lines: bool) -> None:
    docs = [thread_doc(i, steps) for i, steps in enumerate(threads)]
    with tempfile.TemporaryDirectory() as folder:
        for start in range(0, len(docs), per_file):
            group = docs[start:start + per_file]
            path = Path(folder, f"f{start:04d}.{'jsonl' if lines else 'json'}")
            path.write_text("\n".join(json.dumps(d) for d in group) if lines else json.dumps(group))
        frames = tl.load(folder, workers=1, progress=False)
    assert set(frames.problems["rule"]) <= {"tool-call-match"}  # an orphan return: read the careful way, same frames
    expected = [row for doc in docs for row in expected_rows(Thread.model_validate(doc))]
    assert frame_rows(frames.tool_calls) == expected
    counts = frames.threads.set_index("thread_id")
    for doc in docs:
        pairs = tool_pairs(Thread.model_validate(doc))
        assert counts.loc[doc["thread_id"], "n_pending"] == sum(p.status == "pending" for p in pairs)


def test_rows_span_blocks() -> None:
    """Threads long enough that one file is many blocks of extract, and a thread whose calls are
    answered in the next block: every pair still names its own rows."""
    calls = [("call", i, "search") for i in range(4)]
    pending = calls + [("say", 0, "")] * BLOCK_ACTIONS + [("return", i, "error") for i in range(3)]  # c3 unanswered
    orphan = [*pending, ("return", 2, "success")]  # c2 answered twice
    docs = [thread_doc(i, orphan if i == 1 else pending) for i in range(3)]
    with tempfile.TemporaryDirectory() as folder:
        Path(folder, "a.json").write_text(json.dumps([docs[0], docs[2]]))  # the typed fast path
        Path(folder, "b.json").write_text(json.dumps(docs[1]))  # the careful path (the orphan breaks a rule)
        frames = tl.load(folder, workers=1, progress=False)
    ordered = [docs[0], docs[2], docs[1]]
    assert frame_rows(frames.tool_calls) == [row for doc in ordered for row in expected_rows(Thread.model_validate(doc))]
    assert frames.tool_calls["status"].value_counts().to_dict() == {"error": 9, "pending": 3, "orphan_return": 1}
