"""URLs both ways: tl.load, tl.read and tl.read_all of objects under a URL, frames.to_parquet
to one and tl.read_parquet / tl.sql from one, through a real S3 API (moto's server on 127.0.0.1,
``s3_options`` in conftest.py) and ``memory://``. What comes back equals what the same files
give on disk, every name spelled as the URL."""

from __future__ import annotations

import os
import tempfile
import uuid
from pathlib import Path

import fsspec
import pandas as pd
import pytest

import threadlab
from threadlab.core.location import url_filesystem
from threadlab.frames.frames import TABLE_NAMES

from .test_load import assert_same_frames

ROOT = Path(__file__).resolve().parent.parent
# a Codex home's sessions (a folder of dated folders) and Claude Code projects (a session with its
# subagent transcripts, read together), with a file no format reads
FOLDERS = {"codex": ROOT / "tests" / "fixtures" / "codex", "claude": ROOT / "data" / "claude_code" / "projects"}


def upload(fs: fsspec.AbstractFileSystem, base: str) -> None:
    for name, folder in FOLDERS.items():
        for dirpath, _, files in os.walk(folder):
            for file in files:
                path = Path(dirpath) / file
                fs.makedirs(f"{base}/{name}/{path.parent.relative_to(folder).as_posix()}", exist_ok=True)
                fs.pipe_file(f"{base}/{name}/{path.relative_to(folder).as_posix()}", path.read_bytes())
    fs.pipe_file(f"{base}/codex/notes.md", b"# not a conversation\n")


@pytest.fixture(scope="module")
def local(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, threadlab.Frames]:
    root = tmp_path_factory.mktemp("local")
    upload(fsspec.filesystem("file"), str(root))
    return root, threadlab.load(root, progress=False, workers=1)


def bucket(s3_options: dict) -> tuple[fsspec.AbstractFileSystem, str]:
    fs, _ = url_filesystem("s3://x", s3_options)
    name = f"b-{uuid.uuid4().hex[:12]}"
    fs.mkdir(name)
    return fs, name


def renamed(frames: threadlab.Frames, old: str, new: str) -> dict[str, pd.DataFrame]:
    out = {}
    for name in TABLE_NAMES:
        frame = getattr(frames, name).copy()
        frame["source"] = frame["source"].astype(object).str.replace(old, new, regex=False)
        if name == "problems":
            frame["message"] = frame["message"].astype(object).str.replace(old, new, regex=False)
        out[name] = frame.reset_index(drop=True)
    return out


def assert_same_as_local(remote: threadlab.Frames, local: tuple[Path, threadlab.Frames], url: str) -> None:
    root, frames = local
    expected, got = renamed(frames, str(root), url), renamed(remote, "", "")
    for name in TABLE_NAMES:
        assert len(got[name]) == len(expected[name]) and (name == "problems" or len(got[name])), name
        pd.testing.assert_frame_equal(got[name], expected[name], check_categorical=False, obj=name)
    assert sorted(remote.skipped["path"]) == sorted(p.replace(str(root), url) for p in frames.skipped["path"])
    assert all(s.startswith(url) for s in remote.threads["source"])


def test_load_and_read_from_s3(s3_options: dict, local: tuple[Path, threadlab.Frames], tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    fs, name = bucket(s3_options)
    upload(fs, name)
    url = f"s3://{name}"
    (tmp_path / "tmp").mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path / "tmp"))  # where the temporary mirrors go
    remote = threadlab.load(url, progress=False, workers=1, storage_options=s3_options)
    assert_same_as_local(remote, local, url)
    assert "not conversation data: Markdown text" in set(remote.skipped["reason"])
    # one object, and a folder read as threads
    counts = remote.threads["source"].astype(str).value_counts()
    one = next(s for s in counts[counts == 1].index if "/codex/" in s)
    thread = threadlab.read(one, storage_options=s3_options)
    assert thread.origin[0] == one and len(thread.actions) == (remote.actions["source"] == one).sum()
    threads = threadlab.read_all(f"{url}/claude", storage_options=s3_options)
    assert threads and all(t.origin[0].startswith(f"{url}/claude/") for t in threads)
    assert len(threads) == (remote.threads["source"].str.startswith(f"{url}/claude/")).sum()
    assert not os.listdir(tmp_path / "tmp")  # the temporary mirrors are gone


def test_dataset_round_trip_through_s3(s3_options: dict, local: tuple[Path, threadlab.Frames]) -> None:
    fs, name = bucket(s3_options)
    frames = local[1]
    url = f"s3://{name}/archive"
    assert frames.to_parquet(url, partition_by="format", storage_options=s3_options) == url
    assert fs.exists(f"{name}/archive/threadlab-schema.json")
    assert any("format=codex" in p for p in fs.find(f"{name}/archive/actions"))
    assert_same_frames(frames, threadlab.read_parquet(url, storage_options=s3_options))
    frames.to_parquet(url, mode="append", storage_options=s3_options)
    back = threadlab.read_parquet(url, storage_options=s3_options)
    assert len(back.actions) == 2 * len(frames.actions)
    n = threadlab.sql("select count(*) from threads where format = 'codex'", url, storage_options=s3_options).fetchall()[0][0]
    assert n == 2 * (frames.threads["format"] == "codex").sum() > 0


def test_memory_urls_and_file_urls(local: tuple[Path, threadlab.Frames]) -> None:
    root, frames = local
    fs = fsspec.filesystem("memory")
    base = f"/m-{uuid.uuid4().hex[:8]}"
    upload(fs, base)
    assert_same_as_local(threadlab.load(f"memory:/{base}", progress=False, workers=1), local, f"memory:/{base}")
    assert_same_frames(frames, threadlab.load(f"file://{root}", progress=False, workers=1))
    frames.to_parquet(f"memory:/{base}/ds")
    assert_same_frames(frames, threadlab.read_parquet(f"memory:/{base}/ds"))
    with pytest.raises(FileNotFoundError, match="no such object"):
        threadlab.load(f"memory:/{base}/nothing", progress=False)


def test_cache_keeps_the_mirror(local: tuple[Path, threadlab.Frames], tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """With cache=, an unchanged object is neither copied nor converted again."""
    from threadlab.formats.common import remote

    fs = fsspec.filesystem("memory")
    base = f"/c-{uuid.uuid4().hex[:8]}"
    upload(fs, base)
    copies: list[int] = []
    real = remote._mirror
    monkeypatch.setattr(remote, "_mirror", lambda *a: copies.append(real(*a)) or copies[-1])
    first = threadlab.load(f"memory:/{base}", progress=False, workers=1, cache=tmp_path / "cache")
    again = threadlab.load(f"memory:/{base}", progress=False, workers=1, cache=tmp_path / "cache")
    assert_same_frames(first, again)
    [grown] = [p for p in fs.find(base) if p.endswith(".jsonl") and "codex-0.169.0" in p][:1]
    fs.pipe_file(grown, fs.cat_file(grown) + b"\n")
    threadlab.load(f"memory:/{base}", progress=False, workers=1, cache=tmp_path / "cache")
    assert copies[0] == len(fs.find(base)) and copies[1:] == [0, 1]


def test_a_missing_extra_is_named() -> None:
    with pytest.raises(ImportError, match=r"threadlab\[gcs\]"):
        threadlab.load("gs://bucket/runs/", progress=False)
