"""Lenient means lenient (issue 13): each bad file the issue found costs only itself.

Every case is a generated thread (benchmarks/corpus.py) with one value made wrong, loaded beside
a good thread: the load must not raise, the good file's rows must be exactly what it gives
alone, the bad file must be named by a problem row, and ``read``/``validate`` of it must not
raise either. Without the fixes each case raised (ArrowTypeError, OverflowError, pandas'
ValueError, OutOfBoundsDatetime, TypeError, RecursionError) out of the whole load."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import orjson
import pandas as pd
import pytest

import threadlab as tl
from benchmarks.corpus import thread_doc
from threadlab.core.canonical import json_bytes
from threadlab.frames.frames import Frames
from threadlab.loading import api, chunks

GOOD = thread_doc(7, 1, target_bytes=6000)
BASE = thread_doc(7, 0, target_bytes=6000)


def fresh(doc: dict[str, Any]) -> dict[str, Any]:
    """A copy as a file gives it (the generator shares one metadata dict between actions)."""
    return orjson.loads(orjson.dumps(doc))


def first(doc: dict[str, Any], kind: str) -> dict[str, Any]:
    return next(a for a in doc["actions"] if a["action_type"] == kind)


def with_usage(doc: dict[str, Any]) -> dict[str, Any]:
    return next(a for a in doc["actions"] if a.get("usage"))


def nested(levels: int) -> Any:
    """A value ``levels`` JSON levels deep (objects and lists by turns)."""
    value: Any = 1
    for n in range(levels):
        value = {"a": value} if n % 2 else [value]
    return value


def setter(kind: str, field: str, value: Any) -> Callable[[dict[str, Any]], None]:
    return lambda doc: first(doc, kind).__setitem__(field, value)


# (case, mutation, a rule the bad file's problems must include)
CASES: list[tuple[str, Callable[[dict[str, Any]], None], str]] = [
    *[(f"int {field}", setter(kind, field, 5), "schema") for field, kind in (
        ("agent_id", "assistant_message"), ("tool_name", "tool_call"), ("tool_call_id", "tool_call"),
        ("status", "tool_return"), ("finish_reason", "assistant_message"), ("timestamp", "assistant_message"),
    )],
    ("int agent_id and timestamp (raw values reach the frames)", lambda d: first(d, "tool_call").update(agent_id=5, timestamp=5), "schema"),
    ("sequence 2**63", lambda d: d["actions"][0].__setitem__("sequence", 2**63), "sequence-order"),
    ("tokens 2**63", lambda d: with_usage(d)["usage"].__setitem__("input_tokens", 2**63), "frame-value"),
    ("tokens summing past 2**63", lambda d: with_usage(d).__setitem__("usage", {"input_tokens": 2**62 + 1, "output_tokens": 2**62}), "frame-value"),
    *[(f"timestamp {t}", lambda d, t=t: d["actions"][0].__setitem__("timestamp", t), "schema") for t in (
        "2026-06-30T23:59:60Z", "2026-13-01T00:00:00Z", "not a time",
    )],
    # read accepts these two (as Python's ISO reader does): the frames must too, not raise
    *[(f"timestamp {t}", lambda d, t=t: d["actions"][0].__setitem__("timestamp", t), None) for t in (
        "2026-01-05t09:00:00z", "2026-W02-1T09:00:00Z",
    )],
    ("image_url 5", lambda d: d["actions"][0].__setitem__("content", [{"type": "image", "image_url": 5}]), "schema"),
    ("metadata.model_name 5", lambda d: first(d, "assistant_message").setdefault("metadata", {}).__setitem__("model_name", 5), "frame-value"),
    ("metadata.provider_name list", lambda d: with_usage(d).setdefault("metadata", {}).__setitem__("provider_name", ["x"]), "frame-value"),
    ("list agent_id", setter("assistant_message", "agent_id", ["planner"]), "agent-ref"),
    ("list action_type", lambda d: d["actions"][1].__setitem__("action_type", ["tool_call"]), "action-type-name"),
    ("offset time in year 1", lambda d: d["actions"][0].__setitem__("timestamp", "0001-01-01T00:00:00+01:00"), "schema"),
    ("offset time in year 9999", lambda d: d["actions"][-1].__setitem__("timestamp", "9999-12-31T23:59:59-01:00"), "schema"),
    # valid, if deep: kept and written back exactly (Python's recursion limit and orjson's
    # writer, 254 levels, are no limit); beyond orjson's reader (1,024 levels) a json problem
    ("args nested 500 deep", setter("tool_call", "args", nested(500)), None),
    ("args nested 1,000 deep", setter("tool_call", "args", nested(1000)), None),
    ("args nested 2,000 deep", setter("tool_call", "args", nested(2000)), "json"),
    ("lone surrogate in a name", setter("assistant_message", "agent_id", "LONE-SURROGATE"), "json"),
]


def write_doc(path: Path, doc: Any) -> Path:
    path.write_bytes(json_bytes(doc).replace(b"LONE-SURROGATE", b"\\ud800"))
    return path


def good_rows(frames: Frames, source: Path) -> dict[str, pd.DataFrame]:
    out = {}
    for name in ("actions", "tool_calls", "usage", "threads"):
        frame = getattr(frames, name)
        rows = frame[frame["source"].astype(str) == str(source)].reset_index(drop=True)
        out[name] = rows.assign(source=rows["source"].astype(str))
    return out


def assert_good_kept(frames: Frames, alone: Frames, good: Path) -> None:
    mine, expected = good_rows(frames, good), good_rows(alone, good)
    for name in mine:
        pd.testing.assert_frame_equal(mine[name], expected[name], check_categorical=False, obj=name)


@pytest.fixture(scope="module")
def good_alone(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Frames]:
    folder = tmp_path_factory.mktemp("good")
    good = write_doc(folder / "good.json", GOOD)
    return good, tl.load([good], progress=False, workers=1)


@pytest.mark.parametrize(("case", "mutate", "rule"), CASES, ids=[c[0] for c in CASES])
def test_bad_file_costs_only_itself(tmp_path: Path, good_alone: tuple[Path, Frames], case: str, mutate: Any, rule: str | None) -> None:
    good, alone = good_alone
    doc = fresh(BASE)
    mutate(doc)
    bad = write_doc(tmp_path / "bad.json", doc)
    frames = tl.load([good, bad], progress=False, workers=1)  # one chunk: the two files meet
    assert_good_kept(frames, alone, good)
    problems = frames.problems[frames.problems["source"].astype(str) == str(bad)]
    if rule is not None:
        assert rule in set(problems["rule"].astype(str)), problems[["rule", "message"]].to_string()
    else:
        assert problems.empty
    # the bad thread is kept, not dropped (unless the file is no JSON: then it is only a problem)
    assert (frames.threads["source"].astype(str) == str(bad)).sum() == (0 if rule == "json" else 1)
    if rule == "json":
        with pytest.raises(tl.ThreadError):
            tl.read(bad, strict=False)
        return
    thread = tl.read(bad, strict=False)
    assert {p.rule for p in thread.problems} >= ({rule} - {"frame-value"} if rule else set())
    tl.validate(thread)
    if rule is not None and rule != "frame-value":
        with pytest.raises(tl.ThreadError):
            tl.load([good, bad], progress=False, workers=1, strict=True)


def test_every_bad_file_at_once_with_workers(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, good_alone: tuple[Path, Frames]) -> None:
    """All the cases in one folder, read by the process pool: still only their own cost."""
    good, alone = good_alone
    monkeypatch.setattr(api, "MIN_CHUNK_BYTES", 4096)
    monkeypatch.setattr(api, "SMALL_LOAD_BYTES", 0)
    bad = []
    for n, (_, mutate, _) in enumerate(CASES):
        doc = fresh(BASE)
        mutate(doc)
        bad.append(write_doc(tmp_path / f"bad{n:02d}.json", doc))
    frames = tl.load([good, *bad], progress=False, workers=2)
    assert_good_kept(frames, alone, good)
    assert len(frames.threads) == 1 + sum(rule != "json" for _, _, rule in CASES)
    with pytest.raises(tl.ThreadError) as err:
        tl.load([good, *bad], progress=False, workers=2, strict=True)
    assert len(err.value.problems) == len(frames.problems)  # strict lists every problem


def test_two_valid_files_that_clash_in_one_chunk(tmp_path: Path) -> None:
    """Nanosecond timestamps in one file and a date before 1677 in another: each valid alone,
    together they made pandas' nanosecond reader overflow (OutOfBoundsDatetime)."""
    fine = fresh(BASE)
    for action in fine["actions"]:
        action["timestamp"] = action["timestamp"].replace("Z", "123Z") if "." in action["timestamp"] else action["timestamp"].replace("Z", ".000000001Z")
    old = fresh(GOOD)
    for n, action in enumerate(old["actions"]):
        action["timestamp"] = f"1600-01-01T00:{n // 60 % 60:02d}:{n % 60:02d}Z"
    old["created_at"] = old["updated_at"] = "1600-01-01T00:00:00Z"
    paths = [write_doc(tmp_path / "ns.json", fine), write_doc(tmp_path / "old.json", old)]
    frames = tl.load(paths, progress=False, workers=1)
    # the nanoseconds are said once for their file (the frames hold microseconds, the thread all)
    assert list(zip(frames.problems["source"], frames.problems["rule"], strict=True)) == [(str(paths[0]), "time-precision")]
    stamps = frames.actions.groupby(frames.actions["source"].astype(str), observed=True)["timestamp"]
    assert stamps.min()[str(paths[1])] == pd.Timestamp("1600-01-01", tz="UTC")
    expected = [tl.core.parse_timestamp(a["timestamp"]) for a in fine["actions"]]  # to the microsecond, as read gives them
    got = frames.actions.loc[frames.actions["source"].astype(str) == str(paths[0]), "timestamp"]
    assert [t.to_pydatetime() for t in got] == expected


def test_a_bug_in_one_file_costs_only_that_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Should a chunk still fail (a bug), its files are read again one by one: the good ones
    load, the one that fails is an ``internal`` problem row naming it."""
    paths = [write_doc(tmp_path / f"t{i}.json", thread_doc(7, i, target_bytes=4000)) for i in range(4)]
    real = chunks.read_items

    def broken_on_t2(path: Path, format: str = "auto", part: tuple[int, int] | None = None) -> Any:
        if path.name == "t2.json":
            raise RuntimeError("a bug")
        return real(path, format, part)

    monkeypatch.setattr(chunks, "read_items", broken_on_t2)
    frames = tl.load(paths, progress=False, workers=1)
    assert list(frames.threads["source"].astype(str)) == [str(p) for i, p in enumerate(paths) if i != 2]
    (row,) = frames.problems.itertuples()
    assert row.rule == "internal" and str(row.source) == str(paths[2]) and "RuntimeError: a bug" in row.message


def test_an_odd_value_is_kept_as_text_and_reported(tmp_path: Path) -> None:
    doc = fresh(BASE)
    message = first(doc, "assistant_message")
    message.setdefault("metadata", {})["model_name"] = 5
    bad = write_doc(tmp_path / "bad.json", doc)
    frames = tl.load([bad], progress=False, workers=1)
    row = frames.actions[frames.actions["sequence"] == message["sequence"]].iloc[0]
    assert row["model_name"] == "5"
    (odd,) = frames.problems[frames.problems["rule"] == "frame-value"].itertuples()
    assert odd.sequence == message["sequence"] and str(odd.source) == str(bad) and odd.thread_id == doc["thread_id"]
    assert "actions.model_name 5 is int, not text" in odd.message
    assert frames.threads["n_problems"].iloc[0] == len(frames.problems)


def test_read_and_validate_never_raise_on_the_issue_cases(tmp_path: Path) -> None:
    """list where agent_id/action_type belongs (unhashable), offset times at the calendar's
    ends (OverflowError), args 1,000 deep (RecursionError): problems, not exceptions."""
    doc = fresh(BASE)
    first(doc, "assistant_message")["agent_id"] = ["planner"]
    doc["actions"][1]["action_type"] = {"kind": "tool_call"}
    doc["actions"][0]["timestamp"] = "0001-01-01T00:00:00+01:00"
    doc["actions"][-1]["timestamp"] = "9999-12-31T23:59:59-01:00"
    thread = tl.read(write_doc(tmp_path / "t.json", doc), strict=False)
    rules = {p.rule for p in tl.validate(thread)} | {p.rule for p in thread.problems}
    assert {"agent-ref", "action-type-name", "schema"} <= rules
    assert tl.validate(orjson.loads(orjson.dumps(doc)))  # the raw dict too
    deep = fresh(BASE)
    first(deep, "tool_call")["args"] = nested(1000)
    path = write_doc(tmp_path / "deep.json", deep)
    thread = tl.read(path)  # valid: no problem at all
    assert tl.validate(thread) == []
    assert json_bytes(first(thread.to_dict(), "tool_call")["args"]) == json_bytes(first(deep, "tool_call")["args"])
    first(deep, "tool_call")["args"] = nested(2000)
    with pytest.raises(tl.ThreadError) as err:
        tl.read(write_doc(tmp_path / "deeper.json", deep))
    assert [p.rule for p in err.value.problems] == ["json"]  # orjson's depth limit: said, not a crash


def test_a_converter_value_of_the_wrong_type_costs_only_its_action() -> None:
    """ThreadBuilder.add is what every converter calls: a wire value of the wrong type (a list
    where a part type belongs, an unreadable time) keeps the action as it came, with a schema
    problem, and the thread's canonical JSON reads back as written (a model inside the kept
    action is written with sorted keys, as it reads back)."""
    b = tl.ThreadBuilder("conv", title="conv")
    agent = b.agent("A", created_at=[2026])
    b.add("user_message", content="hi")
    b.add("assistant_message", agent_id=agent, content=[{"type": ["output_text"], "text": "x"}],
          usage=tl.core.model.Usage(input_tokens=3, output_tokens=2, cache_read_tokens=1))
    b.add("assistant_message", agent_id=agent, content="later", timestamp="year 57163")
    thread = b.build()
    assert [(p.rule, p.sequence) for p in thread.problems] == [("schema", None), ("schema", 2), ("schema", 2), ("schema", 3)]
    assert type(thread.actions[1]).__name__ == "InvalidAction" and thread.actions[2].content == "later"
    assert tl.dumps(tl.read(tl.dumps(thread), strict=False)) == tl.dumps(thread)
