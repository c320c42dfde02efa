"""The explorer's findings: the filter by scanner and the Findings tab of the chosen thread.

The findings are the frames' last ``tl.scan`` (``frames.findings``); when there is none, the
explorer scans with every registered scanner the first time the findings are wanted (choosing
a scanner in the filter, opening the tab), not when it opens: a scan of 30,000 threads is a
second or two. Choosing a finding in the tab opens the transcript at the finding's first step."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import ipywidgets as widgets
import pandas as pd

from threadlab.frames.frames import Frames, ThreadKey
from threadlab.widgets.inputs import key_mask, objects
from threadlab.widgets.text import shorten
from threadlab.widgets.view import HtmlView


def findings_of(frames: Frames) -> pd.DataFrame:
    """The frames' findings, scanning once when no scan has run."""
    if getattr(frames, "findings", None) is None:
        from threadlab.analysis import scan

        scan(frames)
    return frames.findings  # type: ignore[return-value]


def scanner_options(frames: Frames) -> list[str]:
    """The scanners the filter offers: those with findings when a scan has run (most first), else
    every registered one (choosing one runs the scan)."""
    found = getattr(frames, "findings", None)
    if found is not None:
        return [str(s) for s in found["scanner"].astype(object).value_counts().index]
    from threadlab.analysis import scanner_names

    return scanner_names()


def thread_findings(frames: Frames, key: ThreadKey) -> pd.DataFrame:
    found = findings_of(frames)
    return found[key_mask(found, [key])]


class FindingsPane(widgets.VBox):
    """A picker of the thread's findings over their list (each unfolds to its steps); picking one
    calls ``open_at(key, first_sequence)``."""

    def __init__(self, frames: Frames, open_at: Callable[[ThreadKey, int], None]) -> None:
        self.frames = frames
        self.open_at = open_at
        self.key: ThreadKey | None = None
        self.picker = widgets.Select(description="open", layout=widgets.Layout(width="95%"))
        self.view = HtmlView()
        self.picker.observe(self._open, names="value")
        super().__init__([self.picker, self.view])

    def show(self, key: ThreadKey) -> None:
        from threadlab.analysis.findings import Findings
        from threadlab.analysis.html import findings_html

        self.key = key
        rows = thread_findings(self.frames, key)
        labels = [f"{scanner} · steps {first}–{last}: {shorten(str(message), 80)}"
                  for scanner, first, last, message in zip(*(objects(rows[c]) for c in ("scanner", "first_sequence", "last_sequence", "message")),
                                                           strict=True)]
        firsts = [int(v) for v in rows["first_sequence"].fillna(1).tolist()]
        self.picker.unobserve(self._open, names="value")
        self.picker.options = list(zip(labels, range(len(labels)), strict=True))
        self.picker.value = None
        self.picker.rows = max(2, min(6, len(labels)))
        self.picker.observe(self._open, names="value")
        self._firsts = firsts
        self.view.value = findings_html(Findings(rows), self.frames) if len(rows) else '<div class="tl-note">no findings in this thread</div>'

    @property
    def value(self) -> str:
        """The list's HTML; set (as the explorer sets its HTML panes when no thread matches), it
        replaces the list and leaves nothing to pick."""
        return str(self.view.value)

    @value.setter
    def value(self, html: str) -> None:
        self.key = None
        self.picker.options = []
        self.view.value = html

    def _open(self, change: Any) -> None:
        if change["new"] is not None and self.key is not None:
            self.open_at(self.key, self._firsts[change["new"]])
