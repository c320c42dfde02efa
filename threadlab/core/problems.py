"""Problems: what is wrong with a thread or a file, said so a person can act on it."""

from __future__ import annotations

import reprlib
from collections.abc import Iterable
from dataclasses import asdict, dataclass
from typing import Any

# The five ThreadProtocol validation rules (``threadlab.validate``).
VALIDATION_RULES: dict[str, str] = {
    "sequence-order": "sequence values are unique and run 1, 2, 3 ... in list order",
    # (the spec's rule 2, that call and return correlate by id: an id reused while its call is
    # unanswered leaves the return ambiguous, so it breaks this rule rather than a new one)
    "tool-call-match": "every tool_return answers an earlier tool_call with the same tool name, and no tool_call reuses the id of a call still unanswered",
    "agent-ref": "every agent_id is a key of the agents registry",
    "action-type-name": "action_type is a core name or system.<snake_case name>",
    "time-order": "timestamps do not go backwards as sequence goes forwards",
}

# Every rule name a Problem may carry, in one list (a test holds every reader to it): the
# validation rules, then what reading a file can find wrong. Add a new name here, with its
# meaning, before a reader uses it.
RULES: dict[str, str] = {
    **VALIDATION_RULES,
    # the file as a whole
    "io": "the file cannot be read (missing, unreadable, a special file)",
    "empty": "the file or input holds nothing",
    "encoding": "the bytes are not UTF-8",
    "json": "the text (or a line of it) is not valid JSON",
    "format": "no format threadlab reads recognises the input, or it holds a different number of threads than asked",
    "schema": "a value breaks the shape its format (or ThreadProtocol) gives it; kept as it came",
    "internal": "a bug in threadlab stopped this file; the rest loaded",
    "no-actions": "a non-empty input of a conversation format gave no message, thinking, tool call or return",
    # records a reader met and could not convert (each is also counted in threads.n_unconverted)
    "unknown-type": "a record, part or block of a type the reader does not map; kept as system.unknown_* or an unknown part",
    "unknown-id": "a record refers to an id (message, part, tool call) that was never opened",
    "truncated": "the input ends before a message, stream or line does",
    "glued": "a JSON Lines line holds several records with no line break between them (appended without their newline): each is read",
    "size-limit": "a part of a container that would take more memory than threadlab gives it (a zip member inflating beyond the archive's budget, as a zip bomb does); not read, the rest is",
    # format-specific
    "sse": "a line of a Server-Sent Events body is not an SSE field",
    "chain": "a Claude Code entry's parentUuid names no entry of its file",
    "subagent-meta": "a Claude Code subagent transcript's sidecar is missing, unreadable or unlinked",
    "agency-parent": "agency-swarm items name a parent run no send_message call started",
    "non-finite": "a float NaN or infinity in a thread being written: JSON cannot hold it, so the writer refuses the thread (never writes null)",
    "usage": "usage figures that cannot be read or attributed, or a token count below zero",
    "missing-id": "a record that is keyed by an id (a tool call, the call a result answers) has none: the reader made the call an id, or paired the result with the one open call",
    "usage-total": "the producer's own token total for a thread (metadata.usage_total) differs from the sum of its usage rows: it counts model calls the thread does not hold (a resumed, forked, compacted or trimmed session); the threads frame shows the producer's figures",
    # the frames
    "time-precision": "a time finer than a microsecond: the thread keeps it exactly, the frames' timestamps hold microseconds (said once per file; a note, not a broken rule)",
    "frame-value": "a value its frame column cannot hold (an int where a name belongs, a count beyond 64 bits): kept there as JSON text, or left empty; the thread keeps it as it came",
    "trajectory-history": "a SWE-agent trajectory step disagrees with the history action it records (another action, or none left): kept as system.trajectory_step",
    "duplicate-return": "a tool result answers a tool call that already has one (kept as the format's own part, not a second tool_return)",
    "stream-event": "a stream event holds what no message of its file has (used as a message, or kept as system.<format>.event)",
    "stream-error": "a provider stream (OpenAI, Anthropic) reported an error event",
}

# Rules that say how the frames show a value the input holds correctly, not that the input breaks a
# rule: a row of these is a note. ``load(strict=True)`` does not raise for them (a resumed Codex
# session or an OTel file with nanosecond times is not a broken file).
NOTE_RULES: frozenset[str] = frozenset({"usage-total", "time-precision"})

_SHORT = reprlib.Repr()
_SHORT.maxlevel, _SHORT.maxstring, _SHORT.maxother, _SHORT.maxlist, _SHORT.maxdict = 3, 80, 80, 6, 6


def short(value: Any) -> str:
    """A value as a message shows it: a few levels and characters at most (a list nested 1,000
    deep must not cost a RecursionError, nor a 100 MB string a 100 MB message)."""
    return _SHORT.repr(value)


def failure(exc: BaseException) -> str:
    """An unexpected exception as an ``internal`` problem says it: its type, its message (short)
    and the innermost line of threadlab it came from, so the bug can be found from the row."""
    import os
    import traceback

    package = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    frames = [f for f in traceback.extract_tb(exc.__traceback__) if os.path.abspath(f.filename).startswith(package + os.sep)]
    where = ""
    if frames:
        inside = os.path.relpath(os.path.abspath(frames[-1].filename), os.path.dirname(package)).replace(os.sep, "/")
        where = f" (at {inside}:{frames[-1].lineno})"
    text = str(exc)
    return f"{type(exc).__name__}: {text if len(text) <= 200 else text[:200] + '...'}{where}"


@dataclass(frozen=True, slots=True)
class Problem:
    """One broken rule. ``rule`` is a short stable name (``sequence-order``, ``tool-call-match``,
    ``agent-ref``, ``action-type-name``, ``time-order``, ``schema``, ``json``, ``encoding``,
    ``empty``, ``format``, ...); ``sequence`` and ``line`` point at the place when there is one."""

    rule: str
    message: str
    thread_id: str | None = None
    sequence: int | None = None
    source: str | None = None
    line: int | None = None

    def where(self) -> str:
        parts = []
        if self.source:
            parts.append(self.source + (f":{self.line}" if self.line is not None else ""))
        elif self.line is not None:
            parts.append(f"line {self.line}")
        if self.thread_id:
            parts.append(f"thread {self.thread_id}")
        if self.sequence is not None:
            parts.append(f"sequence {self.sequence}")
        return ", ".join(parts)

    def __str__(self) -> str:
        where = self.where()
        return f"{where}: [{self.rule}] {self.message}" if where else f"[{self.rule}] {self.message}"

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    def with_source(self, source: str | None) -> Problem:
        if source is None or self.source == source:
            return self
        return Problem(self.rule, self.message, self.thread_id, self.sequence, source, self.line)


class ThreadError(ValueError):
    """Raised by strict reading: carries every problem found, not just the first."""

    def __init__(self, problems: Iterable[Problem], *, source: str | None = None) -> None:
        # ``source`` names problems that name no file; one that does keeps its own (a folder's
        # error names each file, not the folder, on every line: issue 28)
        self.problems = [p if p.source else p.with_source(source) for p in problems] if source else list(problems)
        self.source = source
        count = len(self.problems)
        head = f"{count} problem{'s' if count != 1 else ''}"
        if source:
            head += f" in {source}"
        lines = [f"  - {p}" for p in self.problems[:50]]
        if count > 50:
            lines.append(f"  ... and {count - 50} more")
        super().__init__(head + ":\n" + "\n".join(lines))
