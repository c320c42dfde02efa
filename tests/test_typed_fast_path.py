"""The typed fast path (msgspec Structs, ``loading/structs.py``; rules over their columns,
``loading/struct_rules.py``) against the path it stands in for (orjson + ``shape.thread_fits`` +
``validate_dict``, and the converters for what they refuse): on generated threads, valid and
broken in every field and against every rule, it takes a file only where the old fast path
would, and the five tables (problems included) come out equal with and without it."""

from __future__ import annotations

import copy
import json
import random
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any
from unittest.mock import patch

import pyarrow as pa
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from benchmarks.corpus import thread_doc
from threadlab.frames.arrow import batch_to_tables
from threadlab.frames.extract import extract
from threadlab.loading import reader, structs
from threadlab.loading.reader import fast_record, read_items, typed_records

ODD_VALUES = (
    None, True, False, 0, 1, -3, 2**70, -(2**70), 1.0, 2.5, "", "x", "stop", "success", "error", "bogus",
    "2026-01-05T09:00:00Z", "2026-01-05T09:00:00", "2026-01-05 09:00", "2026-01-05T10:00:00+02:00", "not a time",
    [], [1], {}, {"a": 1}, {"b": 2**70, "a": [1.5, None]},
    [{"type": "text", "text": "hi"}], [{"type": "image", "image_url": "https://example.org/a.png"}],
    [{"name": "a.txt", "media_type": "text/plain"}], {"input_tokens": 3}, {"input_tokens": "3"}, {"input_tokens": -1},
    "user_message", "assistant_message", "thinking", "tool_call", "tool_return", "system.handoff",
    "system.tool_grant", "system.Bad", "mystery_kind", "planner", "ghost",
)
FIELDS = (
    "action_type", "timestamp", "sequence", "action_id", "metadata", "content", "agent_id", "tool_name",
    "tool_call_id", "args", "status", "finish_reason", "usage", "provider_name", "signature", "attachments", "data",
    "thinking_id", "extra_field",
)
HEAD_FIELDS = ("version", "thread_id", "parent_thread_id", "created_at", "updated_at", "title", "metadata", "agents", "actions")
AGENT_FIELDS = ("agent_id", "agent_identifier", "agent_name", "created_at", "config_ref", "metadata")
# breaks of the five rules (as tests/test_core.py breaks them)
RULE_BREAKS = (
    ("sequence", lambda r: r.choice([0, 99, 2, -1])),
    ("action_type", lambda r: r.choice(["Tool_Call", "system.Bad", "system.ok_name", "system.handoff"])),
    ("agent_id", lambda r: r.choice(["ghost", "planner", None])),
    ("timestamp", lambda r: r.choice(["2020-01-01T00:00:00Z", "2026-01-01T00:00:00", "2030-01-01T00:00:00+14:00", "0001-01-01T00:30:00+01:00"])),
    ("tool_name", lambda r: r.choice(["other", "search"])),
    ("tool_call_id", lambda r: r.choice(["c-none", "call_0_1"])),
    ("data", lambda r: {"agent_id": r.choice(["ghost", "planner", 5, [1]])}),
    ("usage", lambda r: {"input_tokens": r.choice([-5, 5, 2**70]), "other": -1}),
)


@st.composite
def threads(draw: st.DrawFn) -> dict[str, Any]:
    """A generated thread (three agents, tool calls, handoffs), then a few of its fields set to
    odd values, removed, or broken against a rule: some still valid, most broken somehow."""
    doc = thread_doc(draw(st.integers(0, 3)), draw(st.integers(0, 50)), target_bytes=draw(st.sampled_from((1_500, 5_000))))
    actions, agents = list(doc["actions"]), [doc["agents"][key] for key in sorted(doc["agents"])]
    rng = random.Random(draw(st.integers(0, 2**32)))
    for _ in range(draw(st.integers(0, 3))):
        where = draw(st.sampled_from(("action", "action", "rule", "rule", "head", "agent", "usage")))
        action = draw(st.sampled_from(actions))
        if where == "rule":
            field, value = draw(st.sampled_from(RULE_BREAKS))
            action[field] = value(rng)
            continue
        value = draw(st.sampled_from(ODD_VALUES))
        remove = draw(st.booleans())
        if where == "head":
            target, key = doc, draw(st.sampled_from(HEAD_FIELDS))
        elif where == "agent":
            target, key = draw(st.sampled_from(agents)), draw(st.sampled_from(AGENT_FIELDS))
        elif where == "usage" and isinstance(action.get("usage"), dict):
            target, key = action["usage"], draw(st.sampled_from(("input_tokens", "output_tokens", "cache_read_tokens", "extra")))
        else:
            target, key = action, draw(st.sampled_from(FIELDS))
        if remove:
            target.pop(key, None)
        else:
            target[key] = copy.deepcopy(value)
    return doc


def _dumps(value: Any, indent: int | None = None) -> bytes:
    """JSON text of ``value`` (integers beyond 64 bits too, which orjson does not write)."""
    return json.dumps(value, indent=indent, ensure_ascii=False, separators=None if indent else (",", ":")).encode()


@contextmanager
def untyped() -> Iterator[None]:
    """The reader as it was before the typed path: every file goes the orjson way."""
    with patch.object(reader, "typed_records", lambda *args, **kwargs: None):
        yield


@pytest.fixture(autouse=True)
def deep_recursion_allowed() -> Iterator[None]:
    """Hypothesis raises the recursion limit while it runs a test, and the typed path stands
    aside when the limit is above orjson's nesting limit (``structs._MAX_RECURSION``); these
    threads nest a few levels, so it is let run here (the deep case is tested on its own)."""
    with patch.object(structs, "_MAX_RECURSION", 10**6):
        yield


def _tables(path: Path) -> dict[str, pa.Table]:
    return batch_to_tables(extract(list(read_items(path))))


def _assert_equal_both_ways(data: bytes, suffix: str = ".json") -> bool:
    """The five tables of a file holding ``data``, with and without the typed path, are
    equal; returns whether the typed path took it."""
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / f"t{suffix}"
        path.write_bytes(data)
        typed = _tables(path)
        with untyped():
            old = _tables(path)
    for name in old:
        assert typed[name].equals(old[name]), (name, typed[name].to_pylist()[:3], old[name].to_pylist()[:3])
    return any(typed_records(line, "t", single=suffix == ".jsonl") is not None for line in (data.splitlines() if suffix == ".jsonl" else [data]))


def _fast_path_takes(doc: Any) -> bool:
    return fast_record(copy.deepcopy(doc), "t") is not None


@settings(max_examples=250, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(threads())
def test_typed_path_takes_a_thread_only_where_the_old_fast_path_does(doc: dict[str, Any]) -> None:
    data = _dumps(doc)
    if typed_records(data, "t") is not None:
        assert _fast_path_takes(json.loads(data))


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(threads())
def test_five_tables_equal_with_and_without_the_typed_path(doc: dict[str, Any]) -> None:
    _assert_equal_both_ways(_dumps(doc, indent=2))


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(threads(), min_size=1, max_size=3))
def test_lists_and_lines_equal_with_and_without_the_typed_path(docs: list[dict[str, Any]]) -> None:
    _assert_equal_both_ways(_dumps(docs))
    _assert_equal_both_ways(b"\n".join(_dumps(d) for d in docs) + b"\n", ".jsonl")


def test_typed_path_takes_ordinary_threads_and_fills_defaults() -> None:
    """It must say yes to ordinary threads (else it never runs), with the defaults the models
    fill (a missing title, a tool_return's status), and give the same tables."""
    docs = [thread_doc(0, index, target_bytes=4_000) for index in range(6)]
    for doc in docs[:3]:
        doc.pop("title")
        for action in doc["actions"]:
            if action["action_type"] == "tool_return":
                action.pop("status")
    docs[4]["actions"][1]["extra_field"] = {"kept": [1, 2]}  # unknown fields: allowed
    docs[5]["actions"][0]["tool_name"] = 5  # a field of another kind, of any type: kept as the models keep it
    for doc in docs:
        data = _dumps(doc)
        records = typed_records(data, "t")
        assert records is not None and records[0].typed
        assert _assert_equal_both_ways(data)
    assert typed_records(_dumps(docs[0]), "t")[0].doc["title"] == ""  # type: ignore[index]


def test_typed_path_refuses_what_it_cannot_check() -> None:
    """Content parts, attachments, unknown kinds, bools for ints, bad head or agent times, a
    rule broken: no typed yes (the old way reads them, and says what is wrong)."""
    base = thread_doc(0, 1, target_bytes=3_000)
    first_user = next(i for i, a in enumerate(base["actions"]) if a["action_type"] == "user_message")
    cases = (
        (("actions", first_user, "content"), [{"type": "text", "text": "hi"}]),
        (("actions", first_user, "attachments"), [{"name": "a", "media_type": "text/plain"}]),
        (("actions", 0, "action_type"), "mystery_kind"),
        (("actions", 0, "sequence"), True),
        (("actions", 1, "sequence"), 7),
        (("actions", 1, "timestamp"), "2000-01-01T00:00:00Z"),
        (("created_at",), "yesterday"),
        (("agents", "planner", "created_at"), "05/01/2026"),
        (("agents", "planner", "agent_id"), "other"),
    )
    for path, value in cases:
        doc = copy.deepcopy(base)
        *parents, key = path
        target: Any = doc
        for step in parents:
            target = target[step]
        target[key] = value
        data = _dumps(doc)
        assert typed_records(data, "t") is None, path
        assert not _assert_equal_both_ways(data)


def test_raw_json_edge_cases_equal_both_ways() -> None:
    """What only raw text can hold: duplicate keys (the last wins, as in orjson), integers
    beyond 64 bits, deep nesting, a BOM, trailing data, a system kind met for the first time."""
    docs = (thread_doc(0, i, target_bytes=3_000) for i in range(20))
    doc = next(d for d in docs if any(a["action_type"] == "tool_call" for a in d["actions"]))
    text = _dumps(doc)
    duplicate = text.replace(b'"sequence":1,', b'"sequence":5,"sequence":1,', 1)
    assert duplicate != text and _assert_equal_both_ways(duplicate)  # taken, with the last value
    assert not _assert_equal_both_ways(text.replace(b'"sequence":1,', b'"sequence":"x","sequence":1,', 1))  # refused
    duplicate_kind = text.replace(b'"action_type":"user_message"', b'"action_type":"tool_call","action_type":"user_message"', 1)
    _assert_equal_both_ways(duplicate_kind)
    doc2 = copy.deepcopy(doc)
    call = next(a for a in doc2["actions"] if a["action_type"] == "tool_call")
    call["args"] = {"big": 2**80, "neg": -(2**70), "deep": [[[[[{"x": 1.5}]]]]]}
    assert _assert_equal_both_ways(_dumps(doc2))
    deep = _dumps(doc).replace(b'"metadata":{', b'"metadata":{"deep":' + b"[" * 1100 + b"]" * 1100 + b",", 1)
    assert not _assert_equal_both_ways(deep)
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(5000)
    try:
        with patch.object(structs, "_MAX_RECURSION", 1024):  # as outside the tests
            assert typed_records(deep, "t") is None  # nested deeper than orjson reads: not typed
            assert typed_records(text, "t") is None  # nor anything while the limit is raised
    finally:
        sys.setrecursionlimit(limit)
    _assert_equal_both_ways(b"\xef\xbb\xbf" + text)
    _assert_equal_both_ways(text + b" x")
    doc3 = copy.deepcopy(doc)
    doc3["actions"][-1] = {**doc3["actions"][-1]}
    doc3["actions"].append({"action_type": "system.first_met_kind_xyz", "sequence": len(doc3["actions"]) + 1,
                            "timestamp": "2030-01-01T00:00:00Z", "data": {"agent_id": "planner"}})
    assert _assert_equal_both_ways(_dumps(doc3))


def test_a_chunk_mixing_typed_and_untyped_files_equals_the_old_read(tmp_path: Path) -> None:
    """Typed records (Structs) and old ones (dicts) extracted in one block, as a chunk of files
    of both kinds gives them: the same tables as the old read."""
    from threadlab.loading.chunks import read_chunk
    from threadlab.loading.files import Chunk, FileRef

    paths = []
    for i in range(6):
        doc = thread_doc(1, i, target_bytes=2_500)
        if i % 2:  # content parts: read the old way
            user = next(a for a in doc["actions"] if a["action_type"] == "user_message")
            user["content"] = [{"type": "text", "text": "hi"}, {"type": "image", "image_url": "https://example.org/a.png"}]
            user["usage"] = {"input_tokens": 4}
        path = tmp_path / f"t{i}.json"
        path.write_bytes(_dumps(doc))
        paths.append(path)
    assert [typed_records(p.read_bytes(), "t") is not None for p in paths] == [True, False] * 3
    chunk = Chunk(tuple(FileRef.of(p) for p in paths), "auto")
    typed = read_chunk(chunk)
    with untyped():
        old = read_chunk(chunk)
    for name in old:
        assert typed[name].equals(old[name]), name
    assert typed["actions"]["n_media"].to_pylist().count(1) == 3


@given(st.lists(st.sampled_from(["user_message", "assistant_message", "thinking", "tool_call", "tool_return", "system.handoff"]), max_size=12))
@settings(max_examples=40, deadline=None)
def test_columns_read_every_field_where_attributes_do(kinds: list[str]) -> None:
    """``structs.columns`` reads fields by position (``astuple``): every kind's Struct must keep
    the ``LAYOUT`` fields first and in order, or a column would hold another field's values."""
    actions = [structs.action_struct(kind)(**_struct_fields(kind, n)) for n, kind in enumerate(kinds, 1)]
    columns = structs.columns(actions)
    assert columns["action_type"] == tuple(kinds)
    for name in structs.LAYOUT:
        assert columns[name] == tuple(getattr(a, name) for a in actions), name


def _struct_fields(kind: str, n: int) -> dict[str, Any]:
    """Every field of the kind's Struct set to a value naming it (so a column reading the wrong
    position shows)."""
    return {name: f"{name}-{n}" for name in structs.action_struct(kind).__struct_fields__}
