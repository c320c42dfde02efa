"""threadlab.read_parquet(dataset, engine="dask") on a distributed LocalCluster (worker
processes open the dataset's files themselves) gives the frames the eager read gives, in order.
(threadlab.load(files, engine="dask") on a LocalCluster: tests/test_load.py.)"""

from __future__ import annotations

from pathlib import Path

import pytest

import threadlab

from .test_load import assert_same_frames

ROOT = Path(__file__).resolve().parent.parent
SOURCES = [ROOT / "data" / "claude_code", ROOT / "tests" / "fixtures" / "codex"]


def test_dask_on_a_dataset_equals_eager(tmp_path: Path) -> None:
    import dask
    import distributed

    first = threadlab.load(SOURCES[:1], progress=False, workers=1)
    second = threadlab.load(SOURCES[1:], progress=False, workers=1)
    first.to_parquet(tmp_path / "ds", partition_by="format")
    second.to_parquet(tmp_path / "ds", mode="append")
    eager = threadlab.read_parquet(tmp_path / "ds")
    # forkserver, not fork: this process runs threads (see test_load's dask test)
    with (
        dask.config.set({"distributed.worker.multiprocessing-method": "forkserver"}),
        distributed.Client(processes=True, n_workers=2, threads_per_worker=1, dashboard_address=None) as client,
    ):
        lazy = threadlab.read_parquet(tmp_path / "ds", engine="dask")
        assert lazy.actions.npartitions == 2 and "partitions" in repr(lazy)
        computed = lazy.compute()
        assert len(client.scheduler_info()["workers"]) == 2
    assert_same_frames(eager, computed, check_categorical=False)
    assert list(computed.skipped["path"]) == list(eager.skipped["path"])


def test_dask_engine_names(tmp_path: Path) -> None:
    threadlab.load(SOURCES[1:], progress=False).to_parquet(tmp_path / "ds")
    lazy = threadlab.read_parquet(tmp_path / "ds", engine="dask")  # the threaded scheduler, no cluster
    assert_same_frames(threadlab.read_parquet(tmp_path / "ds"), lazy.compute(scheduler="threads"), check_categorical=False)
    with pytest.raises(ValueError, match="unknown engine"):
        threadlab.read_parquet(tmp_path / "ds", engine="spark")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="engine='dask' loads files on disk"):
        threadlab.load("memory://x/y", engine="dask")
