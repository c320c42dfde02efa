"""Inspect AI eval logs → one thread per sample and epoch (and a thread back to a ``.json`` log).

Read: ``.eval`` logs (a zip of JSON, read directly: ``container.py``) and ``.json`` logs (one
document). Each sample becomes a thread (``convert.py``): the model's calls, tool calls and
returns, sub-agents (``as_tool``) and handoffs from the events, the scores, target and sample
metadata in ``thread.metadata["inspect_ai"]``, usage on each model call (per model, the
scorer's grader included)."""

from __future__ import annotations

from typing import Any

import orjson

from threadlab.core.finite import refuses_non_finite
from threadlab.core.model import Thread
from threadlab.core.problems import Problem, ThreadError, short
from threadlab.formats.inspect_ai.container import ZIP_MAGIC, members
from threadlab.formats.inspect_ai.convert import KEY, SampleReader
from threadlab.formats.inspect_ai.writing import write_log
from threadlab.formats.source import Source

NAME = "inspect-ai"
_EVAL_MEMBERS = (b"header.json", b"samples/", b"_journal/", b"summaries.json", b"reductions.json")


def detect(source: Source) -> bool:
    """A zip whose first member is an eval log's, or a JSON document with an eval spec."""
    if source.is_dir or source.is_object:
        return False
    head = source.head(4096)
    if head.startswith(ZIP_MAGIC):
        name_len = int.from_bytes(head[26:28], "little")
        return head[30 : 30 + name_len].startswith(_EVAL_MEMBERS)
    start = head.lstrip()[:1]
    if start != b"{" or b'"eval"' not in head or b'"version"' not in head[:256]:
        return False
    value = source.try_json()
    return isinstance(value, dict) and isinstance(value.get("eval"), dict) and "task" in value["eval"]


def to_threads(source: Source) -> list[Thread]:
    if source.head(4).startswith(ZIP_MAGIC):
        return _eval_threads(source)
    log = source.json()
    if not isinstance(log, dict) or not isinstance(log.get("eval"), dict):
        raise source.error("format", "is not an Inspect AI log (no eval spec)")
    samples = log.get("samples")
    if samples is not None and not isinstance(samples, list):
        raise source.error("schema", f"is an Inspect AI log whose samples are {short(samples)}, not a list")
    if not samples:
        raise source.error("empty", "is an Inspect AI log with no samples (logged with log_samples=False, or the eval did not run)")
    return _sample_threads(source, log, [(f"samples[{index}]", None, sample) for index, sample in enumerate(samples, 1)], [])


def _eval_threads(source: Source) -> list[Thread]:
    found, note = members(source.data)
    problems: list[Problem] = []
    if note:
        problems.append(Problem("truncated", f"{source.name} {note}", source=source.name))
    header: dict[str, Any] = {}
    samples: list[tuple[str, int | None, Any]] = []
    for member in found:
        if member.data is None:
            rule = "size-limit" if member.limit else "truncated" if "cut short" in (member.error or "") else "io"
            problems.append(Problem(rule, f"{source.name}: member {member.index} ({member.name}) {member.error}; skipped", source=source.name, line=member.index))
            continue
        if not member.name.startswith(("header.json", "samples/")):
            continue
        try:
            value = orjson.loads(member.data)
        except orjson.JSONDecodeError as exc:
            problems.append(Problem("json", f"{source.name}: member {member.index} ({member.name}) is not JSON ({exc.msg}); skipped", source=source.name, line=member.index))
            continue
        if member.name == "header.json" and isinstance(value, dict):
            header = value
        elif member.name.startswith("samples/"):
            samples.append((member.name, member.index, value))
    return _sample_threads(source, header, samples, problems)


def _sample_threads(source: Source, header: dict[str, Any], samples: list[tuple[str, int | None, Any]], problems: list[Problem]) -> list[Thread]:
    """A thread per sample that is an object; any other is a ``schema`` problem naming it."""
    threads = []
    for name, line, sample in samples:
        if isinstance(sample, dict):
            threads.append(SampleReader(sample, header, source.name, name, line).read())
        else:
            where = f"member {line} ({name})" if line is not None else name
            problems.append(Problem("schema", f"{source.name}: {where} is {short(sample)}, not a sample; skipped", source=source.name, line=line))
    if not threads:
        problems.append(Problem("empty", f"{source.name} holds no readable sample", source=source.name))
        raise ThreadError(problems)
    threads[0].problems = [*threads[0].problems, *problems]
    return threads


@refuses_non_finite
def from_thread(thread: Thread) -> bytes:
    """The thread as a ``.json`` eval log with one sample (see ``writing.py``)."""
    return write_log(thread)


__all__ = ["KEY", "NAME", "detect", "from_thread", "to_threads"]
