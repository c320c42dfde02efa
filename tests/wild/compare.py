"""What threadlab gives for a real file, in the counter's terms, and where the two differ."""

from __future__ import annotations

import warnings
from pathlib import Path
from typing import Any

from tests.wild.count import TEXT_FIELDS, TOKEN_FIELDS, TOTAL_FIELDS, count

Diff = dict[str, tuple[Any, Any]]


def threadlab_counts(path: Path) -> tuple[set[str], dict[str, int]]:
    """The formats threadlab detected and the counts its frames give (``frames.threads`` sums,
    ``frames.actions`` rows by kind, the threads with a ``usage-total`` problem row). Assistant
    texts are the assistant_message rows with text other than whitespace, the counter's terms: a
    response with no content block (a refusal) is an assistant_message, holding the response's
    usage and stop reason, but no text."""
    import threadlab as tl

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        frames = tl.load(path, progress=False)
    t, a = frames.threads, frames.actions
    kinds = a["action_type"].value_counts().to_dict() if len(a) else {}

    def total(col: str) -> int:
        return int(t[col].fillna(0).sum()) if len(t) else 0

    got = {"human_prompts": total("n_human_prompts"), "harness_turns": total("n_harness_turns"),
           "assistant_texts": int(((a["action_type"] == "assistant_message") & a["text"].fillna("").str.strip().astype(bool)).sum()) if len(a) else 0, "tool_calls": int(kinds.get("tool_call", 0)),
           "tool_returns": int(kinds.get("tool_return", 0)), "tool_errors": total("n_tool_errors")}
    got.update({k: total(k) for k in TOKEN_FIELDS})
    p = frames.problems
    got["usage_totals"] = int(p.loc[p["rule"] == "usage-total", "thread_id"].nunique()) if len(p) else 0
    return set(t["format"]) if len(t) else set(), got


def disagreements(path: Path, fmt: str) -> Diff:
    """Every count where threadlab and the raw counter differ (``format`` when the file is not
    detected as its folder's format), as ``{field: (counter, threadlab)}``."""
    formats, got = threadlab_counts(path)
    if formats != {fmt}:
        return {"format": (fmt, ",".join(sorted(formats)) or None)}
    want = count(path, fmt).as_dict()
    return {k: (want[k], got[k]) for k in (*TEXT_FIELDS, *TOKEN_FIELDS, *TOTAL_FIELDS) if want[k] is not None and want[k] != got[k]}
