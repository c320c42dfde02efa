"""``token_usage``: where the tokens (and dollars) went, for one run or many.

Row 1: stacked bars of uncached input / cache read / cache write / output / thinking tokens per
agent, model, thread or tool, with the cost in USD under each bar. Row 2: cumulative tokens over
each thread's sequence (one line per run, so runs compare). Row 3, when there are several runs:
cost per run. Cost is the frames' ``cost_usd`` (genai-prices' bundled data, offline).

Conventions: ``input_tokens`` counts every input token, cached ones included, so the bar shows
``input - cache_read - cache_write`` as "input (uncached)". Providers that count thinking inside
output are shown as "output" minus "thinking" plus "thinking" (never counted twice)."""

from __future__ import annotations

from typing import Any, Literal

import numpy as np
import pandas as pd
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from threadlab.frames.frames import Frames
from threadlab.widgets.inputs import as_frames, objects
from threadlab.widgets.text import esc, shorten

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


def _thread_labels(frames: Frames) -> dict[str, str]:
    out = {}
    for tid, title in zip(objects(frames.threads["thread_id"]), objects(frames.threads["title"]), strict=True):
        out[str(tid)] = shorten(title or tid, 40)
    return out


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


def _grouped(frames: Frames, by: GroupBy) -> pd.DataFrame:
    usage = frames.usage
    seg = token_segments(usage)
    if by == "tool":
        shares = tool_shares(frames)
        parts = seg.loc[shares["row"].to_numpy()].reset_index(drop=True).mul(shares["share"].to_numpy(), axis=0)
        parts["group"] = shares["group"].to_numpy()
        parts["key"] = parts["group"]
    else:
        column = {"agent": "agent_name", "model": "model_name", "thread": "thread_id"}[by]
        keys = objects(usage[column])
        parts = seg.copy()
        parts["key"] = [k if k is not None else "(unknown)" for k in keys]
        labels = _thread_labels(frames) if by == "thread" else {}
        parts["group"] = [labels.get(str(k), str(k)) for k in parts["key"]]
        if by == "agent":
            parts["key"] = objects(usage["agent_id"])
    table = parts.groupby(["group"], sort=False).agg(
        {**{name: "sum" for name, _ in SEGMENTS}, "cost_usd": lambda s: s.sum(min_count=1), "key": "first"}
    )
    return table.reset_index()


def token_usage(data: Any, *, by: GroupBy = "agent", height: int | None = None) -> go.Figure:
    """Token usage and cost of Frames (or a Thread / Threads), grouped ``by`` agent, model,
    thread (run) or tool."""
    if by not in ("agent", "model", "thread", "tool"):
        raise ValueError(f"token_usage by must be 'agent', 'model', 'thread' or 'tool', not {by!r}")
    frames = as_frames(data)
    usage = frames.usage
    many_runs = len(frames.threads) > 1
    rows = 3 if many_runs else 2
    titles = [f"tokens by {by}", "cumulative tokens over the thread", "cost per run (USD)"][:rows]
    fig = make_subplots(rows=rows, cols=1, subplot_titles=titles, vertical_spacing=0.14)
    table = _grouped(frames, by) if len(usage) else pd.DataFrame(columns=["group", "cost_usd", "key"])
    labels = [f"{esc(g)}<br>{_money(c)}" for g, c in zip(table["group"], table["cost_usd"], strict=True)]
    for name, label in SEGMENTS:
        values = table[name].to_numpy(dtype="float64") if len(table) else np.array([])
        if len(values) and not values.any():
            continue
        fig.add_trace(
            go.Bar(x=labels, y=values, name=label, marker_color=SEGMENT_COLORS[name], legendgroup=name,
                   hovertemplate=f"%{{x}}<br>{label}: %{{y:,.0f}}<extra></extra>"),
            row=1, col=1,
        )
    _cumulative(fig, frames)
    if many_runs:
        _cost_per_run(fig, frames)
    total = usage["cost_usd"].astype("Float64").sum(min_count=1)
    unknown = int(usage["cost_usd"].isna().sum())
    note = f" · {unknown} responses with a model genai-prices does not know" if unknown else ""
    fig.update_layout(
        barmode="stack",
        title={"text": f"Token usage — {len(frames.threads)} run(s), total cost {_money(total)}{esc(note)}", "font": {"size": 14}},
        height=height or (380 + 260 * (rows - 1)),
        template="plotly_white",
        margin={"l": 10, "r": 10, "t": 60, "b": 40},
        meta={"threadlab": "token_usage", "by": by, "groups": [str(g) for g in table["group"]], "total_cost_usd": None if pd.isna(total) else float(total)},
    )
    fig.update_yaxes(title_text="tokens", row=1, col=1)
    fig.update_xaxes(title_text="sequence", row=2, col=1)
    return fig


def _money(value: Any) -> str:
    if value is None or pd.isna(value):
        return "cost unknown"
    return f"${float(value):,.4f}"


def _cumulative(fig: go.Figure, frames: Frames) -> None:
    usage = frames.usage
    labels = _thread_labels(frames)
    totals = usage["total_tokens"].astype("Float64").fillna(0)
    for tid, group in usage.assign(_t=totals).groupby(usage["thread_id"].astype(object), sort=False):
        group = group.sort_values("sequence")
        name = labels.get(str(tid), str(tid))
        fig.add_trace(
            go.Scatter(x=group["sequence"].astype("float64"), y=group["_t"].cumsum().astype("float64"), mode="lines+markers",
                       name=esc(name), legendgroup="runs", line={"shape": "hv"},
                       hovertemplate=f"{esc(name)}<br>#%{{x}}: %{{y:,.0f}} tokens so far<extra></extra>"),
            row=2, col=1,
        )


def _cost_per_run(fig: go.Figure, frames: Frames) -> None:
    labels = _thread_labels(frames)
    threads = frames.threads
    names = [esc(labels.get(str(t), str(t))) for t in objects(threads["thread_id"])]
    cost = threads["cost_usd"].astype("Float64").to_numpy(dtype="float64", na_value=np.nan)
    fig.add_trace(
        go.Bar(x=names, y=cost, name="cost (USD)", marker_color="#54a24b", showlegend=False,
               hovertemplate="%{x}<br>$%{y:.4f}<extra></extra>"),
        row=3, col=1,
    )
