"""What a user reads of a conversation file, counted from the raw bytes without threadlab: human
prompts, harness turns, assistant texts, tool calls, returns, errors and tokens.

An independent check of the readers on the wild corpus (``tests/fixtures/real/``): each format's
rule is written from the format's own documentation and source (the producer's types), never from
threadlab's reader, with the standard library and orjson only. ``count(path, fmt)`` gives a
``Counts``; a field is ``None`` where the format does not say (a stream holds no prompt, an eval
log's usage is per model), and such a field is not compared.

The conventions every rule shares:

- a *human prompt* is text a person typed in the user's role (a slash command is not a prompt);
- a *harness turn* is text the program around the agent wrote in the user's role (Claude Code's
  meta lines, interrupt markers, command output and compaction summaries; Codex's contextual
  messages, ``compacted`` summaries and interrupts; an eval's user messages; pydantic-ai's retry
  feedback, as its own messages or as the AI SDK messages its adapter dumps; LangChain's human
  messages marked ``lc_source``); a message one agent sends another in the user's role
  (agency-swarm's ``callerAgent``) is neither a prompt nor a harness turn;
- an *assistant text* is a text block (or message) of the model with something other than
  whitespace in it;
- *tokens* are the producer's: ``input_tokens`` counts every input token, cached ones included
  (Anthropic's ``input_tokens`` + ``cache_read_input_tokens`` + ``cache_creation_input_tokens``);
  where the producer keeps its own total for a session (Codex's running ``total_token_usage``),
  that total, which the threads frame shows (``tokens_source`` "reported", docs/DEVELOPING.md);
- *usage totals* are the sessions whose producer's total differs from the sum of their model
  calls' usage (it counts calls the file does not hold): each gets a ``usage-total`` problem row.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any

from tests.conformance.records import _whole_or_lines as whole_or_lines

TEXT_FIELDS = ("human_prompts", "harness_turns", "assistant_texts", "tool_calls", "tool_returns", "tool_errors")
TOKEN_FIELDS = ("input_tokens", "output_tokens", "cache_read_tokens", "cache_write_tokens")
TOTAL_FIELDS = ("usage_totals",)


@dataclass
class Counts:
    human_prompts: int | None = 0
    harness_turns: int | None = 0
    assistant_texts: int | None = 0
    tool_calls: int | None = 0
    tool_returns: int | None = 0
    tool_errors: int | None = 0
    input_tokens: int | None = None
    output_tokens: int | None = None
    cache_read_tokens: int | None = None
    cache_write_tokens: int | None = None
    usage_totals: int | None = None

    def add_tokens(self, inp: Any = None, out: Any = None, read: Any = None, write: Any = None) -> None:
        for name, value in (("input_tokens", inp), ("output_tokens", out), ("cache_read_tokens", read), ("cache_write_tokens", write)):
            if isinstance(value, int) and not isinstance(value, bool):
                setattr(self, name, (getattr(self, name) or 0) + value)

    def merge(self, other: Counts) -> None:
        for f in fields(self):
            a, b = getattr(self, f.name), getattr(other, f.name)
            setattr(self, f.name, None if a is None and b is None else (a or 0) + (b or 0))

    def as_dict(self) -> dict[str, int | None]:
        return {f.name: getattr(self, f.name) for f in fields(self)}


def blank(text: Any) -> bool:
    return not isinstance(text, str) or not text.strip()


def texts_of(content: Any, kinds: Iterable[str] = ("text", "input_text", "output_text")) -> list[str]:
    """The texts of a message's content: a string, or the text parts (or strings) of a list."""
    if isinstance(content, str):
        return [content]
    if not isinstance(content, list):
        return []
    kinds = tuple(kinds)
    return [p if isinstance(p, str) else p["text"] for p in content
            if isinstance(p, str) or (isinstance(p, dict) and p.get("type") in kinds and isinstance(p.get("text"), str))]


def starts_with(text: str, markers: Iterable[str]) -> bool:
    return text.lstrip().startswith(tuple(markers))


# --- the formats, each in its module; COUNTERS maps a registry name to its rule ---------------

Rule = Callable[[Path], Counts]


def count(path: Path, fmt: str) -> Counts:
    from tests.wild.rules import COUNTERS

    return COUNTERS[fmt](path)


__all__ = ["TEXT_FIELDS", "TOKEN_FIELDS", "TOTAL_FIELDS", "Counts", "Rule", "blank", "count", "starts_with", "texts_of", "whole_or_lines"]
