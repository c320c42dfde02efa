"""Problems: what is wrong with a thread or a file, said so a person can act on it."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import asdict, dataclass
from typing import Any


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
        self.problems = [p.with_source(source) for p in problems] if source else list(problems)
        self.source = source
        count = len(self.problems)
        head = f"{count} problem{'s' if count != 1 else ''}"
        if source:
            head += f" in {source}"
        lines = [f"  - {p}" for p in self.problems[:50]]
        if count > 50:
            lines.append(f"  ... and {count - 50} more")
        super().__init__(head + ":\n" + "\n".join(lines))
