"""Reading a path that is no regular file (issue 13): a FIFO named ``*.json`` hung ``load`` and
``validate`` forever (opening it waits for a writer). Named explicitly, it is now an ``io``
problem at once; the rest loads. (Folder walks skip special files: tests of the walk.)"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import orjson
import pytest

import threadlab as tl
from benchmarks.corpus import thread_doc

pytestmark = pytest.mark.timeout(60)  # a regression here is a hang: fail it fast


@pytest.fixture
def fifo(tmp_path: Path) -> Path:
    path = tmp_path / "pipe.thread.json"
    os.mkfifo(path)
    return path


def test_read_of_a_fifo_is_an_io_problem(fifo: Path) -> None:
    for strict in (True, False):
        with pytest.raises(tl.ThreadError) as err:
            tl.read(fifo, strict=strict)
        (problem,) = err.value.problems
        assert problem.rule == "io" and "FIFO" in problem.message and problem.source == str(fifo)
    with pytest.raises(tl.ThreadError, match="FIFO"):
        tl.read(fifo, format="threadprotocol")  # a named format opens the file straight away


def test_a_device_is_not_read(tmp_path: Path) -> None:
    with pytest.raises(tl.ThreadError, match="device") as err:
        tl.read("/dev/zero")  # would never end
    assert [p.rule for p in err.value.problems] == ["io"]


def test_load_beside_a_fifo_loads_the_rest(fifo: Path, tmp_path: Path) -> None:
    good = tmp_path / "good.json"
    good.write_bytes(orjson.dumps(thread_doc(2, 0, target_bytes=3000)))
    frames = tl.load([fifo, good], workers=1, progress=False)
    assert list(frames.threads["source"].astype(str)) == [str(good)]
    assert [(str(p.source), p.rule) for p in frames.problems.itertuples()] == [(str(fifo), "io")]


def test_cli_validate_of_a_fifo_ends(fifo: Path) -> None:
    done = subprocess.run([sys.executable, "-m", "threadlab", "validate", str(fifo)], capture_output=True, text=True, timeout=60)
    assert done.returncode == 1 and "[io]" in done.stdout and "FIFO" in done.stdout
