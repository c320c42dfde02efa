"""``frames.skipped``: the files a load's folder walk met and did not read, each with the reason
(``path``, ``reason``, ``bytes``; ``formats/common/walk.py`` decides, ``columns.SKIPPED`` declares).

The frame is made in the loading process from the walk, never by a worker nor kept in the
cache: the walk runs on every load (a cached reload walks the folder to know which entries it
may use), so a reload from the cache, a load on the pool or on the Dask engine lists the same
files as a first load. It is not one of the five frames (``Frames.tables()``, unpacking): it
says what was not read, not what was; ``to_parquet`` writes it beside them."""

from __future__ import annotations

from collections.abc import Iterable

import pandas as pd
import pyarrow as pa

from threadlab.frames.arrow import frame_of, table_of
from threadlab.frames.columns import SKIPPED
from threadlab.frames.typed import ARROW_TYPES

SCHEMA = pa.schema([(c.name, ARROW_TYPES[c.kind]) for c in SKIPPED])
SHOWN_REASONS = 3  # a repr names the most frequent reasons, the rest as "N more"


def skipped_table(rows: Iterable[tuple[str, str, int | None]]) -> pa.Table:
    """(path, reason, bytes) rows (the walk's ``Skipped``) → the typed Arrow table."""
    paths, reasons, sizes = [], [], []
    for path, reason, size in rows:
        paths.append(path)
        reasons.append(reason)
        sizes.append(size)
    return pa.Table.from_arrays([pa.array(paths, pa.large_string()), pa.array(reasons, pa.large_string()), pa.array(sizes, pa.int64())], schema=SCHEMA)


def skipped_frame(rows: Iterable[tuple[str, str, int | None]] = ()) -> pd.DataFrame:
    """The frame of (path, reason, bytes) rows, in walk order, with the declared dtypes."""
    return frame_of_table(skipped_table(rows))


def frame_of_table(table: pa.Table) -> pd.DataFrame:
    return frame_of(SKIPPED, table)


def table_of_frame(frame: pd.DataFrame) -> pa.Table:
    return table_of(SKIPPED, SCHEMA, frame)


def reason_counts(frame: pd.DataFrame) -> list[tuple[str, int]]:
    """(reason, how many) for every reason in ``frame``, the most frequent first (then by reason)."""
    counts = frame["reason"].astype(object).value_counts()
    return sorted(((str(reason), int(n)) for reason, n in counts.items()), key=lambda rn: (-rn[1], rn[0]))


def summary_line(frame: pd.DataFrame, limit: int | None = SHOWN_REASONS) -> str:
    """``"3 files skipped: 2 × not conversation data: Markdown text; 1 × an empty file"`` (empty
    when nothing was skipped); at most ``limit`` reasons, the others counted."""
    if frame.empty:
        return ""
    counts = reason_counts(frame)
    shown = counts if limit is None else counts[:limit]
    parts = [f"{n} × {reason}" for reason, n in shown]
    if len(counts) > len(shown):
        parts.append(f"{sum(n for _, n in counts[len(shown):])} more, for {len(counts) - len(shown)} other reason(s)")
    return f"{len(frame)} file{'s' if len(frame) != 1 else ''} skipped: " + "; ".join(parts)


__all__ = ["SCHEMA", "frame_of_table", "reason_counts", "skipped_frame", "skipped_table", "summary_line", "table_of_frame"]
