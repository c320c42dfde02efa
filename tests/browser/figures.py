"""Figures at a given number of runs, drawn in Chromium on a static page, and the check that no
two pieces of text on a figure overlap.

``corpus`` writes N generated runs (``benchmarks/corpus.py``: three agents, tool calls with
errors, hand-offs, usage) to a folder; ``figures_of`` makes every figure threadlab draws from
them; ``static_page`` puts figures on one HTML page with the plotly.js that ships in the plotly
package (no kernel, no network); ``OVERLAPS_JS`` lists the pairs of text boxes that intersect."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import orjson

ROOT = Path(__file__).resolve().parents[2]

# every piece of text plotly draws that a reader must be able to read: tick labels, legend
# entries, the figure and panel titles, axis titles, text marks on bars
TEXT_SELECTORS = (".xtick text", ".ytick text", ".legendtext", ".gtitle", ".annotation-text", ".g-xtitle text", ".g-ytitle text",
                  ".g-x2title text", ".g-y2title text", ".g-x3title text", ".g-y3title text", ".textpoint text", ".colorbar text")

OVERLAPS_JS = """(gd) => {
  const sel = SELECTORS;
  const boxes = [];
  for (const s of sel) {
    for (const el of gd.querySelectorAll(s)) {
      const r = el.getBoundingClientRect();
      if (r.width < 1 || r.height < 1 || !el.textContent.trim()) continue;
      if (getComputedStyle(el).opacity === '0' || el.closest('[display="none"]')) continue;
      boxes.push({s, t: el.textContent.slice(0, 40), l: r.left, r: r.right, top: r.top, b: r.bottom});
    }
  }
  const legend = gd.querySelectorAll('.legend .bg');
  for (const bg of legend) {
    const r = bg.getBoundingClientRect();
    if (r.width > 1) boxes.push({s: 'legend box', t: '', l: r.left, r: r.right, top: r.top, b: r.bottom, box: true});
  }
  const out = [];
  const pad = 0.5;
  for (let i = 0; i < boxes.length; i++) for (let j = i + 1; j < boxes.length; j++) {
    const a = boxes[i], b = boxes[j];
    if ((a.box && b.s === '.legendtext') || (b.box && a.s === '.legendtext')) continue;  // entries sit inside their legend
    if (a.box && b.box) continue;
    if (a.l < b.r - pad && b.l < a.r - pad && a.top < b.b - pad && b.top < a.b - pad) out.push(`${a.s} "${a.t}" × ${b.s} "${b.t}"`);
  }
  return {n: boxes.length, overlaps: out};
}""".replace("SELECTORS", orjson.dumps(list(TEXT_SELECTORS)).decode())


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
    figs["timeline"] = tl.timeline(frames, thread_id=key)
    figs["tool_latency"] = latency_figure(frames.tool_calls)
    figs["compare_runs"] = tl.compare_runs(frames).figure
    figs["delegation"] = tl.delegation_graph(frames).figure
    return figs


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
