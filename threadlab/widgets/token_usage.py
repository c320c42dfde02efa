"""``token_usage``: where the tokens (and dollars) went, for one run or 30,000.

Panel 1: stacked horizontal bars of uncached input / cache read / cache write / output /
thinking tokens per agent, model, thread or tool, the costliest first (most tokens first when
no cost is known), the top ``top`` groups and one "other" bar for the rest, the cost at the end of
each bar. That is the panel ``by`` changes. The per-run panels do not change with ``by``, so they
are drawn with ``by="thread"`` (or ``runs=True``), not again under every grouping: panel 2,
cumulative tokens by model call: one line per run for a few runs; for many, the median and the
10-90 % band of all runs plus the costliest runs as lines. Panel 3, when there are several runs:
cost per run, as bars (costliest first) for a few runs, as all runs ranked by cost for many (hover
names the run); "no cost known" when genai-prices priced none of them. Cost is the frames'
``cost_usd`` (genai-prices, offline).

Conventions: ``input_tokens`` counts every input token, cached ones included, so the bar shows
``input - cache_read - cache_write`` as "input (uncached)". Providers that count thinking inside
output are shown as "output" minus "thinking" plus "thinking" (never counted twice)."""

from __future__ import annotations

from typing import Any, Literal

import numpy as np
import pandas as pd

from threadlab.frames.frames import Frames
from threadlab.widgets.inputs import as_frames, objects
from threadlab.widgets.panels import Panel, axis, legend, legend_rows, panel_layout, unique_labels
from threadlab.widgets.text import esc, shorten
from threadlab.widgets.view import Figure

GroupBy = Literal["agent", "model", "thread", "tool"]
SEGMENTS: tuple[tuple[str, str], ...] = (
    ("input_uncached", "input (uncached)"),
    ("cache_read", "cache read"),
    ("cache_write", "cache write"),
    ("output_visible", "output"),
    ("thinking", "thinking"),
)
SEGMENT_COLORS = {"input_uncached": "#4c78a8", "cache_read": "#9ecae9", "cache_write": "#72b7b2", "output_visible": "#f58518", "thinking": "#b279a2"}
NO_TOOL = "(no tool call)"
TOP = 12  # bars shown before the "other" bar
RUN_LINES = 8  # runs drawn as their own line before switching to a band
LABEL_CHARS = 34
BAR_PX = 24


def _num(frame: pd.DataFrame, column: str) -> np.ndarray:
    return frame[column].astype("Float64").fillna(0).to_numpy(dtype="float64")


def token_segments(usage: pd.DataFrame) -> pd.DataFrame:
    """Per usage row, the five non-overlapping token counts the bars stack."""
    inp, out, think = _num(usage, "input_tokens"), _num(usage, "output_tokens"), _num(usage, "thinking_tokens")
    read, write = _num(usage, "cache_read_tokens"), _num(usage, "cache_write_tokens")
    inside = think <= out  # thinking reported as part of output
    return pd.DataFrame(
        {
            "input_uncached": np.clip(inp - read - write, 0, None),
            "cache_read": read,
            "cache_write": write,
            "output_visible": np.where(inside, out - think, out),
            "thinking": think,
            "cost_usd": usage["cost_usd"].astype("Float64").to_numpy(dtype="float64", na_value=np.nan),
        },
        index=usage.index,
    )


def _thread_labels(frames: Frames) -> list[str]:
    """One unique, short label per row of the threads table (title, else id)."""
    titles = objects(frames.threads["title"])
    ids = objects(frames.threads["thread_id"])
    return unique_labels([shorten(t or i, LABEL_CHARS) for t, i in zip(titles, ids, strict=True)])


def _run_of_usage(frames: Frames) -> np.ndarray:
    """For each usage row, its thread's position in the threads table (source and id)."""
    t = frames.threads
    index = pd.MultiIndex.from_arrays([t["source"].astype(object), t["thread_id"].astype(object)])
    return index.get_indexer(pd.MultiIndex.from_arrays([frames.usage["source"], frames.usage["thread_id"]]))


AGENT_KINDS = ("assistant_message", "thinking", "tool_call")


def tool_shares(frames: Frames) -> pd.DataFrame:
    """Usage rows split over the tools their model response called (evenly; responses that
    called no tool keep ``(no tool call)``). A response is the run of one agent's consecutive
    actions that starts at the action carrying its usage."""
    acts = frames.actions
    called: dict[tuple[Any, Any], list[str]] = {}
    owner: tuple[Any, tuple[Any, Any]] | None = None  # (agent, usage key) of the response being read
    cols = [objects(acts[c]) for c in ("thread_id", "action_type", "agent_id", "tool_name", "sequence")]
    used = (acts["total_tokens"].notna() | acts["input_tokens"].notna() | acts["output_tokens"].notna()).to_numpy()
    for tid, kind, agent, tool, seq, has_usage in zip(*cols, used, strict=True):
        if has_usage:
            owner = (agent, (tid, seq))
            called[owner[1]] = []
        elif not (kind in AGENT_KINDS and owner is not None and agent == owner[0] and owner[1][0] == tid):
            owner = None
        if kind == "tool_call" and owner is not None:
            called[owner[1]].append(str(tool))
    rows: list[tuple[Any, str, float]] = []
    usage = frames.usage
    for index, tid, seq in zip(usage.index, objects(usage["thread_id"]), objects(usage["sequence"]), strict=True):
        tools = called.get((tid, seq)) or [NO_TOOL]
        rows.extend((index, name, 1 / len(tools)) for name in tools)
    return pd.DataFrame(rows, columns=["row", "group", "share"])


def grouped(frames: Frames, by: GroupBy) -> pd.DataFrame:
    """Token segments and cost per group, one row per group, the costliest first (or the most
    tokens first when no cost is known)."""
    usage = frames.usage
    seg = token_segments(usage)
    if by == "tool":
        shares = tool_shares(frames)
        parts = seg.loc[shares["row"].to_numpy()].reset_index(drop=True).mul(shares["share"].to_numpy(), axis=0)
        parts["group"] = shares["group"].to_numpy()
        parts["key"] = parts["group"]
    elif by == "thread":
        runs = _run_of_usage(frames)
        labels = np.asarray([*_thread_labels(frames), "(unknown)"], dtype=object)
        parts = seg.copy()
        parts["group"] = labels[runs]
        parts["key"] = parts["group"]
    else:
        column = {"agent": "agent_name", "model": "model_name"}[by]
        parts = seg.copy()
        parts["group"] = [k if k is not None else "(unknown)" for k in objects(usage[column])]
        parts["key"] = objects(usage["agent_id"]) if by == "agent" else parts["group"]
    names = [name for name, _ in SEGMENTS]
    table = parts.groupby("group", sort=False).agg({**dict.fromkeys(names, "sum"), "cost_usd": lambda c: c.sum(min_count=1), "key": "first"})
    table["tokens"] = table[names].sum(axis=1)
    order = "cost_usd" if table["cost_usd"].notna().any() else "tokens"
    table = table.sort_values([order, "tokens"], ascending=False, na_position="last", kind="stable")
    return table.reset_index()


def top_and_other(table: pd.DataFrame, top: int) -> pd.DataFrame:
    """The first ``top`` rows and one "other (N more)" row summing the rest."""
    if len(table) <= top + 1:
        return table
    rest = table.iloc[top:]
    other = {name: rest[name].sum() for name, _ in SEGMENTS}
    other.update(tokens=rest["tokens"].sum(), cost_usd=rest["cost_usd"].sum(min_count=1), key=None,
                 group=f"other ({len(rest):,} more)")
    return pd.concat([table.iloc[:top], pd.DataFrame([other])], ignore_index=True)


def _money(value: Any) -> str:
    if value is None or pd.isna(value):
        return "cost unknown"
    value = float(value)
    return f"${value:,.4f}" if value < 100 else f"${value:,.0f}"


def token_usage(data: Any, *, by: GroupBy = "agent", top: int = TOP, height: int | None = None, runs: bool | None = None) -> Figure:
    """Token usage and cost of Frames (or a Thread / Threads), grouped ``by`` agent, model,
    thread (run) or tool: the ``top`` costliest groups and an "other" bar. With ``by="thread"``
    (or ``runs=True``) also growth by model call and cost per run, which do not depend on ``by``.
    Reads at 1 run and at 30,000."""
    if by not in ("agent", "model", "thread", "tool"):
        raise ValueError(f"token_usage by must be 'agent', 'model', 'thread' or 'tool', not {by!r}")
    frames = as_frames(data)
    usage = frames.usage
    n_runs = len(frames.threads)
    per_run = by == "thread" if runs is None else bool(runs)
    full = grouped(frames, by) if len(usage) else pd.DataFrame(columns=["group", "cost_usd", "key", "tokens", *(n for n, _ in SEGMENTS)])
    table = top_and_other(full, top)
    costed = full["cost_usd"].notna().any()
    order = "costliest first" if costed else "most tokens first"
    shown = f"top {top} of {len(full):,}, " if len(table) < len(full) else ""
    panels = [Panel(f"Tokens by {esc(by)} ({shown}{order})", BAR_PX * max(len(table), 1) + 10, legend=True)]
    curves: list[dict[str, Any]] = _cumulative(frames, n_runs) if per_run else []
    if per_run:
        lines = [t["name"] for t in curves if t.get("showlegend", True)]
        panels.append(Panel("Cumulative tokens by model call" + (" (median, 10–90 % band and the costliest runs)" if n_runs > RUN_LINES else ""),
                            240, legend=n_runs <= RUN_LINES, legend_rows=legend_rows(lines)))
    run_costs = frames.threads["cost_usd"].astype("Float64").notna().to_numpy()
    if per_run and n_runs > 1:
        if not run_costs.any():
            panels.append(Panel("Cost per run (USD)", 40))
        else:
            panels.append(Panel("Cost per run (USD), costliest first" if n_runs <= TOP * 2 else
                                f"Cost per run (USD): all {n_runs:,} runs ranked, costliest first (hover for the run)",
                                max(BAR_PX * n_runs + 10, 120) if n_runs <= TOP * 2 else 200))
    total = usage["cost_usd"].astype("Float64").sum(min_count=1)
    unknown = int(usage["cost_usd"].isna().sum())
    note = f" · {unknown:,} responses with a model genai-prices does not know" if unknown else ""
    right = 230 if per_run and n_runs > RUN_LINES else 20
    later = "" if per_run else 'Tokens by model call and cost per run do not change with by=: they are drawn with by="thread" (or runs=True).'
    cost = f"total cost {_money(total)}" if not pd.isna(total) else "cost unknown"
    layout = panel_layout(panels, title=f"Token usage — {n_runs:,} run(s), {cost}{esc(note)}", right=right, note=later,
                          meta={"threadlab": "token_usage", "by": by, "runs": per_run, "groups": [str(g) for g in table["group"]],
                                "n_groups": len(full), "total_cost_usd": None if pd.isna(total) else float(total)})
    layout["barmode"] = "stack"
    traces = _bars(table) + curves
    if per_run and n_runs > 1:
        traces += _cost_per_run(frames, n_runs) if run_costs.any() else []
    _axes(layout, table, n_runs if per_run else 1, costs_known=bool(run_costs.any()))
    labels = [str(g) for g in layout["meta"]["groups"]] + (_thread_labels(frames) if per_run and 1 < n_runs <= TOP * 2 else [])
    longest = max((len(label) for label in labels), default=8)
    layout["margin"]["l"] = min(12 + 7 * min(longest, LABEL_CHARS), 270)
    if per_run and n_runs > RUN_LINES:
        layout["legend2"] = {"x": 1.01, "xanchor": "left", "y": layout["yaxis2"]["domain"][1], "yanchor": "top", "font": {"size": 11}, "traceorder": "normal"}
    if per_run and n_runs > 1 and not run_costs.any():
        layout["annotations"].append(_no_cost_note(layout))
    if height:
        layout["height"] = height
    return Figure(data=traces, layout=layout)


def _no_cost_note(layout: dict[str, Any]) -> dict[str, Any]:
    """Where the cost-per-run panel would be: say that no run has a known cost (no empty axes)."""
    y0, y1 = layout["yaxis3"]["domain"]
    return {"text": "no cost known: genai-prices priced none of these runs' models", "x": 0, "xref": "paper", "xanchor": "left",
            "y": (y0 + y1) / 2, "yref": "paper", "yanchor": "middle", "showarrow": False, "font": {"size": 12, "color": "#5d636f"}}


def _bars(table: pd.DataFrame) -> list[dict[str, Any]]:
    labels = [esc(shorten(g, LABEL_CHARS)) for g in table["group"]]
    full_names = [esc(g) for g in table["group"]]
    money = [_money(c) for c in table["cost_usd"]]
    traces: list[dict[str, Any]] = []
    for name, label in SEGMENTS:
        values = table[name].to_numpy(dtype="float64") if len(table) else np.array([])
        if len(values) and not values.any():
            continue
        traces.append({"type": "bar", "orientation": "h", "y": labels, "x": values, "name": label, "marker": {"color": SEGMENT_COLORS[name]},
                       "legendgroup": name, "legend": legend(1), "customdata": np.column_stack([full_names, money]) if len(table) else [],
                       "hovertemplate": f"%{{customdata[0]}}<br>{label}: %{{x:,.0f}} tokens<br>%{{customdata[1]}}<extra></extra>", **axis(1)})
    if len(table):
        ends, cut = _bar_ends(table)
        text = [f"{m} · {t:,.0f} tokens, bar cut ▸" if c else m for m, t, c in zip(money, table["tokens"], cut, strict=True)]
        ends = np.where(cut, ends * 0.01, ends)  # a cut bar's label goes inside it, in white
        traces.append({"type": "scatter", "mode": "text", "y": labels, "x": ends, "text": text, "textposition": "middle right",
                       "textfont": {"size": 11, "color": ["#ffffff" if c else "#4b5563" for c in cut]}, "showlegend": False,
                       "hoverinfo": "skip", "name": "cost", **axis(1)})
    return traces


def _bar_ends(table: pd.DataFrame) -> tuple[np.ndarray, np.ndarray]:
    """Where each bar's label goes, and which bars are cut: an "other" bar that sums thousands
    of groups would flatten the top bars to nothing, so it is cut at the longest top bar."""
    tokens = table["tokens"].to_numpy(dtype="float64")
    cut = np.zeros(len(table), dtype=bool)
    if len(table) > 1 and table["key"].iloc[-1] is None and str(table["group"].iloc[-1]).startswith("other ("):
        top = float(tokens[:-1].max())
        if tokens[-1] > 2 * top > 0:
            cut[-1] = True
            tokens = tokens.copy()
            tokens[-1] = top
    return tokens, cut


def _axes(layout: dict[str, Any], table: pd.DataFrame, n_runs: int, *, costs_known: bool = True) -> None:
    peak = float(_bar_ends(table)[0].max()) if len(table) else 1.0
    layout["xaxis"].update(title={"text": "tokens", "standoff": 4}, range=[0, peak * 1.3 or 1], automargin=False)
    layout["yaxis"].update(autorange="reversed", type="category")
    if "xaxis2" not in layout:
        return
    layout["xaxis2"].update(title={"text": "model call", "standoff": 4}, rangemode="tozero")
    layout["yaxis2"].update(title={"text": "tokens so far"}, rangemode="tozero")
    if n_runs > 1:
        if not costs_known:
            layout["xaxis3"].update(visible=False)
            layout["yaxis3"].update(visible=False)
        elif n_runs <= TOP * 2:
            layout["yaxis3"].update(autorange="reversed", type="category")
            layout["xaxis3"].update(title={"text": "USD", "standoff": 4}, rangemode="tozero")
        else:
            layout["xaxis3"].update(title={"text": "rank (1 = costliest run)", "standoff": 4})
            layout["yaxis3"].update(title={"text": "USD"}, rangemode="tozero")


def cumulative_by_call(frames: Frames) -> pd.DataFrame:
    """Per usage row: its run (threads-table position), its model call number in that run
    (1, 2, ...) and the run's tokens so far."""
    usage = frames.usage
    frame = pd.DataFrame({"run": _run_of_usage(frames), "sequence": usage["sequence"].astype("float64").to_numpy(),
                          "tokens": usage["total_tokens"].astype("Float64").fillna(0).to_numpy(dtype="float64")})
    frame = frame.sort_values(["run", "sequence"], kind="stable")
    frame["call"] = frame.groupby("run").cumcount() + 1
    frame["so_far"] = frame.groupby("run")["tokens"].cumsum()
    return frame


def _costliest(frames: Frames, n: int) -> np.ndarray:
    cost = frames.threads["cost_usd"].astype("Float64").to_numpy(dtype="float64", na_value=np.nan)
    tokens = frames.threads["total_tokens"].astype("Float64").to_numpy(dtype="float64", na_value=0)
    order = np.lexsort((-tokens, -np.nan_to_num(cost, nan=-1.0)))
    return order[:n]


def _cumulative(frames: Frames, n_runs: int) -> list[dict[str, Any]]:
    curve = cumulative_by_call(frames)
    labels = _thread_labels(frames)
    traces: list[dict[str, Any]] = []
    many = n_runs > RUN_LINES
    if many and len(curve):
        runs_at = curve.groupby("call").size()
        enough = runs_at[runs_at >= max(5, 0.02 * n_runs)].index  # calls few runs reached make a noisy band
        curve_band = curve[curve["call"].isin(enough)]
        stats = curve_band.groupby("call")["so_far"].quantile([0.1, 0.5, 0.9]).unstack()
        runs_at = runs_at.loc[stats.index]
        x = stats.index.to_numpy(dtype="float64")
        hover = [f"call {int(c)}: {int(n):,} runs got this far" for c, n in zip(x, runs_at.to_numpy(), strict=True)]
        traces.append({"type": "scatter", "x": x, "y": stats[0.9].to_numpy(), "mode": "lines", "line": {"width": 0}, "showlegend": False,
                       "hoverinfo": "skip", "legend": legend(2), **axis(2)})
        traces.append({"type": "scatter", "x": x, "y": stats[0.1].to_numpy(), "mode": "lines", "line": {"width": 0}, "fill": "tonexty",
                       "fillcolor": "rgba(76,120,168,0.18)", "name": "10–90 % of runs", "legend": legend(2), "hoverinfo": "skip", **axis(2)})
        traces.append({"type": "scatter", "x": x, "y": stats[0.5].to_numpy(), "mode": "lines", "line": {"color": "#4c78a8", "width": 2},
                       "name": "median run", "legend": legend(2), "text": hover,
                       "hovertemplate": "%{text}<br>median %{y:,.0f} tokens so far<extra></extra>", **axis(2)})
    picked = _costliest(frames, 5) if many else np.arange(n_runs)
    for run in picked:
        rows = curve[curve["run"].to_numpy() == run]
        if rows.empty:
            continue
        name = esc(labels[run])
        traces.append({"type": "scatter", "x": rows["call"].to_numpy(dtype="float64"), "y": rows["so_far"].to_numpy(), "mode": "lines+markers",
                       "line": {"shape": "hv", "width": 1.5}, "marker": {"size": 4}, "name": name, "legend": legend(2),
                       "hovertemplate": f"{name}<br>call %{{x}}: %{{y:,.0f}} tokens so far<extra></extra>", **axis(2)})
    return traces


def _cost_per_run(frames: Frames, n_runs: int) -> list[dict[str, Any]]:
    labels = np.asarray([esc(x) for x in _thread_labels(frames)], dtype=object)
    cost = frames.threads["cost_usd"].astype("Float64").to_numpy(dtype="float64", na_value=np.nan)
    order = _costliest(frames, n_runs)
    if n_runs <= TOP * 2:
        bars = [{"type": "bar", "orientation": "h", "y": labels[order], "x": cost[order], "name": "cost (USD)", "marker": {"color": "#54a24b"},
                 "showlegend": False, "hovertemplate": "%{y}<br>$%{x:.4f}<extra></extra>", **axis(3)}]
        unpriced = order[np.isnan(cost[order])]
        if len(unpriced):  # a run with no bar says why
            bars.append({"type": "scatter", "mode": "text", "y": labels[unpriced], "x": np.zeros(len(unpriced)), "text": ["cost unknown"] * len(unpriced),
                         "textposition": "middle right", "textfont": {"size": 11, "color": "#5d636f"}, "showlegend": False, "hoverinfo": "skip",
                         "name": "cost unknown", **axis(3)})
        return bars
    rank = np.arange(1, n_runs + 1, dtype="float64")
    return [{"type": "scattergl" if n_runs > 5_000 else "scatter", "x": rank, "y": cost[order], "mode": "lines", "fill": "tozeroy",
             "line": {"color": "#54a24b", "width": 1.5}, "name": "cost (USD)", "showlegend": False, "text": labels[order],
             "hovertemplate": "#%{x:,} %{text}<br>$%{y:.4f}<extra></extra>", **axis(3)}]
