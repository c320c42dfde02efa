"""Findings on a timeline: each finding of the thread (``tl.scan``, ``tl.find``) a band shaded by
severity over its span, from its first step to its last, and a mark above it whose hover says
the scanner and the message (escaped). Bands are shapes under the traces, so they never hide an
action or take a label of their own; the marks share one legend entry, "findings"."""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from threadlab.frames.frames import ThreadKey
from threadlab.widgets.inputs import key_mask, objects
from threadlab.widgets.text import esc, shorten

SEVERITY_COLORS = {"error": "#d62728", "warning": "#f08c00", "info": "#4a78b5"}
POINT_WIDTH = {"sequence": 0.4, "time": 400.0}  # half the width of a one-step band: steps, or milliseconds


def finding_marks(fig: Any, acts: pd.DataFrame, xs: np.ndarray, findings: pd.DataFrame | None, key: ThreadKey, x: str) -> Any:
    """``fig`` with the findings of thread ``key`` marked over their spans (``xs``: the x of each
    row of ``acts``, the thread's actions as drawn)."""
    if findings is None or not len(findings) or not len(acts):
        return fig
    mine = findings[key_mask(findings, [key])]
    if not len(mine):
        return fig
    seqs = acts["sequence"].astype("Float64").to_numpy(dtype=np.float64, na_value=np.nan)
    at = {}
    for s, v in zip(seqs.tolist(), xs.tolist(), strict=True):
        if s == s and v == v:
            at.setdefault(int(s), v)
    shapes, mark_x, hover, colors = [], [], [], []
    columns = {c: objects(mine[c]) for c in ("scanner", "first_sequence", "last_sequence", "severity", "message")}
    for scanner, first, last, severity, message in zip(*columns.values(), strict=True):
        x0 = at.get(int(first)) if first is not None else None
        x1 = at.get(int(last)) if last is not None else x0
        if x0 is None:
            continue
        x1 = x0 if x1 is None else x1
        pad = POINT_WIDTH[x] if x1 == x0 else 0.0
        color = SEVERITY_COLORS.get(str(severity), SEVERITY_COLORS["info"])
        shapes.append({"type": "rect", "xref": "x", "yref": "paper", "x0": x0 - pad, "x1": x1 + pad, "y0": 0, "y1": 1,
                       "fillcolor": color, "opacity": 0.13, "line": {"width": 0}, "layer": "below"})
        mark_x.append((x0 + x1) / 2)
        colors.append(color)
        steps = f"step {first}" if first == last or last is None else f"steps {first}–{last}"
        hover.append(f"<b>{esc(scanner)}</b> · {esc(severity)} · {steps}<br>{esc(shorten(str(message), 160))}")
    if not shapes:
        return fig
    fig.update_layout(shapes=[*(fig.layout.shapes or ()), *shapes])
    fig.add_scatter(x=mark_x, y=[-0.42] * len(mark_x), mode="markers", name="findings", hovertext=hover, hoverinfo="text",
                    marker={"symbol": "triangle-down", "size": 10, "color": colors}, showlegend=True)
    meta = dict(fig.layout.meta or {})
    fig.update_layout(meta={**meta, "findings": len(shapes)})
    return fig
