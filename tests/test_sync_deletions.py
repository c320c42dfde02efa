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
import uuid
from pathlib import Path

import fsspec
import orjson
import pandas as pd
import pytest
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, precondition, rule

import threadlab
from threadlab.frames import deletions, schema
from threadlab.frames.frames import TABLE_NAMES
from threadlab.frames.schema import PLAIN_VERSION, SCHEMA_FILE, SCHEMA_VERSION, SchemaVersionError
from threadlab.frames.sql import connect
from threadlab.loading import archive

from .test_load import assert_same_frames
from .test_sync import assert_archive_is, ordered

ROOT = Path(__file__).resolve().parent.parent
SHARES = {"rewrite": 0.0, "half": deletions.COMPACT_SHARE, "never": float("inf")}  # the referee first


def same(got: threadlab.Frames, expected: threadlab.Frames, *, check_categorical: bool = True) -> None:
    assert_same_frames(got, expected, check_categorical=check_categorical)
    pd.testing.assert_frame_equal(got.skipped.reset_index(drop=True), expected.skipped.reset_index(drop=True), obj="skipped")


def document(dataset: Path) -> dict:
    return orjson.loads((dataset / SCHEMA_FILE).read_bytes())


def sql_counts(dataset: Path | str) -> dict[str, object]:
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


# --- the deletion lists themselves ------------------------------------------------------------------


@pytest.fixture
def sources(tmp_path: Path) -> Path:
    root = tmp_path / "src"
    shutil.copytree(ROOT / "tests" / "fixtures" / "codex", root / "codex")
    shutil.copytree(ROOT / "data" / "claude_code" / "projects", root / "claude")
    return root


def grow(path: Path) -> int:
    """Append a copy of ``path``'s last line; its size before."""
    size = path.stat().st_size
    path.write_bytes(path.read_bytes() + path.read_bytes().splitlines(keepends=True)[-1])
    return size


def test_a_grown_session_is_left_out_of_its_part_not_rewritten(sources: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(archive, "PART_BYTES", 60_000)  # a few files a part
    dataset = tmp_path / "archive"
    threadlab.sync(sources, dataset)
    first = document(dataset)
    assert first["version"] == PLAIN_VERSION and "deleted" not in first  # an older threadlab reads it
    files = {p: p.stat().st_mtime_ns for p in dataset.rglob("*.parquet")}
    grown = sorted((sources / "codex").rglob("*.jsonl"))[0]
    size = grow(grown)
    assert threadlab.sync(sources, dataset).converted == [str(grown)]
    doc = document(dataset)
    [held_in] = [part for part in first["parts"] if first["sources"]["files"][str(grown)][2] == part]
    assert doc["version"] == SCHEMA_VERSION and doc["deleted"] == {held_in: {str(grown): size}}
    assert all(p.stat().st_mtime_ns == mtime for p, mtime in files.items())  # no file written again
    assert doc["parts"][:-1] == first["parts"] and doc["sources"]["files"][str(grown)][2] == doc["parts"][-1]
    assert_archive_is(dataset, sources)
    # grown again: its rows in the last sync's part go too (that part held only it: all its bytes
    # deleted, so it is compacted away), the first part's list keeps it
    grow(grown)
    threadlab.sync(sources, dataset)
    again = document(dataset)
    assert again["deleted"] == {held_in: {str(grown): size}} and doc["parts"][-1] not in again["parts"]
    assert_archive_is(dataset, sources)
    assert frame_counts(threadlab.read_parquet(dataset)) == sql_counts(dataset)
    same(threadlab.read_parquet(dataset, engine="dask").compute(scheduler="sync"), threadlab.read_parquet(dataset), check_categorical=False)


def test_an_older_threadlab_refuses_a_dataset_with_deletions(sources: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """It would show the stale rows: the document's major version says so (schema 1.x reads 1.x)."""
    dataset = tmp_path / "archive"
    threadlab.sync(sources, dataset)
    grow(sorted((sources / "codex").rglob("*.jsonl"))[0])
    threadlab.sync(sources, dataset)
    plain = tmp_path / "plain"
    threadlab.read_parquet(dataset).to_parquet(plain)
    with monkeypatch.context() as older:
        older.setattr(schema, "SCHEMA_VERSION", PLAIN_VERSION)  # the version check as threadlab of schema 1.0 runs it
        with pytest.raises(SchemaVersionError, match=r"schema 2\.0 .*upgrade threadlab"):
            threadlab.read_parquet(dataset)
        with pytest.raises(SchemaVersionError):
            threadlab.sql("select count(*) from actions", dataset)
        assert len(threadlab.read_parquet(plain).actions)  # one without deletions it reads
    doc = document(dataset)
    doc["deleted"] = {doc["parts"][0]: ["not", "an object"]}
    (dataset / SCHEMA_FILE).write_bytes(orjson.dumps(doc))
    with pytest.raises(ValueError, match=r"threadlab-schema\.json: \"deleted\" is not an object"):
        threadlab.read_parquet(dataset)


def test_a_part_is_compacted_once_half_its_bytes_are_deleted(sources: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(archive, "PART_BYTES", 60_000)
    dataset = tmp_path / "archive"
    threadlab.sync(sources, dataset)
    first = document(dataset)
    held = first["sources"]["files"]
    part = max(first["parts"], key=lambda p: sum(1 for e in held.values() if e[2] == p))
    members = sorted((k for k, e in held.items() if e[2] == part), key=lambda k: held[k][0])
    total = sum(held[k][0] for k in members)
    assert len(members) >= 2
    grown, dead = [], 0
    for key in members:  # grow the part's files one sync at a time, until half its bytes are deleted
        grow(Path(key))
        dead += held[key][0]
        grown.append(key)
        threadlab.sync(sources, dataset)
        doc = document(dataset)
        if dead < deletions.COMPACT_SHARE * total:
            assert doc["deleted"][part] == {k: held[k][0] for k in grown} and part in doc["parts"]
        else:  # rewritten in its place without the deleted rows; the list goes with it
            assert part not in doc["parts"] and part not in (doc.get("deleted") or {})
            assert len(doc["parts"]) == len(first["parts"]) + len(grown)
            break
    else:
        raise AssertionError("never compacted")
    assert_archive_is(dataset, sources)


def test_append_prune_and_a_new_write_with_deletions(sources: Path, tmp_path: Path) -> None:
    dataset = tmp_path / "archive"
    threadlab.sync(sources, dataset)
    grown = sorted((sources / "codex").rglob("*.jsonl"))[0]
    grow(grown)
    threadlab.sync(sources, dataset)
    deleted = document(dataset)["deleted"]
    extra = threadlab.load(ROOT / "data" / "runs", progress=False, workers=1)
    extra.to_parquet(dataset, mode="append")  # keeps the lists (and the manifest)
    assert document(dataset)["deleted"] == deleted and document(dataset)["version"] == SCHEMA_VERSION
    back = threadlab.read_parquet(dataset)
    assert len(back.actions) == len(threadlab.load(sources, progress=False, workers=1).actions) + len(extra.actions)
    gone = sorted((sources / "codex").rglob("*.jsonl"))[-1]
    gone.unlink()
    assert threadlab.sync(sources, dataset, prune=True).removed == [str(gone)]
    doc = document(dataset)
    assert str(gone) in {s for listed in doc["deleted"].values() for s in listed}
    assert not (threadlab.read_parquet(dataset).actions["source"] == str(gone)).any()
    assert frame_counts(threadlab.read_parquet(dataset)) == sql_counts(dataset)
    extra.to_parquet(dataset)  # a new write: its one part, no list, the plain version
    doc = document(dataset)
    assert "deleted" not in doc and doc["version"] == PLAIN_VERSION and len(doc["parts"]) == 1


def test_deletion_lists_under_a_url(sources: Path) -> None:
    fs = fsspec.filesystem("memory")
    src, url = f"memory://src-{uuid.uuid4().hex[:8]}", f"memory://archive-{uuid.uuid4().hex[:8]}"
    paths = sorted(p for p in sources.rglob("*") if p.is_file())
    for path in paths:
        fs.pipe_file(f"{src.removeprefix('memory:/')}/{path.relative_to(sources).as_posix()}", path.read_bytes())
    threadlab.sync(src, url)
    grown = sorted(p for p in paths if p.suffix == ".jsonl" and "codex" in p.parts)[0]
    key = f"{src}/{grown.relative_to(sources).as_posix()}"
    fs.pipe_file(key.removeprefix("memory:/"), grown.read_bytes() + grown.read_bytes().splitlines(keepends=True)[-1])
    assert threadlab.sync(src, url).converted == [key]
    doc = orjson.loads(fs.cat_file(f"{url.removeprefix('memory:/')}/{SCHEMA_FILE}"))
    assert [list(v) for v in doc["deleted"].values()] == [[key]]
    back = threadlab.read_parquet(url)
    assert (back.threads["source"] == key).sum() == 1
    assert frame_counts(back) == sql_counts(url)


def test_partitioned_by_source_a_grown_session_counts_once(sources: Path, tmp_path: Path) -> None:
    """The files of a dataset partitioned by ``source`` hold no source column (the folder does): the
    rows of a changed file are found by the folder (before, a rewrite kept them: 209 actions, not 180)."""
    dataset = tmp_path / "archive"
    threadlab.sync(sources / "codex", dataset, partition_by="source")
    grown = sorted((sources / "codex").rglob("*.jsonl"))[0]
    grow(grown)
    threadlab.sync(sources / "codex", dataset)
    assert_archive_is(dataset, sources / "codex")
    assert frame_counts(threadlab.read_parquet(dataset)) == sql_counts(dataset)
    listed = document(dataset)["deleted"]
    with pytest.MonkeyPatch.context() as forced:
        forced.setattr(deletions, "COMPACT_SHARE", 0.0)  # the rewrite, of the part the last sync wrote
        grow(grown)
        threadlab.sync(sources / "codex", dataset)
    assert document(dataset)["deleted"] == listed
    assert_archive_is(dataset, sources / "codex")
