"""threadlab.sync(sources, dataset): an archive that converts only what is new or changed, says
what it did, and keeps what was removed at the source (unless pruned). The archive read back
equals a fresh load of the same sources.

Data: the Codex fixtures (one rollout per file) and the bundled Claude Code projects (a session
with its subagent transcripts), copied into tmp_path so they can grow and go."""

from __future__ import annotations

import os
import shutil
import uuid
from pathlib import Path

import fsspec
import orjson
import pandas as pd
import pytest

import threadlab
from threadlab.frames.frames import TABLE_NAMES
from threadlab.frames.schema import SCHEMA_FILE
from threadlab.loading import archive

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture
def sources(tmp_path: Path) -> Path:
    root = tmp_path / "src"
    shutil.copytree(ROOT / "tests" / "fixtures" / "codex", root / "codex")
    shutil.copytree(ROOT / "data" / "claude_code" / "projects", root / "claude")
    (root / "README.md").write_text("my sessions\n")
    return root


@pytest.fixture
def converted(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The files each sync hands to the converters."""
    seen: list[str] = []
    real = archive.run_chunks

    def counting(chunks, **kwargs):  # type: ignore[no-untyped-def]
        seen.extend(f.path for c in chunks for f in c.files)
        return real(chunks, **kwargs)

    monkeypatch.setattr(archive, "run_chunks", counting)
    return seen


def ordered(frames: threadlab.Frames, drop: str | None = None) -> dict[str, pd.DataFrame]:
    """Each table as plain values in a fixed order (a sync's changed file moves to its last part)."""
    out = {}
    for name in TABLE_NAMES:
        frame = getattr(frames, name)
        frame = frame.astype({c: object for c in frame.columns if frame[c].dtype == "category"})
        if drop is not None:
            frame = frame[frame["source"] != drop]
        keys = [c for c in ("source", "thread_id", "sequence", "call_sequence", "line", "message") if c in frame.columns]
        out[name] = frame.sort_values(keys, kind="stable", key=lambda c: c.astype(str)).reset_index(drop=True)
    return out


def assert_archive_is(dataset: Path, sources: Path, drop: str | None = None) -> None:
    got, expected = ordered(threadlab.read_parquet(dataset), drop), ordered(threadlab.load(sources, progress=False, workers=1))
    for name in TABLE_NAMES:
        assert len(got[name]) or name == "problems", name
        pd.testing.assert_frame_equal(got[name], expected[name], obj=name)


def test_first_sync_then_nothing_to_do(sources: Path, tmp_path: Path, converted: list[str]) -> None:
    report = threadlab.sync(sources, tmp_path / "archive")
    n_files = len(report.converted)
    assert n_files >= 8 and not report.unchanged and not report.removed and len(converted) == n_files
    assert_archive_is(tmp_path / "archive", sources)
    schema = (tmp_path / "archive" / SCHEMA_FILE).stat().st_mtime_ns
    again = threadlab.sync(sources, tmp_path / "archive")
    assert again.unchanged == report.converted and not again.converted and not again.removed
    assert len(converted) == n_files  # nothing read again
    assert (tmp_path / "archive" / SCHEMA_FILE).stat().st_mtime_ns == schema  # nor written
    skipped = list(threadlab.read_parquet(tmp_path / "archive").skipped["path"])  # each once
    assert skipped == list(threadlab.load(sources, progress=False).skipped["path"]) and str(sources / "README.md") in skipped
    assert "0 converted" in repr(again)


def test_a_grown_session_is_read_again(sources: Path, tmp_path: Path, converted: list[str]) -> None:
    threadlab.sync(sources, tmp_path / "archive", partition_by="format")
    grown = sorted((sources / "codex").rglob("*.jsonl"))[0]
    lines = grown.read_bytes().splitlines(keepends=True)
    grown.write_bytes(b"".join(lines[:-3]))  # the session as it was three lines ago
    first = threadlab.sync(sources, tmp_path / "archive")
    assert first.converted == [str(grown)]
    grown.write_bytes(b"".join(lines))  # ... and as it grew since
    before = len(converted)
    report = threadlab.sync(sources, tmp_path / "archive")
    assert report.converted == [str(grown)] and converted[before:] == [str(grown)]
    assert str(grown) not in report.unchanged and len(report.unchanged) == len(first.unchanged)
    assert_archive_is(tmp_path / "archive", sources)
    # an edit of the same size is a change too (the key holds the modification time)
    edited = sorted((sources / "codex").rglob("*.jsonl"))[-1]
    stat = edited.stat()
    edited.write_bytes(edited.read_bytes().replace(b'"user"', b'"User"', 1))
    os.utime(edited, ns=(stat.st_atime_ns, stat.st_mtime_ns + 1_000_000_000))
    assert edited.stat().st_size == stat.st_size
    assert threadlab.sync(sources, tmp_path / "archive").converted == [str(edited)]
    assert_archive_is(tmp_path / "archive", sources)


def test_only_the_part_of_a_changed_file_is_rewritten(sources: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(archive, "PART_BYTES", 1)  # a part per file
    monkeypatch.chdir(sources)
    first = threadlab.sync(".", tmp_path / "archive")
    assert all(name.startswith(str(sources)) for name in first.converted)  # absolute, from any folder
    files = {p: p.stat().st_mtime_ns for p in (tmp_path / "archive").rglob("*.parquet")}
    parts = orjson.loads((tmp_path / "archive" / SCHEMA_FILE).read_bytes())["parts"]
    assert len(parts) >= len(first.converted)
    grown = sorted((sources / "codex").rglob("*.jsonl"))[0]
    grown.write_bytes(grown.read_bytes() + grown.read_bytes().splitlines(keepends=True)[-1])
    assert threadlab.sync(sources, tmp_path / "archive").converted == [str(grown)]
    after = {p: p.stat().st_mtime_ns for p in (tmp_path / "archive").rglob("*.parquet")}
    kept = [p for p in files if p in after and after[p] == files[p]]
    assert len(files) - len(kept) <= 7  # the grown file's part (a file per table) and no other
    assert_archive_is(tmp_path / "archive", sources)


def test_files_changed_in_several_parts_are_rewritten_together(sources: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Several parts rewritten in one sync (in threads): each keeps its place, the archive equals a load."""
    monkeypatch.setattr(archive, "PART_BYTES", 40_000)  # a few files a part
    first = threadlab.sync(sources, tmp_path / "archive")
    parts = orjson.loads((tmp_path / "archive" / SCHEMA_FILE).read_bytes())["parts"]
    changed = sorted((sources / "codex").rglob("*.jsonl"))[:2] + sorted((sources / "claude").glob("*/*.jsonl"))[:1]
    assert len(changed) == 3 and 3 <= len(parts) < len(first.converted)
    for path in changed:
        path.write_bytes(path.read_bytes() + path.read_bytes().splitlines(keepends=True)[-1])
    report = threadlab.sync(sources, tmp_path / "archive")
    assert report.converted == sorted(str(p) for p in changed)
    after = orjson.loads((tmp_path / "archive" / SCHEMA_FILE).read_bytes())["parts"]
    untouched = [p for p in parts if p in after]
    rewritten = [p for p in after[:-1] if p not in parts]  # the last part holds the changed files' new rows
    assert len(rewritten) >= 2 and len(untouched) + len(rewritten) == len(parts)  # each part holding a changed file, rewritten
    assert [after.index(p) for p in untouched] == sorted(after.index(p) for p in untouched)  # the others stay, in order
    assert_archive_is(tmp_path / "archive", sources)


def test_removed_sources_are_reported_and_kept_until_pruned(sources: Path, tmp_path: Path) -> None:
    threadlab.sync(sources, tmp_path / "archive")
    gone = sorted((sources / "codex").rglob("*.jsonl"))[1]
    kept = threadlab.read_parquet(tmp_path / "archive")
    n_gone = (kept.actions["source"] == str(gone)).sum()
    gone.unlink()
    report = threadlab.sync(sources, tmp_path / "archive")
    assert report.removed == [str(gone)] and not report.converted
    back = threadlab.read_parquet(tmp_path / "archive")
    assert (back.actions["source"] == str(gone)).sum() == n_gone > 0  # still in the archive
    assert threadlab.sync(sources, tmp_path / "archive").removed == [str(gone)]  # and still reported
    pruned = threadlab.sync(sources, tmp_path / "archive", prune=True)
    assert pruned.removed == [str(gone)] and pruned.pruned and "pruned" in repr(pruned)
    assert_archive_is(tmp_path / "archive", sources)
    assert not threadlab.sync(sources, tmp_path / "archive").removed


def test_sync_from_and_to_urls(sources: Path) -> None:
    fs = fsspec.filesystem("memory")
    src, archive_url = f"memory://src-{uuid.uuid4().hex[:8]}", f"memory://archive-{uuid.uuid4().hex[:8]}"
    for path in sources.rglob("*"):
        if path.is_file():
            fs.pipe_file(f"{src.removeprefix('memory:/')}/{path.relative_to(sources).as_posix()}", path.read_bytes())
    report = threadlab.sync(src, archive_url)
    assert report.converted and all(name.startswith(f"{src}/") for name in report.converted)
    again = threadlab.sync(src, archive_url)
    assert again.unchanged == report.converted and not again.converted
    back = threadlab.read_parquet(archive_url)
    assert set(back.threads["source"].astype(str)) <= set(report.converted)
    assert len(back.actions) == len(threadlab.load(sources, progress=False, workers=1).actions)


def test_a_dataset_no_sync_wrote_is_refused(sources: Path, tmp_path: Path) -> None:
    threadlab.load(sources, progress=False).to_parquet(tmp_path / "ds")
    with pytest.raises(ValueError, match=r"not an archive tl\.sync keeps"):
        threadlab.sync(sources, tmp_path / "ds")
