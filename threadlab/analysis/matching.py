"""``find``: where a sequence pattern (``pattern.py``) occurs, evaluated in whole-column passes.

Each step's conditions are a boolean mask over every action (a label is tested once per distinct
value, a text once per column in RE2). The steps are then chained from the last to the first:
an action can start the rest of the pattern from step k when some action that can start it from
step k+1 lies after it in the same thread, within the gap, with the ``same`` values; one
``searchsorted`` per step finds, for every candidate at once, the earliest such action. So the
cost is a few passes per step, not a Python step per action.

A match is reported once per action that can start it, completed by the earliest action at
each step that still lets the rest of the pattern complete (``within`` then drops the matches
that span more actions). Steps count actions: every action of the thread is one, system and
harness actions too."""

from __future__ import annotations

import re
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from threadlab.analysis.arrays import ThreadOrder, arrow_strings, as_frames, codes, ints, thread_order, values_at
from threadlab.analysis.findings import Findings, finding_rows, typed_findings
from threadlab.analysis.pattern import Cond, Pattern, Step, parse
from threadlab.analysis.query import compile_query
from threadlab.frames.frames import Frames

FAILED = ("error", "validation_error")
_LABEL_OF = {"tool": "tool_name", "status": "status", "type": "action_type", "author": "author", "harness": "harness_kind",
             "model": "model_name"}
_TEXT_KIND = {"args": "tool_call", "result": "tool_return"}


def _glob(value: str) -> re.Pattern[str]:
    return re.compile("".join(".*" if c == "*" else "." if c == "?" else re.escape(c) for c in value), re.DOTALL)


def _label_test(cond: Cond) -> Any:
    """The condition as a test of one (non-missing) label value."""
    if cond.kind == "regex":
        rx = re.compile(cond.value, re.IGNORECASE)
        return lambda v: rx.search(v) is not None
    if cond.kind == "contains":
        needle = cond.value.casefold()
        return lambda v: needle in v.casefold()
    wanted = {cond.value} | (set(FAILED) if cond.field == "status" and cond.value == "failed" else set())
    if cond.kind == "glob":
        rx = _glob(cond.value)
        return lambda v: rx.fullmatch(v) is not None
    return lambda v: v in wanted


def _label_mask(series: pd.Series, cond: Cond) -> np.ndarray:
    coded, categories = codes(series)
    test = _label_test(cond)
    per_value = np.fromiter((test(str(v)) for v in categories), dtype=bool, count=len(categories))
    hit = np.append(per_value, False)[coded]
    return ~hit if cond.op == "!=" else hit


def _text_mask(frames: Frames, cond: Cond) -> np.ndarray:
    a = frames.actions
    text = arrow_strings(a["text"])
    if cond.kind in ("regex", "contains"):
        q = compile_query(cond.value, regex=cond.kind == "regex")
        if q.re2 is not None:
            hit = pc.fill_null(pc.match_substring_regex(text, q.re2), False).to_numpy(zero_copy_only=False)
        else:
            hit = np.fromiter((v is not None and q.python.search(v) is not None for v in text.to_pylist()), dtype=bool, count=len(a))
    elif cond.kind == "glob":
        rx = _glob(cond.value)
        hit = np.fromiter((v is not None and rx.fullmatch(v) is not None for v in text.to_pylist()), dtype=bool, count=len(a))
    else:
        hit = pc.fill_null(pc.equal(text, pa.scalar(cond.value, text.type)), False).to_numpy(zero_copy_only=False)
    if cond.field in _TEXT_KIND:
        hit = hit & _label_mask(a["action_type"], Cond("type", "=", _TEXT_KIND[cond.field], "exact"))
    return ~hit if cond.op == "!=" else hit


def _cond_mask(frames: Frames, cond: Cond) -> np.ndarray:
    a = frames.actions
    if cond.field in ("text", "args", "result"):
        return _text_mask(frames, cond)
    if cond.field == "agent":
        by_name, by_id = _label_mask(a["agent_name"], cond), _label_mask(a["agent_id"], cond)
        return (by_name & by_id) if cond.op == "!=" else (by_name | by_id)
    column = _LABEL_OF[cond.field]
    if column not in a.columns:  # frames saved before the column existed
        return np.full(len(a), cond.op == "!=")
    return _label_mask(a[column], cond)


def _kind_mask(frames: Frames, kind: str) -> np.ndarray:
    a = frames.actions

    def is_(field: str, value: str) -> np.ndarray:
        return _cond_mask(frames, Cond(field, "=", value, "glob" if "*" in value else "exact"))

    masks = {
        "call": lambda: is_("type", "tool_call"),
        "failed": lambda: is_("type", "tool_call") & is_("status", "failed"),
        "return": lambda: is_("type", "tool_return"),
        "error": lambda: is_("type", "tool_return") & is_("status", "failed"),
        "message": lambda: is_("type", "assistant_message"),
        "thinking": lambda: is_("type", "thinking"),
        "prompt": lambda: is_("type", "user_message") & (is_("author", "human") if "author" in a.columns else True),
        "user": lambda: is_("type", "user_message"),
        "harness": lambda: is_("author", "harness"),
        "interrupt": lambda: is_("harness", "interrupt"),
        "system": lambda: is_("type", "system.*"),
        "any": lambda: np.ones(len(a), dtype=bool),
    }
    return masks[kind]()


def step_mask(frames: Frames, order: ThreadOrder, step: Step) -> np.ndarray:
    """Which actions (in thread order) the step matches, its ``same`` conditions aside."""
    mask = _kind_mask(frames, step.kind)
    for cond in step.conds:
        if cond.kind != "same":
            mask = mask & _cond_mask(frames, cond)
    return mask[order.order]


def _same_codes(frames: Frames, order: ThreadOrder, fields: tuple[str, ...], rows: np.ndarray) -> np.ndarray:
    """For the ordered actions ``rows``: one integer per distinct (thread, values of ``fields``),
    -1 where a field is missing (``same`` never holds for a missing value)."""
    a = frames.actions
    parts = [order.thread[rows]]
    missing = np.zeros(len(rows), dtype=bool)
    for name in fields:
        if name in ("text", "args", "result"):
            coded = pd.factorize(values_at(a["text"], order.order[rows]), use_na_sentinel=True)[0].astype(np.int64)
            if name in _TEXT_KIND:
                coded = np.where(_label_mask(a["action_type"], Cond("type", "=", _TEXT_KIND[name], "exact"))[order.order[rows]], coded, -1)
        else:
            column = "agent_id" if name == "agent" else _LABEL_OF[name]
            coded = codes(a[column])[0][order.order[rows]] if column in a.columns else np.full(len(rows), -1)
        missing |= coded < 0
        parts.append(coded)
    key = pd.factorize(pd.MultiIndex.from_arrays(parts))[0].astype(np.int64) if len(rows) else np.zeros(0, dtype=np.int64)
    return np.where(missing, -1, key)


def _successors(frames: Frames, order: ThreadOrder, cand: np.ndarray, valid: np.ndarray, step: Step) -> np.ndarray:
    """For each ordered action in ``cand``, the earliest one in ``valid`` after it, in its thread,
    within ``step.gap`` and with the ``same`` values (-1: none)."""
    n = len(order.order)
    gap = step.gap if step.gap is not None else n
    if not len(valid) or not len(cand):
        return np.full(len(cand), -1, dtype=np.int64)
    if not step.same:
        i = np.searchsorted(valid, cand, side="right")
        q = valid[np.minimum(i, len(valid) - 1)]
        ok = (i < len(valid)) & (order.thread[q] == order.thread[cand]) & (q - cand <= gap)
        return np.where(ok, q, -1)
    key = _same_codes(frames, order, step.same, np.concatenate([cand, valid]))
    kc, kv = key[: len(cand)], key[len(cand):]
    keep = kv >= 0
    composite = np.sort(kv[keep] * (n + 1) + valid[keep])
    asked = kc * (n + 1) + cand
    i = np.searchsorted(composite, asked, side="right")
    found = composite[np.minimum(i, max(len(composite) - 1, 0))] if len(composite) else np.zeros(len(cand), dtype=np.int64)
    q = found % (n + 1)
    ok = (kc >= 0) & (i < len(composite)) & (found // (n + 1) == kc) & (q - cand <= gap)
    return np.where(ok, q, -1)


def matches(frames: Frames, pattern: Pattern) -> np.ndarray:
    """The matches as a (steps × matches) array of ordered action positions, in start order."""
    order = thread_order(frames)
    masks = [step_mask(frames, order, step) for step in pattern.steps]
    links: list[tuple[np.ndarray, np.ndarray]] = []
    valid = np.flatnonzero(masks[-1])
    for k in range(len(pattern.steps) - 2, -1, -1):
        cand = np.flatnonzero(masks[k])
        succ = _successors(frames, order, cand, valid, pattern.steps[k + 1])
        keep = succ >= 0
        links.append((cand[keep], succ[keep]))
        valid = cand[keep]
    chain = [valid]
    for starts, succ in reversed(links):
        chain.append(succ[np.searchsorted(starts, chain[-1])])
    return np.stack(chain) if chain else np.zeros((0, 0), dtype=np.int64)


def find(frames: Any, pattern: str | Pattern, *, within: int | None = None) -> Findings:
    """Where ``pattern`` (see ``threadlab.analysis.pattern`` for the grammar) occurs: one row per
    match, as findings (``scanner`` ``find``, severity ``info``, the span from the first step's
    action to the last's) with ``sequences``: the sequence of each step's action. ``within``:
    only matches whose last step is at most that many actions after the first.

    ``tl.find(frames, "failed(tool=search*) -3-> call(tool=same, args=same)")``"""
    frames = as_frames(frames)
    parsed = parse(pattern) if isinstance(pattern, str) else pattern
    if within is not None and (not isinstance(within, int) or within < 1):
        raise ValueError(f"within is a number of actions, at least 1; got {within!r}")
    at = matches(frames, parsed)
    if within is not None and at.size:
        at = at[:, at[-1] - at[0] <= within]
    order = thread_order(frames)
    a = frames.actions
    seq = ints(a["sequence"])[order.order[at]] if at.size else np.zeros((len(parsed.steps), 0), dtype=np.int64)
    first = order.order[at[0]] if at.size else np.zeros(0, dtype=np.int64)
    message = [f"{parsed.text} at steps {', '.join(map(str, s))}" for s in seq.T.tolist()]
    rows = finding_rows(frames, order.thread[at[0]] if at.size else first, seq[0], seq[-1], severity="info", message=message,
                        agent_name=values_at(a["agent_name"], first), tool_name=values_at(a["tool_name"], first))
    rows["scanner"] = "find"
    out = Findings(typed_findings(rows))
    out["sequences"] = [tuple(s) for s in seq.T.tolist()]
    out._frames = frames
    return out


__all__ = ["find", "matches", "step_mask"]
