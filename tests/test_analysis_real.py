"""The scanners on files other projects committed (tests/fixtures/real), against counts taken from
the raw files with orjson and the standard library only (tests/claude_raw.py, tests/codex_raw.py
and the small walks here): interrupts and calls never answered in Claude Code sessions,
interrupts in Codex rollouts, responses cut at max_tokens or refused in Anthropic streams, a
refusal in an OpenAI stream, and a die rolled seven times with the same arguments."""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

import orjson
import pytest

import threadlab as tl
from tests.claude_raw import blocks, raw_counts, raw_items, session_files
from tests.codex_raw import raw_counts as codex_counts
from tests.wild.expected import EXPECTED

FIXTURES = Path(__file__).parent / "fixtures"
REAL = FIXTURES / "real"
LISTED = {REAL / name for name in EXPECTED if name.startswith("claude/")}  # files whose raw counts disagree today (tests/wild)
CLAUDE = sorted(p for p in (REAL / "claude").rglob("*.json*") if "subagents" not in p.parts and not p.name.startswith("agent-")
                and not p.name.endswith(".meta.json") and p not in LISTED)
ROLLOUTS = sorted([*(REAL / "codex").glob("*.jsonl"), *(FIXTURES / "codex").glob("codex-*/rollout-*.jsonl")])
CALLS = ("tool_use", "server_tool_use", "mcp_tool_use")


def _found(path: Path, scanners: Any) -> Counter[str]:
    return Counter(tl.scan(tl.load(path, progress=False), scanners)["scanner"].astype(str))


def _raw_pending(path: Path) -> int:
    """Calls no return answers, file by file (a subagent's calls are answered in its own file): a
    ``tool_result`` answers the call its ``tool_use_id`` names, or, without one, the only open call."""
    pending = 0
    for file in session_files(path):
        open_calls: dict[Any, None] = {}
        for n, item in enumerate(raw_items(file)):
            for index, block in enumerate(blocks(item)):
                if not isinstance(block, dict):
                    continue
                if block.get("type") in CALLS and (isinstance(block.get("id"), str) or "id" not in block):
                    open_calls[block.get("id", (n, index))] = None
                elif isinstance(block.get("tool_use_id"), str):
                    open_calls.pop(block["tool_use_id"], None)
                elif block.get("type") == "tool_result" and "tool_use_id" not in block and len(open_calls) == 1:
                    open_calls.clear()
        pending += len(open_calls)
    return pending


@pytest.mark.parametrize("path", CLAUDE, ids=lambda p: str(p.relative_to(REAL)))
def test_claude_code_interrupts_and_unanswered_calls(path: Path) -> None:
    found = _found(path, ["interrupted", "pending_call"])
    assert found["interrupted"] == raw_counts(path)["interrupts"]
    assert found["pending_call"] == _raw_pending(path)


def test_the_claude_code_fixtures_hold_interrupts_and_pending_calls() -> None:
    """(so the test above compares something)"""
    assert sum(raw_counts(p)["interrupts"] for p in CLAUDE) >= 5
    assert sum(_raw_pending(p) for p in CLAUDE) >= 5


@pytest.mark.parametrize("path", ROLLOUTS, ids=lambda p: p.name)
def test_codex_interrupts(path: Path) -> None:
    assert _found(path, ["interrupted"])["interrupted"] == codex_counts(path)["interrupts"]


def _values(path: Path) -> list[Any]:
    """A JSON document, or the JSON of each line (an SSE ``data:`` line's payload)."""
    raw = path.read_bytes()
    try:
        return [orjson.loads(raw)]
    except orjson.JSONDecodeError:
        pass
    out = []
    for line in raw.splitlines():
        line = line.strip().removeprefix(b"data:").strip()
        if line and line != b"[DONE]":
            try:
                out.append(orjson.loads(line))
            except orjson.JSONDecodeError:
                continue
    return out


def _stop_reasons(value: Any) -> list[str]:
    """Every response's stop reason: a ``message`` object's, a ``message_delta`` event's (not a
    server tool's own result, which has its own)."""
    out: list[str] = []
    if isinstance(value, dict):
        if value.get("type") == "message" and isinstance(value.get("stop_reason"), str):
            out.append(value["stop_reason"])
        if value.get("type") == "message_delta" and isinstance(value.get("delta"), dict) and isinstance(value["delta"].get("stop_reason"), str):
            out.append(value["delta"]["stop_reason"])
        for item in value.values():
            out += _stop_reasons(item)
    elif isinstance(value, list):
        for item in value:
            out += _stop_reasons(item)
    return out


ANTHROPIC = sorted(p for p in (REAL / "anthropic_messages").iterdir() if p.suffix != ".md")


@pytest.mark.parametrize("path", ANTHROPIC, ids=lambda p: p.name)
def test_anthropic_responses_cut_or_refused(path: Path) -> None:
    reasons = Counter(r for v in _values(path) for r in _stop_reasons(v))
    found = _found(path, {"truncated": {}, "refusal": {"phrases": ()}})  # the provider's own stop reason only
    assert (found["truncated"], found["refusal"]) == (reasons["max_tokens"], reasons["refusal"])


def test_the_anthropic_fixtures_hold_a_cut_and_a_refused_response() -> None:
    reasons = Counter(r for p in ANTHROPIC for v in _values(p) for r in _stop_reasons(v))
    assert reasons["max_tokens"] >= 1 and reasons["refusal"] >= 1


def test_an_openai_refusal_is_found_by_its_phrase() -> None:
    path = REAL / "openai_chat" / "openai_python_refusal_stream.sse"
    said = "".join(c["delta"].get("refusal") or "" for v in _values(path) for c in v.get("choices", []))
    assert said.startswith("I'm sorry, I can't assist")
    found = tl.scan(tl.load(path, progress=False), ["refusal"])
    assert len(found) == 1
    phrase = found["message"].iloc[0].removeprefix('refused: "').removesuffix('"')
    assert phrase and phrase in said


def test_a_die_rolled_seven_times_with_the_same_arguments() -> None:
    path = REAL / "anthropic_messages" / "vercel_ai_programmatic_tool_calling.jsonl"
    calls: Counter[tuple[str, bytes]] = Counter()

    def walk(value: Any) -> None:
        if isinstance(value, dict):
            if value.get("type") in CALLS and value.get("input"):
                calls[(value["name"], orjson.dumps(value["input"], option=orjson.OPT_SORT_KEYS))] += 1
            for item in value.values():
                walk(item)
        elif isinstance(value, list):
            for item in value:
                walk(item)

    for v in _values(path):
        walk(v)
    loops = sorted((name, n) for (name, _), n in calls.items() if n >= 3)
    assert loops == [("rollDie", 7), ("rollDie", 7)]
    found = tl.scan(tl.load(path, progress=False), ["repeated_call"])
    assert sorted((str(t), int(m.split(" called ")[1].split(" times")[0])) for t, m in zip(found["tool_name"], found["message"], strict=True)) == loops
