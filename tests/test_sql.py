"""threadlab.sql(query, source): DuckDB over frames, a dataset folder and a dataset's URL gives
the answers pandas gives over the frames."""

from __future__ import annotations

from pathlib import Path

import pyarrow.parquet as pq
import pytest

import threadlab
from threadlab.frames.schema import COLUMNS

ROOT = Path(__file__).resolve().parent.parent
SOURCES = [ROOT / "data" / "runs", ROOT / "data" / "claude_code", ROOT / "tests" / "fixtures" / "codex"]
PER_FORMAT = "select format, count(*) as n, sum(n_actions) as a from threads group by format order by format"


@pytest.fixture(scope="module")
def frames() -> threadlab.Frames:
    return threadlab.load(SOURCES, progress=False, workers=1)


def expected_per_format(frames: threadlab.Frames) -> list[tuple[str, int, int]]:
    grouped = frames.threads.groupby("format", observed=True)["n_actions"].agg(["size", "sum"]).sort_index()
    return [(str(f), int(n), int(a)) for f, (n, a) in grouped.iterrows()]


@pytest.mark.parametrize("where", ["frames", "folder", "partitioned", "memory"])
def test_sql_answers_as_pandas(frames: threadlab.Frames, tmp_path: Path, where: str) -> None:
    source = {"frames": frames, "folder": tmp_path / "ds", "partitioned": tmp_path / "ds", "memory": f"memory://sql-{tmp_path.name}/ds"}[where]
    if where != "frames":
        frames.to_parquet(source, partition_by="format" if where == "partitioned" else None)
    assert len(expected_per_format(frames)) >= 3
    assert threadlab.sql(PER_FORMAT, source).fetchall() == expected_per_format(frames)
    errors = threadlab.sql("select count(*) from tool_calls where status in ('error', 'validation_error')", source).fetchall()[0][0]
    assert errors == frames.tool_calls["status"].isin(["error", "validation_error"]).sum()
    # every table is a view of its name, with its declared columns in order
    for name, columns in COLUMNS.items():
        relation = threadlab.sql(f"select * from {name}", source)
        assert relation.columns == [c.name for c in columns], name
    assert threadlab.sql("select count(*) from agent_usage", source).fetchall()[0][0] == len(frames.agent_usage()) > 0
    joined = threadlab.sql("select count(*) from problems p join threads t using (source)", source).fetchall()[0][0]
    assert joined == frames.problems.merge(frames.threads[["source"]], on="source").shape[0] > 0


def test_sql_reads_only_listed_parts_and_older_columns(frames: threadlab.Frames, tmp_path: Path) -> None:
    frames.to_parquet(tmp_path / "ds")
    [path] = (tmp_path / "ds" / "threads").glob("*.parquet")
    (path.parent / "part-000009-0123abcd.parquet").write_bytes(path.read_bytes())  # a stopped write
    pq.write_table(pq.read_table(path).drop_columns(["n_interrupts"]), path)  # an older schema's file
    n, empty = threadlab.sql("select count(*), count(n_interrupts) from threads", tmp_path / "ds").fetchall()[0]
    assert (n, empty) == (len(frames.threads), 0)


def test_sql_over_a_version_0_folder_and_refusals(frames: threadlab.Frames, tmp_path: Path) -> None:
    for name, table in frames.to_arrow().items():
        (tmp_path / "old").mkdir(exist_ok=True)
        pq.write_table(table, tmp_path / "old" / f"{name}.parquet")
    assert threadlab.sql(PER_FORMAT, tmp_path / "old").fetchall() == expected_per_format(frames)
    with pytest.raises(FileNotFoundError, match=r"threadlab-schema\.json"):
        threadlab.sql("select 1", tmp_path / "nothing")
