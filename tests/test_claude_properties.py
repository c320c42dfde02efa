"""Properties of the Claude Code reader and writer on generated files: whatever the lines hold
(any mix of entry types and content blocks, broken lines, forked and dangling chains, inline
sidechains, repeated uuids, missing or backwards timestamps, session fields that change), the
reader never raises, accounts for every record (counted by the conformance suite's own
counter, which knows nothing of threadlab), and the writer gives back the same thread."""

from __future__ import annotations

import warnings
from pathlib import Path
from typing import Any

import orjson
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import threadlab as tl
from tests.conformance.records import COUNTERS
from threadlab.core.loss import WriteLoss
from threadlab.formats import Source, get_format

UUIDS = [f"u{i}" for i in range(8)]
texts = st.text(alphabet="ab <>-/\n", max_size=12)
times = st.one_of(st.none(), st.integers(0, 59).map(lambda s: f"2026-01-01T00:00:{s:02d}.000Z"), st.just("not a time"))

text_block = st.builds(lambda t: {"type": "text", "text": t}, texts)
assistant_blocks = st.one_of(
    text_block,
    st.builds(lambda t, s: {"type": "thinking", "thinking": t, **({"signature": s} if s else {})}, texts, st.one_of(st.none(), texts)),
    st.just({"type": "redacted_thinking", "data": "b3BhcXVl"}),
    st.builds(lambda i, a: {"type": "tool_use", "id": f"toolu_{i}", "name": "Bash", "input": a}, st.integers(0, 3), st.dictionaries(st.just("command"), texts)),
    st.builds(lambda i: {"type": "web_search_tool_result", "tool_use_id": f"toolu_{i}", "content": []}, st.integers(0, 3)),
    st.just({"type": "tool_use", "id": "srv", "name": "web_search"}),  # no input
    st.just({"type": "mystery", "x": 1}),
    st.just("a bare string block"),
)
user_blocks = st.one_of(
    text_block,
    st.builds(lambda i, c, e: {"type": "tool_result", "tool_use_id": f"toolu_{i}", "content": c, **({"is_error": e} if e is not None else {})},
              st.integers(0, 4), st.one_of(texts, st.lists(text_block, max_size=2)), st.one_of(st.none(), st.booleans())),
    st.just({"type": "tool_result", "content": "no id"}),
    st.just({"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "iVBORw0KGgo="}, "cache_control": {"type": "ephemeral"}}),
    st.just({"type": "image", "source": {"type": "file", "file_id": "f1"}}),
    st.just({"type": "tool_reference", "tool_name": "Bash"}),
    st.just({"type": "text", "text": 7}),
)


@st.composite
def envelope(draw: Any, kind: str) -> dict[str, Any]:
    line: dict[str, Any] = {"type": kind}
    if draw(st.booleans()):
        line["uuid"] = draw(st.sampled_from(UUIDS))
        line["parentUuid"] = draw(st.one_of(st.none(), st.sampled_from([*UUIDS, "gone"])))
    stamp = draw(times)
    if stamp is not None:
        line["timestamp"] = stamp
    side = draw(st.sampled_from(["main", "main", "main", "agentA", "agentB", "anonymous"]))
    if side != "main":
        line["isSidechain"] = True
        if side != "anonymous":
            line["agentId"] = side
    for key, values in (("sessionId", ["s1", "s1", "s2"]), ("cwd", ["/a", "/b"]), ("version", ["1.0.0", "2.1.0"])):
        if draw(st.booleans()):
            line[key] = draw(st.sampled_from(values))
    return line


@st.composite
def transcript_line(draw: Any) -> bytes:
    kind = draw(st.sampled_from(["user", "user", "assistant", "assistant", "attachment", "system", "queue-operation", "summary", "mystery", "bad", "scalar"]))
    if kind == "bad":
        return b'{"type": "user", "message": {'
    if kind == "scalar":
        return orjson.dumps(draw(st.one_of(st.integers(-(2**63), 2**63 - 1), texts, st.lists(st.integers(0, 9), max_size=2))))
    line = draw(envelope(kind))
    if kind == "user":
        line["message"] = draw(st.one_of(
            st.builds(lambda c: {"role": "user", "content": c}, st.one_of(texts, st.lists(user_blocks, max_size=4))),
            st.just({"role": "user"}), st.just("error"), st.just({"role": "user", "content": None})))
        if draw(st.booleans()):
            line[draw(st.sampled_from(["isMeta", "isCompactSummary", "toolUseResult"]))] = True
    elif kind == "assistant":
        mid = draw(st.sampled_from(["m1", "m2", "m3"]))
        usage = draw(st.one_of(st.none(), st.builds(lambda i, o: {"input_tokens": i, "output_tokens": o, "cache_read_input_tokens": 3}, st.integers(0, 50), st.integers(0, 50))))
        content = draw(st.one_of(st.lists(assistant_blocks, max_size=4), texts, st.none()))
        message = {"id": mid, "role": "assistant", "model": "claude-sonnet-4-5", "content": content}
        if usage is not None:
            message["usage"] = usage
        if draw(st.booleans()):
            message["stop_reason"] = draw(st.sampled_from(["end_turn", "tool_use", None]))
        line["message"] = message
    elif kind == "attachment":
        line["attachment"] = {"type": draw(st.sampled_from(["queued_command", "date"])), "prompt": draw(texts)}
    elif kind == "system":
        line.update(draw(st.sampled_from([{"subtype": "compact_boundary", "logicalParentUuid": "u1"}, {"subtype": "turn_duration"}, {}])))
    elif kind == "queue-operation":
        line.update({"operation": "enqueue", "content": draw(texts)})
    elif kind == "summary":
        line.update({"summary": draw(texts), "leafUuid": "u1"})
    return orjson.dumps(line)


@st.composite
def stream_line(draw: Any) -> bytes:
    kind = draw(st.sampled_from(["init", "assistant", "user", "stream_event", "task_started", "result", "rate_limit_event"]))
    session = draw(st.sampled_from(["sA", "sA", "sB"]))
    parent = draw(st.one_of(st.none(), st.just("toolu_1")))
    if kind == "init":
        line: dict[str, Any] = {"type": "system", "subtype": "init", "session_id": session, "model": "claude-sonnet-4-5", "cwd": draw(st.sampled_from(["/a", "/b"]))}
    elif kind == "assistant":
        line = {"type": "assistant", "session_id": session, "parent_tool_use_id": parent,
                "message": {"id": draw(st.sampled_from(["m1", "m2"])), "role": "assistant", "content": draw(st.lists(assistant_blocks, min_size=1, max_size=3)),
                            "usage": {"input_tokens": 5, "output_tokens": 1}}}
    elif kind == "user":
        line = {"type": "user", "session_id": session, "parent_tool_use_id": parent, "message": {"role": "user", "content": draw(st.one_of(texts, st.lists(user_blocks, max_size=3)))}}
    elif kind == "stream_event":
        line = {"type": "stream_event", "session_id": session, "parent_tool_use_id": parent,
                "event": draw(st.sampled_from([{"type": "message_start", "message": {"id": "m1"}}, {"type": "message_delta", "usage": {"output_tokens": 9}, "delta": {"stop_reason": "end_turn"}}]))}
    elif kind == "task_started":
        line = {"type": "system", "subtype": "task_started", "session_id": session, "task_id": draw(st.sampled_from(["t1", "t2"])), "tool_use_id": "toolu_1", "description": "d"}
    elif kind == "result":
        line = {"type": "result", "subtype": "success", "session_id": session, "is_error": False, "total_cost_usd": draw(st.floats(0, 1)),
                "usage": {"input_tokens": 5, "output_tokens": 1}}
    else:
        line = {"type": "rate_limit_event", "session_id": session, "rate_limit_info": {"status": "allowed"}}
    return orjson.dumps(line)


def check(tmp: Path, lines: list[bytes]) -> None:
    path = tmp / "generated.jsonl"
    path.write_bytes(b"\n".join(lines) + b"\n")
    threads = tl.read_all(path, "claude-code", strict=False)  # lenient: never raises
    assert sum(t.account.records for t in threads) == COUNTERS["claude-code"](path)
    for thread in threads:
        assert len(thread.problems) >= thread.account.unconverted
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            wire = get_format("claude-code").from_thread(thread)
        (again,) = tl.read_all(Source(wire, name=str(path)), "claude-code", strict=False)
        want = thread.to_dict()
        if len(threads) > 1:  # a session of a file of several is written alone, and says so
            assert [w.message.lost for w in caught if isinstance(w.message, WriteLoss)] == [[f"the file's other {len(threads) - 1} session(s) (each thread is written alone)"]]
            del want["metadata"]["claude"]["sessions_in_file"]
        assert again.to_dict() == want


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(st.lists(transcript_line(), min_size=1, max_size=14))
def test_any_transcript_is_accounted_for_and_written_back_the_same(tmp_path: Path, lines: list[bytes]) -> None:
    first = orjson.dumps({"type": "user", "uuid": "first", "parentUuid": None, "sessionId": "s1", "message": {"role": "user", "content": "hi"}})
    check(tmp_path, [first, *lines])


@settings(max_examples=50, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(st.lists(stream_line(), min_size=1, max_size=12))
def test_any_stream_is_accounted_for_and_written_back_the_same(tmp_path: Path, lines: list[bytes]) -> None:
    first = orjson.dumps({"type": "system", "subtype": "init", "session_id": "sA", "model": "claude-sonnet-4-5"})
    check(tmp_path, [first, *lines])
