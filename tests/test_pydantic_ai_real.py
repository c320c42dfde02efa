"""pydantic-ai histories other projects committed (tests/fixtures/real/pydantic_ai, see its
README): each reads with auto-detection, and its tool calls, tool returns, user prompts and usage
are what a plain-JSON count of the raw file says (no threadlab in the counting)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import threadlab as tl
from threadlab.core import SystemAction, ToolReturn, UserMessage, validate

REAL = Path(__file__).resolve().parent / "fixtures" / "real" / "pydantic_ai"
FILES = sorted(p for p in REAL.iterdir() if p.suffix in (".json", ".jsonl"))


def histories(path: Path) -> list[list[dict[str, Any]]]:
    """The raw histories of a file: the JSON array, or one per JSON Lines line."""
    text = path.read_text(encoding="utf-8")
    if path.suffix == ".jsonl":
        return [json.loads(line) for line in text.splitlines() if line.strip()]
    return [json.loads(text)]


def raw_counts(path: Path) -> dict[str, int]:
    """What pydantic-ai's message model says the file holds, counted from plain JSON: calls are
    (built-in) tool-call parts of responses; returns are tool-return and tool retry-prompt parts
    of requests and built-in returns of responses; prompts are user-prompt parts and retry
    prompts with no tool (retry feedback); usage is summed over responses under either name."""
    counts = dict.fromkeys(("calls", "returns", "prompts", "input_tokens", "output_tokens"), 0)
    for history in histories(path):
        for message in history:
            side = message.get("kind", "request")
            for part in message["parts"]:
                kind = part.get("part_kind")
                if side == "response" and kind in ("tool-call", "builtin-tool-call"):
                    counts["calls"] += 1
                elif (side == "request" and (kind == "tool-return" or (kind == "retry-prompt" and part.get("tool_name")))) or (
                    side == "response" and kind == "builtin-tool-return"
                ):
                    counts["returns"] += 1
                elif side == "request" and (kind in ("user-prompt", "retry-feedback") or (kind == "retry-prompt" and not part.get("tool_name"))):
                    counts["prompts"] += 1
            usage = message.get("usage") or {}
            counts["input_tokens"] += usage.get("input_tokens", usage.get("request_tokens", 0))
            counts["output_tokens"] += usage.get("output_tokens", usage.get("response_tokens", 0))
    return counts


def thread_counts(threads: list[tl.Thread]) -> dict[str, int]:
    actions = [a for t in threads for a in t.actions]
    usages = [getattr(a, "usage", None) for a in actions]
    usages = [u if isinstance(u, dict) else u.model_dump() for u in usages if u is not None]
    return {
        "calls": sum(a.action_type == "tool_call" for a in actions),
        "returns": sum(isinstance(a, ToolReturn) for a in actions),
        "prompts": sum(isinstance(a, UserMessage) for a in actions),
        "input_tokens": sum(u["input_tokens"] or 0 for u in usages),
        "output_tokens": sum(u["output_tokens"] or 0 for u in usages),
    }


def test_the_corpus_is_there_with_its_provenance() -> None:
    readme = (REAL / "README.md").read_text()
    assert len(FILES) >= 7
    for path in FILES:
        row = next(line for line in readme.splitlines() if line.startswith(f"| `{path.name}`"))
        assert "MIT" in row and len(row.split("|")[4].strip().strip("`")) == 40  # licence and the commit


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.name)
def test_real_file_reads_with_auto_detection_and_counts_match_the_raw_file(path: Path) -> None:
    threads = tl.read_all(path, strict=False)
    assert threads and {t.origin[1] for t in threads} == {"pydantic-ai"}
    assert thread_counts(threads) == raw_counts(path)
    frames = tl.load(path, progress=False)
    assert int(frames.threads["n_tool_calls"].sum()) == raw_counts(path)["calls"]
    assert int(frames.actions["input_tokens"].sum()) == raw_counts(path)["input_tokens"]
    assert int(frames.actions["output_tokens"].sum()) == raw_counts(path)["output_tokens"]


def test_legacy_usage_names_and_a_v1_retry_prompt() -> None:
    thread = tl.read(REAL / "full_trace.json", strict=False)
    retried = next(a for a in thread.actions if getattr(a, "tool_call_id", None) == "call_hamburg" and isinstance(a, ToolReturn))
    assert (retried.status, retried.content) == ("error", "unknown city spelling")
    second = next(a for a in thread.actions if getattr(a, "tool_call_id", None) == "call_hamburg_2" and a.action_type == "tool_call")
    assert (second.usage.input_tokens, second.usage.output_tokens) == (310, 20)  # request_tokens / response_tokens
    thinking = next(a for a in thread.actions if a.action_type == "thinking")
    assert thinking.usage.thinking_tokens == 24  # from usage.details.reasoning_tokens


def test_an_unknown_part_kind_is_kept_with_a_problem_and_the_rest_reads() -> None:
    thread = tl.read(REAL / "full_trace.json", strict=False)
    kept = [a for a in thread.actions if isinstance(a, SystemAction)]
    assert [(a.action_type, a.data["payload"]) for a in kept] == [
        ("system.pydantic_ai.hologram_projection", {"note": "unknown part kind for forward-compat testing"})]
    (problem,) = [p for p in thread.problems if p.rule == "unknown-type"]
    assert problem.sequence == kept[0].sequence and "hologram-projection" in problem.message
    assert thread.account.kept == 1 and thread.account.records == 11


def test_forward_compatible_file_keeps_what_pydantic_ai_does_not_take() -> None:
    thread = tl.read(REAL / "text_edge_cases.json", strict=False)
    prompt = thread.actions[0]
    assert isinstance(prompt, UserMessage)
    assert [getattr(p, "type", None) for p in prompt.content] == ["pydantic_ai.text-content", "pydantic_ai.future-content", "pydantic_ai.cache-point"]
    rules = sorted(p.rule for p in thread.problems if p.rule in ("unknown-type", "schema"))
    assert rules == ["schema", "unknown-type", "unknown-type"]
    assert thread.account.unconverted == 3 and thread.metadata == {"synthetic_timestamps": 6}  # no time is invented


def test_retries_for_calls_the_file_does_not_hold_are_flagged_by_validate() -> None:
    for name, call_id in (("media_and_builtins.json", "call_retry"), ("newlines.json", "call_echo_retry")):
        problems = validate(tl.read(REAL / name, strict=False))
        assert [(p.rule, call_id in p.message) for p in problems] == [("tool-call-match", True)]


def test_one_history_a_line_is_one_thread_a_line() -> None:
    threads = tl.read_all(REAL / "multi.jsonl")
    assert [t.title for t in threads] == ["hello from line one", "hello from line two"]
    assert len({t.thread_id for t in threads}) == 2
