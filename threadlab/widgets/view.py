"""Widgets that also render without a kernel.

``HtmlView`` is an ``ipywidgets.HTML`` (live in JupyterLab and VS Code) that also answers
``_repr_html_``, so an exported notebook without saved widget state still shows the content.
``figure_output`` puts a plotly figure inside an ipywidget container."""

from __future__ import annotations

from typing import Any

import ipywidgets as widgets
import plotly.graph_objects as go


class HtmlView(widgets.HTML):
    """An HTML widget whose value is markup threadlab built (all user text escaped)."""

    def _repr_html_(self) -> str:
        return str(self.value)


def figure_output(figure: go.Figure | None = None) -> widgets.Output:
    """An Output widget showing ``figure`` (plotly's own mime renderer draws it)."""
    out = widgets.Output()
    if figure is not None:
        show_in(out, figure)
    return out


def show_in(out: widgets.Output, content: Any) -> None:
    """Replace what ``out`` shows with ``content`` (a figure, widget or anything displayable)."""
    from IPython.display import display

    out.clear_output(wait=True)
    with out:
        display(content)
