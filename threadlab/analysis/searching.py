"""``search``: full-text search of the frames, one row per action (and field) that matches.

An action's searchable text is ``actions.text`` (``frames/extract.py``): a message's or
thinking's text, a system action's data as JSON; for a ``tool_call`` it is the call's arguments
(JSON, the ``args`` field) and for a ``tool_return`` its result (the ``result`` field), the same
text ``frames.tool_calls`` shows. The whole column is matched in one pass (``query.py``), then
only the rows that match are cut into snippets, again in one pass."""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from threadlab.analysis.arrays import arrow_strings, as_frames, codes
from threadlab.analysis.query import CLOSE, CONTEXT, OPEN, Query, compile_query

FIELDS = ("text", "args", "result")
HIT_COLUMNS = ("source", "thread_id", "sequence", "action_type", "agent_name", "tool_name", "field", "snippet", "match", "n_matches")
_FIELD_OF_KIND = {"tool_call": "args", "tool_return": "result"}


class Hits(pd.DataFrame):
    """Search hits (``HIT_COLUMNS``) that keep the frames they were found in, so a notebook
    shows each hit with its match highlighted and the steps around it (escaped)."""

    _metadata = ["_frames", "_query"]  # noqa: RUF012 (pandas reads this class attribute)

    @property
    def _constructor(self) -> type[Hits]:
        return Hits

    def _repr_html_(self) -> str | None:
        frames = getattr(self, "_frames", None)
        if frames is None or not {"source", "thread_id", "sequence", "snippet", "match"} <= set(self.columns):
            return super()._repr_html_()
        from threadlab.analysis.html import hits_html

        return hits_html(self, frames, getattr(self, "_query", ""))


def _fields(fields: Any) -> tuple[str, ...]:
    chosen = (fields,) if isinstance(fields, str) else tuple(fields)
    unknown = [f for f in chosen if f not in FIELDS]
    if unknown or not chosen:
        raise ValueError(f"fields are some of {', '.join(FIELDS)}; got {', '.join(map(repr, unknown)) or 'none'}")
    return chosen


def _field_codes(kinds: pd.Series) -> np.ndarray:
    """Each row's field, as an index into FIELDS (from its action type)."""
    coded, categories = codes(kinds)
    per_kind = np.array([FIELDS.index(_FIELD_OF_KIND.get(str(k), "text")) for k in categories] + [0], dtype=np.int8)
    return per_kind[coded]


def _matches(text: pa.ChunkedArray, query: Query, wanted: np.ndarray) -> np.ndarray:
    """Mask of the rows whose text matches (only ``wanted`` rows are asked)."""
    if query.re2 is not None:
        hit = pc.fill_null(pc.match_substring_regex(text, query.re2), False).to_numpy(zero_copy_only=False)
        return hit & wanted
    rows = np.flatnonzero(wanted)
    values = text.filter(pa.array(wanted)).to_pylist()
    found = np.fromiter((v is not None and query.python.search(v) is not None for v in values), dtype=bool, count=len(values))
    out = np.zeros(len(wanted), dtype=bool)
    out[rows[found]] = True
    return out


def _python_parts(values: list[str], query: Query) -> tuple[list[str], list[str], list[str], list[int]]:
    """(before, match, after, count) of each value's first match, cut as the RE2 snippet is."""
    before, match, after, count = [], [], [], []
    for value in values:
        m = query.python.search(value)
        if m is None:  # (RE2 and Python disagree on this text: shown from its start)
            before.append(""), match.append(""), after.append(value[: CONTEXT + 1]), count.append(0)
            continue
        before.append(value[max(0, m.start() - CONTEXT - 1): m.start()])
        match.append(m.group(0))
        after.append(value[m.end(): m.end() + CONTEXT + 1])
        count.append(sum(1 for _ in query.python.finditer(value)))
    return before, match, after, count


def _snippets(texts: pa.Array, query: Query) -> tuple[pa.Array, pa.Array, np.ndarray]:
    """(snippet, match, n_matches) of each matching text."""
    if query.snippet is not None and query.re2 is not None:
        parts = pc.extract_regex(texts, query.snippet)
        before, match, after = (parts.field(name) for name in ("tl_before", "tl_match", "tl_after"))
        count = pc.count_substring_regex(texts, query.re2).to_numpy(zero_copy_only=False)
    else:
        b, m, a, n = _python_parts(texts.to_pylist(), query)
        before, match, after = pa.array(b, pa.large_string()), pa.array(m, pa.large_string()), pa.array(a, pa.large_string())
        count = np.asarray(n, dtype=np.int64)
    limit = CONTEXT + 1
    ellipsis, opening, closing, nothing = (pa.scalar(x, before.type) for x in ("…", OPEN, CLOSE, ""))
    cut_before = pc.greater_equal(pc.utf8_length(before), limit)
    before = pc.if_else(cut_before, pc.binary_join_element_wise(ellipsis, pc.utf8_slice_codeunits(before, 1, limit), nothing), before)
    cut_after = pc.greater_equal(pc.utf8_length(after), limit)
    after = pc.if_else(cut_after, pc.binary_join_element_wise(pc.utf8_slice_codeunits(after, 0, CONTEXT), ellipsis, nothing), after)
    snippet = pc.binary_join_element_wise(before, opening, match, closing, after, nothing)
    snippet = pc.replace_substring_regex(snippet, r"[\r\n\t]", " ")
    return snippet, match, count


def search(frames: Any, query: str, *, regex: bool = False, case: bool = False, fields: Any = FIELDS) -> Hits:
    """Every action whose text holds ``query``: one row per hit (``HIT_COLUMNS``), in the frames'
    order, with ``field`` (``text``, ``args`` of a tool call, ``result`` of a tool return), a
    ``snippet`` (the first match with up to 40 characters each side, marked ``⟦ ⟧``, line breaks
    as spaces), the ``match`` itself and ``n_matches`` (non-overlapping, in that text).

    Plain text by default, case-insensitive unless ``case=True``; ``regex=True`` takes a regular
    expression (Python's syntax; a mistake is a ValueError naming its position). ``fields``
    restricts the search to some of ``text``, ``args``, ``result``."""
    frames = as_frames(frames)
    chosen = _fields(fields)
    q = compile_query(query, regex=regex, case=case)
    a = frames.actions
    field = _field_codes(a["action_type"])
    wanted = np.isin(field, [FIELDS.index(f) for f in chosen]) if len(chosen) < len(FIELDS) else np.ones(len(a), dtype=bool)
    text = arrow_strings(a["text"])
    hit = _matches(text, q, wanted)
    rows = np.flatnonzero(hit)
    snippet, match, count = _snippets(text.filter(pa.array(hit)).combine_chunks(), q) if len(rows) else ([], [], [])
    out = Hits({
        "source": a["source"].iloc[rows].reset_index(drop=True),
        "thread_id": a["thread_id"].iloc[rows].reset_index(drop=True),
        "sequence": a["sequence"].iloc[rows].reset_index(drop=True),
        "action_type": a["action_type"].iloc[rows].reset_index(drop=True),
        "agent_name": a["agent_name"].iloc[rows].reset_index(drop=True),
        "tool_name": a["tool_name"].iloc[rows].reset_index(drop=True),
        "field": pd.Categorical.from_codes(field[rows], categories=list(FIELDS)),
        "snippet": pd.array(snippet, dtype=pd.StringDtype("pyarrow")),
        "match": pd.array(match, dtype=pd.StringDtype("pyarrow")),
        "n_matches": pd.array(np.asarray(count, dtype=np.int64), dtype="Int64"),
    })
    out._frames = frames
    out._query = query
    return out


__all__ = ["FIELDS", "HIT_COLUMNS", "Hits", "search"]
