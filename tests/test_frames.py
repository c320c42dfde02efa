"""Frames: the documented columns with honest dtypes, and the numbers they hold."""

from __future__ import annotations

import pandas as pd
import pytest

import threadlab as tl
from threadlab.frames.columns import DTYPES, TABLES

from .test_core import DATA


@pytest.fixture(scope="module")
def frames() -> tl.Frames:
    return tl.load(DATA, progress=False)


def test_every_table_has_the_declared_columns_and_dtypes(frames: tl.Frames) -> None:
    for name, columns in TABLES.items():
        df = getattr(frames, name)
        assert list(df.columns) == [c.name for c in columns], name
        for column in columns:
            expected = DTYPES[column.kind]
            assert df[column.name].dtype == (pd.CategoricalDtype() if expected == "category" else expected) or (
                expected == "category" and isinstance(df[column.name].dtype, pd.CategoricalDtype)
            ), (name, column.name, df[column.name].dtype)
    assert str(frames.actions["timestamp"].dt.tz) == "UTC"


def test_frames_numbers_match_the_research_thread(frames: tl.Frames) -> None:
    tid = "5f1c2a9e-7d4b-4c1e-9a3f-2b8e6d0c4a11"
    row = frames.threads.set_index("thread_id").loc[tid]
    assert (row["n_actions"], row["n_tool_calls"], row["n_tool_errors"], row["n_pending"]) == (23, 6, 2, 0)
    assert row["n_agents"] == 3 and row["agents"] == "Planner, Researcher, Writer"
    usage = frames.usage[frames.usage["thread_id"] == tid]
    assert int(usage["input_tokens"].sum()) == 1843 + 912 + 2410 + 1322 + 2950
    assert int(row["input_tokens"]) == int(usage["input_tokens"].sum())
    assert row["cost_usd"] > 0  # claude and gpt-4o models are known to genai-prices
    calls = frames.tool_calls[frames.tool_calls["thread_id"] == tid].set_index("tool_call_id")
    assert calls.loc["call_fi", "status"] == "error" and calls.loc["call_fi2", "status"] == "validation_error"
    assert calls.loc["call_se", "latency_s"] == pytest.approx(1.8 + 0.05, abs=1e-6)
    returns = frames.actions[(frames.actions["thread_id"] == tid) & (frames.actions["action_type"] == "tool_return")]
    assert set(returns["agent_id"].astype(str)) == {"planner", "researcher"}  # returns carry their caller


def test_pending_and_branch_rows(frames: tl.Frames) -> None:
    threads = frames.threads.set_index("thread_id")
    assert threads.loc["9a7e3c1d-2f4b-4e6a-8c0d-1b3f5e7a9c21", "n_pending"] == 1
    pending = frames.tool_calls[frames.tool_calls["status"] == "pending"]
    assert list(pending["tool_call_id"]) == ["call_rst"] and pending["latency_s"].isna().all()
    assert threads.loc["c3d9e1f7-4a2b-4d8c-b6e0-7f1a3c5e9b42", "parent_thread_id"] == "5f1c2a9e-7d4b-4c1e-9a3f-2b8e6d0c4a11"


def test_frames_thread_gives_back_the_thread(frames: tl.Frames) -> None:
    thread = frames.thread("5f1c2a9e-7d4b-4c1e-9a3f-2b8e6d0c4a11")
    assert thread.title.startswith("Market brief") and len(thread.actions) == 23
    with pytest.raises(KeyError):
        frames.thread("no-such-thread")


def test_frames_from_in_memory_threads() -> None:
    thread = tl.read(DATA / "research_team.thread.json")
    frames = tl.load([thread], progress=False)
    assert len(frames.actions) == 23 and frames.thread(thread.thread_id) is thread
