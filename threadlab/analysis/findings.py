"""The findings frame: one row per thing a scanner found, on a span of one thread's steps.

Columns (``FINDING_COLUMNS``): ``source`` and ``thread_id`` (the thread, as in every frame),
``scanner`` (the registered name), ``first_sequence`` / ``last_sequence`` (the span: the first
and last action involved), ``agent_name`` and ``tool_name`` (when the finding has one),
``severity`` (``info`` < ``warning`` < ``error``, an ordered categorical) and ``message`` (a
sentence saying what was found, with the numbers). ``Findings`` is a DataFrame that renders
as a list of findings whose rows unfold to the steps of their span (``analysis/html.py``)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from threadlab.analysis.arrays import objects
from threadlab.frames.frames import Frames

SEVERITIES = ("info", "warning", "error")
SEVERITY = pd.CategoricalDtype(list(SEVERITIES), ordered=True)
FINDING_COLUMNS = ("source", "thread_id", "scanner", "first_sequence", "last_sequence", "agent_name", "tool_name", "severity", "message")
_DTYPES: dict[str, Any] = {
    "source": "category", "thread_id": "category", "scanner": "category", "first_sequence": "Int64", "last_sequence": "Int64",
    "agent_name": "category", "tool_name": "category", "severity": SEVERITY, "message": pd.StringDtype("pyarrow"),
}


class Findings(pd.DataFrame):
    """A findings DataFrame (``FINDING_COLUMNS``) that keeps the frames it was found in, so a
    notebook shows each finding with the steps of its span (escaped)."""

    _metadata = ["_frames"]  # noqa: RUF012 (pandas reads this class attribute)

    @property
    def _constructor(self) -> type[Findings]:
        return Findings

    def _repr_html_(self) -> str | None:
        frames = getattr(self, "_frames", None)
        if frames is None or not set(FINDING_COLUMNS) <= set(self.columns):
            return super()._repr_html_()
        from threadlab.analysis.html import findings_html

        return findings_html(self, frames)


def empty_findings() -> pd.DataFrame:
    return typed_findings(pd.DataFrame({c: [] for c in FINDING_COLUMNS}))


def _sequences(values: Any) -> pd.api.extensions.ExtensionArray:
    """A sequence column as nullable ints: numpy ints with a negative value for none, or any
    values pandas reads as Int64."""
    if isinstance(values, np.ndarray) and values.dtype.kind in "iu":
        return pd.arrays.IntegerArray(values.astype(np.int64), mask=values < 0)
    return pd.array(pd.Series(values, dtype=object).where(pd.notna(pd.Series(values, dtype=object)), None), dtype="Int64")


def typed_findings(table: pd.DataFrame) -> pd.DataFrame:
    """``table`` with exactly the finding columns, in order (a missing one empty), each of its
    dtype; a severity that is none of ``SEVERITIES`` is a ValueError."""
    n = len(table)
    out: dict[str, Any] = {}
    for column in FINDING_COLUMNS:
        values = table[column].to_numpy() if column in table.columns else np.full(n, None, dtype=object)
        if column in ("first_sequence", "last_sequence"):
            out[column] = _sequences(values)
            continue
        series = pd.Series(values, dtype=object)
        series = series.where(series.notna(), None)
        if column == "severity":
            bad = ~series.isin(SEVERITIES)
            if bad.any():
                raise ValueError(f"severity must be one of {', '.join(SEVERITIES)}; got {series[bad].iloc[0]!r}")
        out[column] = series.astype(_DTYPES[column])
    return pd.DataFrame(out)


def finding_rows(frames: Frames, thread: np.ndarray, first: np.ndarray, last: np.ndarray, *, severity: str, message: Sequence[str],
                 agent_name: Sequence[Any] | None = None, tool_name: Sequence[Any] | None = None) -> pd.DataFrame:
    """Findings of one scanner from arrays: ``thread`` the threads-table row of each finding,
    ``first`` / ``last`` its span's sequences (negative: none)."""
    n = len(thread)
    return pd.DataFrame({
        "source": objects(frames.threads["source"])[thread],
        "thread_id": frames.threads["thread_id"].astype(object).to_numpy()[thread],
        "first_sequence": _sequences(np.asarray(first, dtype=np.int64)),
        "last_sequence": _sequences(np.asarray(last, dtype=np.int64)),
        "agent_name": list(agent_name) if agent_name is not None else [None] * n,
        "tool_name": list(tool_name) if tool_name is not None else [None] * n,
        "severity": [severity] * n,
        "message": list(message),
    })


def no_findings(frames: Frames) -> pd.DataFrame:
    empty = np.zeros(0, dtype=np.int64)
    return finding_rows(frames, empty, empty, empty, severity="info", message=[])


def count_by_thread(frames: Frames, findings: pd.DataFrame) -> np.ndarray:
    """How many findings each row of ``frames.threads`` has."""
    from threadlab.analysis.arrays import thread_rows

    rows = thread_rows(frames, findings) if len(findings) else np.zeros(0, dtype=np.int64)
    return np.bincount(rows[rows >= 0], minlength=len(frames.threads)).astype(np.int64)
