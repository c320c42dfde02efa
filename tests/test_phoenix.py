"""Phoenix span dataframes: the three ways users keep them read alike, and a folder walk reads
only the Parquet files that are span dataframes (threadlab's own datasets are listed, not read)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import threadlab as tl
from threadlab.core.problems import ThreadError
from threadlab.formats import detect_format
from threadlab.formats.common.source import Source
from threadlab.formats.phoenix import DATASET, NOT_SPANS

HERE = Path(__file__).parent / "fixtures" / "phoenix"
SAVED, RECORDS, LINES = HERE / "trace_dataset.parquet", HERE / "spans_dataframe.json", HERE / "spans_dataframe.jsonl"


def _steps(path: Path) -> list[tuple[str, str, object, object]]:
    threads = sorted(tl.read_all(path), key=lambda t: t.actions[0].timestamp)  # the server lists the newest trace first
    return [(a.action_type, getattr(a, "agent_id", None), getattr(a, "usage", None), a.timestamp) for t in threads for a in t.actions]


def test_parquet_and_json_give_the_same_threads() -> None:
    saved = _steps(SAVED)
    assert [s[0] for s in saved] == ["user_message", "assistant_message", "tool_call", "tool_return", "assistant_message", "user_message", "assistant_message"]
    assert _steps(LINES) == saved  # ISO times with nanoseconds: the same moments
    assert _steps(HERE / "served_spans.parquet") == saved  # the server's frame: a column per dotted attribute
    # epoch milliseconds (to_json's default) keep the millisecond
    assert [(a, b, c) for a, b, c, _ in _steps(RECORDS)] == [(a, b, c) for a, b, c, _ in saved]
    assert [t.replace(microsecond=t.microsecond // 1000 * 1000) for *_, t in saved] == [t for *_, t in _steps(RECORDS)]
    assert [(a, b, c) for a, b, c, _ in _steps(HERE / "served_spans.json")] == [(a, b, c) for a, b, c, _ in saved]


def test_detected_by_content_only() -> None:
    assert detect_format(Source(SAVED)).NAME == "phoenix"
    other = pa.table({"span_id": ["a"], "name": ["x"]})
    sink = pa.BufferOutputStream()
    pq.write_table(other, sink)
    other_bytes = Source(sink.getvalue().to_pybytes(), name="other.parquet")
    with pytest.raises(ThreadError, match="no format"):
        detect_format(other_bytes)


def test_a_walk_reads_span_dataframes_and_lists_other_parquet(tmp_path: Path) -> None:
    shutil.copyfile(SAVED, tmp_path / "spans.parquet")
    shutil.copyfile(HERE.parent / "langfuse" / "observations.parquet", tmp_path / "observations.parquet")  # Langfuse's: read too
    pq.write_table(pa.table({"a": [1, 2]}), tmp_path / "numbers.parquet")
    tl.load(SAVED, progress=False).to_parquet(tmp_path / "dataset")
    frames = tl.load(tmp_path, progress=False)
    assert sorted(Path(s).name for s in frames.threads["source"].unique()) == ["observations.parquet", "spans.parquet"]
    assert set(frames.threads["format"]) == {"phoenix", "langfuse"}
    assert len(frames.problems) == 0, frames.problems
    reasons = {Path(p).name: r for p, r in zip(frames.skipped["path"], frames.skipped["reason"], strict=True)}
    assert reasons["numbers.parquet"] == NOT_SPANS
    assert reasons["threadlab-schema.json"] == DATASET and reasons["actions"] == DATASET  # the dataset's part folders, not walked
    old = tmp_path / "old"
    old.mkdir()
    for table in ("actions", "threads"):  # the layout before the schema file
        pq.write_table(pa.table({"thread_id": ["t"]}), old / f"{table}.parquet")
    reasons = {Path(p).name: r for p, r in zip(*(tl.load(old, progress=False).skipped[c] for c in ("path", "reason")), strict=True)}
    assert reasons == {"actions.parquet": DATASET, "threads.parquet": DATASET}
