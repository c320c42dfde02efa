"""tl.judge offline: a pydantic-ai Agent on FunctionModel reads each planted run's text and
answers in a structured output; plain and async functions; findings' spans; one item's failure
is its row; at most ``concurrency`` items at once; a running event loop (a notebook) works."""

from __future__ import annotations

import asyncio
import dataclasses
import threading
from pathlib import Path

import pytest
from pydantic import BaseModel
from pydantic_ai import Agent
from pydantic_ai.messages import ModelMessage, ModelResponse, ToolCallPart
from pydantic_ai.models.function import AgentInfo, FunctionModel

import threadlab as tl
from tests.analysis_plant import Expected, write_corpus
from threadlab.analysis import judge_async, thread_text


@pytest.fixture(scope="module")
def planted(tmp_path_factory: pytest.TempPathFactory) -> tuple[tl.Frames, dict[str, list[Expected]]]:
    folder = tmp_path_factory.mktemp("planted")
    expected = write_corpus(folder, per_pattern=2, clean_runs=4)
    return tl.load(folder, progress=False), expected


class Verdict(BaseModel):
    interrupted: bool
    steps: int


def _reader(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    """The scripted model: reads the transcript it was sent and answers through the output tool."""
    prompt = messages[-1].parts[-1].content
    assert isinstance(prompt, str)
    steps = sum(1 for line in prompt.splitlines() if line.startswith("["))
    return ModelResponse(parts=[ToolCallPart(info.output_tools[0].name, {"interrupted": "harness · interrupt" in prompt, "steps": steps})])


def test_an_agent_judges_every_thread(planted: tuple[tl.Frames, dict[str, list[Expected]]]) -> None:
    frames, expected = planted
    answers = tl.judge(frames, Agent(FunctionModel(_reader), output_type=Verdict))
    assert list(answers.columns) == ["source", "thread_id", "first_sequence", "last_sequence", "interrupted", "steps", "error"]
    assert answers["error"].isna().all()
    assert answers["first_sequence"].isna().all()  # whole threads
    got = dict(zip(answers["thread_id"], answers["interrupted"], strict=True))
    assert got == {t: any(e.scanner == "interrupted" for e in rows) for t, rows in expected.items()}
    n_actions = dict(zip(frames.threads["thread_id"].astype(str), frames.threads["n_actions"], strict=True))
    assert dict(zip(answers["thread_id"], answers["steps"], strict=True)) == n_actions


def test_findings_are_judged_on_their_spans(planted: tuple[tl.Frames, dict[str, list[Expected]]]) -> None:
    frames, _ = planted
    streaks = tl.scan(frames, ["error_streak"])

    def sequences(thread: tl.Thread) -> dict[str, object]:
        return {"seen": [a.sequence for a in thread.actions], "statuses": sorted({getattr(a, "status", "") for a in thread.actions} - {""})}

    answers = tl.judge(streaks, sequences, concurrency=2)
    assert answers["thread_id"].tolist() == streaks["thread_id"].astype(str).tolist()
    for first, last, seen in zip(answers["first_sequence"], answers["last_sequence"], answers["seen"], strict=True):
        assert seen == list(range(first, last + 1))
    assert {tuple(s) for s in answers["statuses"]} == {("error", "validation_error")}


def test_answers_of_every_shape_and_failures_are_rows(planted: tuple[tl.Frames, dict[str, list[Expected]]]) -> None:
    frames, _ = planted
    threads = [frames.thread(k) for k in frames.keys()[:3]]

    @dataclasses.dataclass
    class Count:
        n: int

    assert tl.judge(threads, lambda t: Count(len(t.actions)))["n"].tolist() == [len(t.actions) for t in threads]
    assert tl.judge(threads[0], lambda t: t.thread_id)["answer"].tolist() == [threads[0].thread_id]

    def flaky(thread: tl.Thread) -> dict[str, int]:
        if thread is threads[1]:
            raise RuntimeError("model overloaded")
        return {"n": len(thread.actions)}

    answers = tl.judge(threads, flaky)
    assert answers["error"].tolist() == [None, "RuntimeError: model overloaded", None]
    assert answers["n"].isna().tolist() == [False, True, False]


def test_at_most_concurrency_items_at_once(planted: tuple[tl.Frames, dict[str, list[Expected]]]) -> None:
    frames, _ = planted
    running, most = 0, 0

    async def slow(thread: tl.Thread) -> int:
        nonlocal running, most
        running += 1
        most = max(most, running)
        await asyncio.sleep(0.01)
        running -= 1
        return len(thread.actions)

    answers = tl.judge(frames, slow, concurrency=3)
    assert len(answers) == len(frames.threads) > 3
    assert most == 3
    with pytest.raises(ValueError, match="concurrency is at least 1"):
        tl.judge(frames, slow, concurrency=0)


def test_inside_a_running_event_loop(planted: tuple[tl.Frames, dict[str, list[Expected]]]) -> None:
    frames, _ = planted
    agent = Agent(FunctionModel(_reader), output_type=Verdict)

    async def notebook_cell() -> tuple[int, int]:
        in_thread = tl.judge(frames, agent)  # a notebook's loop is running: judge runs on a loop of its own
        awaited = await judge_async(frames, agent)
        return len(in_thread), len(awaited)

    assert asyncio.run(notebook_cell()) == (len(frames.threads), len(frames.threads))
    assert threading.active_count() >= 1


def test_the_text_a_model_reads(tmp_path: Path) -> None:
    thread = tl.read(Path(__file__).resolve().parents[1] / "data" / "threadprotocol" / "approval_pending.thread.json")
    text = thread_text(thread, limit=30)
    lines = text.splitlines()
    assert lines[0] == f"Thread {thread.thread_id}" + (f": {thread.title}" if thread.title else "")
    assert len(lines) == len(thread.actions) + 1
    assert lines[1].startswith("[1] user_message · human: ")
    assert all(len(line.split(": ", 1)[1]) <= 30 or "more characters)" in line for line in lines[1:])


def test_judge_refuses_what_it_cannot_judge() -> None:
    with pytest.raises(TypeError, match="judge takes"):
        tl.judge("data/", lambda t: 1)
    with pytest.raises(TypeError, match="fn must be a function of a Thread or a pydantic-ai Agent"):
        tl.judge([], 42)
