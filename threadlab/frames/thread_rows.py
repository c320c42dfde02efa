"""The threads frame's own fields for a block of thread records, a column at a time.

What is counted or summed over a thread's actions is made in ``arrow.py``; here are the fields the
thread object itself gives (ids, title, times, the agents' names, the producer's own cost and token
total). Each column is one pass over the block's records (``dict.get`` mapped over their objects),
not one call per thread: an Inspect log or a span export is thousands of short threads, where the
per-thread calls were a sixth of the extraction."""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from itertools import repeat
from typing import Any

from threadlab.frames.agent_lookup import SharedMap
from threadlab.frames.batch import REPORTED_COST, REPORTED_TOKENS, TOKEN_KEYS, Batch, ThreadRecord, as_mapping

_HEAD = ("thread_id", "parent_thread_id", "title", "created_at", "updated_at")


def add_thread_rows(out: Batch, records: Sequence[ThreadRecord], names: Callable[[int], Mapping[Any, Any]], first: int) -> None:
    """Append the rows of ``records`` to ``out``'s threads columns; ``names(first + i)`` is the
    agent name map of record ``i``."""
    docs = [r.doc for r in records]
    if all(type(d) is dict for d in docs):
        get: Callable[[str], list[Any]] = lambda key: list(map(dict.get, docs, repeat(key)))  # noqa: E731
    else:
        get = lambda key: [d.get(key) for d in docs]  # noqa: E731
    h = out["threads"]
    h["source"] += [r.source for r in records]
    h["format"] += [r.format for r in records]
    for key in _HEAD:
        h[key] += get(key)
    agents = [a if type(a) is dict else as_mapping(a) for a in get("agents")]
    h["n_agents"] += list(map(len, agents))
    h["agents"] += _agent_lists(agents, names, first)
    h["n_problems"] += [len(r.problems) for r in records]
    accounts = [r.account for r in records]
    h["n_records"] += [a.records if a is not None else None for a in accounts]
    h["n_unconverted"] += [a.unconverted if a is not None else None for a in accounts]
    metas = [m if type(m) is dict else as_mapping(m) for m in get("metadata")]
    costs = list(map(dict.get, metas, repeat("cost_usd"))) if all(type(m) is dict for m in metas) else [m.get("cost_usd") for m in metas]
    h[REPORTED_COST] += [None] * len(costs) if costs.count(None) == len(costs) else list(map(_reported_cost, costs))
    totals = [m.get("usage_total") for m in metas]
    if totals.count(None) == len(totals):
        h[REPORTED_TOKENS] += [None] * len(totals)
    else:
        h[REPORTED_TOKENS] += [reported_tokens(t, m.get("usage_total_note")) for t, m in zip(totals, metas, strict=True)]


def _agent_lists(agents: list[Mapping[Any, Any]], names: Callable[[int], Mapping[Any, Any]], first: int) -> list[str]:
    """Each thread's agents' names, sorted by id and joined; with one name map for all threads,
    made once per set of ids."""
    if not isinstance(names, SharedMap):
        return [_agent_list(agents_of, names(first + i)) for i, agents_of in enumerate(agents)]
    table = names.table
    made: dict[tuple[Any, ...], str] = {}
    out = []
    for agents_of in agents:
        key = tuple(agents_of)
        text = made.get(key)
        if text is None:
            text = made[key] = _agent_list(agents_of, table)
        out.append(text)
    return out


def _agent_list(agents: Mapping[Any, Any], names: Mapping[Any, Any]) -> str:
    return ", ".join(str(names.get(k, k)) for k in sorted(agents))


def reported_tokens(total: Any, note: Any) -> tuple[dict[str, int], str | None] | None:
    """A producer's own token total (the usage keys it gives as 64-bit integers) and its note;
    None when it gives none, so the usage rows are summed instead."""
    if not isinstance(total, Mapping):
        return None
    figures = {k: v for k in TOKEN_KEYS if type(v := total.get(k)) is int and -(2**63) <= v < 2**63}
    return (figures, note if isinstance(note, str) else None) if figures else None


def _reported_cost(value: Any) -> float | None:
    """A producer's own cost figure as a float; None for what is not a finite number (a string,
    a bool, an integer beyond a float's range): the usage rows are priced instead."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    try:
        cost = float(value)
    except OverflowError:
        return None
    return cost if math.isfinite(cost) else None
