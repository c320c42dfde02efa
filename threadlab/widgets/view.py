"""How widgets and figures show: live in JupyterLab and VS Code, and drawn in an exported HTML
page or a static viewer with no kernel.

- ``Figure`` (a plotly ``go.Figure``) puts plotly's JSON and an HTML rendering of the same figure
  in one mime bundle: JupyterLab and VS Code draw the JSON with their plotly renderer, an
  ``nbconvert --to html`` export uses the HTML. The first figure a kernel shows carries plotly.js
  itself (once, like plotly's own "notebook" renderer), so the export works offline; later ones
  wait for it (and, on a page that has no copy, fetch plotly's CDN build).
- Widgets (``HtmlView`` and the apps) show as the live ipywidget plus a second, static HTML
  output. A stylesheet rule hides that copy on any page where the live widget rendered (its DOM
  carries a class naming the copy), so only a page without a widget manager (an exported page
  offline, a static viewer) shows it.
Inside another widget (``show_in``) nothing static is added: the outer widget's copy holds it.
- Outside a Jupyter kernel (a plain script, a terminal) there is no front end to draw into: a
  widget fills no output area (IPython's ``display`` would print each figure's whole JSON to
  stdout), and ``repr`` of a figure or widget is one summary line."""

from __future__ import annotations

import contextvars
import secrets
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import ipywidgets as widgets
import orjson
import plotly.graph_objects as go

FIGURE_CONFIG = {"displaylogo": False, "responsive": True}
MAX_STATIC_FIGURE_BYTES = 8_000_000  # a figure bigger than this is not copied into the HTML
_NESTED: contextvars.ContextVar[bool] = contextvars.ContextVar("threadlab_nested", default=False)
_STATE = {"plotlyjs_sent": False, "static": True}

LIVE = 'document.querySelector(".jp-LabShell, .jp-NotebookShell")'  # a live Jupyter page: its own renderer draws
LOADER = """<script data-threadlab>(function () {
  var id = "%(id)s";
  if (""" + LIVE + """) { return; }
  function draw() {
    var el = document.getElementById(id), spec = document.getElementById(id + "-spec");
    if (!el || !spec || el.getAttribute("data-drawn")) { return; }
    el.setAttribute("data-drawn", "1");
    var fig = JSON.parse(spec.textContent);
    window.Plotly.newPlot(el, fig.data, fig.layout, fig.config || {});
  }
  if (window.Plotly) { draw(); return; }
  (window.__threadlabPlots = window.__threadlabPlots || []).push(draw);
  function fetchPlotly() {
    /* a live Jupyter page draws with its own renderer; a page with an embedded copy draws from it */
    if (window.Plotly || window.__threadlabFetch || document.getElementById("threadlab-plotlyjs")) { return; }
    window.__threadlabFetch = 1;
    var s = document.createElement("script");
    s.src = "https://cdn.plot.ly/plotly-%(version)s.min.js";
    s.onload = function () { (window.__threadlabPlots || []).splice(0).forEach(function (f) { f(); }); };
    document.head.appendChild(s);
  }
  if (document.readyState === "loading") { document.addEventListener("DOMContentLoaded", fetchPlotly); }
  else { setTimeout(fetchPlotly, 0); }
})();</script>"""


def set_static_copies(enabled: bool) -> None:
    """Turn the static HTML copies off (smaller notebooks; exports then show only live views)
    or on again (the default)."""
    _STATE["static"] = bool(enabled)


def _plotlyjs_once() -> str:
    """plotly.js, the first time a figure is shown in this process; '' afterwards. Loaded with
    AMD's ``define`` hidden so it sets ``window.Plotly`` even on pages that use require.js."""
    if _STATE["plotlyjs_sent"]:
        return ""
    from plotly.offline import get_plotlyjs

    _STATE["plotlyjs_sent"] = True
    return (
        '<script data-threadlab id="threadlab-plotlyjs">window.PlotlyConfig = {MathJaxConfig: "local"};'
        "window.__threadlabDefine = window.define; window.define = undefined;</script>"
        f"<script data-threadlab>if (!{LIVE}) {{\n{get_plotlyjs()}\n}}</script>"
        "<script data-threadlab>window.define = window.__threadlabDefine;"
        "(window.__threadlabPlots || []).splice(0).forEach(function (f) { f(); });</script>"
    )


def _script_json(value: Any) -> str:
    """JSON safe inside a <script> element: every '<' escaped (labels are already HTML-escaped)."""
    return orjson.dumps(value, option=orjson.OPT_SERIALIZE_NUMPY).decode().replace("<", "\\u003c")


def figure_html(spec: dict[str, Any]) -> str:
    """A plotly figure (its JSON spec: data, layout, config) as HTML that draws itself."""
    from plotly.offline import get_plotlyjs_version

    payload = _script_json(spec)
    if len(payload) > MAX_STATIC_FIGURE_BYTES:
        return f'<div class="tl-note">(a {len(payload) / 1e6:.0f} MB figure is not copied into static HTML; it shows in JupyterLab or VS Code)</div>'
    fid = "tl-fig-" + secrets.token_hex(6)
    height = (spec.get("layout") or {}).get("height") or 450
    return (
        f'{_plotlyjs_once()}<div id="{fid}" class="tl-figure" style="height:{int(height)}px;max-width:1100px"></div>'
        f'<script data-threadlab type="application/json" id="{fid}-spec">{payload}</script>'
        + LOADER % {"id": fid, "version": get_plotlyjs_version()}
    )


class Figure(go.Figure):
    """A plotly figure whose mime bundle also holds its own HTML (see the module docstring).

    A figure too heavy to copy (a timeline of thousands of points) may name a lighter stand-in
    for its HTML copy with ``set_static(make)``: ``make()`` returns that figure, built only
    when the copy is made (a binned timeline instead of every point)."""

    _static_maker: Any = None

    def set_static(self, make: Any) -> None:
        self._static_maker = make

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None, validate: bool = True, **kwargs: Any) -> dict[str, Any]:
        import plotly.io as pio

        bundle = pio.renderers["plotly_mimetype"].to_mimebundle(self.to_dict())
        spec = bundle["application/vnd.plotly.v1+json"]
        spec["config"] = {**FIGURE_CONFIG, **(spec.get("config") or {})}
        bundle["text/plain"] = summary_line(self)
        if _STATE["static"] and not _NESTED.get():
            bundle["text/html"] = self.static_html() if self._static_maker is not None else figure_html(spec)
        return bundle

    def _ipython_display_(self) -> None:
        from IPython.display import display

        display(self._repr_mimebundle_(), raw=True)

    def __repr__(self) -> str:
        return summary_line(self)

    def static_html(self) -> str:
        """The figure as self-drawing HTML (for the static copies of widgets)."""
        import plotly.io as pio

        if self._static_maker is not None:
            return self._static_maker().static_html()
        spec = pio.renderers["plotly_mimetype"].to_mimebundle(self.to_dict())["application/vnd.plotly.v1+json"]
        spec["config"] = FIGURE_CONFIG
        return figure_html(spec)


def as_figure(fig: go.Figure) -> Figure:
    """``fig`` as a threadlab Figure, without copying its data (same object, richer display)."""
    fig.__class__ = Figure
    return fig  # type: ignore[return-value]


def summary_line(fig: go.Figure) -> str:
    """``<threadlab timeline: 8 traces>``: what a figure says of itself outside a notebook."""
    meta = fig.layout.meta
    kind = meta.get("threadlab", "figure") if isinstance(meta, dict) else "figure"
    return f"<threadlab {kind}: {len(fig.data)} traces>"


def in_kernel() -> bool:
    """True inside a Jupyter kernel (JupyterLab, VS Code, nbconvert): a front end draws outputs."""
    try:
        from IPython import get_ipython
    except ImportError:  # pragma: no cover - IPython comes with ipywidgets
        return False
    shell = get_ipython()
    return shell is not None and getattr(shell, "kernel", None) is not None


class StaticCopy:
    """Mixin for ipywidgets: shown as the live widget plus a static HTML copy (``static_html``).
    Its ``repr`` is one line (``describe`` says what it shows), not the tree of its children."""

    def static_html(self) -> str:
        raise NotImplementedError

    def describe(self) -> str:
        return ""

    def __repr__(self) -> str:
        what = self.describe()
        return f"<threadlab {type(self).__name__}{': ' + what if what else ''}>"

    def _ipython_display_(self) -> None:
        from IPython.display import display

        bundle = widgets.DOMWidget._repr_mimebundle_(self)  # type: ignore[arg-type]
        if not _STATE["static"] or _NESTED.get():
            display(bundle, raw=True)
            return
        token = secrets.token_hex(6)
        self.add_class(f"tl-live-{token}")  # type: ignore[attr-defined]
        display(bundle, raw=True)
        with nested():
            inner = self.static_html()
        display({"text/html": static_copy(token, inner)}, raw=True)


def static_copy(token: str, inner: str) -> str:
    """The static copy of a live widget: hidden wherever the live one (class tl-live-TOKEN) is on the page."""
    hide = f"<style>body:has(.tl-live-{token}) .tl-static-{token}{{display:none}}</style>"
    return f'{hide}<div class="tl-static tl-static-{token}">{inner}</div>'


class HtmlView(StaticCopy, widgets.HTML):
    """An HTML widget whose value is markup threadlab built (all user text escaped)."""

    def _repr_html_(self) -> str:
        return str(self.value)

    def static_html(self) -> str:
        return str(self.value)

    def describe(self) -> str:
        return f"{len(str(self.value)):,} characters of HTML"


@contextmanager
def nested() -> Iterator[None]:
    """Inside: displays are parts of another widget (no static copies of their own)."""
    token = _NESTED.set(True)
    try:
        yield
    finally:
        _NESTED.reset(token)


def figure_output(figure: go.Figure | None = None) -> widgets.Output:
    """An Output widget showing ``figure`` (plotly's own mime renderer draws it)."""
    out = widgets.Output()
    if figure is not None:
        show_in(out, figure)
    return out


def show_in(out: widgets.Output, content: Any) -> None:
    """Replace what ``out`` shows with ``content`` (a figure, widget or anything displayable).
    Outside a kernel nothing is shown (no front end would draw it; IPython would print it)."""
    from IPython.display import display

    if not in_kernel():
        return
    out.clear_output(wait=True)
    with out, nested():
        display(content)


def clear(out: widgets.Output) -> None:
    """Empty ``out`` (outside a kernel there is nothing to empty; IPython would print escapes)."""
    if in_kernel():
        out.clear_output()


def static_of(content: Any) -> str:
    """The static HTML of anything a widget shows: threadlab figures and widgets, HTML widgets."""
    if isinstance(content, Figure | StaticCopy):
        return content.static_html()
    if isinstance(content, go.Figure):
        return as_figure(content).static_html()
    if isinstance(content, widgets.HTML):
        return str(content.value)
    html = getattr(content, "_repr_html_", None)
    return html() if callable(html) else ""
