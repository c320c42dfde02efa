"""Built-in scanners over tool calls (``frames.tool_calls``; an agent's *steps* are its calls,
in order: ``calls.py``). Each docstring is the scanner's exact rule; its keyword parameters
are the thresholds. Registered in this order, which is the order ``tl.scan`` runs them in."""

from __future__ import annotations

import numpy as np
import pandas as pd

from threadlab.analysis.arrays import code_of, floats, ints, objects, runs, thread_order, thread_rows, values_at
from threadlab.analysis.calls import calls_of, column, short
from threadlab.analysis.findings import finding_rows, no_findings
from threadlab.analysis.registry import register_scanner
from threadlab.frames.frames import Frames


def _windows(keys: list[np.ndarray], steps: np.ndarray, m: int, window: int) -> tuple[np.ndarray, np.ndarray]:
    """(order, starts): the rows sorted by ``keys`` then step, and the positions in that order
    where ``m`` consecutive rows of one key lie within ``window`` steps."""
    order = np.lexsort((steps, *reversed(keys)))
    if len(order) < m:
        return order, np.zeros(0, dtype=np.int64)
    k = np.stack([key[order] for key in keys])
    s = steps[order]
    same = (k[:, : -(m - 1)] == k[:, m - 1:]).all(axis=0)
    return order, np.flatnonzero(same & (s[m - 1:] - s[: -(m - 1)] < window))


@register_scanner("repeated_call")
def repeated_call(frames: Frames, *, min_repeats: int = 3, window: int = 5) -> pd.DataFrame:
    """A loop: one agent calls the same tool with the same arguments (``args`` equal as text)
    ``min_repeats`` or more times within ``window`` of its consecutive calls (its steps). Windows
    that share a call are one finding, spanning the first such call to the last one's return.
    Severity warning."""
    c = calls_of(frames)
    if min_repeats < 2 or window < min_repeats:
        raise ValueError(f"repeated_call needs 2 <= min_repeats <= window; got min_repeats={min_repeats}, window={window}")
    m = min_repeats
    # first by tool alone: only calls in such a window of one tool can be in one of equal arguments,
    # so only their arguments are read and compared
    order, ok = _windows([c.group, c.tool], c.step, m, window)
    if not len(ok):
        return no_findings(frames)
    covered = np.zeros(len(order) + 1, dtype=np.int64)
    np.add.at(covered, ok, 1)
    np.add.at(covered, ok + m, -1)
    cand = np.sort(order[np.cumsum(covered[:-1]) > 0])
    args = pd.factorize(column(frames, c, "args", cand), use_na_sentinel=True)[0].astype(np.int64)
    group, tool, steps = c.group[cand], c.tool[cand], c.step[cand]
    order, ok = _windows([group, tool, args], steps, m, window)
    ok = ok[args[order[ok]] >= 0]
    if not len(ok):
        return no_findings(frames)
    k = np.stack([group[order], tool[order], args[order]])
    # windows that share a call (starts less than m apart, same key) are one loop
    new = np.ones(len(ok), dtype=bool)
    new[1:] = (np.diff(ok) >= m) | (k[:, ok[1:]] != k[:, ok[:-1]]).any(axis=0)
    first = ok[new]
    last = np.append(ok[np.flatnonzero(new)[1:] - 1], ok[-1]) + m - 1
    a, b = cand[order[first]], cand[order[last]]
    tools, texts = column(frames, c, "tool_name", a), column(frames, c, "args", a)
    span = c.step[b] - c.step[a] + 1
    message = [f"{t} called {int(x)} times with the same arguments within {int(s)} calls: {short(g, 60)}"
               for t, x, s, g in zip(tools, last - first + 1, span, texts, strict=True)]
    return finding_rows(frames, c.thread[a], c.call_seq[a], c.end_seq(b), severity="warning", message=message,
                        agent_name=column(frames, c, "agent_name", a), tool_name=tools)


@register_scanner("error_streak")
def error_streak(frames: Frames, *, min_errors: int = 3) -> pd.DataFrame:
    """``min_errors`` or more failed calls (status ``error`` or ``validation_error``) in a row of
    one agent's calls, any tools; a pending or successful call ends the streak. One finding per
    streak, from its first call to its last call's return. Severity error."""
    c = calls_of(frames)
    if not len(c):
        return no_findings(frames)
    start = runs(c.group * 2 + c.failed)  # runs of equal (agent, failed)
    length = np.diff(np.append(start, len(c)))
    hit = c.failed[start] & (length >= min_errors)
    first, last = start[hit], (start + length - 1)[hit]
    tools = objects(frames.tool_calls["tool_name"].iloc[c.rows])
    results = column(frames, c, "result", last)
    message = []
    one_tool = np.zeros(len(first), dtype=bool)
    for k, (lo, hi, said) in enumerate(zip(first, last, results, strict=True)):
        counts = pd.Series(tools[lo: hi + 1]).value_counts(sort=False)
        one_tool[k] = len(counts) == 1
        named = ", ".join(f"{t} ×{n}" if n > 1 else str(t) for t, n in counts.items())
        message.append(f"{hi - lo + 1} failed calls in a row ({named}); the last said: {short(said, 60)}")
    return finding_rows(frames, c.thread[first], c.call_seq[first], c.end_seq(last), severity="error", message=message,
                        agent_name=column(frames, c, "agent_name", first), tool_name=np.where(one_tool, tools[first], None))


@register_scanner("retry_after_error")
def retry_after_error(frames: Frames, *, within: int = 1) -> pd.DataFrame:
    """A failed call (``error`` / ``validation_error``) and, within the same agent's next
    ``within`` calls, a call of the same tool: the retry. One finding per failed call, from it
    to the retry's return; the message says whether the arguments were the same and how the
    retry ended. Severity info."""
    c = calls_of(frames)
    if within < 1:
        raise ValueError(f"retry_after_error needs within >= 1; got {within}")
    failed = np.flatnonzero(c.failed)
    retry = np.full(len(failed), -1, dtype=np.int64)
    for d in range(1, within + 1):
        j = failed + d
        inside = j < len(c)
        j = np.where(inside, j, 0)
        found = (retry < 0) & inside & (c.group[j] == c.group[failed]) & (c.tool[j] == c.tool[failed])
        retry[found] = j[found]
    keep = retry >= 0
    a, b = failed[keep], retry[keep]
    status = column(frames, c, "status", b)
    tools = column(frames, c, "tool_name", a)
    same = column(frames, c, "args", a) == column(frames, c, "args", b)
    outcome = {"success": "it succeeded", "pending": "it was never answered", "error": "it failed again", "validation_error": "it failed again"}
    message = [f"{t} failed (step {int(s)}) and was called again at step {int(r)}{' with the same arguments' if m else ''}; "
               f"{outcome.get(str(st), f'it ended {st}')}"
               for t, s, r, m, st in zip(tools, c.call_seq[a], c.call_seq[b], same, status, strict=True)]
    return finding_rows(frames, c.thread[a], c.call_seq[a], c.end_seq(b), severity="info", message=message,
                        agent_name=column(frames, c, "agent_name", a), tool_name=tools)


@register_scanner("pending_call")
def pending_call(frames: Frames) -> pd.DataFrame:
    """A tool call never answered: status ``pending`` (no return, no resolution). Severity warning."""
    c = calls_of(frames)
    at = np.flatnonzero(c.pending)
    tools, ids = column(frames, c, "tool_name", at), column(frames, c, "tool_call_id", at)
    message = [f"{t} call {short(i, 40)} was never answered" for t, i in zip(tools, ids, strict=True)]
    return finding_rows(frames, c.thread[at], c.call_seq[at], c.call_seq[at], severity="warning", message=message,
                        agent_name=column(frames, c, "agent_name", at), tool_name=tools)


@register_scanner("orphan_return")
def orphan_return(frames: Frames) -> pd.DataFrame:
    """A tool return that answers no call of the thread (status ``orphan_return``). Severity warning."""
    tc = frames.tool_calls
    at = np.flatnonzero(code_of(tc["status"], ("orphan_return",)))
    seq = ints(tc["return_sequence"].iloc[at])
    tools, ids = values_at(tc["tool_name"], at), values_at(tc["tool_call_id"], at)
    message = [f"a return of {t or 'a tool'} (call id {short(i, 40)}) answers no call of the thread" for t, i in zip(tools, ids, strict=True)]
    thread = thread_rows(frames, tc)[at]
    keep = thread >= 0
    return finding_rows(frames, thread[keep], seq[keep], seq[keep], severity="warning", message=[m for m, k in zip(message, keep, strict=True) if k],
                        agent_name=values_at(tc["agent_name"], at)[keep], tool_name=tools[keep])


@register_scanner("latency_outlier")
def latency_outlier(frames: Frames, *, factor: float = 10.0, min_calls: int = 5, min_latency_s: float = 1.0) -> pd.DataFrame:
    """A call slower than ``factor`` times its tool's median latency across all the frames
    (tools with at least ``min_calls`` timed calls and a median above zero), and at least
    ``min_latency_s`` seconds. Severity info."""
    c = calls_of(frames)
    latency = floats(frames.tool_calls["latency_s"].iloc[c.rows])
    timed = ~np.isnan(latency)
    if not timed.any():
        return no_findings(frames)
    per_tool = pd.DataFrame({"tool": c.tool[timed], "latency": latency[timed]}).groupby("tool")["latency"].agg(["median", "size"])
    median = pd.Series(per_tool["median"]).reindex(c.tool).to_numpy(dtype=np.float64)
    count = pd.Series(per_tool["size"]).reindex(c.tool).fillna(0).to_numpy(dtype=np.int64)
    with np.errstate(invalid="ignore"):
        hit = timed & (count >= min_calls) & (median > 0) & (latency > factor * median) & (latency >= min_latency_s)
    at = np.flatnonzero(hit)
    tools = column(frames, c, "tool_name", at)
    message = [f"{t} took {lat:.1f} s, {lat / med:.0f}× its median of {med:.2f} s over {int(n)} calls"
               for t, lat, med, n in zip(tools, latency[at], median[at], count[at], strict=True)]
    return finding_rows(frames, c.thread[at], c.call_seq[at], c.end_seq(at), severity="info", message=message,
                        agent_name=column(frames, c, "agent_name", at), tool_name=tools)


@register_scanner("subagent_failure")
def subagent_failure(frames: Frames) -> pd.DataFrame:
    """A delegated agent whose last call failed: in a thread where several agents act, every
    agent but the first to act (the main agent) was started by another (a sub-agent, a handoff,
    a delegated worker); when its last tool call in the thread failed (``error`` /
    ``validation_error``), that is a finding spanning its first call to that call's return.
    Severity error."""
    c = calls_of(frames)
    if not len(c):
        return no_findings(frames)
    order = thread_order(frames)
    acting = np.flatnonzero(code_of(order.take(frames.actions["role"]), ("agent",)) & order.take(frames.actions["agent_id"]).notna().to_numpy())
    firsts = acting[np.flatnonzero(np.r_[True, order.thread[acting][1:] != order.thread[acting][:-1]])] if len(acting) else acting
    main = dict(zip(order.thread[firsts].tolist(), objects(order.take(frames.actions["agent_id"]).iloc[firsts]), strict=True))
    ends = np.append(np.flatnonzero(c.group[1:] != c.group[:-1]), len(c) - 1)  # each agent's last call
    last = ends[c.failed[ends]]
    agents = column(frames, c, "agent_id", last)
    sub = np.array([main.get(int(t)) not in (None, a) for t, a in zip(c.thread[last], agents, strict=True)], dtype=bool)
    last = last[sub]
    first = c.group[last]
    tools, results = column(frames, c, "tool_name", last), column(frames, c, "result", last)
    names = column(frames, c, "agent_name", last)
    message = [f"{n or 'a delegated agent'} (not the main agent) ended on a failed {t} call: {short(r, 60)}"
               for n, t, r in zip(names, tools, results, strict=True)]
    return finding_rows(frames, c.thread[last], c.call_seq[first], c.end_seq(last), severity="error", message=message,
                        agent_name=names, tool_name=tools)
