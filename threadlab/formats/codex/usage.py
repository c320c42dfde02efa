"""Codex's own token total for a rollout, beside the per-turn figures.

Every ``token_count`` event carries the last model response's figures (``last_token_usage``,
which the reader puts on that response: the usage rows) and the session's running total
(``total_token_usage``). Codex's ``TokenUsage`` (``codex-rs/protocol/src/protocol.rs``) counts
``input_tokens`` with the cached part inside it (``non_cached_input() = input_tokens -
cached_input_tokens``) and ``output_tokens`` with the reasoning part inside it (the Responses
API's ``output_tokens_details.reasoning_tokens``); ``total_tokens`` is input + output. They map
to ThreadProtocol usage as ``input_tokens``, ``output_tokens``, ``total_tokens``,
``cache_read_tokens`` (``cached_input_tokens``), ``cache_write_tokens``
(``cache_write_input_tokens``) and ``thinking_tokens`` (``reasoning_output_tokens``), zero
cache and reasoning counts left out.

The running total and the sum of the turns a file holds differ when the total counts model calls
the file does not hold: a session resumed or forked into a new file whose first event already
counts the turns before it, a trimmed file, a compaction or a turn that wrote no event. And a
total can start again from zero in the middle of a file: releases of autumn 2025 appended a
resumed session to its rollout and counted anew. So the producer's total of a rollout is the sum,
over the stretches between such restarts, of each stretch's last total (``TokenTotals.total``),
and ``notes`` says where and why it moves other than by its turns. The reader puts these in the
thread's ``metadata.usage_total`` and ``metadata.usage_total_note`` (see docs/DEVELOPING.md)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Final

from threadlab.formats.codex.wire import TokenUsage

KEYS: Final = tuple(TokenUsage.model_fields)
_MAX_NOTES: Final = 3


def _figures(usage: TokenUsage | None) -> dict[str, int]:
    return {k: getattr(usage, k) for k in KEYS} if usage is not None else dict.fromkeys(KEYS, 0)


@dataclass
class TokenTotals:
    closed: list[dict[str, int]] = field(default_factory=list)  # each finished stretch's last total
    current: dict[str, int] | None = None
    notes: list[str] = field(default_factory=list)
    more: int = 0

    def add(self, total: TokenUsage, last: TokenUsage | None, line: int) -> bool:
        """Take one event's running total; False for an event that repeats the previous one."""
        now, turn = _figures(total), _figures(last)
        if now == self.current:
            return False
        before = self.current
        if before is not None and any(now[k] < before[k] for k in KEYS):
            self.closed.append(before)
            self._note(f"line {line}: Codex's running total starts again from zero (a resumed session counted anew; the stretch before it stays counted)")
            before = None
        if before is None:
            extra = now["total_tokens"] - turn["total_tokens"]
            if extra > 0:
                self._note(f"line {line}: its first total already counts {extra:,} tokens of model calls before this file's turns (a resumed or forked session, or a file that starts mid-session)")
        else:
            extra = now["total_tokens"] - before["total_tokens"] - turn["total_tokens"]
            if extra > 0:
                self._note(f"line {line}: the total grew by {extra:,} tokens more than this turn's (model calls this file does not hold: a trimmed part, a compaction, a turn with no token count)")
        self.current = now
        return True

    def _note(self, text: str) -> None:
        if len(self.notes) < _MAX_NOTES:
            self.notes.append(text)
        else:
            self.more += 1

    def total(self) -> dict[str, int] | None:
        """The producer's total as ThreadProtocol usage fields, None when no event had one."""
        if self.current is None:
            return None
        summed = {k: sum(t[k] for t in (*self.closed, self.current)) for k in KEYS}
        return TokenUsage(**summed).fields()

    def note(self) -> str | None:
        if not self.notes:
            return None
        return "; ".join(self.notes) + (f"; and {self.more} more such lines" if self.more else "")
