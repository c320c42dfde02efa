"""frames.to_parquet(url) as a dataset (a folder per table, threadlab-schema.json) and
threadlab.read_parquet back: equal frames, hive partitions, append, schema versions.

Data: the bundled threads in data/ (several formats, real converter output) with the Claude
Code and Codex fixtures, so every table has rows and the partitions several values."""

from __future__ import annotations

import warnings
from pathlib import Path

import orjson
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import threadlab
from threadlab.frames.dataset import SchemaWarning
from threadlab.frames.frames import TABLE_NAMES
from threadlab.frames.schema import SCHEMA_FILE, SchemaVersionError

from .test_load import assert_same_frames

ROOT = Path(__file__).resolve().parent.parent
SOURCES = [ROOT / "data" / "runs", ROOT / "data" / "claude_code", ROOT / "tests" / "fixtures" / "codex"]


@pytest.fixture(scope="module")
def frames() -> threadlab.Frames:
    frames = threadlab.load(SOURCES, progress=False, workers=1)
    assert frames.threads["format"].nunique() >= 2 and len(frames.problems) and len(frames.tool_calls)
    return frames


def document(folder: Path) -> dict:
    return orjson.loads((folder / SCHEMA_FILE).read_bytes())


def test_round_trip_is_equal(frames: threadlab.Frames, tmp_path: Path) -> None:
    out = frames.to_parquet(tmp_path / "ds")
    assert out == tmp_path / "ds"
    back = threadlab.read_parquet(tmp_path / "ds")
    assert_same_frames(frames, back)
    pd.testing.assert_frame_equal(frames.skipped.reset_index(drop=True), back.skipped.reset_index(drop=True))
    doc = document(tmp_path / "ds")
    assert doc["version"] == "1.0" and len(doc["parts"]) == 1
    # every column of every table declared, with its type and meaning
    for name in [*TABLE_NAMES, "skipped", "agent_usage"]:
        columns = doc["tables"][name]["columns"]
        assert columns and all(c["doc"] and c["type"] for c in columns)
        assert (tmp_path / "ds" / name).is_dir() or name == "skipped"
    assert [c["name"] for c in doc["tables"]["actions"]["columns"]] == list(frames.actions.columns)
    # the derived agent_usage table is kept for SQL and equals the frames' own
    stored = pq.read_table(tmp_path / "ds" / "agent_usage").to_pandas()
    assert len(stored) == len(frames.agent_usage()) > 0


def test_partitioned_round_trip(frames: threadlab.Frames, tmp_path: Path) -> None:
    frames.to_parquet(tmp_path / "ds", partition_by=("format",))
    formats = sorted(frames.threads["format"].astype(str).unique())
    held = sorted(p.name for p in (tmp_path / "ds" / "actions").iterdir())
    assert held == [f"format={f}" for f in formats]
    assert_same_frames(frames, threadlab.read_parquet(tmp_path / "ds"))
    with pytest.raises(ValueError, match="partition_by takes label columns"):
        frames.to_parquet(tmp_path / "other", partition_by="n_actions")


def test_append_adds_a_second_load(frames: threadlab.Frames, tmp_path: Path) -> None:
    first = threadlab.load(SOURCES[:1], progress=False, workers=1)
    second = threadlab.load(SOURCES[1:], progress=False, workers=1)
    first.to_parquet(tmp_path / "ds", partition_by="format")
    second.to_parquet(tmp_path / "ds", mode="append")
    back = threadlab.read_parquet(tmp_path / "ds")
    assert len(document(tmp_path / "ds")["parts"]) == 2
    for name in TABLE_NAMES:
        got = getattr(back, name).reset_index(drop=True)
        expected = pd.concat([getattr(first, name), getattr(second, name)], ignore_index=True)
        expected = expected.astype({c: got[c].dtype for c in got.columns if got[c].dtype == "category"})
        pd.testing.assert_frame_equal(got, expected, check_categorical=False, obj=name)
    # write replaces what was there
    first.to_parquet(tmp_path / "ds")
    assert_same_frames(first, threadlab.read_parquet(tmp_path / "ds"))
    assert not any("format=" in str(p) for p in (tmp_path / "ds").rglob("*.parquet"))
    with pytest.raises(ValueError, match="mode must be"):
        first.to_parquet(tmp_path / "ds", mode="overwrite")


def test_newer_major_schema_is_refused(frames: threadlab.Frames, tmp_path: Path) -> None:
    frames.to_parquet(tmp_path / "ds")
    doc = document(tmp_path / "ds")
    doc["version"], doc["written_by"] = "3.0", "threadlab 9.0"
    (tmp_path / "ds" / SCHEMA_FILE).write_bytes(orjson.dumps(doc))
    with pytest.raises(SchemaVersionError, match=r"schema 3\.0 \(threadlab 9\.0\).*upgrade threadlab"):
        threadlab.read_parquet(tmp_path / "ds")
    with pytest.raises(SchemaVersionError):
        frames.to_parquet(tmp_path / "ds", mode="append")


def test_newer_minor_and_older_schema_read(frames: threadlab.Frames, tmp_path: Path) -> None:
    frames.to_parquet(tmp_path / "ds")
    [path] = (tmp_path / "ds" / "threads").glob("*.parquet")
    table = pq.read_table(path)
    # a newer minor version added a column: left out, with a warning
    pq.write_table(table.append_column("n_future", pa.array([1] * table.num_rows)), path)
    with pytest.warns(SchemaWarning, match="n_future"):
        back = threadlab.read_parquet(tmp_path / "ds")
    assert_same_frames(frames, back)
    # an older one lacked a column: it comes back empty, with its dtype
    pq.write_table(table.drop_columns(["n_interrupts"]), path)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        back = threadlab.read_parquet(tmp_path / "ds")
    assert back.threads["n_interrupts"].isna().all() and back.threads["n_interrupts"].dtype == frames.threads["n_interrupts"].dtype
    pd.testing.assert_frame_equal(back.threads.drop(columns="n_interrupts"), frames.threads.drop(columns="n_interrupts"))


def test_version_0_folder_reads_and_appends(frames: threadlab.Frames, tmp_path: Path) -> None:
    """The five files an older threadlab wrote: read as before; an append makes them a dataset."""
    old = tmp_path / "old"
    old.mkdir()
    for name, table in frames.to_arrow().items():
        pq.write_table(table, old / f"{name}.parquet")
    assert_same_frames(frames, threadlab.read_parquet(old), check_categorical=False)
    frames.to_parquet(old, mode="append")
    assert not (old / "actions.parquet").exists() and len(document(old)["parts"]) == 2
    assert len(threadlab.read_parquet(old).actions) == 2 * len(frames.actions)


def test_stopped_write_is_invisible_and_cleaned(frames: threadlab.Frames, tmp_path: Path) -> None:
    frames.to_parquet(tmp_path / "ds")
    stray = tmp_path / "ds" / "actions" / "part-000009-0123abcd.parquet"
    stray.write_bytes((next((tmp_path / "ds" / "actions").glob("*.parquet"))).read_bytes())
    assert_same_frames(frames, threadlab.read_parquet(tmp_path / "ds"))  # not listed: not read
    frames.to_parquet(tmp_path / "ds", mode="append")
    assert not stray.exists()


def test_foreign_folder_is_not_written(frames: threadlab.Frames, tmp_path: Path) -> None:
    (tmp_path / "x" / "actions").mkdir(parents=True)
    (tmp_path / "x" / "actions" / "mine.csv").write_text("a,b\n")
    with pytest.raises(FileExistsError, match="no threadlab dataset"):
        frames.to_parquet(tmp_path / "x")
    assert (tmp_path / "x" / "actions" / "mine.csv").read_text() == "a,b\n"
    with pytest.raises(FileNotFoundError, match=SCHEMA_FILE):
        threadlab.read_parquet(tmp_path / "x")
