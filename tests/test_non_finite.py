"""A float NaN or infinity is never written as something else (issue 24 §6): JSON has neither,
orjson writes ``null`` and Python's json the non-JSON words ``NaN`` / ``Infinity``. The canonical
writer and every registered format's writer refuse the thread with a ``ThreadError`` naming the
action's sequence and the field (``core/finite.py``); a thread without one writes as before."""

from __future__ import annotations

import math
import warnings
from pathlib import Path
from typing import Any

import pytest

import threadlab as tl
from threadlab import ThreadBuilder
from threadlab.core.loss import WriteLoss
from threadlab.core.model import Thread
from threadlab.formats import get_format
from threadlab.formats.common.registry import FORMATS

BAD = [float("nan"), float("inf"), float("-inf")]


def thread(**spots: Any) -> Thread:
    """One agent: a prompt, a tool call and its return, an answer, a system action; ``spots``
    puts a value in the call's args, the return's content, the system action's data, the
    answer's metadata or the thread's metadata."""
    b = ThreadBuilder("nf", title="nf")
    agent = b.agent("A")
    b.add("user_message", content="go")
    b.add("tool_call", agent_id=agent, tool_name="t", tool_call_id="c1", args={"x": [1, spots.get("args", 2.5)]})
    b.add("tool_return", tool_call_id="c1", tool_name="t", content={"v": spots.get("content", 1.5)})
    b.add("assistant_message", agent_id=agent, content="done", metadata={"m": {"score": spots.get("metadata", 0.5)}})
    b.add("system.note", agent_id=agent, data={"d": spots.get("data", 0.25)})
    built = b.build()
    if "thread_metadata" in spots:
        built.metadata = {"t": spots["thread_metadata"]}
    return built


WHERE = {  # spot -> (sequence, field path) the problem names
    "args": (2, "args.x[1]"),
    "content": (3, "content.v"),
    "metadata": (4, "metadata.m.score"),
    "data": (5, "data.d"),
    "thread_metadata": (None, "metadata.t"),
}


def refusal(write: Any, value: Any) -> tl.ThreadError:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", WriteLoss)
        with pytest.raises(tl.ThreadError) as caught:
            write(value)
    return caught.value


@pytest.mark.parametrize("bad", BAD, ids=repr)
@pytest.mark.parametrize("spot", list(WHERE))
def test_canonical_json_refuses_nan_and_infinity(spot: str, bad: float, tmp_path: Path) -> None:
    sequence, path = WHERE[spot]
    for write in (tl.dumps, lambda t: tl.write(t, tmp_path / "out.json")):
        [problem] = refusal(write, thread(**{spot: bad})).problems
        assert problem.rule == "non-finite" and problem.sequence == sequence and problem.thread_id == "nf"
        assert f"{path} is {bad!r}" in problem.message
        assert (f"action sequence {sequence} " in problem.message) if sequence else problem.message.startswith("the thread:")
    assert not (tmp_path / "out.json").exists()


@pytest.mark.parametrize("name", [spec.name for spec in FORMATS if spec.writes])
def test_every_writer_refuses_nan_and_infinity(name: str) -> None:
    writer = get_format(name)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", WriteLoss)
        assert writer.from_thread(thread())  # finite values: written as before
    for spot, (sequence, path) in WHERE.items():
        bad = BAD[len(spot) % 3]
        problems = refusal(writer.from_thread, thread(**{spot: bad})).problems
        assert [(p.rule, p.sequence) for p in problems] == [("non-finite", sequence)], name
        assert f"{path} is {bad!r}" in problems[0].message


def test_every_value_is_named_at_any_depth() -> None:
    t = thread(args=math.nan, content=math.inf)
    deep: Any = -math.inf
    for _ in range(5000):  # deeper than Python's recursion allows
        deep = [deep]
    t.actions[4].data = {"deep": deep}  # type: ignore[union-attr]
    problems = refusal(tl.dumps, t).problems
    assert [p.sequence for p in problems] == [2, 3, 5]
    assert problems[2].message.startswith("action sequence 5 (system.note): data.deep[0][0]")
