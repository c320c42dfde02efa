"""How hits and findings show in a notebook: a list whose rows unfold to the steps they point at.

Plain HTML and CSS, no script, so it reads the same in JupyterLab, VS Code and exported HTML.
Every value from the data (text, names, ids, the query) goes through ``html.escape``: a message
holding ``<script>`` is shown, never run. The steps come from ``frames.actions`` (the thread's
actions around the hit or over the finding's span), so no Thread is read back to show them."""

from __future__ import annotations

from html import escape
from typing import Any

import numpy as np
import pandas as pd

from threadlab.analysis.arrays import cached, ints, objects, thread_order, values_at
from threadlab.analysis.calls import short
from threadlab.analysis.query import CLOSE, OPEN
from threadlab.frames.frames import Frames

LIMIT = 50  # rows shown; the frame holds them all
AROUND = 2  # steps shown before and after
MAX_STEPS = 12
STYLE = """<style>
.tl-an{font:13px/1.45 system-ui,-apple-system,sans-serif;color:#222}
.tl-an .tl-an-head{font-weight:600;margin:2px 0 6px}
.tl-an details{border-bottom:1px solid #e8e8e8;padding:3px 0}
.tl-an summary{cursor:pointer}
.tl-an mark{background:#ffe066;padding:0 1px;border-radius:2px}
.tl-an .tl-an-where{color:#666}
.tl-an .tl-sev{display:inline-block;min-width:4.5em;font-weight:600}
.tl-an .tl-sev-error{color:#b00020}.tl-an .tl-sev-warning{color:#a35200}.tl-an .tl-sev-info{color:#46607a}
.tl-an table.tl-an-steps{border-collapse:collapse;margin:4px 0 4px 1.2em}
.tl-an table.tl-an-steps td{vertical-align:top;padding:1px 8px 1px 0;font-size:12px;white-space:pre-wrap;word-break:break-word}
.tl-an table.tl-an-steps td:nth-child(-n+2){white-space:nowrap}
.tl-an tr.tl-an-in td{background:#fff6d5}
.tl-an .tl-an-count{display:inline-block;margin-right:10px}
.tl-an .tl-an-scanner{font-weight:600}
</style>"""


def _titles(frames: Frames) -> dict[tuple[Any, str], tuple[int, str]]:
    """(source, thread_id) → (threads-table row, title or id)."""
    def make() -> dict[tuple[Any, str], tuple[int, str]]:
        t = frames.threads
        keys = zip(objects(t["source"]), t["thread_id"].astype(object), objects(t["title"]), strict=True)
        return {(s, str(i)): (row, str(title or i)) for row, (s, i, title) in enumerate(keys)}

    return cached("titles", frames.threads, make)


def _key(source: Any, thread_id: Any) -> tuple[Any, str]:
    return (None if source is None or source is pd.NA or (isinstance(source, float) and source != source) else str(source), str(thread_id))


def steps_html(frames: Frames, source: Any, thread_id: Any, first: int | None, last: int | None) -> str:
    """The thread's actions from ``first`` to ``last`` (sequences) with ``AROUND`` steps either
    side, at most ``MAX_STEPS`` rows (the middle of a long span left out), the span highlighted."""
    row = _titles(frames).get(_key(source, thread_id), (-1, ""))[0]
    order = thread_order(frames)
    start, stop = order.run_of(row) if row >= 0 else (0, 0)
    if stop <= start:
        return '<div class="tl-an-where">(the thread\'s actions are not in these frames)</div>'
    positions = order.order[start:stop]
    seq = ints(frames.actions["sequence"].iloc[positions])
    lo_seq = first if first is not None else last
    hi_seq = last if last is not None else first
    inside = (seq >= (lo_seq if lo_seq is not None else seq.min())) & (seq <= (hi_seq if hi_seq is not None else seq.max()))
    where = np.flatnonzero(inside)
    i0, i1 = (int(where[0]), int(where[-1])) if len(where) else (0, 0)
    lo, hi = max(0, i0 - AROUND), min(len(seq), i1 + AROUND + 1)
    shown = list(range(lo, hi))
    gap = None
    if len(shown) > MAX_STEPS:
        half = MAX_STEPS // 2
        gap = hi - lo - 2 * half
        shown = shown[:half] + shown[-half:]
    picked = positions[shown]
    a = frames.actions
    kinds, agents, tools, texts = (values_at(a[c], picked) for c in ("action_type", "agent_name", "tool_name", "text"))
    authors = values_at(a["author"], picked) if "author" in a.columns else [None] * len(picked)
    rows = []
    for n, i in enumerate(shown):
        if gap and n == MAX_STEPS // 2:
            rows.append(f'<tr><td></td><td colspan="3" class="tl-an-where">… {gap} steps …</td></tr>')
        who = " · ".join(str(x) for x in (authors[n], agents[n], tools[n]) if x is not None)
        css = ' class="tl-an-in"' if inside[i] else ""
        rows.append(f"<tr{css}><td>{seq[i]}</td><td>{escape(str(kinds[n]))}</td><td>{escape(who)}</td>"
                    f"<td>{escape(short(texts[n], 300))}</td></tr>")
    return f'<table class="tl-an-steps">{"".join(rows)}</table>'


def _marked(snippet: str, match: str) -> str:
    """The snippet escaped, its ⟦match⟧ as <mark>match</mark>."""
    shown = match.replace("\r", " ").replace("\n", " ").replace("\t", " ")
    i = snippet.find(OPEN + shown + CLOSE)
    if i < 0:
        return escape(snippet)
    j = i + len(shown) + 2
    return f"{escape(snippet[:i])}<mark>{escape(shown)}</mark>{escape(snippet[j:])}"


def hits_html(hits: pd.DataFrame, frames: Frames, query: str) -> str:
    titles = _titles(frames)
    n_threads = len(hits[["source", "thread_id"]].drop_duplicates()) if len(hits) else 0
    more = f" (the first {LIMIT} shown)" if len(hits) > LIMIT else ""
    head = f'<div class="tl-an-head">{len(hits):,} hits for “{escape(query)}” in {n_threads:,} threads{more}</div>'
    items = []
    shown = hits.head(LIMIT)
    cols = {c: objects(shown[c]) if c in shown.columns else [None] * len(shown)
            for c in ("source", "thread_id", "sequence", "agent_name", "tool_name", "field", "snippet", "match")}
    for i in range(len(shown)):
        source, tid, seq = cols["source"][i], cols["thread_id"][i], cols["sequence"][i]
        title = titles.get(_key(source, tid), (-1, str(tid)))[1]
        who = " · ".join(str(x) for x in (cols["agent_name"][i], cols["tool_name"][i]) if x is not None)
        where = f'{escape(short(title, 50))} · step {escape(str(seq))}' + (f" · {escape(who)}" if who else "")
        snippet = _marked(str(cols["snippet"][i] or ""), str(cols["match"][i] or ""))
        items.append(f'<details data-thread-id="{escape(str(tid), quote=True)}" data-sequence="{escape(str(seq), quote=True)}">'
                     f'<summary><span class="tl-an-where">{where} · {escape(str(cols["field"][i]))}:</span> {snippet}</summary>'
                     f"{steps_html(frames, source, tid, seq, seq)}</details>")
    return f'{STYLE}<div class="tl-an tl-an-hits">{head}{"".join(items)}</div>'


def findings_html(findings: pd.DataFrame, frames: Frames) -> str:
    titles = _titles(frames)
    n_threads = len(findings[["source", "thread_id"]].drop_duplicates()) if len(findings) else 0
    counts = findings["scanner"].astype(object).value_counts()
    more = f" (the first {LIMIT} shown)" if len(findings) > LIMIT else ""
    head = (f'<div class="tl-an-head">{len(findings):,} findings in {n_threads:,} threads{more}</div><div>'
            + "".join(f'<span class="tl-an-count">{escape(str(name))}: {n:,}</span>' for name, n in counts.items()) + "</div>")
    shown = findings.head(LIMIT)
    cols = {c: objects(shown[c]) for c in ("source", "thread_id", "scanner", "first_sequence", "last_sequence", "agent_name", "tool_name",
                                          "severity", "message")}
    items = []
    for i in range(len(shown)):
        source, tid = cols["source"][i], cols["thread_id"][i]
        first, last = cols["first_sequence"][i], cols["last_sequence"][i]
        title = titles.get(_key(source, tid), (-1, str(tid)))[1]
        steps = f"step {first}" if first == last or last is None else f"steps {first}–{last}"
        who = " · ".join(str(x) for x in (cols["agent_name"][i], cols["tool_name"][i]) if x is not None)
        severity = str(cols["severity"][i])
        items.append(f'<details data-thread-id="{escape(str(tid), quote=True)}" data-sequence="{escape(str(first), quote=True)}"><summary>'
                     f'<span class="tl-sev tl-sev-{escape(severity, quote=True)}">{escape(severity)}</span> '
                     f'<span class="tl-an-scanner">{escape(str(cols["scanner"][i]))}</span> <span class="tl-an-where">{escape(short(title, 50))} · {steps}'
                     + (f" · {escape(who)}" if who else "") + f'</span> {escape(str(cols["message"][i]))}</summary>'
                     f'{steps_html(frames, source, tid, first, last)}</details>')
    return f'{STYLE}<div class="tl-an tl-an-findings">{head}{"".join(items)}</div>'
