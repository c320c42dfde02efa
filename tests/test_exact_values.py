"""Values are kept exactly or reported, never quietly changed (issue 13): integers beyond 64
bits, years below 1000, two open tool calls under one id, and the coercions pydantic's lax
mode made of a sequence "2", 2.0 or true and token counts "10" or -10."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import threadlab as tl
from threadlab import ThreadBuilder
from threadlab.core.canonical import json_bytes
from threadlab.formats.common.source import loads

BIG = {"n": 2**70, "m": -(2**65), "u64": 2**64 - 1, "i64": -(2**63), "edge": 2**64, "ns": 1_767_600_000_123_456_789}


def tool_thread(args: Any, **call: Any) -> dict[str, Any]:
    b = ThreadBuilder("exact", title="exact")
    agent = b.agent("A")
    b.add("user_message", content="go")
    b.add("tool_call", agent_id=agent, tool_name="t", tool_call_id="c1", args=args, **call)
    b.add("tool_return", tool_call_id="c1", tool_name="t", content={"ok": True})
    return b.build().to_dict()


def write_raw(path: Path, doc: Any) -> Path:
    path.write_bytes(json_bytes(doc, option=orjson.OPT_INDENT_2))
    return path


def test_integers_beyond_64_bits_round_trip_exactly(tmp_path: Path) -> None:
    path = write_raw(tmp_path / "big.json", tool_thread(BIG))
    assert b"1180591620717411303424" in path.read_bytes()
    thread = tl.read(path)  # valid: no problem, no float
    assert thread.actions[1].args == BIG and all(type(v) is int for v in thread.actions[1].args.values())
    assert tl.dumps(thread, indent=True) == path.read_bytes()  # the same bytes back
    frames = tl.load(path, workers=1, progress=False)
    assert frames.tool_calls["args"].iloc[0] == json_bytes(BIG, option=orjson.OPT_SORT_KEYS).decode()
    assert frames.problems.empty


def test_a_count_beyond_64_bits_is_reported_not_wrapped(tmp_path: Path) -> None:
    doc = tool_thread({"q": 1})
    doc["actions"][0]["sequence"] = 2**64
    doc["actions"].append({**doc["actions"][2], "action_type": "assistant_message", "sequence": 4, "agent_id": "a",
                           "content": "done", "usage": {"input_tokens": 2**63, "output_tokens": 5}})
    for key in ("tool_call_id", "tool_name", "status"):
        doc["actions"][3].pop(key)
    thread = tl.read(write_raw(tmp_path / "t.json", doc), strict=False)
    assert any(p.rule == "sequence-order" and "18446744073709551616" in p.message for p in thread.problems)
    assert tl.dumps(thread).count(b"18446744073709551616") == 1  # kept as it came
    frames = tl.load(tmp_path / "t.json", workers=1, progress=False)
    odd = frames.problems[frames.problems["rule"] == "frame-value"]
    assert "actions.input_tokens 9223372036854775808 does not fit a 64-bit integer" in " ".join(odd["message"])
    assert frames.actions["input_tokens"].isna().all() and frames.actions["sequence"].isna().iloc[0]


def test_years_below_1000_are_zero_padded_and_read_back(tmp_path: Path) -> None:
    b = ThreadBuilder("old", title="old")
    agent = b.agent("A", created_at="0999-06-01T00:00:00Z")
    b.add("user_message", timestamp="0999-06-01T00:00:00Z", content="hi")
    b.add("assistant_message", timestamp="0999-06-01T00:00:01.5Z", agent_id=agent, content="hello")
    thread = b.build()
    path = tmp_path / "old.json"
    tl.write(thread, path)
    text = path.read_text()
    assert '"0999-06-01T00:00:00Z"' in text and '"0999-06-01T00:00:01.500000Z"' in text and '"999-' not in text
    back = tl.read(path)
    assert tl.dumps(back) == tl.dumps(thread)
    assert tl.load(path, workers=1, progress=False).actions["timestamp"].dt.year.tolist() == [999, 999]


def test_two_open_calls_under_one_id_are_a_problem_and_both_kept(tmp_path: Path) -> None:
    b = ThreadBuilder("reuse", title="reuse")
    agent = b.agent("A")
    b.add("user_message", content="go")
    b.add("tool_call", agent_id=agent, tool_name="search", tool_call_id="c1", args={"q": "first"})
    b.add("tool_call", agent_id=agent, tool_name="search", tool_call_id="c1", args={"q": "second"})
    b.add("tool_return", tool_call_id="c1", tool_name="search", content="an answer")
    # reused after its return: fine (some producers number calls per turn)
    b.add("tool_call", agent_id=agent, tool_name="search", tool_call_id="c1", args={"q": "third"})
    b.add("tool_return", tool_call_id="c1", tool_name="search", content="another")
    thread = b.build()
    (problem,) = tl.validate(thread)
    assert problem.rule == "tool-call-match" and problem.sequence == 3 and "sequence 2" in problem.message
    assert tl.validate(thread.to_dict()) == [problem]
    path = tmp_path / "reuse.json"
    tl.write(thread, path)
    frames = tl.load(path, workers=1, progress=False)
    calls = frames.tool_calls
    assert calls["args"].tolist() == ['{"q":"first"}', '{"q":"second"}', '{"q":"third"}']
    assert calls["status"].tolist() == ["pending", "success", "success"]
    assert calls["result"].tolist()[1:] == ["an answer", "another"] and pd.isna(calls["result"].iloc[0])
    pairs = tl.tool_pairs(thread)  # the frames pair as derive does
    sequences = [[None if pd.isna(v) else int(v) for v in calls[c]] for c in ("call_sequence", "return_sequence")]
    assert [(p.call.sequence if p.call else None, p.ret.sequence if p.ret else None) for p in pairs] == list(zip(*sequences, strict=True))
    assert frames.threads[["n_tool_calls", "n_pending"]].iloc[0].tolist() == [3, 1]
    assert "tool-call-match" in set(frames.problems["rule"].astype(str))


@pytest.mark.parametrize(
    ("where", "value"),
    [("sequence", "2"), ("sequence", 2.0), ("sequence", True), ("input_tokens", "10"), ("input_tokens", -10), ("output_tokens", 1.0)],
)
def test_coercions_are_problem_rows(tmp_path: Path, where: str, value: Any) -> None:
    doc = tool_thread({"q": 1})
    reply = {"action_type": "assistant_message", "timestamp": doc["actions"][2]["timestamp"], "sequence": 4, "agent_id": "a",
             "content": "done", "usage": {"input_tokens": 7, "output_tokens": 3}}
    doc["actions"].append(reply)
    if where == "sequence":  # where the value it would be coerced to is the right one (true is 1)
        doc["actions"][0 if value is True else 1]["sequence"] = value
    else:
        reply["usage"][where] = value
    path = write_raw(tmp_path / "t.json", doc)
    thread = tl.read(path, strict=False)
    assert thread.problems, f"{where}={value!r} was taken without a problem"
    with pytest.raises(tl.ThreadError):
        tl.read(path)
    raw = orjson.loads(path.read_bytes())
    # kept as it came, not changed to 2 / 1 / 10 (compared as JSON text: in Python 1 == True)
    assert json_bytes(orjson.loads(tl.dumps(thread)), option=orjson.OPT_SORT_KEYS) == json_bytes(raw, option=orjson.OPT_SORT_KEYS)
    frames = tl.load(path, workers=1, progress=False)
    assert len(frames.problems) >= 1
    if where != "sequence" and isinstance(value, int) and value < 0:
        assert "usage" in set(frames.problems["rule"].astype(str))


def test_validate_reports_negative_token_counts() -> None:
    b = ThreadBuilder("neg", title="neg")
    agent = b.agent("A")
    b.add("user_message", content="go")
    b.add("assistant_message", agent_id=agent, content="ok", usage={"input_tokens": 12, "output_tokens": -10})
    (problem,) = tl.validate(b.build())
    assert problem.rule == "usage" and problem.sequence == 2 and "-10" in problem.message


JSON = st.recursive(
    st.none() | st.booleans() | st.integers(min_value=-(2**80), max_value=2**80)
    | st.floats(allow_nan=False, allow_infinity=False) | st.text(st.characters(exclude_categories=["Cs"])),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner, max_size=4),
    max_leaves=20,
)


@settings(max_examples=150, deadline=None, derandomize=True)
@given(JSON, st.sampled_from([0, orjson.OPT_INDENT_2, orjson.OPT_SORT_KEYS, orjson.OPT_INDENT_2 | orjson.OPT_SORT_KEYS]))
def test_json_bytes_is_orjson_and_keeps_every_integer(value: Any, option: int) -> None:
    """The slow encoder gives orjson's bytes where orjson can write the value; where it cannot
    (an integer beyond 64 bits) the value still reads back as it was."""
    from threadlab.core.canonical import _encode

    data = json_bytes(value, option=option)
    try:
        assert _encode(value, option) == orjson.dumps(value, option=option)
    except orjson.JSONEncodeError:
        pass
    assert loads(data) == value or value != value


def test_deep_values_are_written_like_orjson_would() -> None:
    from threadlab.core.canonical import _encode

    value: Any = "leaf"
    for n in range(200):
        value = [value] if n % 2 else {"k": value, "a": n}
    for option in (0, orjson.OPT_INDENT_2, orjson.OPT_SORT_KEYS):
        assert _encode(value, option) == orjson.dumps(value, option=option)
    for _ in range(3000):
        value = [value]
    assert json_bytes(value).startswith(b"[" * 3000)  # beyond orjson's 254 levels: written anyway


def test_deep_free_values_keep_every_object_whole() -> None:
    """Beyond Python's recursion limit the canonical dict is rebuilt with a stack; each object's
    values must be its own (a generator there read the loop's later object: a fuzzed Codex line
    600 levels deep made read() fail with 'string indices must be integers')."""
    from threadlab.core.canonical import _free, json_copy

    value: Any = "leaf"
    expected: Any = "leaf"
    for n in range(1500):
        value = {"z": [value, {"y": n, "x": "s"}], "a": n}
        expected = {"a": n, "z": [expected, {"x": "s", "y": n}]}
    assert json_bytes(_free(value)) == json_bytes(expected)
    copied = json_copy(value)
    assert copied is not value and json_bytes(copied) == json_bytes(value)
    assert list(json_copy({"b": 1, "a": 2})) == ["b", "a"]
