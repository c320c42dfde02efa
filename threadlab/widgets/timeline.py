"""``timeline``: who did what when, one lane per participant.

Lanes: the user, the harness, each agent (in order of first action), tools, system. The user's
lane holds the person's messages and, as squares of their own colour, the places where the
person interrupted the agent; what the harness wrote in the user's role (injected context, hook
feedback, reminders) is on the harness lane, hollow and muted, never a person's prompt; hover
says who wrote each mark. Messages, thinking and tool calls are marks on their agent's lane; each tool call is also a span on the tools lane from
call to return (errors red, pending calls dotted and open-ended to the end of the thread, orphan
returns as crosses); system events (a request sent, a queue operation, a cost record: instants, not
spans) are thin ticks on the system lane, so a run of them stays a row of ticks, not a grey bar.
Hover shows an escaped preview. A lane label has the room it needs (two lines, the full name on
hover over the lane's marks); two agents of one name are told apart by the start of their ids.

Built for size: vectorised pandas over the frames, a fixed number of traces (one per lane and
kind, never one per action), numbers sent as binary arrays (dates as epoch milliseconds on a
date axis), WebGL traces above ``WEBGL_THRESHOLD`` actions, shorter previews for huge threads,
and the figure assembled without plotly's per-element validation (the values are built here,
already in the shape plotly.js takes)."""

from __future__ import annotations

import base64
from typing import Any, Literal

import numpy as np
import pandas as pd
import pyarrow.compute as pc
from _plotly_utils.utils import to_typed_array_spec

from threadlab.frames.frames import Frames, ThreadKey
from threadlab.widgets.authorship import lane_masks, who_text
from threadlab.widgets.colors import (
    ERROR_COLOR,
    HARNESS_COLOR,
    INTERRUPT_COLOR,
    ORPHAN_COLOR,
    PENDING_COLOR,
    SYSTEM_COLOR,
    USER_COLOR,
    agent_colors,
)
from threadlab.widgets.finding_marks import finding_marks
from threadlab.widgets.inputs import as_frames, key_mask, objects, pick_thread, rows_of
from threadlab.widgets.text import arrow_strings, clip_arrow, distinct_names, esc, esc_arrow, fit_label, shorten
from threadlab.widgets.view import Figure

WEBGL_THRESHOLD = 1_000
# plotly symbol numbers: 0 circle, 1 square, 2 diamond, 8 triangle-right
SYMBOLS = {"user_message": 0, "assistant_message": 0, "thinking": 2, "tool_call": 8}
OTHER_SYMBOL = 1
SYSTEM_SYMBOL = "line-ns-open"  # a system event is an instant: a thin tick
HARNESS_SYMBOL = "circle-open"  # a harness turn: hollow, on its own lane
INTERRUPT_SYMBOL = "square"  # ⏹ the person stopped the agent: on the user's lane
SPAN_SLOTS = 4  # parallel tool calls are stacked in up to this many sub-rows of the tools lane
COMPACT_ABOVE = 20_000  # actions; above this, hover labels drop the type and agent (symbol and lane show them)
AGGREGATE_ABOVE = 50_000  # actions; above this, lanes are binned by time (tl.timeline(..., x_range=) for detail)
MAX_AGENT_LANES = 10  # agents with a lane of their own; the rest share "other agents"
OTHER_AGENTS = "other agents"
NAME_CHARS = 40  # an agent's name in the legend
LANE_CHARS = 22  # a line of a lane label (two lines at most)


def lane_tick(label: str) -> str:
    """A lane's tick label: escaped, on up to two lines."""
    return "<br>".join(esc(line) for line in fit_label(label, LANE_CHARS))


def preview_limit(n_actions: int) -> int:
    """Characters of hover preview per action: generous for small threads, short for huge ones
    (the payload stays linear in the number of actions, with a smaller constant)."""
    if n_actions <= WEBGL_THRESHOLD:
        return 200
    if n_actions <= COMPACT_ABOVE:
        return 60
    return 30


def trace_values(value: Any) -> np.ndarray:
    """A trace's array as numpy, whether plain or a plotly.js binary spec ({bdata, dtype})."""
    if isinstance(value, dict) and "bdata" in value:
        return np.frombuffer(base64.b64decode(value["bdata"]), dtype=value["dtype"])
    return np.asarray(value)


def _array(values: np.ndarray, dtype: str = "float64") -> Any:
    """A plotly.js binary array (x needs float64: epoch milliseconds; lanes fit float32)."""
    return to_typed_array_spec(np.ascontiguousarray(values, dtype=dtype))


def _times_ms(series: pd.Series) -> np.ndarray:
    """UTC datetimes → epoch milliseconds (NaN for missing), vectorised."""
    stamps = pd.Series(series.array).dt.tz_convert("UTC").dt.tz_localize(None).astype("datetime64[ns]")
    out = stamps.to_numpy().astype("int64").astype("float64") / 1e6
    out[stamps.isna().to_numpy()] = np.nan
    return out


def _xs(frame: pd.DataFrame, x: str) -> np.ndarray:
    if x == "sequence":
        return frame["sequence"].astype("float64").to_numpy(na_value=np.nan)
    return _times_ms(frame["timestamp"])


def _join(*parts: Any) -> np.ndarray:
    """Concatenate string arrays / literals element-wise into a numpy object array."""
    return pc.binary_join_element_wise(*parts, "").to_numpy(zero_copy_only=False)


def _hover(frame: pd.DataFrame, limit: int, *, compact: bool) -> np.ndarray:
    """Escaped hover labels: '#seq type · who<br>preview'; for huge threads just
    '#seq preview' (the lane says who, the symbol says what)."""
    seq, preview = arrow_strings(frame["sequence"]), clip_arrow(arrow_strings(frame["text"]), limit)
    if compact:
        return _join("#", seq, " ", preview)
    who = pd.Series(who_text(frame), dtype=object)
    return _join("#", seq, " ", esc_arrow(arrow_strings(frame["action_type"])), " · ", esc_arrow(arrow_strings(who)), "<br>", preview)


def _pack_slots(starts: np.ndarray, ends: np.ndarray) -> np.ndarray:
    """Greedy interval packing: the sub-row of each span so overlapping calls do not hide each
    other (cycling through ``SPAN_SLOTS`` rows when more overlap)."""
    slots = np.zeros(len(starts), dtype=np.int64)
    free_at = [-np.inf] * SPAN_SLOTS
    for i in np.argsort(starts, kind="stable"):
        start = starts[i]
        slot = next((s for s in range(SPAN_SLOTS) if free_at[s] <= start), int(i) % SPAN_SLOTS)
        slots[i] = slot
        free_at[slot] = max(ends[i], start)
    return slots


def _segments(x0: np.ndarray, x1: np.ndarray, y: np.ndarray, start_text: np.ndarray, end_text: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Line segments joined with NaN gaps, so one trace draws every span of a kind. The full
    label sits on the call end; the return end gets a short one."""
    n = len(x0)
    xs, ys = np.empty(3 * n), np.empty(3 * n)
    xs[0::3], xs[1::3], xs[2::3] = x0, x1, np.nan
    ys[0::3], ys[1::3], ys[2::3] = y, y, np.nan
    labels = np.empty(3 * n, dtype=object)
    labels[0::3], labels[1::3], labels[2::3] = start_text, end_text, ""
    return xs, ys, labels


class _Traces:
    """Trace dicts, WebGL above the threshold."""

    def __init__(self, webgl: bool) -> None:
        self.kind = "scattergl" if webgl else "scatter"
        self.items: list[dict[str, Any]] = []

    def add(self, x: np.ndarray, y: np.ndarray, hovertext: np.ndarray, **fields: Any) -> None:
        # numpy object arrays, not lists: plotly copies them in one step, not string by string
        self.items.append({"type": self.kind, "x": _array(x), "y": _array(y, "float32"), "hovertext": hovertext, "hoverinfo": "text", **fields})


def timeline(
    data: Any,
    *,
    x: Literal["time", "sequence"] = "time",
    thread_id: str | ThreadKey | None = None,
    source: str | None = None,
    webgl_threshold: int = WEBGL_THRESHOLD,
    height: int | None = None,
    x_range: tuple[Any, Any] | None = None,
    aggregate: bool | None = None,
    findings: pd.DataFrame | None = None,
) -> Figure:
    """A plotly timeline of one thread (a Thread, or Frames and an optional ``thread_id``).

    ``x="time"`` places actions at their timestamps, ``x="sequence"`` at their sequence numbers
    (useful when timestamps are synthetic). ``source=`` chooses between two files holding the same
    thread id.

    Above ``AGGREGATE_ABOVE`` actions (or with ``aggregate=True``) what no screen can show one by
    one is binned: each lane becomes a strip of time bins shaded by how many actions fall in
    each (hover for counts by kind and the sequence range), tool errors marked per bin. For the
    detail of a stretch, ``x_range=(start, end)`` (timestamps, or sequence numbers with
    ``x="sequence"``) draws only the actions inside it, one by one. ``findings`` (``tl.scan``,
    ``tl.find``) are shaded over their spans (``finding_marks.py``)."""
    if x not in ("time", "sequence"):
        raise ValueError(f"timeline x must be 'time' or 'sequence', not {x!r}")
    frames = as_frames(data)
    key = pick_thread(frames, thread_id, source)
    acts = rows_of(frames.actions, key, frames)
    calls = rows_of(frames.tool_calls, key, frames)
    total = len(acts)
    if x_range is not None:
        acts, calls = _window(acts, calls, x, x_range)
    n = len(acts)
    if aggregate or (aggregate is None and n > AGGREGATE_ABOVE):
        from threadlab.widgets.timeline_bins import binned_timeline

        binned = binned_timeline(acts, calls, x=x, title=_title(frames, key, hint=thread_id is None, shown=n if n != total else None), height=height)
        return finding_marks(binned, acts, _xs(acts, x), findings, key, x)
    small = n <= webgl_threshold
    traces = _Traces(webgl=not small)
    limit = preview_limit(n)
    kinds, agents = objects(acts["action_type"]), objects(acts["agent_id"])

    # lanes, top to bottom
    on = lane_masks(acts)
    is_agent = on["agent"]
    agent_ids, agents, names = agent_lanes(agents, is_agent, objects(acts["agent_name"]))
    lanes: list[tuple[str, str]] = []  # (key, label)
    if on["user"].any():
        lanes.append(("user", "User"))
    if on["harness"].any():
        lanes.append(("harness", "Harness"))
    lanes += [(f"agent:{a}", str(names.get(a) or a)) for a in agent_ids]
    colors = lane_colors(agent_ids)
    if len(calls):
        lanes.append(("tools", "Tools"))
    is_system = on["system"]
    if is_system.any():
        lanes.append(("system", "System"))
    lane_y = {key: float(i) for i, (key, _) in enumerate(lanes)}

    xs_all = _xs(acts, x)
    hover_all = _hover(acts, limit, compact=n > COMPACT_ABOVE)
    symbols_all = np.array([SYMBOLS.get(k, OTHER_SYMBOL) for k in kinds], dtype=np.int64)

    def marks(mask: np.ndarray, name: str, lane: str, color: str, symbol: Any = None, size: int = 0) -> None:
        if mask.any():
            symbols = symbols_all[mask].tolist() if symbol is None else symbol
            outline = {HARNESS_SYMBOL: 1.5, SYSTEM_SYMBOL: 2}.get(symbol, 0)  # a hollow mark needs a stroke to be seen
            marker = {"color": color, "size": size or (9 if small else 5), "symbol": symbols, "line": {"width": outline, "color": color}}
            traces.add(xs_all[mask], np.full(int(mask.sum()), lane_y[lane]), hover_all[mask], mode="markers", name=esc(name), legendgroup=lane, marker=marker)

    marks(on["user"] & ~on["interrupt"], "User", "user", USER_COLOR)
    marks(on["interrupt"], "interrupts", "user", INTERRUPT_COLOR, INTERRUPT_SYMBOL, 11 if small else 7)
    marks(on["harness"], "Harness", "harness", HARNESS_COLOR, HARNESS_SYMBOL)
    for agent in agent_ids:
        marks(is_agent & (agents == agent), shorten(str(names.get(agent) or agent), NAME_CHARS), f"agent:{agent}", colors[agent])
    if len(calls):
        _tool_spans(traces, calls, xs_all, x, lane_y["tools"], limit, small, colors, names)
    marks(is_system, "system events", "system", SYSTEM_COLOR, SYSTEM_SYMBOL, 12 if small else 8)

    layout = {
        "title": {"text": _title(frames, key, hint=thread_id is None, shown=n if n != total else None), "font": {"size": 14}, "x": 0.01, "xanchor": "left"},
        "height": height or max(260, 100 + 56 * len(lanes), 90 + 21 * len(traces.items)),
        "margin": {"l": 10, "r": 10, "t": 40, "b": 40},
        "hovermode": "closest",
        "legend": {"x": 1.01, "xanchor": "left", "y": 1, "yanchor": "top", "font": {"size": 11}},
        "paper_bgcolor": "white",
        "plot_bgcolor": "white",
        "font": {"family": "system-ui, -apple-system, Segoe UI, sans-serif", "color": "#1d2327"},
        "yaxis": {"tickvals": [lane_y[k] for k, _ in lanes], "ticktext": [lane_tick(label) for _, label in lanes], "automargin": True,
                  # every lane, top to bottom (autorange cut the tools lane off when it came last: its spans sit above its tick)
                  "range": [max(len(lanes), 1) - 0.5, -0.5],
                  "zeroline": False, "showgrid": True, "gridcolor": "#eceff3"},
        "xaxis": {"type": "date" if x == "time" else "linear", "title": {"text": "time (UTC)" if x == "time" else "sequence"},
                  "showgrid": True, "gridcolor": "#eceff3"},
        "meta": {"threadlab": "timeline", "lanes": [label for _, label in lanes], "webgl": not small, "n_actions": n},
    }
    fig = Figure(data=traces.items, layout=layout, _validate=False)
    if not small:  # thousands of points: exported pages get the binned view (light, and legible at that count)
        from threadlab.widgets.timeline_bins import binned_timeline

        title = layout["title"]["text"]
        fig.set_static(lambda: binned_timeline(acts, calls, x=x, title=title, height=height))
    return finding_marks(fig, acts, xs_all, findings, key, x)


def agent_lanes(agents: np.ndarray, is_agent: np.ndarray, agent_names: np.ndarray) -> tuple[list[Any], np.ndarray, dict[Any, str]]:
    """The agents that get a lane (in order of first action; at most ``MAX_AGENT_LANES``, the
    busiest), the agent column with the others renamed to one shared lane, and lane names."""
    acting = agents[is_agent]
    order = [a for a in dict.fromkeys(acting.tolist()) if a is not None]
    names = distinct_names(dict(zip(acting, agent_names[is_agent], strict=True)))
    if len(order) <= MAX_AGENT_LANES:
        return order, agents, names
    counts = pd.Series(acting).value_counts()
    keep = set(counts.index[: MAX_AGENT_LANES - 1])
    others = len(order) - len(keep)
    folded = np.where(is_agent & ~pd.Series(agents).isin(keep).to_numpy(), OTHER_AGENTS, agents).astype(object)
    names[OTHER_AGENTS] = f"{others} other agents"
    return [a for a in order if a in keep] + [OTHER_AGENTS], folded, names


def lane_colors(agent_ids: list[Any]) -> dict[Any, str]:
    """Each lane's agent colour, no two alike (the shared "other agents" lane grey)."""
    return agent_colors([a for a in agent_ids if a != OTHER_AGENTS]) | {OTHER_AGENTS: SYSTEM_COLOR}


def _window(acts: pd.DataFrame, calls: pd.DataFrame, x: str, x_range: tuple[Any, Any]) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The actions (and the calls that start or end) inside ``x_range``."""
    lo, hi = x_range
    if x == "sequence":
        seq = acts["sequence"].astype("float64")
        keep = ((seq >= float(lo)) & (seq <= float(hi))).to_numpy()
        c0, c1 = calls["call_sequence"].astype("float64"), calls["return_sequence"].astype("float64")
        call_keep = ((c0 >= float(lo)) & (c0 <= float(hi))) | ((c1 >= float(lo)) & (c1 <= float(hi)))
    else:
        lo, hi = pd.Timestamp(lo, tz="UTC") if pd.Timestamp(lo).tzinfo is None else pd.Timestamp(lo), \
            pd.Timestamp(hi, tz="UTC") if pd.Timestamp(hi).tzinfo is None else pd.Timestamp(hi)
        keep = ((acts["timestamp"] >= lo) & (acts["timestamp"] <= hi)).fillna(False).to_numpy(dtype=bool)
        call_keep = (((calls["call_time"] >= lo) & (calls["call_time"] <= hi)) | ((calls["return_time"] >= lo) & (calls["return_time"] <= hi)))
    return acts[keep], calls[call_keep.fillna(False).to_numpy(dtype=bool)]


def _title(frames: Frames, key: ThreadKey, *, hint: bool, shown: int | None = None) -> str:
    rows = frames.threads[key_mask(frames.threads, [key])]
    title = objects(rows["title"])[0] if len(rows) else None
    count = int(rows["n_actions"].iloc[0]) if len(rows) else 0
    extra = f" (1 of {len(frames.threads):,} threads; pass thread_id=)" if hint and len(frames.threads) > 1 else ""
    window = f" ({shown:,} in the window)" if shown is not None else ""
    return f"{esc(shorten(title or key.thread_id, 70))} — {count:,} actions{window}{esc(extra)}"


def _tool_spans(traces: _Traces, calls: pd.DataFrame, xs_all: np.ndarray, x: str, base_y: float, limit: int, small: bool, colors: dict[Any, str],
                names: dict[Any, str]) -> None:
    """Spans from call to return on the tools lane, grouped by calling agent (``colors`` and
    ``names``: the agents with a lane) and status."""
    lanes = set(colors)
    status = objects(calls["status"])
    status = np.where(pd.isna(status), "pending", status).astype(object)
    if x == "sequence":
        start = calls["call_sequence"].astype("float64").to_numpy(na_value=np.nan)
        end = calls["return_sequence"].astype("float64").to_numpy(na_value=np.nan)
    else:
        start, end = _times_ms(calls["call_time"]), _times_ms(calls["return_time"])
    thread_end = float(np.nanmax(xs_all)) if len(xs_all) and not np.all(np.isnan(xs_all)) else 0.0
    pending = status == "pending"
    end = np.where(pending, thread_end, end)
    orphan = status == "orphan_return"
    slots = _pack_slots(np.where(orphan, end, start), np.where(np.isnan(end), start, end))
    y = base_y - 0.3 + slots * (0.6 / max(SPAN_SLOTS - 1, 1))
    latency = calls["latency_s"].astype("Float64").round(3)
    lat = pc.binary_join_element_wise(arrow_strings(latency), " s", "")
    lat = pc.if_else(pc.equal(lat, " s"), "", lat)
    short = pc.binary_join_element_wise(esc_arrow(arrow_strings(calls["tool_name"])), " · ", esc_arrow(arrow_strings(pd.Series(status))), " ", lat, "")
    full = _join(short, " · ", esc_arrow(arrow_strings(calls["agent_name"])), "<br>args: ", clip_arrow(arrow_strings(calls["args"]), limit),
                 "<br>result: ", clip_arrow(arrow_strings(calls["result"]), limit))
    ends = _join("↩ ", short)
    width = 4 if small else 2
    agents, agent_names = objects(calls["agent_id"]), objects(calls["agent_name"])
    if OTHER_AGENTS in lanes:
        agents = np.where(pd.Series(agents).isin(lanes).to_numpy() | pd.isna(agents), agents, OTHER_AGENTS).astype(object)
        agent_names = np.where(agents == OTHER_AGENTS, "other agents", agent_names).astype(object)
    ok = ~np.isin(status, ["error", "validation_error", "pending", "orphan_return"])
    for agent_id in dict.fromkeys(agents[ok].tolist()):
        mask = ok & (agents == agent_id)
        name = shorten(names.get(agent_id) or agent_names[mask][0] or agent_id, NAME_CHARS)
        sx, sy, st = _segments(start[mask], end[mask], y[mask], full[mask], ends[mask])
        traces.add(sx, sy, st, mode="lines+markers", name=f"tool calls · {esc(name)}", legendgroup=f"agent:{agent_id}",
                   line={"color": colors.get(agent_id, SYSTEM_COLOR), "width": width}, marker={"size": 4 if small else 2})
    groups = (
        (np.isin(status, ["error", "validation_error"]), "tool errors", ERROR_COLOR, "solid"),
        (pending, "pending calls", PENDING_COLOR, "dot"),
    )
    for mask, name, color, dash in groups:
        if mask.any():
            sx, sy, st = _segments(start[mask], end[mask], y[mask], full[mask], ends[mask])
            traces.add(sx, sy, st, mode="lines+markers", name=name, line={"color": color, "width": width, "dash": dash},
                       marker={"size": 6, "symbol": "circle-open" if dash == "dot" else "circle"})
    if orphan.any():
        traces.add(end[orphan], y[orphan], full[orphan], mode="markers", name="orphan returns", marker={"color": ORPHAN_COLOR, "size": 11, "symbol": "x"})
