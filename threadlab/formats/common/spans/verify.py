"""A span writer checks its own output: it reads back what it wrote and names every kind of
thing that did not come back the same (a ``WriteLoss``), so a thread from any format can be
written as spans and the loss is said, never silent.

Spans hold less than a thread in ways that depend on the thread (a tool call's time is its
tool span's start, a user prompt's the time of the model call that first shows it), so the
writer does not guess what it loses: it compares."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from typing import Any

from threadlab.core.loss import report_loss
from threadlab.core.model import Thread
from threadlab.core.problems import ThreadError
from threadlab.formats.common.source import Source


def written_and_checked(fmt: str, thread: Thread, write: Callable[[Thread], bytes], read: Callable[[Source], list[Thread]]) -> bytes:
    wire = write(thread)
    try:
        back = read(Source(wire, name=thread.origin[0] or f"written.{fmt}"))
    except ThreadError as exc:
        report_loss(fmt, thread.thread_id, [f"the whole thread (reading it back fails: {exc.problems[0]})"])
        return wire
    report_loss(fmt, thread.thread_id, differences(thread, back))
    return wire


def differences(thread: Thread, back: list[Thread]) -> list[str]:
    """Phrases naming what ``back`` (the written thread read again) lacks or has changed."""
    if len(back) != 1:
        return [f"the thread as one conversation (read back as {len(back)} threads)"]
    a, b = thread.to_dict(), back[0].to_dict()
    lost = [f"the thread's {key}" for key in ("thread_id", "parent_thread_id", "title", "metadata") if a.get(key) != b.get(key)]
    lost += _agents(a.get("agents") or {}, b.get("agents") or {})
    lost += _actions(a.get("actions") or [], b.get("actions") or [])
    return lost


def _agents(a: dict[str, Any], b: dict[str, Any]) -> list[str]:
    out = []
    missing = [k for k in a if k not in b]
    if missing:
        out.append(f"{len(missing)} agents of the registry ({', '.join(missing[:5])})")
    changed = [k for k in a if k in b and a[k] != b[k]]
    if changed:
        fields = sorted({f for k in changed for f in set(a[k]) | set(b[k]) if a[k].get(f) != b[k].get(f)})
        out.append(f"the {', '.join(fields)} of {len(changed)} agents")
    extra = [k for k in b if k not in a]
    if extra:
        out.append(f"no agent: {len(extra)} more read back ({', '.join(extra[:5])})")
    return out


def _actions(a: list[dict[str, Any]], b: list[dict[str, Any]]) -> list[str]:
    kinds_a = [x.get("action_type") for x in a]
    kinds_b = [x.get("action_type") for x in b]
    if kinds_a != kinds_b:
        missing, extra = Counter(kinds_a) - Counter(kinds_b), Counter(kinds_b) - Counter(kinds_a)
        out = [f"{n} {kind} actions" for kind, n in sorted(missing.items())]
        out += [f"nothing: {n} {kind} actions more read back" for kind, n in sorted(extra.items())]
        return out or [f"the order of {sum(x != y for x, y in zip(kinds_a, kinds_b, strict=True))} actions"]
    changed: Counter[str] = Counter()
    for x, y in zip(a, b, strict=True):
        for key in set(x) | set(y):
            if key != "sequence" and x.get(key) != y.get(key):
                changed[key] += 1
    names = {"timestamp": "action timestamps", "metadata": "actions' metadata"}
    return [f"{n} {names.get(key, key + ' values')}" for key, n in sorted(changed.items())]
