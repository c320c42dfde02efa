"""Who wrote an action (core/authors.py) and what the frames make of it: the ``author`` and
``harness_kind`` columns, and the human prompts, harness turns and interrupts of each thread."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson
import pytest

import threadlab as tl
from threadlab.core.authors import AUTHORS, author_of, harness_kind_of, harness_metadata


def _thread(actions: list[dict[str, Any]]) -> dict[str, Any]:
    stamp = "2026-01-01T00:00:00Z"
    full = [{"timestamp": stamp, "sequence": i, **a} for i, a in enumerate(actions, 1)]
    agents = {"a": {"agent_id": "a", "agent_identifier": "a", "agent_name": "A", "created_at": stamp}}
    return {"version": "1.0.0", "thread_id": "t", "title": "", "agents": agents, "actions": full}


@pytest.mark.parametrize(
    ("kind", "metadata", "author"),
    [
        ("user_message", None, "human"),
        ("assistant_message", {}, "agent"),
        ("thinking", None, "agent"),
        ("tool_call", None, "agent"),
        ("tool_return", None, "tool"),
        ("system.agent_join", None, "system"),
        ("user_message", {"author": "harness", "harness": "interrupt"}, "harness"),
        ("system.meta_message", {"author": "harness"}, "harness"),
        ("user_message", {"author": "robot"}, "human"),  # not one of AUTHORS: the default
        ("user_message", {"author": 3}, "human"),
        ("weird", None, None),
        (None, None, None),
    ],
)
def test_author_is_the_metadata_s_else_the_kind_s_default(kind: Any, metadata: Any, author: str | None) -> None:
    assert author_of(kind, metadata) == author
    assert author is None or author in AUTHORS


def test_harness_kind_only_for_harness_actions() -> None:
    assert harness_kind_of(harness_metadata("hook")) == "hook"
    assert harness_kind_of({"harness": "hook"}) is None
    assert harness_kind_of({"author": "harness", "harness": 1}) is None
    assert harness_kind_of(None) is None


@pytest.mark.parametrize("route", ["thread", "file"])
def test_frames_count_human_prompts_harness_turns_and_interrupts(route: str, tmp_path: Path) -> None:
    doc = _thread(
        [
            {"action_type": "user_message", "content": "<environment_context>cwd</environment_context>", "metadata": harness_metadata("environment_context")},
            {"action_type": "user_message", "content": "fix the bug"},
            {"action_type": "assistant_message", "agent_id": "a", "content": "on it"},
            {"action_type": "user_message", "content": "[Request interrupted by user]", "metadata": harness_metadata("interrupt")},
            {"action_type": "user_message", "content": "no, the other one"},
            {"action_type": "system.meta_message", "data": "hook said", "metadata": harness_metadata("hook")},
        ]
    )
    if route == "file":  # the loaders' typed fast path reads the metadata column from the bytes
        path = tmp_path / "t.json"
        path.write_bytes(orjson.dumps(doc))
        frames = tl.load(path, progress=False)
    else:
        frames = tl.load([tl.read(doc)], progress=False)
    a = frames.actions
    assert list(a["author"]) == ["harness", "human", "agent", "harness", "human", "harness"]
    assert list(a["harness_kind"].astype(object).where(a["harness_kind"].notna(), None)) == [
        "environment_context", None, None, "interrupt", None, "hook"]
    row = frames.threads.iloc[0]
    assert (row["n_human_prompts"], row["n_harness_turns"], row["n_interrupts"], row["n_messages"]) == (2, 3, 1, 5)
