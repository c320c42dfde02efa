"""``explorer``: one ipywidgets app over many threads.

A filterable threads table (by agent, tool, status and free-text search over titles and every
action's text) and a thread picker; the chosen thread is shown in four tabs — timeline,
transcript, tool calls, usage — each drawn when its tab is first opened."""

from __future__ import annotations

from typing import Any

import ipywidgets as widgets
import numpy as np
import pandas as pd

from threadlab.frames.frames import Frames
from threadlab.widgets.inputs import as_frames, objects, subset, thread_ids
from threadlab.widgets.styles import CSS
from threadlab.widgets.text import esc, shorten
from threadlab.widgets.view import HtmlView, show_in

ANY = "(any)"
STATUS_OPTIONS = (ANY, "tool errors", "pending calls", "problems", "clean")
TAB_TITLES = ("Timeline", "Transcript", "Tool calls", "Usage")
MAX_TABLE_ROWS = 200


def _options(series: pd.Series) -> list[str]:
    return sorted({str(v) for v in objects(series) if v is not None})


def filter_threads(frames: Frames, *, agent: str = ANY, tool: str = ANY, status: str = ANY, search: str = "") -> list[str]:
    """Thread ids matching every filter, in the frames' order."""
    ids = thread_ids(frames)
    keep = set(ids)
    if agent != ANY:
        acts = frames.actions
        keep &= set(objects(acts["thread_id"][(acts["agent_name"].astype(object) == agent).to_numpy()]))
    if tool != ANY:
        calls = frames.tool_calls
        keep &= set(objects(calls["thread_id"][(calls["tool_name"].astype(object) == tool).to_numpy()]))
    if status != ANY:
        t = frames.threads
        counts = {c: t[c].astype("Float64").fillna(0).to_numpy(dtype="float64") for c in ("n_tool_errors", "n_pending", "n_problems")}
        mask = {
            "tool errors": counts["n_tool_errors"] > 0,
            "pending calls": counts["n_pending"] > 0,
            "problems": counts["n_problems"] > 0,
            "clean": (counts["n_tool_errors"] + counts["n_pending"] + counts["n_problems"]) == 0,
        }[status]
        keep &= set(np.asarray(ids, dtype=object)[mask])
    query = search.strip()
    if query:
        acts = frames.actions
        hits = acts["text"].astype("string").str.contains(query, case=False, regex=False).fillna(False).to_numpy(dtype=bool)
        titles = frames.threads["title"].astype("string").str.contains(query, case=False, regex=False).fillna(False).to_numpy(dtype=bool)
        keep &= set(objects(acts["thread_id"][hits])) | set(np.asarray(ids, dtype=object)[titles])
    return [i for i in ids if i in keep]


def threads_table_html(frames: Frames, ids: list[str], selected: str | None = None, *, max_rows: int = MAX_TABLE_ROWS) -> str:
    """The matching threads as an escaped HTML table (the selected one in bold)."""
    t = frames.threads.set_index(frames.threads["thread_id"].astype(object))
    cols = ("agents", "n_actions", "n_tool_calls", "n_tool_errors", "n_pending", "n_problems", "total_tokens", "cost_usd")
    head = "<tr><th>title</th>" + "".join(f"<th>{esc(c.removeprefix('n_'))}</th>" for c in cols) + "</tr>"
    rows = []
    for tid in ids[:max_rows]:
        row = t.loc[tid]
        cells = []
        for c in cols:
            value = row[c]
            text = "" if pd.isna(value) else (f"${value:.4f}" if c == "cost_usd" else str(value))
            cells.append(f"<td>{esc(shorten(text, 60))}</td>")
        style = ' style="font-weight:600;background:#eef4ff"' if tid == selected else ""
        rows.append(f'<tr data-thread-id="{esc(tid)}"{style}><td>{esc(shorten(row["title"] or tid, 60))}</td>{"".join(cells)}</tr>')
    more = f'<div class="tl-note">{len(ids) - max_rows} more threads match</div>' if len(ids) > max_rows else ""
    return f'{CSS}<div class="tl-root"><b>{len(ids)} of {len(t)} threads</b><table class="tl-table">{head}{"".join(rows)}</table>{more}</div>'


class Explorer(widgets.VBox):
    """Filters, threads table, thread picker and the four tabs of the chosen thread."""

    def __init__(self, frames: Frames) -> None:
        self.frames = frames
        self.agent = widgets.Dropdown(options=[ANY, *_options(frames.actions["agent_name"])], description="agent")
        self.tool = widgets.Dropdown(options=[ANY, *_options(frames.tool_calls["tool_name"])], description="tool")
        self.status = widgets.Dropdown(options=STATUS_OPTIONS, description="status")
        self.search = widgets.Text(placeholder="text in a title or any action", description="search", continuous_update=False)
        self.table = HtmlView()
        self.picker = widgets.Select(description="thread", layout=widgets.Layout(width="95%"))
        self.panes: list[widgets.Widget] = [widgets.Output(), HtmlView(), widgets.Output(), widgets.Output()]
        self.tabs = widgets.Tab(children=self.panes, titles=TAB_TITLES)
        self._drawn: dict[int, str | None] = {}
        for control in (self.agent, self.tool, self.status, self.search):
            control.observe(self._filter, names="value")
        self.picker.observe(self._pick, names="value")
        self.tabs.observe(self._draw_tab, names="selected_index")
        filters = widgets.HBox([self.agent, self.tool, self.status, self.search], layout=widgets.Layout(flex_flow="row wrap"))
        super().__init__([filters, self.table, self.picker, self.tabs])
        self.add_class("threadlab-explorer")
        self._filter()

    @property
    def matching(self) -> list[str]:
        return filter_threads(self.frames, agent=self.agent.value, tool=self.tool.value, status=self.status.value, search=self.search.value)

    def _filter(self, _change: Any = None) -> None:
        ids = self.matching
        titles = dict(zip(objects(self.frames.threads["thread_id"]), objects(self.frames.threads["title"]), strict=True))
        self.picker.options = [(shorten(titles.get(i) or i, 80) + f"  [{i[:8]}]", i) for i in ids[:MAX_TABLE_ROWS]]
        self.picker.rows = max(2, min(6, len(ids)))
        if ids and self.picker.value not in ids:
            self.picker.value = ids[0]
        self.table.value = threads_table_html(self.frames, ids, self.picker.value)

    def _pick(self, _change: Any = None) -> None:
        self._drawn.clear()
        self.table.value = threads_table_html(self.frames, self.matching, self.picker.value)
        self._draw_tab()

    def _draw_tab(self, _change: Any = None) -> None:
        index = self.tabs.selected_index or 0
        tid = self.picker.value
        if tid is None or self._drawn.get(index) == tid:
            return
        self._drawn[index] = tid
        pane = self.panes[index]
        if index == 1:
            from threadlab.widgets.transcript import transcript_html

            pane.value = transcript_html(self.frames.thread(tid))  # type: ignore[attr-defined]
            return
        show_in(pane, self._content(index, tid))  # type: ignore[arg-type]

    def _content(self, index: int, tid: str) -> Any:
        if index == 0:
            from threadlab.widgets.timeline import timeline

            return timeline(self.frames, thread_id=tid)
        if index == 2:
            from threadlab.widgets.tool_call_view import tool_call_view

            return tool_call_view(self.frames, thread_id=tid)
        from threadlab.widgets.token_usage import token_usage

        return token_usage(subset(self.frames, [tid]))


def explorer(data: Any) -> Explorer:
    """An app over Frames (or Threads): filter threads, pick one, look at it in tabs."""
    return Explorer(as_frames(data))


__all__ = ["Explorer", "explorer"]
