"""``delegation_graph``: who called whom, over one thread or a whole corpus.

Agents are nodes (size: tokens; colour: the agent's colour everywhere), delegations are arrows
from the agent that started another (a sub-agent tool call, a handoff, an agency-swarm
``send_message``) labelled with how often, the tokens and cost of the started agent's work, and
its errors. Below the figure every edge is a row that unfolds to its calls (thread, sequence,
tool, status, latency, args and result), and a table gives each agent's totals. Rows are HTML
``<details>``: they unfold without a kernel, in an exported page too. Built from
``frames.delegations()`` and ``frames.agent_usage()`` (see ``threadlab/frames/agents.py``).

Two agents with one name are told apart by the start of their ids; the agents drawn together get
colours no two of them share (``colors.agent_colors``); the figure is as wide as its widest
layer needs, so a graph of two agents is not a dot in a page of white."""

from __future__ import annotations

import math
from collections import deque
from typing import Any

import ipywidgets as widgets
import numpy as np
import pandas as pd

from threadlab.frames.agents import ERRORS, agent_usage, delegations
from threadlab.frames.frames import Frames
from threadlab.widgets.colors import ERROR_COLOR, agent_colors, text_color
from threadlab.widgets.inputs import as_frames, pick_thread, subset
from threadlab.widgets.styles import CSS
from threadlab.widgets.text import distinct_names, esc, fit_label, preview, shorten
from threadlab.widgets.view import Figure, HtmlView, StaticCopy, figure_output

TOP_AGENTS = 14  # nodes drawn; the rest are one "other agents" node
NODE_PX = 440  # the width a node, its label and the labels of the edges beside it take in a layer
MAX_WIDTH_PX = 1100
LAYER_PX = 190  # from one layer to the next
LABELLED_EDGES = 12  # edges with a text label (more: hover only)
MAX_CALL_ROWS = 60
OTHER = "(other agents)"


def _tokens(n: float) -> str:
    return f"{n / 1e6:.1f}M" if n >= 1e6 else f"{n / 1e3:.1f}k" if n >= 1e3 else f"{n:.0f}"


def _money(value: float) -> str:
    return "" if value is None or pd.isna(value) else f"${value:,.4f}" if value < 100 else f"${value:,.0f}"


def agent_totals(usage: pd.DataFrame) -> pd.DataFrame:
    """agent_usage summed over threads, one row per agent, most tokens first."""
    if usage.empty:
        return pd.DataFrame(columns=["agent_id", "agent_name", "threads", "n_actions", "n_tool_calls", "n_tool_errors", "total_tokens", "cost_usd",
                                     "tool_latency_s"])
    table = usage.groupby("agent_id", sort=False).agg(
        agent_name=("agent_name", "first"), threads=("thread_id", "size"), n_actions=("n_actions", "sum"), n_tool_calls=("n_tool_calls", "sum"),
        n_tool_errors=("n_tool_errors", "sum"), total_tokens=("total_tokens", "sum"), cost_usd=("cost_usd", lambda s: s.sum(min_count=1)),
        tool_latency_s=("tool_latency_s", lambda s: s.sum(min_count=1)))
    return table.sort_values(["total_tokens", "n_actions"], ascending=False, kind="stable").reset_index()


def edges_of(calls: pd.DataFrame, keep: set[Any]) -> pd.DataFrame:
    """Delegations summed per (parent, child) edge; agents outside ``keep`` become one node."""
    if calls.empty:
        return pd.DataFrame(columns=["parent", "child", "parent_name", "child_name", "n_calls", "kinds", "tokens", "cost_usd", "errors", "latency_s"])
    frame = calls.assign(
        parent=[a if a in keep else OTHER for a in calls["parent_agent_id"]],
        child=[a if a in keep else OTHER for a in calls["child_agent_id"]],
        call_error=calls["status"].isin(ERRORS).astype(int),
    )
    frame["parent_name"] = np.where(frame["parent"] == OTHER, OTHER, frame["parent_name"].astype(object))
    frame["child_name"] = np.where(frame["child"] == OTHER, OTHER, frame["child_name"].astype(object))
    edges = frame.groupby(["parent", "child"], sort=False).agg(
        parent_name=("parent_name", "first"), child_name=("child_name", "first"), n_calls=("kind", "size"),
        kinds=("kind", lambda k: ", ".join(sorted(set(k)))), tokens=("child_tokens", "sum"), cost_usd=("child_cost_usd", lambda s: s.sum(min_count=1)),
        child_errors=("child_tool_errors", "sum"), call_errors=("call_error", "sum"), latency_s=("latency_s", "mean"))
    edges["errors"] = edges["child_errors"] + edges["call_errors"]
    return edges.reset_index().sort_values("n_calls", ascending=False, kind="stable").reset_index(drop=True)


def layered(nodes: list[Any], edges: pd.DataFrame) -> dict[Any, tuple[float, float]]:
    """Top-down layers: roots (no incoming edge, else the busiest starter) at the top, each agent
    one layer below the first agent that started it (breadth first)."""
    children: dict[Any, list[Any]] = {n: [] for n in nodes}
    incoming = {n: 0 for n in nodes}
    for parent, child in zip(edges["parent"], edges["child"], strict=True):
        if parent in children and child in incoming and parent != child:
            children[parent].append(child)
            incoming[child] += 1
    roots = [n for n in nodes if incoming[n] == 0] or nodes[:1]
    depth: dict[Any, int] = {}
    queue = deque((r, 0) for r in roots)
    while queue or len(depth) < len(nodes):
        if not queue:  # a part only reachable through a cycle: start it at the top
            queue.append((next(n for n in nodes if n not in depth), 0))
        node, d = queue.popleft()
        if node in depth:
            continue
        depth[node] = d
        queue.extend((c, d + 1) for c in children[node] if c not in depth)
    layers: dict[int, list[Any]] = {}
    for node in nodes:
        layers.setdefault(depth[node], []).append(node)
    pos: dict[Any, tuple[float, float]] = {}
    parents: dict[Any, list[Any]] = {}
    for parent, kids in children.items():
        for kid in kids:
            parents.setdefault(kid, []).append(parent)
    for d in sorted(layers):
        members = layers[d]
        if d > 0:  # each agent under the agents that started it (fewer crossing arrows)
            members.sort(key=lambda n: float(np.mean([pos[p][0] for p in parents.get(n, []) if p in pos] or [0.5])))
        for i, node in enumerate(members):
            pos[node] = (0.1 + 0.8 * (i + 0.5) / len(members), -float(d))
    return pos


def _label_position(ux: float, uy: float, side: tuple[float, float]) -> str:
    """Where an edge's label sits so that its own line does not cross it: beside a steep edge,
    above or below a flat one, in the free corner of a diagonal one (on the outer side of a
    two-way pair). ``ux, uy`` is the edge's direction with y up; ``side`` the side to prefer."""
    if abs(ux) < 0.35:
        return "middle right" if side[0] >= 0 else "middle left"
    if abs(uy) < 0.35:
        return "top center" if side[1] >= 0 else "bottom center"
    upper = side[1] >= 0
    falling = ux * uy < 0  # from upper left to lower right on screen
    if falling:
        return "top right" if upper else "bottom left"
    return "top left" if upper else "bottom right"


def drawn_nodes(edges: pd.DataFrame, totals: pd.DataFrame) -> list[Any]:
    """The agents the graph draws: those at an end of an edge, the busiest first (the busiest
    agent alone when there is no edge), the folded "other agents" last."""
    nodes = [a for a in totals["agent_id"] if a in set(edges["parent"]) | set(edges["child"])] if len(edges) else list(totals["agent_id"][:1])
    ends = list(dict.fromkeys([*edges.get("parent", []), *edges.get("child", [])]))
    return nodes + [n for n in ends if n not in nodes and n != OTHER] + ([OTHER] if OTHER in ends else [])


def graph_figure(edges: pd.DataFrame, totals: pd.DataFrame, title: str, colors: dict[Any, str] | None = None) -> Figure:
    """The graph: ``colors`` maps agent ids to their colours (default: ``agent_colors`` of the drawn nodes)."""
    nodes = drawn_nodes(edges, totals)
    colors = colors or agent_colors(nodes)
    pos = layered(nodes, edges)
    names = dict(zip(totals["agent_id"], totals["agent_name"], strict=True)) | {OTHER: OTHER}
    tokens = dict(zip(totals["agent_id"], totals["total_tokens"].astype("float64"), strict=True))
    peak = max([tokens.get(n, 0.0) for n in nodes] + [1.0])
    traces: list[dict[str, Any]] = []
    annotations: list[dict[str, Any]] = []
    pairs = set(zip(edges["parent"], edges["child"], strict=True))
    mids_x, mids_y, mids_text, mids_hover, mids_color = [], [], [], [], []
    depth = -min([p[1] for p in pos.values()] + [0.0])
    widest = max(sum(1 for p in pos.values() if p[1] == y) for y in {p[1] for p in pos.values()})
    fig_width = int(min(MAX_WIDTH_PX, max(NODE_PX * widest / 0.8 + 40, 8 * max(len(line) for line in title.split("<br>")) + 40, 420)))
    height = int(190 + LAYER_PX * depth)
    px_x, px_y = fig_width - 40.0, (height - 90) / (depth + 0.6)  # pixels per data unit (x range 1, y range depth + 0.6)
    radius = {n: (16 + 30 * math.sqrt(tokens.get(n, 0.0) / peak)) / 2 for n in nodes}
    chars = int(max(8, min(34, px_x * 0.8 / widest / 7)))  # a node's label fits the space to its neighbours, on two lines at most
    label_lines = {n: fit_label(names.get(n, n), chars) for n in nodes}
    positions: list[str] = []
    for row in edges.itertuples(index=False):
        (x0, y0), (x1, y1) = pos[row.parent], pos[row.child]
        bend = 12.0 if (row.child, row.parent) in pairs else 0.0  # two-way edges drawn 24 px apart
        dx, dy = (x1 - x0) * px_x, (y1 - y0) * px_y
        length = math.hypot(dx, dy) or 1.0
        ux, uy = dx / length, dy / length
        nx, ny = -uy * bend, ux * bend
        # ends stop clear of the nodes and of the name under each node (pixels, then data units)
        start, end = (radius[a] + 10 + 14 * len(label_lines[a]) for a in (row.parent, row.child))
        sx, sy = x0 + (nx + ux * start) / px_x, y0 + (ny + uy * start) / px_y
        ex, ey = x1 + (nx - ux * end) / px_x, y1 + (ny - uy * end) / px_y
        share = row.errors / max(row.n_calls, 1)
        color = ERROR_COLOR if share >= 0.5 else "#6b7280"
        width = 1.5 + 3 * math.log10(1 + row.n_calls) / max(math.log10(1 + edges["n_calls"].max()), 1e-9)
        annotations.append({"x": ex, "y": ey, "ax": sx, "ay": sy, "xref": "x", "yref": "y", "axref": "x", "ayref": "y", "showarrow": True,
                            "arrowhead": 3, "arrowsize": 1, "arrowwidth": width, "arrowcolor": color, "text": ""})
        label = f"{row.n_calls:,}×" + (f", {row.errors:,} err" if row.errors else "")  # the rest on hover and in the edges table
        mids_x.append((sx + ex) / 2)
        mids_y.append((sy + ey) / 2)
        positions.append(_label_position(ux, uy, (nx, ny) if bend else (-uy, ux)))
        mids_text.append(esc(label))
        mids_color.append(ERROR_COLOR if row.errors else "#4b5563")
        mids_hover.append(f"<b>{esc(names.get(row.parent, row.parent))} → {esc(names.get(row.child, row.child))}</b><br>{row.n_calls} delegation(s) ({esc(row.kinds)})"
                          f"<br>{row.tokens:,.0f} tokens, {esc(_money(row.cost_usd) or 'cost unknown')}<br>{row.errors} error(s)"
                          + ("" if pd.isna(row.latency_s) else f"<br>mean call latency {row.latency_s:.2f} s"))
    labelled = len(mids_x) <= LABELLED_EDGES
    traces.append({"type": "scatter", "x": mids_x, "y": mids_y, "mode": "markers+text" if labelled else "markers", "text": mids_text,
                   "textposition": positions, "textfont": {"size": 11, "color": mids_color}, "hovertext": mids_hover, "hoverinfo": "text",
                   "marker": {"size": 9, "symbol": "diamond", "color": mids_color}, "name": "delegations", "showlegend": False})
    node_text = ["<br>".join(esc(line) for line in label_lines[n]) for n in nodes]
    node_hover = [f"<b>{esc(names.get(n, n))}</b><br>{tokens.get(n, 0):,.0f} tokens" for n in nodes]
    sizes = [16 + 30 * math.sqrt(tokens.get(n, 0.0) / peak) for n in nodes]
    # opacity 1: sized markers (a "bubble" chart) are drawn at 0.7 by default, washing the colours out
    traces.append({"type": "scatter", "x": [pos[n][0] for n in nodes], "y": [pos[n][1] for n in nodes], "mode": "markers+text", "text": node_text,
                   "textposition": "bottom center", "hovertext": node_hover, "hoverinfo": "text", "name": "agents", "showlegend": False,
                   "marker": {"size": sizes, "opacity": 1, "color": [colors.get(n, "#9ca3af") if n != OTHER else "#9ca3af" for n in nodes], "line": {"width": 1, "color": "#fff"}}})
    layout = {
        "title": {"text": title, "font": {"size": 14}, "x": 0.01, "xanchor": "left"}, "template": "plotly_white",
        "height": height, "width": fig_width, "margin": {"l": 20, "r": 20, "t": 70, "b": 20}, "hovermode": "closest",
        "xaxis": {"visible": False, "range": [0, 1], "fixedrange": False}, "yaxis": {"visible": False, "range": [-depth - 0.35, 0.25]},
        "annotations": annotations, "showlegend": False,
        "font": {"family": "system-ui, -apple-system, Segoe UI, sans-serif", "color": "#1d2327"},
        "meta": {"threadlab": "delegation_graph", "nodes": [names.get(n, n) for n in nodes], "n_edges": len(edges)},
    }
    return Figure(data=traces, layout=layout, _validate=False)


def edges_html(edges: pd.DataFrame, calls: pd.DataFrame, titles: dict[Any, str], keep: set[Any]) -> str:
    """Each edge a row that unfolds to its calls (all text escaped)."""
    head = ('<div class="tl-hdr tl-edge-hdr"><span>from → to</span><span>calls</span><span>tokens</span><span>cost</span>'
            "<span>errors</span><span>latency</span></div>")
    rows = []
    parents = np.array([a if a in keep else OTHER for a in calls["parent_agent_id"]], dtype=object)
    children = np.array([a if a in keep else OTHER for a in calls["child_agent_id"]], dtype=object)
    for edge in edges.itertuples(index=False):
        mine = calls[(parents == edge.parent) & (children == edge.child)]
        lines = []
        for call in mine.head(MAX_CALL_ROWS).itertuples(index=False):
            lat = "" if pd.isna(call.latency_s) else f"{call.latency_s:.2f} s"
            lines.append(f"<tr><td>{esc(shorten(titles.get((call.source, call.thread_id), call.thread_id), 40))}</td><td>#{call.sequence}</td>"
                         f"<td>{esc(call.kind)}</td><td>{esc(call.tool_name or '')}</td><td>{esc(call.status or '')}</td><td>{esc(lat)}</td>"
                         f"<td>{call.child_actions}</td><td>{call.child_tokens:,.0f}</td><td>{esc(_money(call.child_cost_usd))}</td>"
                         f"<td>{call.child_tool_errors}</td><td>{preview(call.args, 80)}</td><td>{preview(call.result, 80)}</td></tr>")
        more = f'<div class="tl-note">{len(mine) - MAX_CALL_ROWS} more</div>' if len(mine) > MAX_CALL_ROWS else ""
        table = ("<table class=\"tl-table\"><tr><th>thread</th><th>seq</th><th>how</th><th>tool</th><th>status</th><th>latency</th>"
                 f"<th>actions</th><th>tokens</th><th>cost</th><th>tool errors</th><th>args</th><th>result</th></tr>{''.join(lines)}</table>{more}")
        lat = "" if pd.isna(edge.latency_s) else f"{edge.latency_s:.2f} s"
        tint = " tl-row-error" if edge.errors else ""
        rows.append(f'<details class="tl-row tl-edge{tint}" data-edge="{esc(edge.parent)}→{esc(edge.child)}"><summary>'
                    f"<span>{esc(edge.parent_name)} → {esc(edge.child_name)}</span><span>{edge.n_calls}</span><span>{edge.tokens:,.0f}</span>"
                    f"<span>{esc(_money(edge.cost_usd))}</span><span>{edge.errors}</span><span>{esc(lat)}</span></summary>{table}</details>")
    empty = '<div class="tl-note">no delegation found (no system.agent_join / system.handoff, no agent started by another agent\'s tool call)</div>'
    return f'{CSS}<div class="tl-root tl-rows tl-edges">{head}{"".join(rows) or empty}</div>'


def agents_html(totals: pd.DataFrame, colors: dict[Any, str] | None = None) -> str:
    cols = ("threads", "n_actions", "n_tool_calls", "n_tool_errors", "total_tokens", "cost_usd", "tool_latency_s")
    head = "<tr><th>agent</th>" + "".join(f"<th>{esc(c.removeprefix('n_'))}</th>" for c in cols) + "</tr>"
    body = []
    for row in totals.head(50).itertuples(index=False):
        cells = []
        for c in cols:
            v = getattr(row, c)
            cells.append("" if pd.isna(v) else _money(v) if c == "cost_usd" else f"{v:,.2f} s" if c == "tool_latency_s" else f"{v:,}")
        color = text_color((colors or {}).get(row.agent_id) or agent_colors([row.agent_id])[row.agent_id])
        body.append(f'<tr><td style="color:{color}">{esc(row.agent_name)}</td>' + "".join(f"<td>{esc(c)}</td>" for c in cells) + "</tr>")
    more = f'<div class="tl-note">{len(totals) - 50} more agents</div>' if len(totals) > 50 else ""
    return f'{CSS}<div class="tl-root"><b>Per agent</b><table class="tl-table">{head}{"".join(body)}</table>{more}</div>'


class DelegationGraph(StaticCopy, widgets.VBox):
    """The graph, its edges (click one for its calls) and the per-agent table."""

    def __init__(self, frames: Frames, *, top: int = TOP_AGENTS) -> None:
        calls = delegations(frames)
        self.usage = agent_usage(frames)
        totals = agent_totals(self.usage)
        names = distinct_names(dict(zip([*calls["parent_agent_id"], *calls["child_agent_id"], *totals["agent_id"]],
                                        [*calls["parent_name"], *calls["child_name"], *totals["agent_name"]], strict=True)))
        totals["agent_name"] = [names[a] for a in totals["agent_id"]]
        self.calls = calls.assign(parent_name=[names[a] for a in calls["parent_agent_id"]], child_name=[names[a] for a in calls["child_agent_id"]])
        keep = set(totals["agent_id"][: top if len(totals) > top + 3 else len(totals)])  # fold only when it saves a few nodes
        # agents with no row of their own (a "user" that invited an agent) stay themselves
        keep |= set(self.calls["parent_agent_id"]) - set(totals["agent_id"])
        self.edges = edges_of(self.calls, keep)
        n_threads = len(frames.threads)
        scope = f"{n_threads:,} threads" if n_threads != 1 else shorten(frames.threads["title"].iloc[0] or frames.threads["thread_id"].iloc[0], 60)
        title = f"Who called whom — {esc(scope)}<br>{len(self.calls):,} delegations between {len(totals):,} agents"
        colors = agent_colors([*drawn_nodes(self.edges, totals), *totals["agent_id"]])  # the drawn ones first: they differ
        self.figure = graph_figure(self.edges, totals, title, colors)
        titles = {(None if pd.isna(s) else s, t): (title or t) for s, t, title in
                  zip(frames.threads["source"].astype(object), frames.threads["thread_id"].astype(object), frames.threads["title"].astype(object), strict=True)}
        self.edge_rows = HtmlView(value=edges_html(self.edges, self.calls, titles, keep))
        self.agent_rows = HtmlView(value=agents_html(totals, colors))
        super().__init__([figure_output(self.figure), self.edge_rows, self.agent_rows])
        self.add_class("threadlab-delegation")

    def static_html(self) -> str:
        return self.figure.static_html() + str(self.edge_rows.value) + str(self.agent_rows.value)

    def describe(self) -> str:
        n, e = len(self.calls), len(self.edges)
        return f"{n:,} delegation{'s' if n != 1 else ''} over {e:,} edge{'s' if e != 1 else ''}"


def delegation_graph(data: Any, *, thread_id: Any = None, source: str | None = None, top: int = TOP_AGENTS) -> DelegationGraph:
    """Who called whom in a Thread or Frames (every thread, or one with ``thread_id``):
    agents as nodes, delegations as arrows with counts, tokens, cost and errors; each edge
    unfolds to its calls; ``top`` agents are drawn (the rest as one node)."""
    frames = as_frames(data)
    if thread_id is not None:
        frames = subset(frames, [pick_thread(frames, thread_id, source)])
    return DelegationGraph(frames, top=top)


__all__ = ["DelegationGraph", "agent_totals", "delegation_graph", "edges_of"]
