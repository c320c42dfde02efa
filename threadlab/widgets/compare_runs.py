"""``compare_runs``: N runs of one task, aligned step by step.

Each run becomes its steps: the prompts a person wrote, each agent's replies and tool calls,
labelled "Agent · tool" / "Agent · reply" / "user" ("user · interrupted" where the person stopped
the run; what the harness wrote in the user's role, such as Codex's environment context, is no
step: runs with and without it align alike), each with its tokens, cost, latency (a tool call's
call-to-return time; a reply's time since the action before it) and whether it failed. The runs
are aligned by a center-star multiple alignment over those labels (``run_alignment.py``), not
index by index, so one extra retry in one run does not shift every later step.

The figure: (1) the aligned steps, one row per run (up to ``max_rows``; the center run and the
runs that diverge earliest), each cell coloured by the step's tokens against the median of its
column, a cross where a run first diverges from the others, red rings on failed steps; (2) per
step, how many runs agree with the consensus and the median tokens; (3) where runs first
diverge. Below: per run, where it diverges and its totals against the median run; per step, a
row that unfolds to every run's values and deltas at that step."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

import ipywidgets as widgets
import numpy as np
import pandas as pd

from threadlab.frames.agents import ERRORS
from threadlab.frames.frames import Frames, ThreadKey
from threadlab.widgets.authorship import row_masks
from threadlab.widgets.colors import ERROR_COLOR
from threadlab.widgets.inputs import as_frames, key_mask, objects
from threadlab.widgets.panels import Panel, axis, nice_ceil, panel_layout
from threadlab.widgets.run_alignment import Alignment, align_runs, describe_column
from threadlab.widgets.styles import CSS
from threadlab.widgets.text import esc, shorten
from threadlab.widgets.view import Figure, HtmlView, StaticCopy, figure_output

Metric = Literal["tokens", "cost_usd", "latency_s"]
STEP_KINDS = ("user_message", "assistant_message", "tool_call")
INTERRUPTED = "user · interrupted"
MAX_ROWS = 24
ROW_PX = 22
MAX_STEP_ROWS = 200


METRICS = ("tokens", "cost_usd", "latency_s", "error")


@dataclass
class RunSteps:
    """One run's steps as plain lists and arrays (a 3,000-run comparison reads millions of cells)."""

    key: ThreadKey
    title: str
    label: list[str]
    sequence: list[int]
    status: list[Any]
    values: dict[str, np.ndarray]  # tokens, cost_usd, latency_s, error (0/1)

    @property
    def steps(self) -> pd.DataFrame:
        return pd.DataFrame({"label": self.label, "sequence": self.sequence, **self.values, "status": self.status})


def run_steps(frames: Frames, keys: list[ThreadKey]) -> list[RunSteps]:
    """The steps of each run (see the module docstring)."""
    acts = frames.actions[key_mask(frames.actions, keys)]
    written = row_masks(acts)  # what the harness wrote is no step (an interrupt is: the person stopped the run there)
    acts = acts[(acts["action_type"].isin(STEP_KINDS).to_numpy(dtype=bool) & ~(written["harness"] & ~written["interrupt"])) | written["interrupt"]]
    all_acts = frames.actions[key_mask(frames.actions, keys)]
    calls = frames.tool_calls[key_mask(frames.tool_calls, keys)]
    usage = frames.usage[key_mask(frames.usage, keys)]
    src = lambda s: None if s is None or pd.isna(s) else str(s)  # noqa: E731
    call_info = {(src(s), str(t), c): (lat, st) for s, t, c, lat, st in zip(
        calls["source"].astype(object), calls["thread_id"].astype(object), objects(calls["tool_call_id"]),
        calls["latency_s"].astype("Float64").to_numpy(dtype="float64", na_value=np.nan), objects(calls["status"]), strict=True)}
    cost = {(src(s), str(t), int(q)): c for s, t, q, c in zip(usage["source"].astype(object), usage["thread_id"].astype(object),
                                                                usage["sequence"], usage["cost_usd"].astype("Float64").to_numpy(dtype="float64", na_value=np.nan), strict=True)}
    titles = dict(zip(frames.keys(), objects(frames.threads["title"]), strict=True))
    prev_time: dict[tuple[Any, Any], dict[int, float]] = {}
    stamps = all_acts["timestamp"]
    times = (stamps.astype("int64") / 1e6).where(stamps.notna(), np.nan).to_numpy(dtype="float64") if len(all_acts) else np.array([])
    for s, t, q, ms in zip(all_acts["source"].astype(object), all_acts["thread_id"].astype(object), all_acts["sequence"], times, strict=True):
        prev_time.setdefault((src(s), str(t)), {})[int(q)] = ms
    out: dict[ThreadKey, list[dict[str, Any]]] = {k: [] for k in keys}
    cols = [objects(acts[c]) for c in ("source", "thread_id", "sequence", "action_type", "agent_name", "tool_name", "tool_call_id")]
    tokens = acts["total_tokens"].astype("Float64").fillna(0).to_numpy(dtype="float64")
    stopped = row_masks(acts)["interrupt"]
    for (s, t, q, kind, agent, tool, call_id), tok, interrupt in zip(zip(*cols, strict=True), tokens, stopped, strict=True):
        key = ThreadKey(src(s), str(t))
        if interrupt:
            label = INTERRUPTED
        elif kind == "user_message":
            label = "user"
        else:
            label = f"{agent or '?'} · {tool}" if kind == "tool_call" else f"{agent or '?'} · reply"
        latency, status = call_info.get((key.source, key.thread_id, call_id), (np.nan, None)) if kind == "tool_call" else (np.nan, None)
        if kind == "assistant_message":
            times_of = prev_time.get((key.source, key.thread_id), {})
            before = [times_of[p] for p in range(int(q) - 1, 0, -1) if p in times_of][:1]
            latency = (times_of.get(int(q), np.nan) - before[0]) / 1000 if before else np.nan
        out[key].append({"label": label, "sequence": int(q), "tokens": float(tok), "cost_usd": cost.get((key.source, key.thread_id, int(q)), np.nan),
                         "latency_s": latency, "error": status in ERRORS, "status": status})
    runs = []
    for k in keys:
        rows = out[k]
        values = {m: np.array([float(row[m]) for row in rows], dtype="float64") for m in METRICS}
        runs.append(RunSteps(k, str(titles.get(k) or k.thread_id), [row["label"] for row in rows], [row["sequence"] for row in rows],
                             [row["status"] for row in rows], values))
    return runs


def _values(runs: list[RunSteps], alignment: Alignment, metric: str) -> np.ndarray:
    """columns × runs matrix of a metric (NaN where a run has a gap)."""
    grid = np.full((len(alignment.columns), len(runs)), np.nan)
    index = np.array([[-1 if i is None else i for i in col] for col in alignment.columns], dtype=np.int64).reshape(len(alignment.columns), len(runs))
    for r, run in enumerate(runs):
        present = index[:, r] >= 0
        grid[present, r] = run.values[metric][index[present, r]]
    return grid


class CompareRuns(StaticCopy, widgets.VBox):
    """The aligned runs: figure, per-run table, per-step table (each step unfolds)."""

    def __init__(self, frames: Frames, keys: list[ThreadKey], *, metric: Metric = "tokens", max_rows: int = MAX_ROWS) -> None:
        if metric not in ("tokens", "cost_usd", "latency_s"):
            raise ValueError(f"compare_runs metric must be 'tokens', 'cost_usd' or 'latency_s', not {metric!r}")
        self.runs = run_steps(frames, keys)
        self.alignment = align_runs([r.label for r in self.runs])
        self.consensus = [describe_column(self.alignment, [r.label for r in self.runs], k) for k in range(len(self.alignment.columns))]
        self.metric = metric
        self.grids = {m: _values(self.runs, self.alignment, m) for m in ("tokens", "cost_usd", "latency_s")}
        self.errors = _values(self.runs, self.alignment, "error")
        self.figure = self._figure(max_rows)
        self.run_rows = HtmlView(value=self._runs_html())
        self.step_rows = HtmlView(value=self._steps_html())
        super().__init__([figure_output(self.figure), self.run_rows, self.step_rows])
        self.add_class("threadlab-compare-runs")

    def describe(self) -> str:
        return f"{len(self.runs):,} runs aligned on {len(self.alignment.columns)} steps"

    # --- which runs get a row of the grid -------------------------------------------------
    def shown(self, max_rows: int) -> list[int]:
        """The center run, then the runs that diverge earliest (all runs when few)."""
        n = len(self.runs)
        if n <= max_rows:
            return list(range(n))
        first = self.alignment.first_divergence
        order = sorted((r for r in range(n) if r != self.alignment.center), key=lambda r: (first[r] is None, first[r] or 0, r))
        return [self.alignment.center, *order[: max_rows - 1]]

    def labels(self) -> list[str]:
        """Short unique run names: titles without the words every title starts with (runs of
        one task are often titled alike), at most 30 characters."""
        words = [r.title.split(" ") for r in self.runs]
        common = 0
        if len(words) > 1:
            while all(len(w) > common + 1 and w[common] == words[0][common] for w in words):
                common += 1
        titles = [shorten(" ".join(w[common:]).lstrip(",:;—- ") or r.title, 30) for w, r in zip(words, self.runs, strict=True)]
        seen: dict[str, int] = {}
        out = []
        for t in titles:
            seen[t] = seen.get(t, 0) + 1
            out.append(t if seen[t] == 1 else f"{t} ({seen[t]})")
        return out

    def _figure(self, max_rows: int) -> Figure:
        n, width = len(self.runs), len(self.alignment.columns)
        rows = self.shown(max_rows)
        grid = self.grids[self.metric]
        median = np.nanmedian(grid, axis=1, keepdims=True) if width and n else grid
        delta = grid - median
        names = self.labels()
        consensus = self.consensus
        unit = {"tokens": "tokens", "cost_usd": "USD", "latency_s": "s"}[self.metric]
        hover = []
        for r in rows:
            line = []
            for k in range(width):
                i = self.alignment.columns[k][r]
                if i is None:
                    line.append(f"{esc(names[r])}<br>step {k + 1}: (no step here)<br>most runs: {esc(consensus[k])}")
                    continue
                run = self.runs[r]
                differs = "" if run.label[i] == consensus[k] else f" (most runs: {esc(consensus[k])})"
                line.append(f"{esc(names[r])} · #{run.sequence[i]}<br>step {k + 1}: {esc(run.label[i])}{differs}"
                            f"<br>{grid[k, r]:,.4g} {unit} (Δ {delta[k, r]:+,.4g} vs the step's median)")
            hover.append(line)
        y = [esc(names[r]) + (" ★" if r == self.alignment.center else "") for r in rows]
        x = list(range(1, width + 1))
        z = delta[:, rows].T if width else np.zeros((len(rows), 0))
        limit = float(np.nanmax(np.abs(z))) if np.isfinite(z).any() else 1.0
        traces: list[dict[str, Any]] = [{
            "type": "heatmap", "x": x, "y": y, "z": z, "zmid": 0, "zmin": -limit or -1, "zmax": limit or 1, "colorscale": "RdBu", "reversescale": True,
            "xgap": 1, "ygap": 1, "hovertext": hover, "hoverinfo": "text", "name": f"Δ {unit}",
            "colorbar": {"title": {"text": f"Δ {unit}", "side": "right"}, "len": 150, "lenmode": "pixels", "y": 0, "yref": "paper", "yanchor": "top",
                         "thickness": 12, "x": 1.0, "xanchor": "left", "xpad": 8, "nticks": 4},
            **axis(1)}]
        first = self.alignment.first_divergence
        dx = [first[r] + 1 for r in rows if first[r] is not None]
        dy = [y[i] for i, r in enumerate(rows) if first[r] is not None]
        traces.append({"type": "scatter", "x": dx, "y": dy, "mode": "markers", "marker": {"symbol": "x-thin", "size": 12, "line": {"width": 2.5, "color": "#111827"}},
                       "name": "first divergence", "hoverinfo": "skip", "legend": "legend", **axis(1)})
        ex, ey = [], []
        for i, r in enumerate(rows):
            for k in range(width):
                if self.errors[k, r] == 1:
                    ex.append(k + 1)
                    ey.append(y[i])
        traces.append({"type": "scatter", "x": ex, "y": ey, "mode": "markers", "marker": {"symbol": "circle-open", "size": 14, "color": ERROR_COLOR, "line": {"width": 2}},
                       "name": "failed step", "hoverinfo": "skip", "legend": "legend", **axis(1)})
        agree = [self._agreeing(k) / n for k in range(width)]
        traces.append({"type": "bar", "x": x, "y": agree, "marker": {"color": "#4c78a8"}, "name": "runs agreeing", "showlegend": False,
                       "customdata": [esc(c) for c in consensus], "hovertemplate": "step %{x}: %{customdata}<br>%{y:.0%} of runs<extra></extra>", **axis(2)})
        medians = np.nanmedian(self.grids["tokens"], axis=1) if width and n else []
        traces.append({"type": "scatter", "x": x, "y": medians, "mode": "lines+markers", "name": "median tokens", "yaxis": "y4", "xaxis": "x2",
                       "line": {"color": "#f58518"}, "legend": "legend2", "hovertemplate": "step %{x}: median %{y:,.0f} tokens<extra></extra>"})
        counts = np.bincount([f for f in first if f is not None], minlength=width) if width else []
        traces.append({"type": "bar", "x": x, "y": counts, "marker": {"color": "#6b7280"}, "name": "runs first diverging", "showlegend": False,
                       "hovertemplate": "step %{x}: %{y} run(s) first diverge here<extra></extra>", **axis(3)})
        shown_note = f", {len(rows)} of {n:,} runs shown (★ center, then the earliest to diverge)" if len(rows) < n else " (★: the center run)"
        panels = [Panel(f"Aligned steps: Δ {esc(unit)} against the step's median{esc(shown_note)}", max(ROW_PX * len(rows), 130), legend=True),
                  Panel("Per step: share of runs doing what most runs do, and median tokens", 150, legend=True),
                  Panel("Where runs first diverge from the others", 110)]
        layout = panel_layout(panels, title=esc(f"{n:,} run{'s' if n != 1 else ''} aligned on {width} steps (center-star alignment of tool calls and turns)"), right=80,
                              meta={"threadlab": "compare_runs", "n_runs": n, "n_steps": width, "center": self.runs[self.alignment.center].key.thread_id if n else None})
        ticks = {"tickmode": "linear", "tick0": 1, "dtick": max(1, -(-width // 25)), "title": {"text": "aligned step", "standoff": 4}}
        traces[0]["colorbar"].update(y=layout["yaxis"]["domain"][1], len=min(150, max(ROW_PX * len(rows), 130)))
        layout["xaxis"].update(range=[0.5, width + 0.5], **ticks)
        layout["yaxis"].update(autorange="reversed", type="category")
        layout["xaxis2"].update(range=[0.5, width + 0.5], matches="x", **ticks)
        layout["yaxis2"].update(tickformat=".0%", range=[0, 1.05], title={"text": "agree"})
        half = nice_ceil(float(np.nanmax(medians)) / 2) if width and n and np.isfinite(medians).any() else 1.0  # ticks 0, half, 2·half beside 0, 50 %, 100 %
        layout["yaxis4"] = {"overlaying": "y2", "side": "right", "showgrid": False, "title": {"text": "tokens"}, "anchor": "x2",
                            "range": [0, 2 * half * 1.05], "tickvals": [0, half, 2 * half], "tickformat": ",~r"}
        layout["xaxis3"].update(range=[0.5, width + 0.5], matches="x", **ticks)
        peak = int(max(counts, default=0)) if len(counts) else 0
        layout["yaxis3"].update(title={"text": "runs"}, rangemode="tozero", tickformat=",d", **({"dtick": 1} if peak <= 4 else {}))
        layout["margin"]["l"] = 12 + 7 * min(max((len(v) for v in y), default=8), 34)
        return Figure(data=traces, layout=layout)

    def _agreeing(self, k: int) -> int:
        """How many runs do at column k what most runs do (a gap counts as a label)."""
        target = self.alignment.consensus[k]
        return sum(1 for r, i in enumerate(self.alignment.columns[k]) if (None if i is None else self.runs[r].label[i]) == target)

    def _runs_html(self) -> str:
        totals = {m: np.nansum(g, axis=0) for m, g in self.grids.items()}
        med = {m: float(np.median(v)) if len(v) else 0.0 for m, v in totals.items()}
        names = self.labels()
        head = "<tr><th>run</th><th>steps</th><th>first diverges at</th><th>Δ tokens</th><th>Δ cost</th><th>Δ latency</th><th>errors</th></tr>"
        rows = []
        for r in self.shown(MAX_STEP_ROWS):
            run, k = self.runs[r], self.alignment.first_divergence[r]
            where = "—"
            if k is not None:
                i = self.alignment.columns[k][r]
                ended = i is None and all(col[r] is None for col in self.alignment.columns[k:])
                mine = run.label[i] if i is not None else "had ended" if ended else "no step here"
                most = self.consensus[k] if self.alignment.consensus[k] is not None else describe_column(self.alignment, [], k, others=False)
                where = f"step {k + 1}: {mine} ({'most runs: ' + most if self.alignment.consensus[k] is not None else most})"
            star = " ★" if r == self.alignment.center else ""
            rows.append(f'<tr data-run="{r}"><td title="{esc(run.key.source)}">{esc(names[r])}{star}</td><td>{len(run.label)}</td><td>{esc(where)}</td>'
                        f"<td>{totals['tokens'][r] - med['tokens']:+,.0f}</td><td>{totals['cost_usd'][r] - med['cost_usd']:+.4f}</td>"
                        f"<td>{totals['latency_s'][r] - med['latency_s']:+.2f} s</td><td>{int(run.values['error'].sum())}</td></tr>")
        note = '<div class="tl-note">Δ: the run\'s total against the median run\'s; ★: the center of the alignment</div>'
        return f'{CSS}<div class="tl-root"><b>Runs</b><table class="tl-table tl-runs">{head}{"".join(rows)}</table>{note}</div>'

    def _steps_html(self) -> str:
        names = self.labels()
        n = len(self.runs)
        head = '<div class="tl-hdr tl-step-hdr"><span>step</span><span>what most runs do</span><span>agree</span><span>median tokens</span><span>median latency</span><span>errors</span></div>'
        out = []
        for k, col in enumerate(self.alignment.columns[:MAX_STEP_ROWS]):
            tokens, lat = self.grids["tokens"][k], self.grids["latency_s"][k]
            med_t = float(np.nanmedian(tokens)) if np.isfinite(tokens).any() else np.nan
            med_l = float(np.nanmedian(lat)) if np.isfinite(lat).any() else np.nan
            med_c = float(np.nanmedian(self.grids["cost_usd"][k])) if np.isfinite(self.grids["cost_usd"][k]).any() else np.nan
            agree = self._agreeing(k)
            errors = int(np.nansum(self.errors[k]))
            lines = []
            for r, i in enumerate(col[:MAX_STEP_ROWS]):
                if i is None:
                    lines.append(f"<tr><td>{esc(names[r])}</td><td colspan=7 class=\"tl-empty\">— no step here</td></tr>")
                    continue
                run = self.runs[r]
                tok, cost, lat_s = (run.values[m][i] for m in ("tokens", "cost_usd", "latency_s"))
                dc = "" if np.isnan(cost) or np.isnan(med_c) else f"{cost - med_c:+.4f}"
                dl = "" if np.isnan(lat_s) or np.isnan(med_l) else f"{lat_s - med_l:+.2f} s"
                lat_text = "" if np.isnan(lat_s) else f"{lat_s:.2f} s"
                lines.append(f"<tr><td>{esc(names[r])}</td><td>#{run.sequence[i]}</td><td>{esc(run.label[i])}</td><td>{tok:,.0f} ({tok - med_t:+,.0f})</td>"
                             f"<td>{dc}</td><td>{esc(lat_text)} {esc(dl)}</td><td>{esc(run.status[i] or '')}</td></tr>")
            table = ("<table class=\"tl-table\"><tr><th>run</th><th>seq</th><th>step</th><th>tokens (Δ)</th><th>Δ cost</th><th>latency (Δ)</th>"
                     f"<th>status</th></tr>{''.join(lines)}</table>")
            tint = " tl-row-error" if errors else ""
            ml = "" if np.isnan(med_l) else f"{med_l:.2f} s"
            out.append(f'<details class="tl-row tl-step{tint}" data-step="{k + 1}"><summary><span>{k + 1}</span><span>{esc(self.consensus[k])}</span>'
                       f"<span>{agree}/{n}</span><span>{'' if np.isnan(med_t) else f'{med_t:,.0f}'}</span><span>{esc(ml)}</span><span>{errors}</span></summary>{table}</details>")
        return f'{CSS}<div class="tl-root tl-rows tl-steps"><b>Steps</b> (click one for every run\'s values and deltas){head}{"".join(out)}</div>'

    def static_html(self) -> str:
        return self.figure.static_html() + str(self.run_rows.value) + str(self.step_rows.value)


def compare_runs(data: Any, runs: list[Any] | None = None, *, metric: Metric = "tokens", max_rows: int = MAX_ROWS) -> CompareRuns:
    """N runs of one task aligned step by step: where each run first diverges from the others,
    and each step's tokens, cost, latency and errors against the other runs'.

    ``data``: Frames or Threads; ``runs``: the threads to compare (thread ids or (source, id)
    keys; default: every thread); ``metric`` colours the grid (tokens, cost_usd, latency_s)."""
    frames = as_frames(data)
    keys = frames.keys() if runs is None else [frames.key(r) if not isinstance(r, tuple) else ThreadKey(*r) for r in runs]
    if not keys:
        raise ValueError("compare_runs needs at least one run")
    return CompareRuns(frames, keys, metric=metric, max_rows=max_rows)


__all__ = ["CompareRuns", "compare_runs", "run_steps"]
