"""threadlab.read_parquet(dataset, engine="dask") on a distributed LocalCluster (worker
processes open the dataset's files themselves) gives the frames the eager read gives, in order.
(threadlab.load(files, engine="dask") on a LocalCluster: tests/test_load.py.)"""

from __future__ import annotations

import os
import uuid
from pathlib import Path

import pytest

import threadlab

from .test_load import assert_same_frames

ROOT = Path(__file__).resolve().parent.parent
SOURCES = [ROOT / "data" / "claude_code", ROOT / "tests" / "fixtures" / "codex"]


def memory_url(folder: Path) -> str:
    """``folder``'s files in the in-memory fsspec store, under a fresh prefix: its URL."""
    import fsspec

    fs = fsspec.filesystem("memory")
    base = f"/dask-{uuid.uuid4().hex[:8]}"
    for path in folder.rglob("*"):
        if path.is_file():
            fs.pipe_file(f"{base}/{path.relative_to(folder)}", path.read_bytes())
    return f"memory:/{base}"


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
        url = memory_url(SOURCES[1])  # raw files at a URL: the worker processes read this machine's mirror of it
        from_url = threadlab.load(url, engine="dask").compute()
    assert_same_frames(eager, computed, check_categorical=False)
    assert_same_frames(threadlab.load(url, progress=False, workers=1), from_url, check_categorical=False)
    assert list(computed.skipped["path"]) == list(eager.skipped["path"])


def test_dask_engine_names(tmp_path: Path) -> None:
    threadlab.load(SOURCES[1:], progress=False).to_parquet(tmp_path / "ds")
    lazy = threadlab.read_parquet(tmp_path / "ds", engine="dask")  # the threaded scheduler, no cluster
    assert_same_frames(threadlab.read_parquet(tmp_path / "ds"), lazy.compute(scheduler="threads"), check_categorical=False)
    with pytest.raises(ValueError, match="unknown engine"):
        threadlab.read_parquet(tmp_path / "ds", engine="spark")  # type: ignore[arg-type]


def test_dask_on_a_url_equals_the_eager_load_and_names_the_url() -> None:
    """``load(url, engine="dask")``: the URL's files mirrored on this machine, each partition
    naming them by their URLs; the temporary mirror goes with the lazy frames."""
    import gc

    url = memory_url(SOURCES[1])
    eager = threadlab.load(url, progress=False, workers=1)
    lazy = threadlab.load(url, engine="dask")
    computed = lazy.compute(scheduler="threads")
    assert_same_frames(eager, computed, check_categorical=False)
    assert all(str(s).startswith(url + "/") for s in computed.actions["source"].unique())
    assert list(computed.skipped["path"]) == list(eager.skipped["path"]) and all(p.startswith(url) for p in computed.skipped["path"])
    mirror = [m._tmp for m in lazy.mirrors]
    assert mirror and all(m and os.path.isdir(m) for m in mirror)
    del lazy
    gc.collect()
    assert not any(os.path.isdir(m) for m in mirror)
