"""``explorer``: one ipywidgets app over many threads.

A filterable threads table (by agent, tool, status, a scanner's findings and free-text search
over titles and every action's text; it counts the prompts a person typed and the times they
interrupted, not every user message) and a thread picker; the chosen thread is shown in five
tabs — timeline (findings shaded over their spans), transcript, tool calls, usage, findings (a
finding opens the transcript at its first step: ``explorer_findings.py``) — each drawn when its
tab is first opened."""

from __future__ import annotations

from typing import Any

import ipywidgets as widgets
import numpy as np
import pandas as pd

from threadlab.frames.frames import Frames, ThreadKey
from threadlab.widgets.explorer_findings import FindingsPane, findings_of, scanner_options
from threadlab.widgets.inputs import as_frames, objects, subset
from threadlab.widgets.styles import CSS
from threadlab.widgets.text import esc, shorten
from threadlab.widgets.view import HtmlView, StaticCopy, clear, show_in, static_of

ANY = "(any)"
STATUS_OPTIONS = (ANY, "tool errors", "pending calls", "problems", "interrupted", "clean")
TAB_TITLES = ("Timeline", "Transcript", "Tool calls", "Usage", "Findings")
FINDINGS_TAB = 4
MAX_TABLE_ROWS = 200
# the threads table: prompts are the ones a person typed (threads.n_human_prompts), not every user message
TABLE_COLUMNS = ("agents", "n_actions", "n_human_prompts", "n_interrupts", "n_tool_calls", "n_tool_errors", "n_pending", "n_problems",
                 "total_tokens", "cost_usd")
COLUMN_TITLES = {"n_human_prompts": "prompts", "n_interrupts": "interrupts"}


def _options(series: pd.Series) -> list[str]:
    return sorted({str(v) for v in objects(series) if v is not None})


class ThreadIndex:
    """Which row of the threads table each action and tool call belongs to, computed once, so a
    filter over 30,000 threads is a few vectorised passes (matched on source and thread_id)."""

    def __init__(self, frames: Frames) -> None:
        self.frames = frames
        self.keys = frames.keys()
        t = frames.threads
        self._index = pd.MultiIndex.from_arrays([t["source"].astype(object), t["thread_id"].astype(object)])
        self.action_rows = self.rows(frames.actions)
        self.call_rows = self.rows(frames.tool_calls)

    def rows(self, table: pd.DataFrame) -> np.ndarray:
        """For each row of ``table``, its thread's position in the threads table (-1: none)."""
        return self._index.get_indexer(pd.MultiIndex.from_arrays([table["source"], table["thread_id"]]))

    def having(self, rows: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """Threads (as a boolean mask) with at least one row where ``mask`` holds."""
        hit = rows[mask]
        out = np.zeros(len(self.keys), dtype=bool)
        out[hit[hit >= 0]] = True
        return out


def _contains(series: pd.Series, query: str) -> np.ndarray:
    return series.astype("string[pyarrow]").str.contains(query, case=False, regex=False).fillna(False).to_numpy(dtype=bool)


def filter_mask(index: ThreadIndex, *, agent: str = ANY, tool: str = ANY, status: str = ANY, search: str = "", finding: str = ANY) -> np.ndarray:
    """A boolean mask over the threads table: the threads matching every filter (``finding``: a
    scanner's name, the threads it found something in; scans once when no scan has run)."""
    frames = index.frames
    keep = np.ones(len(index.keys), dtype=bool)
    if finding != ANY:
        found = findings_of(frames)
        keep &= index.having(index.rows(found), (found["scanner"].astype(object) == finding).to_numpy())
    if agent != ANY:
        keep &= index.having(index.action_rows, (frames.actions["agent_name"].astype(object) == agent).to_numpy())
    if tool != ANY:
        keep &= index.having(index.call_rows, (frames.tool_calls["tool_name"].astype(object) == tool).to_numpy())
    if status != ANY:
        t = frames.threads
        counts = {c: t[c].astype("Float64").fillna(0).to_numpy(dtype="float64") if c in t.columns else np.zeros(len(t))
                  for c in ("n_tool_errors", "n_pending", "n_problems", "n_interrupts")}
        keep &= {
            "tool errors": counts["n_tool_errors"] > 0,
            "pending calls": counts["n_pending"] > 0,
            "problems": counts["n_problems"] > 0,
            "interrupted": counts["n_interrupts"] > 0,
            "clean": (counts["n_tool_errors"] + counts["n_pending"] + counts["n_problems"]) == 0,
        }[status]
    query = search.strip()
    if query and keep.any():
        titles = _contains(frames.threads["title"], query)
        keep &= titles | index.having(index.action_rows, _contains(frames.actions["text"], query))
    return keep


def filter_threads(frames: Frames, *, agent: str = ANY, tool: str = ANY, status: str = ANY, search: str = "", finding: str = ANY,
                   index: ThreadIndex | None = None) -> list[ThreadKey]:
    """The threads matching every filter, as (source, thread_id) keys in the frames' order."""
    index = index or ThreadIndex(frames)
    mask = filter_mask(index, agent=agent, tool=tool, status=status, search=search, finding=finding)
    return [index.keys[i] for i in np.flatnonzero(mask)]


def _short_source(source: str | None) -> str:
    return "" if source is None else shorten(source.replace("\\", "/").rsplit("/", 1)[-1], 40)


def threads_table_html(frames: Frames, positions: np.ndarray, selected: ThreadKey | None = None, *, max_rows: int = MAX_TABLE_ROWS) -> str:
    """The matching threads (rows of the threads table) as an escaped HTML table, the selected
    one in bold; the source column appears when two sources hold the same thread id."""
    t = frames.threads
    shown = t.iloc[positions[:max_rows]]
    cols = tuple(c for c in TABLE_COLUMNS if c in t.columns)  # frames saved before a column existed lack it
    dup = bool(t["thread_id"].duplicated().any())
    head = ("<tr><th>title</th>" + ("<th>source</th>" if dup else "")
            + "".join(f'<th title="{esc(c)}">{esc(COLUMN_TITLES.get(c, c.removeprefix("n_")))}</th>' for c in cols) + "</tr>")
    rows = []
    values = {c: objects(shown[c]) for c in (*cols, "title", "thread_id", "source")}
    for i in range(len(shown)):
        key = ThreadKey(values["source"][i], str(values["thread_id"][i]))
        cells = []
        for c in cols:
            value = values[c][i]
            text = "" if value is None else (f"${value:.4f}" if c == "cost_usd" else str(value))
            cells.append(f"<td>{esc(shorten(text, 60))}</td>")
        style = ' style="font-weight:600;background:#eef4ff"' if key == selected else ""
        src = f'<td title="{esc(key.source)}">{esc(_short_source(key.source))}</td>' if dup else ""
        rows.append(f'<tr data-thread-id="{esc(key.thread_id)}" data-source="{esc(key.source)}"{style}>'
                    f'<td>{esc(shorten(values["title"][i] or key.thread_id, 60))}</td>{src}{"".join(cells)}</tr>')
    more = f'<div class="tl-note">{len(positions) - max_rows:,} more threads match (narrow the filters)</div>' if len(positions) > max_rows else ""
    return f'{CSS}<div class="tl-root"><b>{len(positions):,} of {len(t):,} threads</b><table class="tl-table">{head}{"".join(rows)}</table>{more}</div>'


class Explorer(StaticCopy, widgets.VBox):
    """Filters, threads table, thread picker and the five tabs of the chosen thread. Threads are
    named by (source, thread_id) everywhere, so two files holding one thread id are two rows."""

    def __init__(self, frames: Frames) -> None:
        self.frames = frames
        self.index = ThreadIndex(frames)
        self.agent = widgets.Dropdown(options=[ANY, *_options(frames.actions["agent_name"])], description="agent")
        self.tool = widgets.Dropdown(options=[ANY, *_options(frames.tool_calls["tool_name"])], description="tool")
        self.status = widgets.Dropdown(options=STATUS_OPTIONS, description="status")
        self.search = widgets.Text(placeholder="text in a title or any action", description="search", continuous_update=False)
        self.finding = widgets.Dropdown(options=[ANY, *scanner_options(frames)], description="finding")
        self.table = HtmlView()
        self.picker = widgets.Select(description="thread", layout=widgets.Layout(width="95%"))
        self.findings_pane = FindingsPane(frames, self.open_transcript)
        self.panes: list[widgets.Widget] = [widgets.Output(), HtmlView(), widgets.Output(), widgets.Output(), self.findings_pane]
        self.tabs = widgets.Tab(children=self.panes, titles=TAB_TITLES)
        self._drawn: dict[int, ThreadKey | None] = {}
        self._positions = np.arange(len(self.index.keys))
        for control in (self.agent, self.tool, self.status, self.search, self.finding):
            control.observe(self._filter, names="value")
        self.picker.observe(self._pick, names="value")
        self.tabs.observe(self._draw_tab, names="selected_index")
        filters = widgets.HBox([self.agent, self.tool, self.status, self.finding, self.search], layout=widgets.Layout(flex_flow="row wrap"))
        super().__init__([filters, self.table, self.picker, self.tabs])
        self.add_class("threadlab-explorer")
        self._filter()

    def describe(self) -> str:
        return f"{len(self._positions):,} of {len(self.index.keys):,} threads"

    @property
    def matching(self) -> list[ThreadKey]:
        return [self.index.keys[i] for i in self._positions]

    def _filter(self, _change: Any = None) -> None:
        mask = filter_mask(self.index, agent=self.agent.value, tool=self.tool.value, status=self.status.value, search=self.search.value,
                           finding=self.finding.value)
        self._positions = np.flatnonzero(mask)
        shown = self._positions[:MAX_TABLE_ROWS]
        titles = objects(self.frames.threads["title"].iloc[shown])
        keys = [self.index.keys[i] for i in shown]
        dup = bool(self.frames.threads["thread_id"].duplicated().any())
        labels = [shorten(title or key.thread_id, 80) + f"  [{key.thread_id[:8]}" + (f" · {_short_source(key.source)}]" if dup else "]")
                  for title, key in zip(titles, keys, strict=True)]
        previous = self.picker.value
        # values are row positions in the threads table (a Select compares values, keys are tuples)
        self.picker.unobserve(self._pick, names="value")
        self.picker.options = list(zip(labels, (int(i) for i in shown), strict=True))
        self.picker.rows = max(2, min(6, len(keys)))
        self.picker.observe(self._pick, names="value")
        if len(shown) and previous not in set(shown.tolist()):
            self.picker.value = int(shown[0])
        elif previous is not None and self.picker.value != previous and previous in set(shown.tolist()):
            self.picker.value = previous
        self.table.value = threads_table_html(self.frames, self._positions, self.selected)
        if not len(shown) and self._drawn:  # nothing matches: the tabs must not go on showing the last thread
            self._drawn.clear()
            for pane in self.panes:
                if isinstance(pane, widgets.Output):
                    clear(pane)
                else:
                    pane.value = '<div class="tl-note">no thread matches the filters</div>'  # type: ignore[attr-defined]

    @property
    def selected(self) -> ThreadKey | None:
        """The thread the tabs show."""
        return None if self.picker.value is None else self.index.keys[self.picker.value]

    def _pick(self, _change: Any = None) -> None:
        self._drawn.clear()
        self.table.value = threads_table_html(self.frames, self._positions, self.selected)
        self._draw_tab()

    def _draw_tab(self, _change: Any = None) -> None:
        index = self.tabs.selected_index or 0
        key = self.selected
        if key is None or self._drawn.get(index) == key:
            return
        self._drawn[index] = key
        pane = self.panes[index]
        if index == 1:
            from threadlab.widgets.transcript import transcript_html

            pane.value = transcript_html(self.frames.thread(key))  # type: ignore[attr-defined]
            return
        if index == FINDINGS_TAB:
            self.findings_pane.show(key)
            return
        show_in(pane, self._content(index, key))  # type: ignore[arg-type]

    def open_transcript(self, key: ThreadKey, start: int) -> None:
        """The Transcript tab, from step ``start`` of thread ``key`` on (a finding's first step)."""
        from threadlab.widgets.transcript import transcript_html

        self.panes[1].value = transcript_html(self.frames.thread(key), start=start)  # type: ignore[attr-defined]
        self._drawn[1] = key
        self.tabs.selected_index = 1

    def _content(self, index: int, key: ThreadKey) -> Any:
        if index == 0:
            from threadlab.widgets.timeline import timeline

            return timeline(self.frames, thread_id=key, findings=getattr(self.frames, "findings", None))
        if index == 2:
            from threadlab.widgets.tool_call_view import tool_call_view

            return tool_call_view(self.frames, thread_id=key)
        from threadlab.widgets.token_usage import token_usage

        return token_usage(subset(self.frames, [key]), runs=True)  # one thread: its growth by model call too

    def static_html(self) -> str:
        """The threads table and the chosen thread's five views, one under the other."""
        key = self.selected
        parts = [str(self.table.value)]
        if key is not None:
            from threadlab.widgets.transcript import transcript_html

            for index, title in enumerate(TAB_TITLES):
                if index == FINDINGS_TAB:  # only a scan already run: a copy must not start one
                    if getattr(self.frames, "findings", None) is None:
                        continue
                    self.findings_pane.show(key)
                    body = str(self.findings_pane.view.value)
                else:
                    body = transcript_html(self.frames.thread(key)) if index == 1 else static_of(self._content(index, key))
                parts.append(f'<details class="tl-static-tab"{" open" if index == 0 else ""}><summary><b>{esc(title)}</b> · '
                             f'{esc(key.thread_id)}</summary>{body}</details>')
        return "".join(parts)


def explorer(data: Any) -> Explorer:
    """An app over Frames (or Threads): filter threads, pick one, look at it in tabs."""
    return Explorer(as_frames(data))


__all__ = ["Explorer", "explorer"]
