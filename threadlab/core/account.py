"""The account a reader keeps of its input: what became of every record it was given.

A record is the unit a format is made of: a JSON Lines line, a message, a content part or
block, a stream chunk, a span, a saved item. Each ends in exactly one of three outcomes, so
nothing a file held disappears without a trace:

- ``converted``: it is in the thread: in a core action or a ``system.*`` action the format
  defines, in the thread's or an agent's metadata, or it repeats what another record already
  gave (a stream delta of a message the file also holds whole);
- ``kept``: the reader did not understand it and kept it as it came (an unknown action, part or
  block), with a problem row naming it;
- ``failed``: only a problem row says what it was and why it could not be read.

``frames.threads`` shows ``n_records`` and ``n_unconverted`` (kept + failed) per thread."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(slots=True)
class Account:
    converted: int = 0
    kept: int = 0
    failed: int = 0

    @property
    def records(self) -> int:
        return self.converted + self.kept + self.failed

    @property
    def unconverted(self) -> int:
        return self.kept + self.failed

    def __add__(self, other: Account) -> Account:
        return Account(self.converted + other.converted, self.kept + other.kept, self.failed + other.failed)
