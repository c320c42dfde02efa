"""The shared tail of every load (issue 27): the rules' tool pairs handed to the extractor, the
threads' rows made a column at a time, the text lengths taken from the values, and the Arrow
pool a chunk is read with. Each is held to the way it stands for: the extractor pairing the
tools itself, each thread extracted alone, ``utf8_length`` over the Arrow text, the default
pool."""

from __future__ import annotations

import copy
import tempfile
from dataclasses import replace
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from benchmarks.corpus import thread_doc
from tests.test_typed_fast_path import _dumps, deep_recursion_allowed, threads, untyped  # noqa: F401  (a fixture)
from threadlab.core.problems import Problem
from threadlab.core.validation import _walk, validate_and_pair, validate_dict
from threadlab.frames.arrow import batch_to_tables
from threadlab.frames.batch import ThreadRecord
from threadlab.frames.extract import extract
from threadlab.frames.memory import arrow_memory
from threadlab.frames.typed import text_and_lengths, typed_array
from threadlab.loading.reader import read_items


def _records(docs: list[dict[str, Any]], folder: Path) -> list[ThreadRecord | Problem]:
    """The records the loader reads from a file of each thread (the fast path and the careful
    one, as the thread is valid or not), one file per thread."""
    items: list[ThreadRecord | Problem] = []
    for i, doc in enumerate(docs):
        path = folder / f"t{i}.json"
        path.write_bytes(_dumps(doc))
        with untyped():
            items += read_items(path)
    return items


def _tables(items: list[ThreadRecord | Problem]) -> dict[str, pa.Table]:
    return batch_to_tables(extract(items))


def _assert_tables_equal(got: dict[str, pa.Table], want: dict[str, pa.Table]) -> None:
    for name in want:
        assert got[name].equals(want[name]), (name, got[name].to_pylist()[:3], want[name].to_pylist()[:3])


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(threads(), min_size=1, max_size=4))
def test_tool_pairs_from_the_rules_give_the_frames_the_extractor_pairs_itself(docs: list[dict[str, Any]]) -> None:
    """Threads valid and broken, read as the loader reads them: where the rules paired the
    tools, the pairs they hand over give the same five tables as the extractor's own pairing;
    the problems are ``validate_dict``'s, and the walk finds nothing where pairs were found."""
    for doc in docs:
        problems, pairs = validate_and_pair(copy.deepcopy(doc))
        assert problems == validate_dict(copy.deepcopy(doc))
        if pairs is not None:
            assert _walk(copy.deepcopy(doc)) == []
    with tempfile.TemporaryDirectory() as folder:
        items = _records(docs, Path(folder))
    unpaired = [replace(item, tool_pairs=None) if isinstance(item, ThreadRecord) else item for item in items]
    _assert_tables_equal(_tables(items), _tables(unpaired))


def test_pairs_are_rows_of_the_thread_actions() -> None:
    """The pairs name rows of ``actions`` (what the extractor takes), not of the tool actions
    alone: a thread whose first action is no tool action shows the difference."""
    docs = (thread_doc(0, i, target_bytes=5_000) for i in range(50))
    doc = next(d for d in docs if any(a["action_type"] == "tool_call" for a in d["actions"]))
    problems, pairs = validate_and_pair(doc)
    assert problems == [] and pairs
    assert doc["actions"][0]["action_type"] not in ("tool_call", "tool_return")
    kinds = [a["action_type"] for a in doc["actions"]]
    for call, ret in pairs:
        assert call is None or kinds[call] == "tool_call"
        assert ret is None or kinds[ret] == "tool_return"
        if call is not None and ret is not None:
            assert doc["actions"][call]["tool_call_id"] == doc["actions"][ret]["tool_call_id"]


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(threads(), min_size=2, max_size=5))
def test_threads_extracted_together_equal_each_extracted_alone(docs: list[dict[str, Any]]) -> None:
    """One block of several threads (shared or per-thread agent maps, names made once per set
    of agent ids) gives each thread's row as extracting it alone does."""
    with tempfile.TemporaryDirectory() as folder:
        items = _records(docs, Path(folder))
    records = [item for item in items if isinstance(item, ThreadRecord)]
    if not records:  # (every file a problem: no thread to compare)
        return
    together = _tables(records)["threads"]
    alone = pa.concat_tables([_tables([record])["threads"] for record in records])
    assert together.equals(alone), (together.to_pylist(), alone.to_pylist())


@settings(max_examples=300, deadline=None)
@given(st.lists(st.one_of(st.none(), st.text(), st.text(alphabet=st.characters(codec="utf-8")), st.binary(max_size=4)), max_size=12))
def test_text_lengths_are_the_arrow_texts_lengths(values: list[Any]) -> None:
    """Lone surrogates, astral characters, bytes and empty cells: the text is ``typed_array``'s
    and the lengths ``utf8_length`` of it, as when both were counted over the Arrow buffer."""
    reported: list[tuple[int, str]] = []
    again: list[tuple[int, str]] = []
    text, lengths = text_and_lengths(values, lambda row, why: reported.append((row, why)))
    want = typed_array(values, "str", lambda row, why: again.append((row, why)))
    assert text.equals(want)
    assert lengths.equals(pc.utf8_length(want).cast(pa.int64()))
    assert reported == again


def test_a_chunk_is_read_with_the_retaining_pool_and_the_default_is_put_back() -> None:
    before = pa.default_memory_pool()
    with arrow_memory():
        inside = pa.default_memory_pool()
        table = pa.table({"text": pa.array(["x" * 1000] * 100)})
    assert pa.default_memory_pool().backend_name == before.backend_name
    try:
        pa.jemalloc_memory_pool()
    except NotImplementedError:
        assert inside.backend_name == before.backend_name
    else:
        assert inside.backend_name == "jemalloc"
    assert table["text"].to_pylist() == ["x" * 1000] * 100  # the buffers outlive the switch


def test_each_thread_names_its_own_agents_in_a_shared_block() -> None:
    """Threads whose registries agree share one name map; the agents column still lists each
    thread's own agents (two threads with as many agents, other ids)."""
    def doc(thread_id: str, agents: dict[str, str]) -> dict[str, Any]:
        return {
            "thread_id": thread_id,
            "agents": {key: {"agent_id": key, "agent_name": name} for key, name in agents.items()},
            "actions": [{"sequence": 1, "action_type": "assistant_message", "agent_id": next(iter(agents)), "content": "hi"}],
        }

    docs = [doc("a", {"p": "Planner", "q": "Coder"}), doc("b", {"r": "Researcher", "s": "Scribe"}), doc("c", {"q": "Coder", "p": "Planner"})]
    threads_table = _tables([ThreadRecord(d, "t", "threadprotocol") for d in docs])["threads"]
    assert threads_table["agents"].to_pylist() == ["Planner, Coder", "Researcher, Scribe", "Planner, Coder"]  # (by agent id)
    assert threads_table["n_agents"].to_pylist() == [2, 2, 2]


def test_blocks_on_several_threads_put_the_default_pool_back() -> None:
    """Dask's threaded scheduler reads chunks on several threads at once: with two blocks
    interleaved (the first ends while the second runs), the pool in use before them is the
    one in use after them."""
    import threading

    before = pa.default_memory_pool().backend_name
    second_in, first_out = threading.Event(), threading.Event()

    def first() -> None:
        with arrow_memory():
            second_in.wait(5)
        first_out.set()

    def second() -> None:
        with arrow_memory():
            second_in.set()
            first_out.wait(5)

    threads = [threading.Thread(target=first), threading.Thread(target=second)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert second_in.is_set() and first_out.is_set()
    assert pa.default_memory_pool().backend_name == before
