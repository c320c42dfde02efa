"""Figures of several panels, one under the other, laid out in pixels so nothing overlaps.

plotly's ``make_subplots`` spaces rows as fractions of the figure's height, so a panel's tick
labels reach into the next panel's title as soon as the labels are long or the figure short.
Here each panel has a height in pixels, a title line above it, an optional horizontal legend
line between title and plot, and a fixed gap below it for its x tick labels and axis title;
the figure's height is the sum. Panels stay readable whatever the number of bars. A legend of
many entries wraps onto several lines (``legend_rows`` says how many), and each is reserved."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from threadlab.widgets.text import esc

TITLE_PX = 26  # a panel title line
LEGEND_PX = 26  # a horizontal legend line under the title
GAP_PX = 64  # below a panel: its x tick labels and axis title
TOP_PX = 44  # the figure title
NOTE_PX = 24  # a note line under the last panel
LEGEND_ITEM_PX = 48  # a legend entry's symbol and the gaps around it
LEGEND_CHAR_PX = 6.6  # a character of an 11 px legend entry (generous: wide letters, bold fonts)
NARROW_PLOT_PX = 760  # the plot width a legend is wrapped for (a notebook's output, a left margin of labels)
FONT = {"family": "system-ui, -apple-system, Segoe UI, sans-serif", "color": "#1d2327", "size": 12}


@dataclass(frozen=True)
class Panel:
    title: str  # already escaped
    height: int  # plot area, pixels
    legend: bool = False  # a horizontal legend between the title and the plot
    legend_rows: int = 1  # lines that legend takes (``legend_rows``)


def legend_rows(labels: list[str], width: float = NARROW_PLOT_PX) -> int:
    """Lines a horizontal legend of these entries takes in a plot ``width`` pixels wide (plotly
    wraps an entry that does not fit onto the next line)."""
    rows, x = 1, 0.0
    for label in labels:
        item = LEGEND_ITEM_PX + LEGEND_CHAR_PX * len(label)
        if x and x + item > width:
            rows, x = rows + 1, 0.0
        x += item
    return rows


def _legend_px(panel: Panel) -> int:
    return LEGEND_PX * max(panel.legend_rows, 1) if panel.legend else 0


def panel_layout(panels: list[Panel], *, title: str, right: int = 20, meta: dict[str, Any] | None = None, note: str = "") -> dict[str, Any]:
    """A layout with one x/y axis pair per panel (``x``/``y``, ``x2``/``y2``, ...), panel
    titles as annotations and ``legend``, ``legend2``, ... placed for the panels that want one;
    ``note`` (escaped) is a grey line under the last panel."""
    tops: list[int] = []
    y = TOP_PX
    for panel in panels:
        y += TITLE_PX + _legend_px(panel)
        tops.append(y)
        y += panel.height + GAP_PX
    total = y + (NOTE_PX if note else 0)
    layout: dict[str, Any] = {
        "title": {"text": title, "font": {"size": 15}, "x": 0.01, "xanchor": "left", "y": 1 - 10 / total, "yanchor": "top"},
        "height": total,
        "margin": {"l": 10, "r": right, "t": 0, "b": 0},
        "template": "plotly_white",
        "font": FONT,
        "annotations": [],
        "showlegend": True,
        "hoverlabel": {"namelength": -1},
        "meta": meta or {},
    }
    legends = 0
    for i, (panel, top) in enumerate(zip(panels, tops, strict=True), start=1):
        suffix = "" if i == 1 else str(i)
        y0, y1 = 1 - (top + panel.height) / total, 1 - top / total
        layout[f"yaxis{suffix}"] = {"domain": [y0, y1], "anchor": f"x{suffix}", "automargin": True}
        layout[f"xaxis{suffix}"] = {"anchor": f"y{suffix}", "automargin": False}
        head = top - _legend_px(panel)
        layout["annotations"].append({"text": f"<b>{panel.title}</b>", "x": 0, "xref": "paper", "xanchor": "left",
                                      "y": 1 - head / total, "yref": "paper", "yanchor": "bottom", "showarrow": False,
                                      "font": {"size": 13}, "yshift": 4})
        if panel.legend:
            legends += 1
            name = "legend" if legends == 1 else f"legend{legends}"
            layout[name] = {"orientation": "h", "x": 0, "xanchor": "left", "y": 1 - head / total, "yanchor": "top",  # right under the title
                            "font": {"size": 11}, "bgcolor": "rgba(255,255,255,0)", "tracegroupgap": 4, "traceorder": "normal"}
    if note:
        layout["annotations"].append({"text": note, "x": 0, "xref": "paper", "xanchor": "left", "y": 0, "yref": "paper", "yanchor": "bottom",
                                      "showarrow": False, "font": {"size": 12, "color": "#5d636f"}, "yshift": 4})
    return layout


def axis(i: int) -> dict[str, str]:
    """The trace fields that put a trace on panel ``i`` (1-based)."""
    return {"xaxis": "x" if i == 1 else f"x{i}", "yaxis": "y" if i == 1 else f"y{i}"}


def legend(n: int) -> str:
    return "legend" if n == 1 else f"legend{n}"


def unique_labels(labels: list[str]) -> list[str]:
    """Labels made unique (plotly merges equal category labels into one bar): ' (2)', ' (3)' ..."""
    seen: dict[str, int] = {}
    out = []
    for label in labels:
        n = seen.get(label, 0) + 1
        seen[label] = n
        out.append(label if n == 1 else f"{label} ({n})")
    return out


def nice_ceil(value: float) -> float:
    """The smallest of 1, 2, 2.5, 5 × 10^k at or above ``value`` (an axis's round tick step)."""
    if not value > 0:
        return 1.0
    power = 10 ** math.floor(math.log10(value))
    return next(m * power for m in (1, 2, 2.5, 5, 10) if m * power >= value * (1 - 1e-12))


def title_text(*parts: str) -> str:
    return esc(" — ".join(p for p in parts if p))
