"""Figures of several panels, one under the other, laid out in pixels so nothing overlaps.

plotly's ``make_subplots`` spaces rows as fractions of the figure's height, so a panel's tick
labels reach into the next panel's title as soon as the labels are long or the figure short.
Here each panel has a height in pixels, a title line above it, an optional horizontal legend
line between title and plot, and a fixed gap below it for its x tick labels and axis title;
the figure's height is the sum. Panels stay readable whatever the number of bars."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from threadlab.widgets.text import esc

TITLE_PX = 26  # a panel title line
LEGEND_PX = 26  # a horizontal legend line under the title
GAP_PX = 64  # below a panel: its x tick labels and axis title
TOP_PX = 44  # the figure title
FONT = {"family": "system-ui, -apple-system, Segoe UI, sans-serif", "color": "#1d2327", "size": 12}


@dataclass(frozen=True)
class Panel:
    title: str  # already escaped
    height: int  # plot area, pixels
    legend: bool = False  # a horizontal legend line between the title and the plot


def panel_layout(panels: list[Panel], *, title: str, right: int = 20, meta: dict[str, Any] | None = None) -> dict[str, Any]:
    """A layout with one x/y axis pair per panel (``x``/``y``, ``x2``/``y2``, ...), panel
    titles as annotations and ``legend``, ``legend2``, ... placed for the panels that want one."""
    tops: list[int] = []
    y = TOP_PX
    for panel in panels:
        y += TITLE_PX + (LEGEND_PX if panel.legend else 0)
        tops.append(y)
        y += panel.height + GAP_PX
    total = y
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
        head = top - (LEGEND_PX if panel.legend else 0)
        layout["annotations"].append({"text": f"<b>{panel.title}</b>", "x": 0, "xref": "paper", "xanchor": "left",
                                      "y": 1 - head / total, "yref": "paper", "yanchor": "bottom", "showarrow": False,
                                      "font": {"size": 13}, "yshift": 4})
        if panel.legend:
            legends += 1
            name = "legend" if legends == 1 else f"legend{legends}"
            layout[name] = {"orientation": "h", "x": 0, "xanchor": "left", "y": y1, "yanchor": "bottom",
                            "font": {"size": 11}, "bgcolor": "rgba(255,255,255,0)", "tracegroupgap": 4}
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


def title_text(*parts: str) -> str:
    return esc(" — ".join(p for p in parts if p))
