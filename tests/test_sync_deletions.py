"""tl.sync marks a changed file's old rows deleted in their part (``frames/deletions.py``) rather
than rewriting the part, and every reader leaves them out: random sequences of grow / edit /
remove / restore / sync / prune / append keep ``read_parquet``, ``tl.sql`` and the Dask frames of
an archive with deletion lists (compacted at a half, or never) equal to the same archive with
every touched part rewritten (the rewrite, compaction forced), and to a fresh load of the files
where the archive holds just them.

Data: the Codex fixtures and the bundled Claude Code projects (sessions with subagent files),
copied into a temporary folder so they can grow and go."""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

import pandas as pd
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, precondition, rule

import threadlab
from threadlab.frames import deletions
from threadlab.frames.frames import TABLE_NAMES
from threadlab.frames.sql import connect
from threadlab.loading import archive

from .test_load import assert_same_frames
from .test_sync import ordered

ROOT = Path(__file__).resolve().parent.parent
SHARES = {"rewrite": 0.0, "half": deletions.COMPACT_SHARE, "never": float("inf")}  # the referee first


def same(got: threadlab.Frames, expected: threadlab.Frames, *, check_categorical: bool = True) -> None:
    assert_same_frames(got, expected, check_categorical=check_categorical)
    pd.testing.assert_frame_equal(got.skipped.reset_index(drop=True), expected.skipped.reset_index(drop=True), obj="skipped")


def sql_counts(dataset: Path) -> dict[str, object]:
    con = connect(dataset)
    counts: dict[str, object] = {name: con.execute(f'select count(*) from "{name}"').fetchone()[0] for name in [*TABLE_NAMES, "skipped"]}
    counts["by_source"] = sorted(con.execute("select source, count(*) from actions group by source").fetchall(), key=str)
    return counts


def frame_counts(frames: threadlab.Frames) -> dict[str, object]:
    counts: dict[str, object] = {name: len(getattr(frames, name)) for name in TABLE_NAMES}
    counts["skipped"] = len(frames.skipped)
    by_source = frames.actions["source"].astype(object).value_counts(dropna=True)
    counts["by_source"] = sorted(by_source.items(), key=str)
    return counts


class ArchiveMachine(RuleBasedStateMachine):
    def __init__(self) -> None:
        super().__init__()
        self.root = Path(tempfile.mkdtemp(prefix="tl-deletions-"))
        self.src = self.root / "src"
        shutil.copytree(ROOT / "tests" / "fixtures" / "codex", self.src / "codex")
        shutil.copytree(ROOT / "data" / "claude_code" / "projects", self.src / "claude")
        self.files = sorted(p for p in self.src.rglob("*.jsonl") if "subagents" not in p.parts)
        self.removed: dict[Path, bytes] = {}
        self.held: set[Path] = set()  # the sessions the archive holds (a removed one until pruned)
        self.appended = False
        self.part_bytes = archive.PART_BYTES
        self.clock = 0

    @initialize(partition=st.sampled_from([None, "format", "source"]), part_bytes=st.sampled_from([1, 30_000, 16 << 20]))
    def first(self, partition: str | None, part_bytes: int) -> None:
        self.partition = partition
        self.part_bytes = part_bytes
        self.sync(prune=False)

    def teardown(self) -> None:
        shutil.rmtree(self.root, ignore_errors=True)

    def dataset(self, name: str) -> Path:
        return self.root / name

    def touch(self, path: Path) -> None:
        """A later modification time than any before (a change the sync's key sees)."""
        self.clock += 1
        stat = path.stat()
        os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns + self.clock * 1_000_000_000))

    def present(self, index: int) -> Path | None:
        path = self.files[index % len(self.files)]
        return path if path.exists() else None

    @rule(index=st.integers(0, 99), lines=st.integers(1, 3))
    def grow(self, index: int, lines: int) -> None:
        path = self.present(index)
        if path is not None:
            tail = path.read_bytes().splitlines(keepends=True)[-lines:]
            with path.open("ab") as fh:
                fh.write(b"".join(line if line.endswith(b"\n") else line + b"\n" for line in tail))
            self.touch(path)

    @rule(index=st.integers(0, 99))
    def edit(self, index: int) -> None:
        path = self.present(index)
        if path is not None:
            lines = path.read_bytes().splitlines(keepends=True)
            path.write_bytes(b"".join(lines[: max(1, len(lines) - 2)]))
            self.touch(path)

    @rule(index=st.integers(0, 99))
    def remove(self, index: int) -> None:
        path = self.present(index)
        if path is not None and len(self.removed) < len(self.files) - 2:
            self.removed[path] = path.read_bytes()
            path.unlink()

    @precondition(lambda self: bool(self.removed))
    @rule(index=st.integers(0, 99))
    def restore(self, index: int) -> None:
        path = sorted(self.removed)[index % len(self.removed)]
        path.write_bytes(self.removed.pop(path))
        self.touch(path)

    @rule(prune=st.booleans())
    def sync(self, prune: bool) -> None:
        saved = deletions.COMPACT_SHARE, archive.PART_BYTES
        try:
            archive.PART_BYTES = self.part_bytes
            for name, share in SHARES.items():
                deletions.COMPACT_SHARE = share
                threadlab.sync(self.src, self.dataset(name), partition_by=self.partition, prune=prune, workers=1, progress=False)
        finally:
            deletions.COMPACT_SHARE, archive.PART_BYTES = saved
        present = {p for p in self.files if p.exists()}
        self.held = present if prune else self.held | present
        self.check(against_load=self.held == present and not self.appended)

    @rule()
    def append(self) -> None:
        """A load of other files added by to_parquet(mode="append"); syncs go on after it."""
        extra = threadlab.load(ROOT / "tests" / "fixtures" / "codex" / "codex-0.20.0", progress=False, workers=1)
        for name in SHARES:
            extra.to_parquet(self.dataset(name), mode="append")
        self.appended = True
        self.check(against_load=False)

    def check(self, *, against_load: bool) -> None:
        expected = threadlab.read_parquet(self.dataset("rewrite"))
        counts = frame_counts(expected)
        for name in SHARES:
            got = threadlab.read_parquet(self.dataset(name))
            same(got, expected)
            assert sql_counts(self.dataset(name)) == counts, name
        dask = threadlab.read_parquet(self.dataset("never"), engine="dask").compute(scheduler="sync")
        same(dask, expected, check_categorical=False)  # a Dask concatenation's categories: in order of appearance
        if against_load:
            loaded = ordered(threadlab.load(self.src, progress=False, workers=1))
            back = ordered(expected)
            for name in TABLE_NAMES:
                pd.testing.assert_frame_equal(back[name], loaded[name], obj=name)


ArchiveMachine.TestCase.settings = settings(max_examples=int(os.environ.get("THREADLAB_SYNC_EXAMPLES", "10")), stateful_step_count=6,
                                            deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
test_random_syncs_read_as_the_rewrite = ArchiveMachine.TestCase
