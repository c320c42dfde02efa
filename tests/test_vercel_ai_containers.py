"""Issue 12 §1-2 for the AI SDK formats: a stream is recognised by its chunks (not by ``data:``
or a ``.sse`` suffix), the same chunks read the same from SSE, a JSON array and JSON Lines,
every record of either format is accounted for, and the writers say what they could not keep."""

from __future__ import annotations

import warnings
from pathlib import Path
from typing import Any

import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import threadlab
from tests.conformance.records import vercel_ai_messages as count_parts
from tests.conformance.records import vercel_ai_stream as count_events
from tests.test_vercel_ai_support import foreign_thread
from threadlab.core.loss import WriteLoss
from threadlab.core.problems import ThreadError
from threadlab.formats import detect_format, get_format
from threadlab.formats.common.source import Source
from threadlab.formats.vercel_ai import from_ui_messages, from_ui_stream

ROOT = Path(__file__).resolve().parents[1]
SSE = ROOT / "data/vercel_ai/ai6_multistep.sse"
LOOKALIKES = ROOT / "tests/fixtures/lookalikes"
STREAM, MESSAGES = get_format("vercel-ai-stream"), get_format("vercel-ai-messages")


def chunks_of(path: Path) -> list[Any]:
    lines = [line[5:].strip() for line in path.read_bytes().splitlines() if line.startswith(b"data:")]
    return [orjson.loads(line) for line in lines if line != b"[DONE]"]


def same_thread(a: threadlab.Thread, b: threadlab.Thread) -> bool:
    def strip(thread: threadlab.Thread) -> list[Any]:
        return [{k: v for k, v in action.items() if k != "metadata"} for action in thread.to_dict()["actions"]]

    return strip(a) == strip(b)


# --- detection ----------------------------------------------------------------------------


@pytest.mark.parametrize("name", sorted(p.name for p in LOOKALIKES.iterdir() if p.suffix == ".sse"))  # the streams there
def test_other_streams_are_not_ai_sdk_streams(name: str, tmp_path: Path) -> None:
    path = LOOKALIKES / name
    assert not STREAM.detect(Source(path)) and not MESSAGES.detect(Source(path))
    with pytest.raises(ThreadError) as raised:
        threadlab.read_all(path)
    assert [p.rule for p in raised.value.problems] == ["format"] and "stream" in raised.value.problems[0].message
    lines = path.read_text().splitlines()
    assert not STREAM.detect(Source(lines))  # as response.iter_lines() gives them


def test_a_sse_suffix_claims_nothing(tmp_path: Path) -> None:
    for text in ("", "hello\n", 'data: {"hello": 1}\n\n', "data: [DONE]\n\n", 'data: {"type": "ping"}\n\n'):
        path = tmp_path / "body.sse"
        path.write_text(text)
        assert not STREAM.detect(Source(path)), text
    path.write_text('data: {"type":"text-start","id":"t"}\n\n')  # one AI SDK chunk is enough
    assert STREAM.detect(Source(path))


def test_chunks_as_a_json_array_or_json_lines_read_as_the_stream(tmp_path: Path) -> None:
    chunks = chunks_of(SSE)
    from_sse = threadlab.read(SSE)
    array, lines = tmp_path / "chunks.json", tmp_path / "chunks.jsonl"
    array.write_bytes(orjson.dumps(chunks, option=orjson.OPT_INDENT_2))
    lines.write_bytes(b"\n".join(orjson.dumps(c) for c in chunks) + b"\n")
    for path in (array, lines):
        assert detect_format(Source(path)).NAME == "vercel-ai-stream", path.name
        thread = threadlab.read(path)  # strict: no problem (and no missing [DONE])
        assert same_thread(thread, from_sse)
        assert thread.account.records == len(chunks) == count_events(path)
    in_memory = threadlab.read(chunks, "vercel-ai-stream")
    assert same_thread(in_memory, from_sse) and detect_format(Source(chunks)).NAME == "vercel-ai-stream"


def test_a_broken_line_of_a_chunk_array_costs_only_that_chunk(tmp_path: Path) -> None:
    chunks = chunks_of(SSE)
    rows = [orjson.dumps(c).decode() for c in chunks]
    rows[3] = '{"type": "reasoning-delta", "id": '  # cut short
    path = tmp_path / "chunks.json"
    path.write_text("[\n" + ",\n".join(rows) + "\n]\n")
    assert detect_format(Source(path)).NAME == "vercel-ai-stream"
    (thread,) = threadlab.read_all(path, strict=False)
    assert [(p.rule, p.line) for p in thread.problems if p.rule == "json"] == [("json", 5)]
    assert (thread.account.converted, thread.account.failed) == (len(chunks) - 1, 1)
    assert [a.tool_call_id for a in thread.actions if a.action_type == "tool_call"] == ["call-1", "call-2"]


# --- the account --------------------------------------------------------------------------

CHUNKS = [
    {"type": "start", "messageId": "m1"},
    {"type": "start-step"},
    {"type": "text-start", "id": "t"},
    {"type": "text-delta", "id": "t", "delta": "hi"},
    {"type": "text-end", "id": "t"},
    {"type": "tool-input-available", "toolCallId": "c", "toolName": "f", "input": {}},
    {"type": "tool-output-available", "toolCallId": "c", "output": 1},
    {"type": "data-progress", "data": {"p": 1}},
    {"type": "future-chunk", "x": 1},  # kept
    {"type": "text-delta"},  # breaks the schema: kept
    {"type": "finish-step"},
    {"type": "finish"},
]
LINES = [*(f"data: {orjson.dumps(c).decode()}" for c in CHUNKS), "data: [DONE]", "data: {not json", "data: [1, 2]", ": comment", "event: x", "junk"]


@settings(max_examples=60, deadline=None)
@given(lines=st.lists(st.sampled_from(LINES), max_size=30))
def test_every_sse_event_is_converted_kept_or_failed(lines: list[str]) -> None:
    body = "\n\n".join(lines) + "\n\n"
    thread = from_ui_stream(body)
    account = thread.account
    events = sum(1 for line in lines if line.startswith("data:"))
    assert account.records == events
    assert account.kept == sum(1 for line in lines if "future-chunk" in line or line == 'data: {"type":"text-delta"}')
    assert account.failed == sum(1 for line in lines if line in ("data: {not json", "data: [1, 2]"))
    assert len([p for p in thread.problems if p.rule in ("unknown-type", "schema", "json")]) >= account.unconverted


PARTS = [
    {"type": "text", "text": "a"},
    {"type": "reasoning", "text": "r"},
    {"type": "step-start"},
    {"type": "tool-f", "toolCallId": "c1", "state": "output-available", "input": {}, "output": 2},
    {"type": "data-x", "data": 1},
    {"type": "brand-new-part", "z": 1},  # kept
    {"type": "tool-g", "toolCallId": "c2", "state": "nonsense"},  # breaks the schema: kept
    "not an object",  # kept
]


@settings(max_examples=60, deadline=None)
@given(messages=st.lists(st.tuples(st.sampled_from(["user", "assistant"]), st.lists(st.sampled_from(PARTS), max_size=5)), min_size=1, max_size=6))
def test_every_ui_message_part_is_converted_or_kept(messages: list[tuple[str, list[Any]]], tmp_path_factory: pytest.TempPathFactory) -> None:
    value = [{"id": f"m{i}", "role": role, "parts": parts} for i, (role, parts) in enumerate(messages)]
    path = tmp_path_factory.mktemp("ui") / "messages.json"
    path.write_bytes(orjson.dumps(value))
    (thread,) = threadlab.read_all(path, "vercel-ai-messages", strict=False)
    assert thread.account.records == count_parts(path)
    assert thread.account.failed == 0
    assert len(thread.problems) >= thread.account.kept


def test_a_v4_looking_message_list_without_v4_fields_is_not_claimed() -> None:
    openai_style = [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "hello"}]
    assert not MESSAGES.detect(Source(orjson.dumps(openai_style)))
    v4 = [{"id": "a", "role": "user", "content": "hi"}, {"id": "b", "role": "assistant", "content": "hello"}]
    assert MESSAGES.detect(Source(orjson.dumps(v4)))  # a v4 Message has an id and only Message keys
    assert not MESSAGES.detect(Source(orjson.dumps([{**m, "thread_id": "t", "object": "thread.message"} for m in v4])))


# --- writers ------------------------------------------------------------------------------


def losses_of(format_name: str, thread: threadlab.Thread) -> list[str]:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        get_format(format_name).from_thread(thread)
    return [item for w in caught if isinstance(w.message, WriteLoss) for item in w.message.lost]


def test_writers_name_what_their_format_cannot_hold() -> None:
    thread = foreign_thread()
    stream = losses_of("vercel-ai-stream", thread)
    assert any(item.startswith("1 user_message actions (a UI message stream carries") for item in stream)
    assert any(item.startswith("the thread's title") for item in stream)
    assert not any("agent of" in item for item in stream)  # agents travel as metadata.agent / data-agent
    messages = losses_of("vercel-ai-messages", thread)
    assert not any("user_message" in item for item in messages)
    assert not any("thread id" in item for item in messages)  # kept as {"id", "messages"}
    with pytest.warns(WriteLoss):
        body = orjson.loads(MESSAGES.from_thread(thread))
    assert body["id"] == "foreign" and [m["role"] for m in body["messages"]] == ["user", "assistant"]
    assert threadlab.read(Source(orjson.dumps(body), name="x.json")).thread_id == "foreign"


def test_a_single_agent_keeps_its_name() -> None:
    builder = threadlab.ThreadBuilder("t")
    builder.agent("main")
    builder.add("user_message", content="hi")
    builder.add("assistant_message", agent_id="main", content="hello")
    thread = builder.build()
    for name in ("vercel-ai-stream", "vercel-ai-messages"):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", WriteLoss)
            wire = get_format(name).from_thread(thread)
        back = threadlab.read(Source(wire, name="w"), name)
        assert [a.agent_name for a in back.agents.values()] == ["main"], name


@pytest.mark.parametrize("path", sorted([*(ROOT / "tests/fixtures/vercel_ai").glob("*"), *(ROOT / "tests/fixtures/vercel_ai_messages").glob("*.json")]), ids=lambda p: p.name)
def test_own_threads_write_back_with_nothing_lost(path: Path) -> None:
    (thread,) = threadlab.read_all(path, strict=False)
    assert losses_of(thread.origin[1], thread) == []


def test_messages_written_from_a_stream_say_what_a_uimessage_does_not_store() -> None:
    thread = from_ui_stream(ROOT / "data/vercel_ai/ai6_agents.sse")
    lost = losses_of("vercel-ai-messages", thread)
    assert any(item.startswith("1 system.status actions (stream events") for item in lost)  # a transient data part
    with pytest.warns(WriteLoss):
        again = from_ui_messages(orjson.loads(MESSAGES.from_thread(thread)))
    assert [a.action_type for a in again.actions if a.action_type == "system.status"] == []


def test_a_byte_order_mark_costs_no_record(tmp_path: Path) -> None:
    chunks = chunks_of(SSE)
    for name, body in (("bom.sse", SSE.read_bytes()), ("bom.jsonl", b"\n".join(orjson.dumps(c) for c in chunks))):
        path = tmp_path / name
        path.write_bytes(b"\xef\xbb\xbf" + body)
        assert STREAM.detect(Source(path))
        thread = threadlab.read(path)
        assert thread.account.records == count_events(path) and thread.account.unconverted == 0
        assert same_thread(thread, threadlab.read(SSE))


def test_sniff_knows_every_chunk_type_the_models_read() -> None:
    """The sniffer rules out values by ``type`` before importing pydantic-ai's chunk models: its
    list must be exactly the types the models read, or a real stream would go unclaimed."""
    from threadlab.formats.vercel_ai.chunks import chunk_models
    from threadlab.formats.vercel_ai.sniff import CHUNK_TYPES

    assert set(chunk_models()) == CHUNK_TYPES
