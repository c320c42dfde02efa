"""The process pool on its bad days (issue 13): an interrupted load and a worker that dies
leave no spool folder behind, and a dying worker costs only the file it was reading."""

from __future__ import annotations

import multiprocessing
import os
import subprocess
import sys
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from pathlib import Path
from typing import Any

import orjson
import pandas as pd
import pytest

import threadlab as tl
from benchmarks.corpus import thread_doc
from threadlab.frames.arrow import concat_tables
from threadlab.frames.frames import Frames
from threadlab.loading import chunks, pool
from threadlab.loading.files import file_refs, make_chunks

SHM = Path("/dev/shm") if Path("/dev/shm").is_dir() else None


def corpus(folder: Path, n: int) -> list[Path]:
    folder.mkdir(parents=True, exist_ok=True)
    paths = []
    for i in range(n):
        path = folder / f"t{i:02d}.json"
        path.write_bytes(orjson.dumps(thread_doc(5, i, target_bytes=4000)))
        paths.append(path)
    return paths


def my_spools() -> list[str]:
    where = SHM or Path(os.environ.get("TMPDIR", "/tmp"))
    return [p.name for p in where.iterdir() if p.name.startswith(f"threadlab-{os.getpid()}-")]


def small_chunks(folder: Path) -> list[Any]:
    return make_chunks(list(file_refs(folder)), "auto", target_bytes=4096, stable=False)


def test_keyboard_interrupt_leaves_no_spool(tmp_path: Path) -> None:
    """Interrupting a load (Ctrl-C in a terminal, "interrupt kernel" in Jupyter, which reaches
    the loading process only) cancels what is queued, lets the running workers end and removes
    the spool they wrote into."""
    corpus(tmp_path / "c", 24)
    work = small_chunks(tmp_path / "c")
    assert len(work) >= 8
    done: list[Any] = []

    def interrupt(chunk: Any) -> None:
        done.append(chunk)
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        pool.run_chunks(work, workers=2, cache_dir=None, on_done=interrupt)
    assert len(done) == 1
    assert my_spools() == []


def _exit_on_t03(chunk: Any) -> Any:
    if any(ref.path.endswith("t03.json") for ref in chunk.files):
        os._exit(9)  # as a crash in native code or the out-of-memory killer ends a worker
    return REAL_READ_CHUNK(chunk)


REAL_READ_CHUNK = chunks.read_chunk


def test_a_dying_worker_costs_only_its_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    paths = corpus(tmp_path / "c", 12)
    expected = tl.load(tmp_path / "c", workers=1, progress=False)
    # fork, so the workers run this test's read_chunk (forkserver workers import threadlab afresh)
    monkeypatch.setattr(pool, "_context", lambda: multiprocessing.get_context("fork"))
    monkeypatch.setattr(chunks, "read_chunk", _exit_on_t03)
    tables = pool.run_chunks(small_chunks(tmp_path / "c"), workers=2, cache_dir=None)
    frames = Frames.from_tables(concat_tables(tables))
    sources = [str(s) for s in frames.threads["source"]]
    assert sources == [str(p) for p in paths if p.name != "t03.json"]  # every other file, in order
    (problem,) = frames.problems.itertuples()
    assert problem.rule == "internal" and str(problem.source) == str(paths[3]) and "died" in problem.message
    kept = expected.actions[expected.actions["source"].astype(str) != str(paths[3])].reset_index(drop=True)
    assert list(frames.actions["text"]) == list(kept["text"])
    assert my_spools() == []


def test_a_pool_found_broken_when_queueing_loses_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A worker can die between two looks at the pool, so queueing the next chunk meets a
    broken pool (``submit`` raises): that chunk and the rest are read in a fresh pool, and
    the load has every file. (The race is made certain here: the first pool breaks on its
    fifth submit.)"""
    paths = corpus(tmp_path / "c", 12)
    work = small_chunks(tmp_path / "c")
    assert len(work) > 5
    real_submit = ProcessPoolExecutor.submit
    calls: list[int] = []

    def breaking_submit(self: ProcessPoolExecutor, *args: Any, **kwargs: Any) -> Any:
        calls.append(1)
        if len(calls) == 5:
            raise BrokenProcessPool("a worker died")
        return real_submit(self, *args, **kwargs)

    monkeypatch.setattr(ProcessPoolExecutor, "submit", breaking_submit)
    tables = pool.run_chunks(work, workers=2, cache_dir=None)
    frames = Frames.from_tables(concat_tables(tables))
    assert [str(s) for s in frames.threads["source"]] == [str(p) for p in paths]
    assert frames.problems.empty
    assert len(calls) > len(work)  # the chunks after the break went to a second pool
    assert my_spools() == []


def test_spools_of_killed_loads_are_swept(tmp_path: Path) -> None:
    """A load killed outright (SIGKILL) runs no cleanup; the next load on the machine removes
    its spool, and never a live process's."""
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True, check=True)
    gone = tmp_path / f"threadlab-{int(dead.stdout)}-abc123"
    live = tmp_path / f"threadlab-{os.getpid()}-def456"
    other = tmp_path / "threadlab-notapid"
    for folder in (gone, live, other):
        folder.mkdir()
        (folder / "000001.actions.arrow").write_bytes(b"x")
    pool.sweep_spools(str(tmp_path))
    assert not gone.exists() and live.exists() and other.exists()


KILLED_LOAD = """
import os, sys, time
from threadlab.loading import api, chunks
api.MIN_CHUNK_BYTES, api.SMALL_LOAD_BYTES = 2048, 0
real = chunks.read_chunk
chunks.read_chunk = lambda chunk: time.sleep(0.3) or real(chunk)
import threadlab
threadlab.load(sys.argv[1], workers=2, progress=False)
"""


@pytest.mark.skipif(SHM is None, reason="spools live in /dev/shm on Linux")
def test_a_killed_load_leaves_its_spool_to_the_next(tmp_path: Path) -> None:
    import signal
    import time

    corpus(tmp_path / "c", 30)
    child = subprocess.Popen([sys.executable, "-c", KILLED_LOAD, str(tmp_path / "c")], start_new_session=True)
    try:
        deadline = time.monotonic() + 60
        while not [p for p in SHM.iterdir() if p.name.startswith(f"threadlab-{child.pid}-")]:  # type: ignore[union-attr]
            assert child.poll() is None and time.monotonic() < deadline, "the load never started its pool"
            time.sleep(0.05)
    finally:
        os.killpg(child.pid, signal.SIGKILL)  # the loader and its workers, as a kill -9 or a lost kernel does
        child.wait()
    left = [p for p in SHM.iterdir() if p.name.startswith(f"threadlab-{child.pid}-")]  # type: ignore[union-attr]
    assert left, "a killed load runs no cleanup of its own"
    pool.sweep_spools(str(SHM))  # what the next load does first
    assert not [p for p in SHM.iterdir() if p.name.startswith(f"threadlab-{child.pid}-")]  # type: ignore[union-attr]


def test_a_full_spool_sends_the_tables_back_pickled(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """/dev/shm is a tmpfs of half the memory: when it is full, workers send their frames
    back pickled instead (slower), and the load goes on."""
    corpus(tmp_path / "c", 8)
    expected = tl.load(tmp_path / "c", workers=1, progress=False)

    def full(*args: Any, **kwargs: Any) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(pool, "_context", lambda: multiprocessing.get_context("fork"))
    monkeypatch.setattr(pool.pa, "OSFile", full)
    frames = Frames.from_tables(concat_tables(pool.run_chunks(small_chunks(tmp_path / "c"), workers=2, cache_dir=None)))
    for name in ("actions", "tool_calls", "threads", "problems"):
        pd.testing.assert_frame_equal(getattr(frames, name), getattr(expected, name), obj=name)
    assert my_spools() == []
