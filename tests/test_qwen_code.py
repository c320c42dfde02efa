"""Qwen Code sessions (``threadlab/formats/qwen_code``): the real program's file against the raw
counter (``tests/wild/rules_qwen.py``, no threadlab), the ``~/.qwen`` home as a folder, a live
file's torn last line, the writer's round trip, and detection apart from Claude Code (the same
envelope, Gemini API parts)."""

from __future__ import annotations

import warnings
from pathlib import Path

import orjson
import pytest

import threadlab as tl
from tests.wild.compare import disagreements
from threadlab.core.problems import ThreadError
from threadlab.formats import claude, qwen_code
from threadlab.formats.common.source import Source

HOME = Path(__file__).resolve().parent / "fixtures" / "qwen_code" / "qwen-0.15.10" / "qwen-home"
SESSION = next(HOME.rglob("chats/*.jsonl"))


def test_the_real_programs_session_counts_as_the_raw_counter_does() -> None:
    assert disagreements(SESSION, "qwen-code") == {}
    thread = tl.read(SESSION)
    kinds = [a.action_type for a in thread.actions]
    assert kinds.count("thinking") == kinds.count("tool_call") == kinds.count("tool_return") == 1
    assert thread.account.records == len(SESSION.read_bytes().splitlines()) and thread.account.unconverted == 0
    assert thread.title == "Create notes.txt saying hello."


def test_the_qwen_home_reads_as_a_folder_and_lists_what_it_skips() -> None:
    frames = tl.load(HOME, progress=False)
    assert list(frames.threads["format"]) == ["qwen-code"] and len(frames.problems) == 0
    reasons = {Path(p).name: r for p, r in zip(frames.skipped["path"], frames.skipped["reason"], strict=True)}
    assert reasons == {
        "debug": "a Qwen Code home's debug logs (no conversations)",
        "output-language.md": "a Qwen Code home's output-language instructions",
        "settings.json": "a Qwen Code home's settings.json",
        "settings.json.orig": "a Qwen Code home's settings before migration (settings.json.orig)",
    }


def test_a_torn_last_line_is_a_problem_and_the_rest_loads(tmp_path: Path) -> None:
    lines = SESSION.read_bytes().splitlines(keepends=True)
    torn = tmp_path / SESSION.name
    torn.write_bytes(b"".join(lines[:-1]) + lines[-1][: len(lines[-1]) // 2])
    (thread,) = tl.read_all(torn, strict=False)
    assert [(p.rule, p.line) for p in thread.problems] == [("truncated", len(lines))]
    assert [a.action_type for a in thread.actions] == [a.action_type for a in tl.read(SESSION).actions][:-1]
    with pytest.raises(ThreadError, match="truncated"):
        tl.read(torn)


def test_the_writer_gives_the_session_back() -> None:
    thread = tl.read(SESSION)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        wire = qwen_code.from_thread(thread)
    assert not caught, [str(w.message) for w in caught]
    assert tl.read(Source(wire, name=str(SESSION))).to_dict() == thread.to_dict()
    assert [orjson.loads(line) for line in wire.splitlines()] == [orjson.loads(line) for line in SESSION.read_bytes().splitlines()]


def test_claude_code_does_not_claim_a_qwen_session() -> None:
    source = Source(SESSION.read_bytes(), name="s.jsonl")
    assert qwen_code.detect(source) and not claude.detect(source)
