"""The timeline of a thread too long to draw action by action (a million actions, a whole corpus
read as one thread): what cannot be seen is aggregated.

The x range is cut into ``BINS`` equal bins; each lane (user, harness, each agent, tools, system) becomes
a strip of cells shaded by how many of its actions fall in each bin (log scale), and a cell's
hover gives its time span, the count of each kind of action (harness turns and interrupts as
such, not as user messages) and the first and last sequence number (so
``tl.timeline(..., x_range=(...))`` can draw that stretch in detail). Tool errors, pending calls
and orphan returns are marked per bin on the tools lane, interrupts on the user's lane. The payload is a few
thousand cells whatever the thread's length, so plotly.js draws it in well under a second."""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from threadlab.widgets.authorship import lane_masks
from threadlab.widgets.colors import ERROR_COLOR, INTERRUPT_COLOR, ORPHAN_COLOR, PENDING_COLOR
from threadlab.widgets.inputs import objects
from threadlab.widgets.text import distinct_names, esc
from threadlab.widgets.view import Figure

BINS = 600
KINDS = ("user_message", "assistant_message", "thinking", "tool_call", "tool_return")


def _x(series: pd.Series, x: str) -> np.ndarray:
    if x == "sequence":
        return series.astype("float64").to_numpy(na_value=np.nan)
    stamps = pd.Series(series.array).dt.tz_convert("UTC").dt.tz_localize(None).astype("datetime64[ns]")
    out = stamps.to_numpy().astype("int64").astype("float64") / 1e6
    out[stamps.isna().to_numpy()] = np.nan
    return out


def _label(value: float, x: str) -> str:
    if x == "sequence":
        return f"#{value:,.0f}"
    return pd.Timestamp(value, unit="ms", tz="UTC").strftime("%Y-%m-%d %H:%M:%S.%f")[:-3]


def binned_timeline(acts: pd.DataFrame, calls: pd.DataFrame, *, x: str, title: str, height: int | None = None, bins: int = BINS) -> Figure:
    """The aggregated figure (see the module docstring); ``title`` is already escaped."""
    from threadlab.widgets.timeline import MAX_AGENT_LANES, OTHER_AGENTS, lane_colors, lane_tick

    # categorical codes, not Python strings: a million rows are compared as small integers
    on = lane_masks(acts)
    is_user, is_harness, is_agent, is_system = on["user"], on["harness"], on["agent"], on["system"]
    agent_col = acts["agent_id"].astype("category")
    codes = agent_col.cat.codes.to_numpy()
    categories = list(agent_col.cat.categories)
    acting = codes[is_agent & (codes >= 0)]
    counts_by_code = np.bincount(acting, minlength=len(categories)) if len(categories) else np.array([], dtype=np.int64)
    first_seen = pd.unique(acting)  # codes in order of first action
    if len(first_seen) > MAX_AGENT_LANES:
        busiest = set(np.argsort(-counts_by_code, kind="stable")[: MAX_AGENT_LANES - 1].tolist())
        lane_codes = [c for c in first_seen.tolist() if c in busiest]
    else:
        lane_codes = first_seen.tolist()
    name_of = dict(zip(objects(acts["agent_id"])[is_agent], objects(acts["agent_name"])[is_agent], strict=True)) if len(first_seen) <= 1000 else {}
    lanes: list[tuple[str, str]] = []
    if is_user.any():
        lanes.append(("user", "User"))
    if is_harness.any():
        lanes.append(("harness", "Harness"))
    lane_names = distinct_names({categories[c]: name_of.get(categories[c]) for c in lane_codes})
    lanes += [(f"agent:{categories[c]}", lane_names[categories[c]]) for c in lane_codes]
    folded = len(first_seen) - len(lane_codes)
    if folded:
        lanes.append((f"agent:{OTHER_AGENTS}", f"{folded} other agents"))
    if len(calls):
        lanes.append(("tools", "Tools"))
    if is_system.any():
        lanes.append(("system", "System"))
    index = {key: i for i, (key, _) in enumerate(lanes)}
    lane = np.full(len(acts), -1, dtype=np.int64)
    lane[is_user] = index.get("user", -1)
    lane[is_harness] = index.get("harness", -1)
    by_code = np.full(len(categories) + 1, index.get(f"agent:{OTHER_AGENTS}", -1), dtype=np.int64)
    for c in lane_codes:
        by_code[c] = index[f"agent:{categories[c]}"]
    agent_rows = is_agent & (codes >= 0)
    lane[agent_rows] = by_code[codes[agent_rows]]
    lane[is_system] = index.get("system", -1)

    xs = _x(acts["timestamp"] if x == "time" else acts["sequence"], x)
    call_x = _x(calls["call_time"] if x == "time" else calls["call_sequence"], x) if len(calls) else np.array([])
    both = np.concatenate([xs, call_x])
    finite = both[np.isfinite(both)]
    lo, hi = (float(finite.min()), float(finite.max())) if len(finite) else (0.0, 1.0)
    hi = hi if hi > lo else lo + 1.0
    edges = np.linspace(lo, hi, bins + 1)
    width = edges[1] - edges[0]

    def cell(values: np.ndarray) -> np.ndarray:
        return np.clip(((values - lo) / width).astype(np.int64), 0, bins - 1)

    ok = np.isfinite(xs) & (lane >= 0)
    where = lane[ok] * bins + cell(xs[ok])
    counts = np.bincount(where, minlength=len(lanes) * bins).reshape(len(lanes), bins).astype("float64")
    kind_col = acts["action_type"].astype("category")
    kind_codes = kind_col.cat.codes.to_numpy()[ok]
    code_of = {k: i for i, k in enumerate(kind_col.cat.categories)}
    written = (on["harness"] | on["interrupt"])[ok]  # counted as what the harness wrote, not as user messages
    per_kind = {k: np.bincount(where[(kind_codes == code_of[k]) & ~written], minlength=len(lanes) * bins) for k in KINDS if k in code_of}
    for name, mask in (("harness turns", on["harness"]), ("interrupts", on["interrupt"])):
        if mask.any():
            per_kind[name] = np.bincount(where[mask[ok]], minlength=len(lanes) * bins)
    seq = acts["sequence"].astype("float64").to_numpy(na_value=np.nan)[ok]
    first = pd.Series(seq).groupby(where).min()
    last = pd.Series(seq).groupby(where).max()
    if len(calls):
        tool_lane = index["tools"]
        c_ok = np.isfinite(call_x)
        tool_cells = np.bincount(cell(call_x[c_ok]), minlength=bins)
        counts[tool_lane] = tool_cells
    status = objects(calls["status"]) if len(calls) else np.array([], dtype=object)
    z = np.where(counts > 0, np.log10(np.maximum(counts, 1)) + 0.3, np.nan)
    centers = (edges[:-1] + edges[1:]) / 2
    stamps = [_label(e, x) for e in edges]
    hover = []
    for li, (key, label) in enumerate(lanes):
        row = []
        for b in range(bins):
            n = counts[li, b]
            if not n:
                row.append("")
                continue
            span = f"{stamps[b]} – {stamps[b + 1]}"
            if key == "tools":
                row.append(f"{esc(label)} · {span}<br>{int(n):,} tool calls started")
                continue
            flat = li * bins + b
            kinds_text = ", ".join(f"{int(per_kind[k][flat]):,} {k}" for k in per_kind if per_kind[k][flat])
            seqs = f"<br>#{first.get(flat, np.nan):,.0f} – #{last.get(flat, np.nan):,.0f}" if flat in first.index else ""
            row.append(f"{esc(label)} · {span}<br>{int(n):,} actions: {esc(kinds_text) or 'system'}{seqs}")
        hover.append(row)
    colorscale = [[0, "#dbe9f6"], [1, "#08306b"]]
    top = float(np.nanmax(z)) if np.isfinite(z).any() else 1.0
    ticks = [v for v in (1, 10, 100, 1_000, 10_000, 100_000, 1_000_000) if np.log10(v) + 0.3 <= top + 0.01]
    traces: list[dict[str, Any]] = [{
        "type": "heatmap", "x": centers, "y": list(range(len(lanes))), "z": z, "hovertext": hover, "hoverinfo": "text", "zmin": 0.3, "zmax": max(top, 0.31),
        "colorscale": colorscale, "showscale": True, "ygap": 6, "name": "actions per bin",
        "colorbar": {"title": {"text": "actions<br>per bin", "side": "top"}, "tickvals": [np.log10(v) + 0.3 for v in ticks],
                     "ticktext": [f"{v:,}" for v in ticks], "len": 160, "lenmode": "pixels", "y": 1, "yanchor": "top", "thickness": 12, "x": 1.01}}]
    if len(calls):
        for mask, name, color, symbol in ((np.isin(status, ["error", "validation_error"]), "tool errors", ERROR_COLOR, "x"),
                                          (status == "pending", "pending calls", PENDING_COLOR, "circle-open"),
                                          (status == "orphan_return", "orphan returns", ORPHAN_COLOR, "x")):
            m = mask & np.isfinite(call_x) if name != "orphan returns" else mask
            if not m.any():
                continue
            xs_m = call_x[m] if name != "orphan returns" else _x(calls["return_time"] if x == "time" else calls["return_sequence"], x)[m]
            xs_m = xs_m[np.isfinite(xs_m)]
            per_bin = np.bincount(cell(xs_m), minlength=bins)
            hit = np.flatnonzero(per_bin)
            traces.append({"type": "scatter", "x": centers[hit], "y": [index["tools"] + 0.32] * len(hit), "mode": "markers", "name": name,
                           "marker": {"color": color, "symbol": symbol, "size": 6 + 6 * np.log10(per_bin[hit]) / max(np.log10(per_bin.max()), 1)},
                           "hovertext": [f"{int(c):,} {name}" for c in per_bin[hit]], "hoverinfo": "text"})
    if on["interrupt"].any():
        stops = xs[on["interrupt"] & np.isfinite(xs)]
        per_bin = np.bincount(cell(stops), minlength=bins)
        hit = np.flatnonzero(per_bin)
        traces.append({"type": "scatter", "x": centers[hit], "y": [index["user"] - 0.32] * len(hit), "mode": "markers", "name": "interrupts",
                       "marker": {"color": INTERRUPT_COLOR, "symbol": "square", "size": 7},
                       "hovertext": [f"{int(c):,} interrupted by the user" for c in per_bin[hit]], "hoverinfo": "text"})
    by_agent = lane_colors([k.removeprefix("agent:") for k, _ in lanes if k.startswith("agent:")])
    colors = [by_agent[k.removeprefix("agent:")] if k.startswith("agent:") else None for k, _ in lanes]
    layout = {
        "title": {"text": title + esc(f" · binned: {bins} bins of {width / 1000:,.2f} s" if x == "time" else f" · binned: {bins} bins of {width:,.0f} actions"),
                  "font": {"size": 14}, "x": 0.01, "xanchor": "left"},
        "height": height or max(280, 110 + 56 * len(lanes)), "margin": {"l": 10, "r": 10, "t": 44, "b": 40}, "hovermode": "closest",
        "legend": {"x": 1.01, "xanchor": "left", "y": 0, "yanchor": "bottom", "font": {"size": 11}}, "showlegend": True,
        "paper_bgcolor": "white", "plot_bgcolor": "white",
        "font": {"family": "system-ui, -apple-system, Segoe UI, sans-serif", "color": "#1d2327"},
        "yaxis": {"tickvals": list(range(len(lanes))), "ticktext": [lane_tick(label) for _, label in lanes], "autorange": "reversed", "zeroline": False,
                  "showgrid": False, "automargin": True},
        "xaxis": {"type": "date" if x == "time" else "linear", "title": {"text": "time (UTC)" if x == "time" else "sequence"}, "showgrid": True,
                  "gridcolor": "#eceff3"},
        "meta": {"threadlab": "timeline", "lanes": [label for _, label in lanes], "webgl": False, "n_actions": len(acts), "binned": bins,
                 "lane_colors": colors},
    }
    return Figure(data=traces, layout=layout, _validate=False)
