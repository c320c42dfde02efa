"""What a span of steps cost: the usage rows inside each finding's (or match's) span.

A loop's price is the model calls it made: the usage rows of its thread whose sequence lies
between the span's first and last step. Found for every span at once: the usage rows sorted by
thread and sequence, running sums, two ``searchsorted`` per span."""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from threadlab.analysis.arrays import as_frames, floats, ints, thread_rows

TOKENS = ("input_tokens", "output_tokens", "total_tokens")


def span_usage(frames: Any, spans: pd.DataFrame) -> pd.DataFrame:
    """``spans`` (findings, matches, any frame with ``source``, ``thread_id``, ``first_sequence``,
    ``last_sequence``) with what the model calls inside each span used: ``n_model_calls``, the
    token columns and ``cost_usd`` (summed over the priced calls; empty when none was priced).
    A span's steps are its thread's usage rows from its first to its last sequence."""
    frames = as_frames(frames)
    u = frames.usage
    thread = thread_rows(frames, u)
    seq = ints(u["sequence"])
    keep = np.flatnonzero((thread >= 0) & (seq >= 0))
    width = int(seq.max(initial=0)) + 2
    key = thread[keep] * width + seq[keep]
    order = np.argsort(key, kind="stable")
    key = key[order]
    rows = keep[order]
    sums = {c: np.concatenate(([0.0], np.cumsum(np.nan_to_num(floats(u[c])[rows])))) for c in (*TOKENS, "cost_usd")}
    priced = np.concatenate(([0], np.cumsum(~np.isnan(floats(u["cost_usd"])[rows]))))
    span_thread = thread_rows(frames, spans) if len(spans) else np.zeros(0, dtype=np.int64)
    first, last = ints(spans["first_sequence"]), ints(spans["last_sequence"])
    last = np.where(last >= 0, last, first)
    lo = np.searchsorted(key, span_thread * width + first, side="left")
    hi = np.searchsorted(key, span_thread * width + last, side="right")
    hi = np.where((span_thread >= 0) & (first >= 0), hi, lo)
    out = spans.copy()
    out["n_model_calls"] = pd.array(hi - lo, dtype="Int64")
    for c in TOKENS:
        out[c] = pd.array((sums[c][hi] - sums[c][lo]).astype(np.int64), dtype="Int64")
    cost = sums["cost_usd"][hi] - sums["cost_usd"][lo]
    out["cost_usd"] = pd.array(np.where(priced[hi] - priced[lo] > 0, cost, np.nan), dtype="Float64")
    return out


__all__ = ["span_usage"]
