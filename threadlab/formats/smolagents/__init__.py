"""smolagents memory dumps → one thread per file: a run's memory steps (``get_full_steps()``,
``get_succinct_steps()``, a ``RunResult``, JSON Lines of steps) read by ``reading.py``, and
``write_memory_to_messages()`` read by ``messages.py``; ``wire.py`` says what each file is.
A reader only: the memory is smolagents' own record of a run (its steps' timing, observations,
errors), which another format's thread does not hold; its spans (OpenInference) are ``otel``'s."""

from __future__ import annotations

from typing import Any

import orjson

from threadlab.core.model import Thread
from threadlab.formats.common.json_lines import HEAD, complete_lines, parsed_lines, past_cut_first, refusal
from threadlab.formats.common.source import Source
from threadlab.formats.smolagents.messages import read_messages
from threadlab.formats.smolagents.reading import AGENT, KEY, StepsReader, read_steps
from threadlab.formats.smolagents.wire import is_messages, is_run_result, is_steps, step_kind

NAME = "smolagents"
_MARKS = (b'"step_number"', b'"model_output_message"', b'"tool-response"', b'"tool-call"', b'"observations"', b'"plan"')


def _kind(source: Source) -> str | None:
    """``run``, ``steps``, ``messages`` (one JSON document) or ``lines`` (JSON Lines of steps)."""
    if source.is_dir or source.is_object:
        return None
    head = source.head(HEAD)
    if past_cut_first(head).lstrip()[:1] not in (b"{", b"[") or not any(m in head for m in _MARKS):
        return None
    value = source.try_json()
    if value is not None:
        return "run" if is_run_result(value) else "steps" if is_steps(value) else "messages" if is_messages(value) else None
    kinds = []
    for line in complete_lines(head)[:5]:
        try:
            kinds.append(step_kind(orjson.loads(line)))
        except orjson.JSONDecodeError:
            return None
    return "lines" if kinds and None not in kinds and any(k in ("ActionStep", "PlanningStep") for k in kinds) else None


def detect(source: Source) -> bool:
    """A smolagents memory dump: memory steps (told by their keys: ``wire.step_kind``), a
    ``RunResult``, or ``ChatMessage`` dicts with smolagents' ``raw`` and ``token_usage`` keys."""
    return _kind(source) is not None


def to_threads(source: Source) -> list[Thread]:
    kind = _kind(source)
    if kind is None:
        raise refusal(source, f"is not a smolagents memory dump (no memory steps, RunResult or ChatMessage list: {source.describe()})")
    if kind == "lines":
        reader = StepsReader(source.name)
        for number, value in parsed_lines(source, reader.b):
            reader.step(value, f"line {number}", number)
        return [reader.build()]
    value: Any = source.try_json()
    if kind == "messages":
        return [read_messages(source.name, value)]
    steps = value["steps"] if kind == "run" else value
    return [read_steps(source.name, [(s, f"step {i}", None) for i, s in enumerate(steps, 1)], value if kind == "run" else None)]


def from_thread(thread: Thread) -> bytes:
    raise ValueError(f"threadlab does not write smolagents memory (thread {thread.thread_id}; the memory is smolagents' own record of a run: timing, observations, errors): convert to another format, e.g. --to atif")


__all__ = ["AGENT", "KEY", "NAME", "detect", "from_thread", "to_threads"]
