"""Figures at a given number of runs, drawn in Chromium on a static page, and the check that no
two pieces of text on a figure overlap.

``corpus`` writes N generated runs (``benchmarks/corpus.py``: three agents, tool calls with
errors, hand-offs, usage) to a folder; ``figures_of`` makes every figure threadlab draws from
them; ``static_page`` puts figures on one HTML page with the plotly.js that ships in the plotly
package (no kernel, no network); ``OVERLAPS_JS`` lists the pairs of text boxes that intersect (a
legend over a panel title) and the text that runs past the figure's edge (a label cut off);
``EMPTY_JS`` the panels drawn with axes and no data (a chart of nothing)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import orjson

ROOT = Path(__file__).resolve().parents[2]

# every piece of text plotly draws that a reader must be able to read: tick labels, legend
# entries (of every legend: the second one's are .legend2text), the figure and panel titles,
# axis titles, text marks on bars
LEGEND_TEXT = 'text[class^="legend"][class$="text"]'
TEXT_SELECTORS = (".xtick text", ".ytick text", LEGEND_TEXT, ".gtitle", ".annotation-text", ".g-xtitle text", ".g-ytitle text",
                  ".g-x2title text", ".g-y2title text", ".g-x3title text", ".g-y3title text", ".textpoint text", ".colorbar text")

OVERLAPS_JS = """(gd) => {
  const sel = SELECTORS;
  const boxes = [];
  for (const s of sel) {
    for (const el of gd.querySelectorAll(s)) {
      const r = el.getBoundingClientRect();
      if (r.width < 1 || r.height < 1 || !el.textContent.trim()) continue;
      if (getComputedStyle(el).opacity === '0' || el.closest('[display="none"]')) continue;
      const legend = s === LEGEND ? el.getAttribute('class').replace(/text$/, '') : null;
      boxes.push({s, t: el.textContent.slice(0, 40), l: r.left, r: r.right, top: r.top, b: r.bottom, legend});
    }
  }
  for (const bg of gd.querySelectorAll('g[class^="legend"] > rect.bg')) {
    const r = bg.getBoundingClientRect();
    const legend = bg.parentNode.getAttribute('class');
    if (r.width > 1) boxes.push({s: legend + ' box', t: '', l: r.left, r: r.right, top: r.top, b: r.bottom, box: true, legend});
  }
  const out = [];
  const pad = 0.5;
  const frame = gd.getBoundingClientRect();
  const cut = boxes.filter(b => !b.box && (b.l < frame.left - 1 || b.r > frame.right + 1 || b.top < frame.top - 1 || b.b > frame.bottom + 1))
                   .map(b => `${b.s} "${b.t}" past the edge`);
  for (let i = 0; i < boxes.length; i++) for (let j = i + 1; j < boxes.length; j++) {
    const a = boxes[i], b = boxes[j];
    if ((a.box || b.box) && a.legend && a.legend === b.legend) continue;  // entries sit inside their own legend
    if (a.box && b.box) continue;
    if (a.l < b.r - pad && b.l < a.r - pad && a.top < b.b - pad && b.top < a.b - pad) out.push(`${a.s} "${a.t}" × ${b.s} "${b.t}"`);
  }
  return {n: boxes.length, overlaps: out, cut};
}""".replace("SELECTORS", orjson.dumps(list(TEXT_SELECTORS)).decode()).replace("LEGEND", orjson.dumps(LEGEND_TEXT).decode())

EMPTY_JS = """(gd) => {
  const finite = (a) => Array.from(a || []).some(v => typeof v === 'number' ? isFinite(v) : (v !== null && v !== undefined && v !== ''));
  const empty = [];
  for (const [id, plot] of Object.entries(gd._fullLayout._plots || {})) {
    if (!plot.xaxis.visible && !plot.yaxis.visible) continue;
    const mine = gd._fullData.filter(t => t.visible === true && t.xaxis === plot.xaxis._id && t.yaxis === plot.yaxis._id);
    const drawn = mine.some(t => t.type === 'heatmap' ? finite([].concat(...Array.from(t.z || [], r => Array.from(r))))
                                 : t.type === 'bar' ? finite(t.orientation === 'h' ? t.x : t.y) : finite(t.x) && finite(t.y));
    if (!drawn) empty.push(id);
  }
  return empty;
}"""


def corpus(folder: Path, n_runs: int, *, seed: int = 17, target_bytes: int = 5_000) -> Path:
    """``n_runs`` generated runs as ThreadProtocol files in ``folder`` (deterministic)."""
    sys.path.insert(0, str(ROOT / "benchmarks"))
    from corpus import thread_doc

    folder.mkdir(parents=True, exist_ok=True)
    for index in range(n_runs):
        (folder / f"run-{index:05d}.json").write_bytes(orjson.dumps(thread_doc(seed, index, target_bytes=target_bytes)))
    return folder


def figures_of(frames: Any) -> dict[str, Any]:
    """Every figure threadlab draws, by name, on these frames."""
    import threadlab as tl
    from threadlab.widgets.tool_call_view import latency_figure

    costliest = frames.threads.sort_values("cost_usd", ascending=False).iloc[0]
    key = (costliest["source"], costliest["thread_id"])
    figs = {f"token_usage_{by}": tl.token_usage(frames, by=by) for by in ("agent", "model", "thread", "tool")}
    figs["token_usage_no_cost"] = tl.token_usage(without_cost(frames), by="thread")
    figs["timeline"] = tl.timeline(frames, thread_id=key)
    figs["tool_latency"] = latency_figure(frames.tool_calls)
    figs["compare_runs"] = tl.compare_runs(frames).figure
    figs["delegation"] = tl.delegation_graph(frames).figure
    return figs


def without_cost(frames: Any) -> Any:
    """The same frames with no cost known (models genai-prices does not price)."""
    import pandas as pd

    import threadlab as tl

    usage, threads = frames.usage.copy(), frames.threads.copy()
    usage["cost_usd"] = pd.Series(pd.NA, index=usage.index, dtype=usage["cost_usd"].dtype)
    threads["cost_usd"] = pd.Series(pd.NA, index=threads.index, dtype=threads["cost_usd"].dtype)
    return tl.Frames(frames.actions, frames.tool_calls, usage, threads, frames.problems)


def static_page(figures: dict[str, Any], width: int = 1100) -> str:
    """One HTML page drawing each figure in a div named by its key (plotly.js inlined)."""
    from plotly.offline import get_plotlyjs

    divs, calls = [], []
    for name, fig in figures.items():
        spec = fig.to_json().replace("<", "\\u003c")
        divs.append(f'<div id="{name}" class="fig" style="width:{width}px"></div>')
        calls.append(f"drawn.push(Plotly.newPlot('{name}', ...(f => [f.data, f.layout, {{displaylogo: false}}])({spec})));")
    return (f"<!doctype html><html><head><meta charset='utf-8'><script>{get_plotlyjs()}</script></head><body style='margin:0'>"
            f"{''.join(divs)}<script>window.drawn = []; {''.join(calls)} Promise.all(window.drawn).then(() => window.allDrawn = true);</script></body></html>")
