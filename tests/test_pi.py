"""Pi coding agent sessions (``threadlab/formats/pi``): the real program's files against the raw
counter (``tests/wild/rules_pi.py``, no threadlab), usage and cost as Pi wrote them, a person's
``!`` command, a fork, every branch of a tree, the entries the real run did not write, unknown
entries kept, a live file's torn last line, the Hugging Face session trace not claimed, and the
``~/.pi/agent`` folder read as a source."""

from __future__ import annotations

import warnings
from pathlib import Path

import orjson
import pytest

import threadlab as tl
from tests.wild.compare import disagreements
from threadlab.core.problems import ThreadError
from threadlab.formats import detect_format, get_format
from threadlab.formats.common.source import Source

HERE = Path(__file__).resolve().parent
AGENT = HERE / "fixtures" / "pi" / "pi-0.73.1" / "pi-agent"
SESSIONS = sorted(AGENT.glob("sessions/*/*.jsonl"))
RPC = next(p for p in SESSIONS if b'"bashExecution"' in p.read_bytes() and b'"session_info"' in p.read_bytes())
FORK = next(p for p in SESSIONS if b'"parentSession"' in p.read_bytes())
BRANCHED = next(p for p in SESSIONS if b'"branch_summary"' in p.read_bytes())


def _lines(path: Path) -> list[dict[str, object]]:
    return [orjson.loads(line) for line in path.read_bytes().splitlines() if line.strip()]


def _jsonl(*records: object) -> bytes:
    return b"".join(orjson.dumps(r) + b"\n" for r in records)


def _entry(n: int, parent: int | None, kind: str = "message", **fields: object) -> dict[str, object]:
    return {"type": kind, "id": f"e{n}", "parentId": f"e{parent}" if parent else None, "timestamp": f"2026-01-01T00:00:{n:02d}.000Z", **fields}


HEADER = {"type": "session", "version": 3, "id": "s-1", "timestamp": "2026-01-01T00:00:00.000Z", "cwd": "/w"}


def _user(text: str) -> dict[str, object]:
    return {"role": "user", "content": [{"type": "text", "text": text}], "timestamp": 1}


def _answer(text: str) -> dict[str, object]:
    return {"role": "assistant", "content": [{"type": "text", "text": text}], "provider": "p", "model": "m", "usage": {"input": 10, "output": 2, "cacheRead": 5, "cacheWrite": 1, "totalTokens": 18, "cost": {"total": 0.25}}, "stopReason": "stop"}


@pytest.mark.parametrize("path", SESSIONS, ids=lambda p: p.name[:30])
def test_the_real_programs_sessions_count_as_the_raw_counter_does(path: Path) -> None:
    assert detect_format(Source(path)).NAME == "pi"
    assert disagreements(path, "pi") == {}


def test_usage_is_all_input_and_the_cost_is_what_pi_priced() -> None:
    frames = tl.load(RPC, progress=False)
    raw = [e["message"] for e in _lines(RPC) if e["type"] == "message" and e["message"]["role"] == "assistant"]  # type: ignore[index]
    assert frames.usage.input_tokens.tolist() == [u["usage"]["input"] + u["usage"]["cacheRead"] + u["usage"]["cacheWrite"] for u in raw]  # type: ignore[index]
    assert frames.usage.cache_read_tokens.tolist() == [u["usage"]["cacheRead"] for u in raw]  # type: ignore[index]
    assert frames.usage.model_name.tolist() == [u["model"] for u in raw]  # the set_model command's change shows
    (row,) = frames.threads.itertuples()
    assert row.cost_source == "reported" and row.cost_usd == pytest.approx(sum(u["usage"]["cost"]["total"] for u in raw))  # type: ignore[index]
    assert row.title == "notes"  # set_session_name


def test_a_persons_shell_command_and_a_compaction_are_marked() -> None:
    thread = tl.read(RPC)
    bash = [a for a in thread.actions if getattr(a, "tool_call_id", "").startswith("bash-")]
    assert [(a.action_type, (a.metadata or {}).get("author")) for a in bash] == [("tool_call", "human"), ("tool_return", None)]
    assert bash[0].args == {"command": "ls"} and bash[1].content == "notes.txt\n"  # type: ignore[attr-defined]
    (compaction,) = [a for a in thread.actions if a.action_type == "system.compaction"]
    assert compaction.metadata["harness"] == "compaction_summary" and compaction.data["summary"].startswith("## Goal")  # type: ignore[attr-defined, index]
    changes = [a.data["changes"] for a in thread.actions if a.action_type == "system.config_update"]  # type: ignore[attr-defined]
    assert {"thinkingLevel": "high"} in changes and {"provider": "scripted", "modelId": "scripted-small"} in changes


def test_a_fork_names_its_parent_session() -> None:
    thread = tl.read(FORK)
    parent = thread.metadata["pi"]["header"]["parentSession"]  # type: ignore[index]
    assert parent.endswith(next(p.name for p in SESSIONS if p != FORK and b"Read notes.txt" in p.read_bytes()))


def test_the_real_programs_branch_is_read_whole() -> None:
    """The file holds the abandoned branch (the goodbye) and the one after the branch summary,
    whose first entry's parent is the first answer, not the line before it."""
    lines = _lines(BRANCHED)
    summary = next(k for k, e in enumerate(lines) if e["type"] == "branch_summary")
    assert lines[summary]["parentId"] != lines[summary - 1]["id"]
    thread = tl.read(BRANCHED)
    texts = [a.content for a in thread.actions if a.action_type in ("user_message", "assistant_message")]  # type: ignore[attr-defined]
    assert texts[-3:] == ["Goodbye.", "Say hi instead.", "Hi."]
    (branch,) = [a for a in thread.actions if a.action_type == "system.branch_summary"]
    assert branch.metadata["pi"]["entry"]["parentId"] == lines[summary]["fromId"] and branch.metadata["harness"] == "compaction_summary"  # type: ignore[index]


def test_every_branch_of_the_tree_is_read_with_its_ids() -> None:
    data = _jsonl(HEADER, _entry(1, None, message=_user("first")), _entry(2, 1, message=_answer("one")),
                  _entry(3, 1, "branch_summary", fromId="e2", summary="tried one"), _entry(4, 3, message=_user("again")), _entry(5, 4, message=_answer("two")),
                  _entry(6, 5, "label", targetId="e2", label="first try"), _entry(7, 6, "custom", customType="ext", data={"n": 1}),
                  _entry(8, 7, "custom_message", customType="ext", content="injected", display=True))
    thread = tl.read_all(Source(data, name="s.jsonl"), strict=True)[0]
    kinds = [a.action_type for a in thread.actions]
    assert kinds == ["user_message", "assistant_message", "system.branch_summary", "user_message", "assistant_message", "system.label", "system.custom", "user_message"]
    assert [(a.metadata or {})["pi"]["entry"]["parentId"] for a in thread.actions] == [None, "e1", "e1", "e3", "e4", "e5", "e6", "e7"]
    assert thread.actions[2].metadata["harness"] == "compaction_summary" and thread.actions[7].metadata == {**thread.actions[7].metadata, "author": "harness", "harness": "meta"}  # type: ignore[index]
    assert thread.actions[1].usage.input_tokens == 16 and thread.actions[1].usage.total_tokens == 18  # type: ignore[attr-defined]
    assert thread.metadata["cost_usd"] == 0.5 and thread.account.unconverted == 0


def test_unknown_entries_and_parts_are_kept_with_a_problem() -> None:
    odd = {"role": "assistant", "content": [{"type": "text", "text": "a"}, {"type": "audio", "data": "x"}], "provider": "p", "model": "m"}
    data = _jsonl(HEADER, _entry(1, None, message=_user("hi")), _entry(2, 1, message=odd), _entry(3, 2, "future_entry", x=1), _entry(4, 3, message={"role": "robot"}))
    thread = tl.read_all(Source(data, name="s.jsonl"), strict=False)[0]
    assert [a.action_type for a in thread.actions] == ["user_message", "assistant_message", "system.unknown_part", "system.unknown_line", "system.unknown_message"]
    assert sorted(p.line for p in thread.problems if p.rule == "unknown-type") == [3, 4, 5]
    with pytest.raises(ThreadError):
        tl.read_all(Source(data, name="s.jsonl"), strict=True)


def test_a_live_files_torn_last_line_is_a_problem_and_the_rest_reads() -> None:
    data = RPC.read_bytes()
    torn = data[: data.rindex(b"\n", 0, len(data) - 1) + 40]
    (thread,) = tl.read_all(Source(torn, name="live.jsonl"), strict=False)
    assert [p.rule for p in thread.problems] == ["truncated"]
    assert len(thread.actions) == len(tl.read(RPC).actions) - 1


def test_a_hugging_face_session_trace_is_not_claimed() -> None:
    sts = _jsonl({"type": "session", "id": "x", "harness": "pi", "timestamp": "2026-01-01T00:00:00Z", "cwd": "/w"}, {"type": "message", "message": {"role": "user", "content": "hi"}})
    assert not get_format("pi").detect(Source(sts, name="t.jsonl"))
    assert get_format("pi").detect(Source(_jsonl(HEADER, _entry(1, None, message=_user("hi"))), name="t.jsonl"))


def test_the_agent_folder_reads_its_sessions_and_lists_the_rest() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        frames = tl.load(AGENT, progress=False)
    assert len(frames.threads) == len(SESSIONS) and set(frames.threads.format) == {"pi"}
    assert sorted(Path(p).name for p in frames.skipped.path) == ["auth.json", "models.json", "settings.json"]
    assert frames.problems.empty


def test_the_responses_writer_leaves_another_formats_system_compaction_out() -> None:
    """Pi's ``system.compaction`` holds Pi's entry, no Responses item: written as one, it did not
    read back (the conformance suite's writer test failed on RPC before the fix)."""
    thread = tl.read(RPC)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        written = get_format("openai-responses").from_thread(thread)
    assert all(isinstance(item, dict) and "type" in item for item in orjson.loads(written))
