"""``tool_call_view``: every tool call paired with its return, latency and status.

A table of pairs (click a row to unfold its args and result; pending calls, errors and orphan
returns are tinted), sortable and filterable with two dropdowns, and a latency-per-tool chart.
The table is HTML ``<details>`` rows, so unfolding needs no kernel and works in exported HTML.
A tool error whose result the frames hold only as part labels (a validation error's list of
``{type, loc, msg, input}`` is ``[int_parsing]`` in the ``result`` column) unfolds to the
messages themselves, read from the thread."""

from __future__ import annotations

import re
from typing import Any, Literal

import ipywidgets as widgets
import numpy as np
import pandas as pd

from threadlab.frames.frames import Frames, ThreadKey
from threadlab.widgets.colors import ERROR_COLOR, PENDING_COLOR, SYSTEM_COLOR, agent_colors, status_text_color, text_color
from threadlab.widgets.inputs import as_frames, objects
from threadlab.widgets.styles import CSS
from threadlab.widgets.text import as_text, esc, preview, shorten
from threadlab.widgets.view import Figure, HtmlView, StaticCopy, figure_output

SortKey = Literal["call order", "latency (slowest first)", "tool", "status"]
SORTS: tuple[str, ...] = ("call order", "latency (slowest first)", "tool", "status")
STATUS_FILTERS: tuple[str, ...] = ("all", "success", "error", "pending", "orphan_return", "validation_error")
MAX_ROWS = 300
STATUS_RANK = {"orphan_return": 0, "error": 1, "validation_error": 2, "pending": 3, "success": 4}
LABELS_ONLY = re.compile(r"\[[^\]\n]*\](?:\n\[[^\]\n]*\])*")  # "[int_parsing]": content parts named, not said
MAX_THREAD_READS = 20  # threads re-read for the messages of their tool errors
Details = dict[tuple[Any, Any, int], str]


def sorted_pairs(calls: pd.DataFrame, sort: str = "call order", status: str = "all") -> pd.DataFrame:
    """The pairs to show: filtered by status, sorted as asked (stable)."""
    if sort not in SORTS:
        raise ValueError(f"sort must be one of {SORTS}, not {sort!r}")
    rows = calls
    if status != "all":
        rows = rows[(rows["status"].astype(object) == status).to_numpy()]
    order = np.arange(len(rows))
    if sort == "latency (slowest first)":
        order = np.argsort(-rows["latency_s"].astype("Float64").fillna(-1).to_numpy(dtype="float64"), kind="stable")
    elif sort == "tool":
        order = np.argsort(rows["tool_name"].astype(str).to_numpy(), kind="stable")
    elif sort == "status":
        order = np.argsort([STATUS_RANK.get(s, 5) for s in objects(rows["status"])], kind="stable")
    return rows.iloc[order]


def _cell(value: Any) -> str:
    return "" if value is None or value is pd.NA or (isinstance(value, float) and np.isnan(value)) else str(value)


def error_text(content: Any) -> str:
    """A tool error's content as text: a validation error's list of ``{type, loc, msg, input}``
    one line each (``days: Input should be a valid integer (input: three) [int_parsing]``)."""
    if isinstance(content, list) and content and all(isinstance(e, dict) and "msg" in e for e in content):
        lines = []
        for e in content:
            loc = ".".join(str(x) for x in e.get("loc") or ())
            given = f" (input: {shorten(e['input'], 80)})" if "input" in e else ""
            kind = f" [{e['type']}]" if e.get("type") else ""
            lines.append(f"{loc + ': ' if loc else ''}{as_text(e['msg'])}{given}{kind}")
        return "\n".join(lines)
    return as_text(content)


def error_details(frames: Frames, calls: pd.DataFrame, *, max_threads: int = MAX_THREAD_READS) -> Details:
    """For each tool error whose result is only part labels: (source, thread_id, return
    sequence) → the error as the thread holds it (threads in memory, else re-read from their
    source; at most ``max_threads`` of them)."""
    status, result = objects(calls["status"]), objects(calls["result"])
    wanted = [i for i in range(len(calls)) if status[i] in ("error", "validation_error") and isinstance(result[i], str) and LABELS_ONLY.fullmatch(result[i])]
    sources, ids, seqs = objects(calls["source"]), objects(calls["thread_id"]), objects(calls["return_sequence"])
    returns: dict[ThreadKey, dict[int, Any]] = {}
    out: Details = {}
    for i in wanted:
        key = ThreadKey(sources[i], str(ids[i]))
        if key not in returns:
            if len(returns) >= max_threads:
                break
            try:
                returns[key] = {a.sequence: a for a in frames.thread(key).actions if a.action_type == "tool_return"}
            except (LookupError, OSError, ValueError):  # the file moved or changed: the labels stay
                returns[key] = {}
        action = returns[key].get(seqs[i])
        if action is not None:
            out[(sources[i], ids[i], int(seqs[i]))] = error_text(getattr(action, "content", None))
    return out


def pairs_table_html(calls: pd.DataFrame, *, sort: str = "call order", status: str = "all", max_rows: int = MAX_ROWS, details: Details | None = None) -> str:
    """The pairs as clickable rows: summary (sequence, tool, agent, status, latency, preview),
    unfolding to the full args and result (``details``: a tool error's messages, for results
    the frames hold only as labels). Everything escaped."""
    rows = sorted_pairs(calls, sort, status)
    colors = agent_colors(dict.fromkeys(objects(calls["agent_id"]).tolist()))
    head = '<div class="tl-hdr"><span>call</span><span>tool</span><span>agent</span><span>status</span><span>latency</span><span>args</span></div>'
    body = []
    cols = {c: objects(rows[c]) for c in ("call_sequence", "return_sequence", "tool_name", "agent_name", "agent_id", "status", "args", "result", "thread_id", "source")}
    latency = rows["latency_s"].astype("Float64").to_numpy(dtype="float64", na_value=np.nan)
    for i in range(min(len(rows), max_rows)):
        state = str(cols["status"][i] or "pending")
        seq = _cell(cols["call_sequence"][i]) or f"↩{_cell(cols['return_sequence'][i])}"
        lat = "" if np.isnan(latency[i]) else f"{latency[i]:.2f} s"
        who = cols["agent_name"][i] or "(no call)"
        tint = "error" if state == "validation_error" else state
        result = "(pending: no return yet)" if state == "pending" else _cell(cols["result"][i])
        if details and cols["return_sequence"][i] is not None:
            result = details.get((cols["source"][i], cols["thread_id"][i], int(cols["return_sequence"][i])), result)
        body.append(
            f'<details class="tl-row tl-row-{esc(tint)}" data-status="{esc(state)}"><summary>'
            f"<span>{esc(seq)}</span><span>{esc(cols['tool_name'][i])}</span>"
            f'<span style="color:{text_color(colors.get(cols["agent_id"][i], SYSTEM_COLOR))}">{esc(who)}</span>'
            f'<span style="color:{status_text_color(state)}">{esc(state)}</span><span>{esc(lat)}</span>'
            f"<span>{preview(cols['args'][i], 80)}</span></summary>"
            f'<div class="tl-meta">thread {esc(cols["thread_id"][i])} · return #{esc(_cell(cols["return_sequence"][i]))}</div>'
            f'<div class="tl-meta">args</div><pre>{esc(_cell(cols["args"][i]))}</pre>'
            f'<div class="tl-meta">result</div><pre>{esc(result)}</pre></details>'
        )
    more = f'<div class="tl-note">{len(rows) - max_rows} more rows not shown</div>' if len(rows) > max_rows else ""
    return f'{CSS}<div class="tl-root tl-rows">{head}{"".join(body)}{more}</div>'


def summary_html(calls: pd.DataFrame) -> str:
    counts = calls["status"].astype(object).fillna("pending").value_counts()
    badges = " ".join(
        f'<span class="tl-badge" style="background:{status_text_color(s)}">{esc(s)}: {int(n)}</span>' for s, n in counts.items()
    )
    lat = calls["latency_s"].astype("Float64").dropna()
    median = f" · median latency {float(lat.median()):.2f} s" if len(lat) else ""
    return f'{CSS}<div class="tl-root"><b>{len(calls)} tool calls</b>{esc(median)} {badges}</div>'


TOP_TOOLS = 15
MAX_POINTS = 1_000  # calls drawn as points; above this the boxes carry the distribution


def latency_figure(calls: pd.DataFrame, *, top: int = TOP_TOOLS) -> Figure:
    """Latency per tool, the slowest (by median) first: a box per tool and, for a few thousand
    calls or fewer, every call a point (errors red). The ``top`` most called tools have a row;
    the rest share one "other tools" row. Pending calls and orphan returns (no latency) are
    counted in the title."""
    done = calls[calls["latency_s"].notna().to_numpy()]
    tools = np.array([str(t) for t in objects(done["tool_name"])], dtype=object)
    latency = done["latency_s"].astype("float64").to_numpy()
    counts = pd.Series(tools).value_counts()
    other = f"other tools ({len(counts) - top + 1})" if len(counts) > top else None
    if other:
        tools = np.where(pd.Series(tools).isin(set(counts.index[: top - 1])).to_numpy(), tools, other).astype(object)
    medians = pd.Series(latency).groupby(tools).median().sort_values(ascending=False)
    order = [t for t in medians.index if t != other] + ([other] if other else [])
    labels = {t: esc(shorten(t, 28)) for t in order}
    traces: list[dict[str, Any]] = []
    for tool in order:
        mask = tools == tool
        traces.append({"type": "box", "x": latency[mask], "y": [labels[tool]] * int(mask.sum()), "name": labels[tool], "orientation": "h",
                       "boxpoints": False, "line": {"color": "#4c78a8"}, "hoverinfo": "x", "showlegend": False})
    if 0 < len(done) <= MAX_POINTS:
        state = objects(done["status"])
        colors = [ERROR_COLOR if s in ("error", "validation_error") else "#4c78a8" for s in state]
        hover = [f"#{_cell(q)} {esc(_cell(a))} · {esc(s)}" for q, a, s in zip(objects(done["call_sequence"]), objects(done["agent_name"]), state, strict=True)]
        traces.append({"type": "scatter", "x": latency, "y": [labels[t] for t in tools], "mode": "markers", "name": "calls", "showlegend": False,
                       "marker": {"color": colors, "size": 7, "line": {"width": 1, "color": "#fff"}}, "hovertext": hover, "hoverinfo": "text+x"})
    status = calls["status"].astype(object)
    pending, orphan = int((status == "pending").sum()), int((status == "orphan_return").sum())
    extra = []
    if pending:
        extra.append(f'<span style="color:{text_color(PENDING_COLOR)}">{pending:,} pending</span>')
    if orphan:
        extra.append(f'<span style="color:{text_color(ERROR_COLOR)}">{orphan:,} orphan returns</span>')
    head = f"Latency per tool (s), slowest median first — {len(done):,} calls" + (" · " + ", ".join(extra) if extra else "")
    layout = {
        "title": {"text": head, "font": {"size": 14}, "x": 0.01, "xanchor": "left"}, "showlegend": False, "template": "plotly_white",
        "height": max(220, 110 + 30 * len(order)), "margin": {"l": 10, "r": 20, "t": 44, "b": 40}, "meta": {"threadlab": "tool_latency", "tools": order},
        "xaxis": {"title": {"text": "seconds"}, "rangemode": "tozero"}, "yaxis": {"autorange": "reversed", "type": "category", "automargin": True},
        "font": {"family": "system-ui, -apple-system, Segoe UI, sans-serif", "color": "#1d2327"},
    }
    return Figure(data=traces, layout=layout)


class ToolCallView(StaticCopy, widgets.VBox):
    """The tool-call widget: summary, sort/filter dropdowns, pairs table, latency chart."""

    def __init__(self, frames: Frames) -> None:
        self.calls = frames.tool_calls
        self.details = error_details(frames, self.calls)
        self.sort = widgets.Dropdown(options=SORTS, value="call order", description="sort")
        self.status = widgets.Dropdown(options=STATUS_FILTERS, value="all", description="status")
        self.table = HtmlView(value=pairs_table_html(self.calls, details=self.details))
        self.chart = figure_output(latency_figure(self.calls)) if len(self.calls) else widgets.HTML("<i>no tool calls</i>")
        self.sort.observe(self._refresh, names="value")
        self.status.observe(self._refresh, names="value")
        super().__init__([HtmlView(value=summary_html(self.calls)), widgets.HBox([self.sort, self.status]), self.table, self.chart])
        self.add_class("threadlab-tool-calls")

    def _refresh(self, _change: Any = None) -> None:
        self.table.value = pairs_table_html(self.calls, sort=self.sort.value, status=self.status.value, details=self.details)

    def _repr_html_(self) -> str:
        return summary_html(self.calls) + str(self.table.value)

    def describe(self) -> str:
        return f"{len(self.calls):,} tool calls"

    def static_html(self) -> str:
        chart = latency_figure(self.calls).static_html() if len(self.calls) else ""
        return summary_html(self.calls) + str(self.table.value) + chart


def tool_call_view(data: Any, *, thread_id: Any = None, source: str | None = None) -> ToolCallView:
    """Tool calls of a Thread or Frames (all threads, or one with ``thread_id``; ``source=``
    chooses between two files holding the same thread id)."""
    frames = as_frames(data)
    if thread_id is not None:
        from threadlab.widgets.inputs import pick_thread, rows_of

        calls = rows_of(frames.tool_calls, pick_thread(frames, thread_id, source), frames)
        frames = Frames(frames.actions, calls, frames.usage, frames.threads, frames.problems, frames._threads)
    return ToolCallView(frames)
