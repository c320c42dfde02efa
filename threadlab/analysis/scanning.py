"""``scan``: run scanners over frames and gather their findings in one frame.

``frames.threads`` is not given ``n_findings`` by ``load`` (a load stays as fast as it was, and a
count would have to say which scanners it counts): ``scan`` adds the column, the count of its
findings per thread (0 for a thread with none), and keeps the findings on ``frames.findings``
for the widgets (the explorer's Findings tab). A later ``scan`` replaces both."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

import numpy as np
import pandas as pd

from threadlab.analysis.arrays import as_frames, thread_rows
from threadlab.analysis.findings import FINDING_COLUMNS, Findings, count_by_thread, empty_findings, typed_findings
from threadlab.analysis.registry import Scanner, get_scanner, scanner_names
from threadlab.frames.frames import Frames

ScannerChoice = None | str | Iterable[str] | Mapping[str, Mapping[str, Any] | None]


def _plan(scanners: ScannerChoice) -> list[tuple[str, Scanner, dict[str, Any]]]:
    """(name, function, parameters) of each scanner to run, checked before any runs."""
    if scanners is None:
        chosen: dict[str, dict[str, Any]] = {name: {} for name in scanner_names()}
    elif isinstance(scanners, str):
        chosen = {scanners: {}}
    elif isinstance(scanners, Mapping):
        chosen = {name: dict(params or {}) for name, params in scanners.items()}
    else:
        chosen = {name: {} for name in scanners}
    return [(name, get_scanner(name), params) for name, params in chosen.items()]


def scan(frames: Any, scanners: ScannerChoice = None) -> Findings:
    """Run scanners over ``frames`` (Frames, a Thread or Threads) and return their findings, one
    row each (``findings.FINDING_COLUMNS``), in thread order, then by first step.

    ``scanners``: None runs every registered scanner (``tl.scanner_names()``); a name or a list
    of names runs those; a mapping ``{name: {parameter: value}}`` runs those with other
    thresholds. An unknown name is a ValueError listing the known ones. On Frames, adds
    ``frames.threads["n_findings"]`` and sets ``frames.findings`` (see the module docstring)."""
    given = frames
    frames = as_frames(frames)
    parts = []
    for name, fn, params in _plan(scanners):
        rows = fn(frames, **params)
        if not isinstance(rows, pd.DataFrame):
            raise TypeError(f"scanner {name!r} returned {type(rows).__name__}, not a DataFrame of findings")
        rows = rows.reindex(columns=list(FINDING_COLUMNS)).astype(object)
        rows["scanner"] = rows["scanner"].where(rows["scanner"].notna(), name)
        parts.append(rows)
    table = pd.concat(parts, ignore_index=True) if parts else pd.DataFrame(columns=list(FINDING_COLUMNS))
    table = typed_findings(table) if len(table) else empty_findings()
    if len(table):
        rank = {name: i for i, name in enumerate(scanner_names())}
        first = table["first_sequence"].fillna(-1).to_numpy(dtype=np.int64)
        scanner_rank = table["scanner"].astype(object).map(lambda s: rank.get(s, len(rank))).to_numpy(dtype=np.int64)
        table = table.iloc[np.lexsort((scanner_rank, first, thread_rows(frames, table)))].reset_index(drop=True)
    out = Findings(table)
    out._frames = frames
    if isinstance(given, Frames):
        given.threads["n_findings"] = pd.array(count_by_thread(frames, out), dtype="Int64")
        given.findings = out
    return out


__all__ = ["scan"]
