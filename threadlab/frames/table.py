"""Assemble extracted column lists into DataFrames with each column's declared dtype."""

from __future__ import annotations

from typing import Any

import pandas as pd

from threadlab.frames.columns import DTYPES, TABLES
from threadlab.frames.extract import Columns


def _series(values: list[Any], kind: str, name: str) -> pd.Series:
    if kind == "time":
        return pd.Series(pd.to_datetime(pd.Series(values, dtype=object), utc=True, format="ISO8601"), name=name).astype(DTYPES["time"])
    if kind == "label":
        return pd.Series(pd.Categorical(pd.array(values, dtype=DTYPES["str"])), name=name)
    return pd.Series(pd.array(values, dtype=DTYPES[kind]), name=name)


def assemble(table: str, columns: Columns) -> pd.DataFrame:
    frame = pd.DataFrame({c.name: _series(columns[c.name], c.kind, c.name) for c in TABLES[table]})
    if table == "tool_calls" and len(frame):
        frame["latency_s"] = ((frame["return_time"] - frame["call_time"]).dt.total_seconds()).astype("Float64")
    if table == "threads" and len(frame):
        frame["duration_s"] = ((frame["last_action_at"] - frame["first_action_at"]).dt.total_seconds()).astype("Float64")
    return frame


def empty_frame(table: str) -> pd.DataFrame:
    return assemble(table, {c.name: [] for c in TABLES[table]})
