"""A thread's token columns: its usage rows added up, or the producer's own total.

Some producers count tokens themselves for a whole session (Codex's running
``total_token_usage``): a thread's metadata ``usage_total`` (the usage keys) and
``usage_total_note`` (why it may differ). Where a thread has one, the threads frame shows it in
the token columns it gives (``tokens_source`` "reported") instead of the usage rows' sum
("summed"), as ``cost_usd`` shows a reported cost instead of a priced one: never the two added.
Where the two differ (the total counts model calls the thread does not hold: a resumed, forked,
compacted or trimmed session), a ``usage-total`` problem row says by how much and why, and the
usage rows stay as they are, one per model response."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc

from threadlab.frames.batch import TOKEN_KEYS

Reported = tuple[dict[str, int], str | None] | None
ReportThread = Callable[[int, str, str], None]  # (thread row, rule, message)


def thread_tokens(summed: dict[str, pa.Array], reported: Sequence[Reported], problem: ReportThread) -> dict[str, pa.Array]:
    """The token columns and ``tokens_source`` of the threads frame (``summed``: per-thread sums
    of the usage rows, null where no row gave the count)."""
    has_rows = pc.or_(pc.is_valid(summed["input_tokens"]), pc.is_valid(summed["output_tokens"]))
    has_rows = pc.or_(has_rows, pc.is_valid(summed["total_tokens"]))
    source = pc.if_else(has_rows, pa.scalar("summed"), pa.scalar(None, pa.string()))
    given = [i for i, r in enumerate(reported) if r is not None]
    if not given:
        return {**summed, "tokens_source": source}
    columns = {k: summed[k].to_pylist() for k in TOKEN_KEYS}
    sources: list[Any] = source.to_pylist()
    for row in given:
        figures, note = reported[row]  # type: ignore[misc]
        differences = []
        for key, value in figures.items():
            sum_ = columns[key][row]
            if value != (sum_ or 0):
                differences.append(f"{key} {value:,} reported, {sum_ or 0:,} summed ({value - (sum_ or 0):+,})")
            columns[key][row] = value
        sources[row] = "reported"
        if differences:
            why = note or "it counts model calls the thread does not hold (turns before a resume or fork, a trimmed part) or calls with no usage row"
            problem(row, "usage-total", f"the producer's token total (metadata.usage_total) differs from the sum of the thread's usage rows: {'; '.join(differences)}. The threads frame shows the producer's figures. Why: {why}")
    out = {k: pa.array(v, type=pa.int64()) for k, v in columns.items()}
    out["tokens_source"] = pa.array(sources, type=pa.string())
    return out
