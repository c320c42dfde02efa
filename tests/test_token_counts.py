"""Token counts kept or named in every reader that reads them (issue 24 §7, "numbers and times
kept or named"; ``formats/common/counts.py``): a float that is a whole number up to 2**53 is the count,
any other value (``1.5``, ``1e308``, ``2.0**60``, ``"60"``, ``true``) leaves its cell empty with
a ``usage`` problem naming the field, the value and (in a file of lines) the line.

Before, Claude Code, Anthropic Messages, agency-swarm, OpenAI Chat and Responses, LangChain and
the AI SDK dropped a float count without a word (a ``12.0`` too), the AI SDK cut ``1.5`` to 1
and took ``1e308`` as a count, pydantic-ai and Codex took ``true`` as 1 and ``"60"`` as 60 (and
pydantic-ai wrote a 0 where the count it could not read was), and Inspect AI lost the whole file
(an ``internal`` row). Each case changes every count of one field in a real file."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import orjson
import pandas as pd
import pytest

import threadlab as tl

from .mutants import payloads

FIXTURES = Path(__file__).resolve().parent / "fixtures"
REAL = FIXTURES / "real"

CASES: dict[str, tuple[Path, str]] = {  # reader → (a file it reads, the count field changed)
    "claude-code": (REAL / "claude" / "cli-2.1.38-interrupt-and-local-command" / "short.jsonl", "input_tokens"),
    "anthropic-messages": (REAL / "anthropic_messages" / "anthropic_sdk_tool_use_stream.sse", "input_tokens"),
    "agency-swarm": (REAL / "agency_swarm" / "vrsen_fastapi_response_body.json", "input_tokens"),
    "inspect-ai": (REAL / "inspect_ai" / "2024-11-05T13-31-45-05-00_input-task_8zXjbRzCWrL9GXiXo2vus9.json", "input_tokens"),
    "openai-chat": (REAL / "openai_chat" / "vercel_ai_deepseek_reasoning_tool_call.jsonl", "prompt_tokens"),
    "openai-responses": (REAL / "openai_responses" / "pydantic_ai_tool_call_pair.json", "input_tokens"),
    "pydantic-ai": (REAL / "pydantic_ai" / "multi.jsonl", "input_tokens"),
    "vercel-ai": (FIXTURES / "vercel_ai" / "ai6_stream_multistep_dynamic.sse", "inputTokens"),
    "vercel-ai-messages": (FIXTURES / "vercel_ai_messages" / "ai6_onfinish_uimessages.json", "inputTokens"),
    "langchain": (FIXTURES / "langchain" / "chat_history.jsonl", "input_tokens"),
    "codex": (REAL / "codex" / "rollout-2025-09-25T15-12-14-019982b8-3422-79e0-8b3b-05abaf4f3c3e.jsonl", "input_tokens"),
}


def _holders(value: Any, field: str) -> Iterator[dict[str, Any]]:
    """Every object in ``value`` whose ``field`` is an integer (walked without recursion)."""
    todo = [value]
    while todo:
        node = todo.pop()
        if isinstance(node, dict):
            if type(node.get(field)) is int:
                yield node
            todo.extend(node.values())
        elif isinstance(node, list):
            todo.extend(node)


def _changed(source: Path, field: str, value: Any, target: Path) -> tuple[Path, set[int]]:
    """``source`` with every integer ``field`` set to ``value`` (``None``: the same count as a
    float), and the lines (from 1) where one was changed (none for a one-document file)."""
    data = source.read_bytes()

    def change(doc: Any) -> bool:
        found = list(_holders(doc, field))
        for holder in found:
            holder[field] = float(holder[field]) if value is None else value
        return bool(found)

    try:
        doc = orjson.loads(data)
    except orjson.JSONDecodeError:
        lines, changed = data.split(b"\n"), set()
        for index, prefix, record in payloads(data):  # each line's JSON (JSON Lines, SSE data)
            if change(record):
                lines[index] = prefix + orjson.dumps(record)
                changed.add(index + 1)
        target.write_bytes(b"\n".join(lines))
        assert changed
        return target, changed
    assert change(doc)
    target.write_bytes(orjson.dumps(doc, option=orjson.OPT_INDENT_2))
    return target, set()


def _read(path: Path, format: str) -> tuple[tuple[float, int], list[tl.Problem]]:
    """The input tokens the file gives and in how many cells (the usage rows'; agency-swarm's run
    usage, which goes on the thread's metadata when the run's requests are not listed), and its
    usage problems."""
    frames = tl.load(path, format=format, workers=1, progress=False)
    assert "internal" not in set(frames.problems["rule"]), frames.problems["message"].tolist()
    threads = tl.read_all(path, format, strict=False)
    problems = [p for t in threads for p in t.problems if p.rule == "usage"]
    if format == "agency-swarm":
        given = [(t.metadata or {}).get("usage", {}).get("input_tokens") for t in threads]
        return (float(sum(g for g in given if g is not None)), sum(g is not None for g in given)), problems
    cells = pd.to_numeric(frames.usage["input_tokens"])
    return (float(cells.sum()), int(cells.notna().sum())), problems


@pytest.mark.parametrize("format", list(CASES))
def test_a_float_that_is_a_whole_number_is_the_count(format: str, tmp_path: Path) -> None:
    source, field = CASES[format]
    whole, problems = _read(source, format)
    assert whole[0] > 0 and not problems
    changed, _ = _changed(source, field, None, tmp_path / source.name)
    assert _read(changed, format) == (whole, [])


@pytest.mark.parametrize("value", [1.5, 1e308, 2.0**60, "60", True], ids=repr)
@pytest.mark.parametrize("format", list(CASES))
def test_any_other_value_is_left_out_and_named(format: str, value: Any, tmp_path: Path) -> None:
    source, field = CASES[format]
    whole, _ = _read(source, format)
    changed, lines = _changed(source, field, value, tmp_path / source.name)
    got, problems = _read(changed, format)
    assert got[0] < whole[0] and got[1] < whole[1]  # the counts that were no counts are left out (empty cells), not taken as some number
    assert problems, "no usage problem"
    for problem in problems:
        assert field in problem.message and f"{value!r}" in problem.message, problem.message
        if lines:  # a file of lines: the problem names the line it was on
            assert problem.line in lines, (problem.line, lines, problem.message)
