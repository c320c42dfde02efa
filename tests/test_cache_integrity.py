"""The load cache cannot lie (issue 13): a damaged entry is a miss, a CacheWarning and a
re-read, never wrong frames and never a crash in Arrow; an unwritable cache folder is a
warning and an uncached load; an interrupted write leaves nothing behind.

The issue flipped single bytes in cache entries: 52 of 118 gave silently wrong frames and 8
killed the process. Here one bit is flipped at positions spread over every file of an entry
(the Arrow magic, the schema, the record batches, the footer, and the manifest), about as
many cases, each checked by reading the entry back; a few go through a whole load."""

from __future__ import annotations

import os
import shutil
import sys
import time
import warnings
from pathlib import Path

import orjson
import pytest

import threadlab as tl
from benchmarks.corpus import thread_doc
from threadlab.loading import cache as cache_module
from threadlab.loading.cache import MANIFEST, CacheWarning, read_entry
from threadlab.loading.files import file_refs, make_chunks

from .test_load import assert_same_frames

POSITIONS_PER_FILE = 20


def make_corpus(folder: Path, n: int = 3) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    for i in range(n):
        (folder / f"t{i}.json").write_bytes(orjson.dumps(thread_doc(11, i, target_bytes=5000)))
    return folder


def only_entry(cache: Path) -> Path:
    (entry,) = [p for p in cache.iterdir() if not p.name.startswith(".")]
    return entry


def positions(size: int) -> list[int]:
    """Both ends (magic, footer, lengths) and evenly between them."""
    spread = {round(k * (size - 1) / (POSITIONS_PER_FILE - 1)) for k in range(POSITIONS_PER_FILE)}
    return sorted(spread | {0, 1, 6, 8, size - 10, size - 6, size - 1})


@pytest.fixture
def cached(tmp_path: Path) -> tuple[Path, Path, tl.Frames]:
    corpus = make_corpus(tmp_path / "c")
    cache = tmp_path / "cache"
    frames = tl.load(corpus, cache=cache, workers=1, progress=False)
    return corpus, cache, frames


def test_every_flipped_bit_is_a_miss_with_a_warning(cached: tuple[Path, Path, tl.Frames], tmp_path: Path) -> None:
    corpus, cache, _ = cached
    entry = only_entry(cache)
    pristine = tmp_path / "pristine"
    shutil.copytree(entry, pristine)
    (chunk,) = make_chunks(list(file_refs(corpus)), "auto")
    assert read_entry(cache, chunk) is not None  # the intact entry is a hit
    cases = 0
    for file in sorted(pristine.iterdir()):
        data = file.read_bytes()
        for at in positions(len(data)):
            for bit in (0, 7):
                damaged = bytearray(data)
                damaged[at] ^= 1 << bit
                shutil.rmtree(entry, ignore_errors=True)
                shutil.copytree(pristine, entry)
                (entry / file.name).write_bytes(bytes(damaged))
                with pytest.warns(CacheWarning, match="is damaged"):
                    assert read_entry(cache, chunk) is None, (file.name, at, bit)
                assert not entry.exists()  # moved aside and deleted: the re-read writes a good one
                cases += 1
    assert cases >= 118
    for file in sorted(pristine.iterdir()):  # truncated, emptied, missing
        for damaged in (file.read_bytes()[:-1], b""):
            shutil.rmtree(entry, ignore_errors=True)
            shutil.copytree(pristine, entry)
            (entry / file.name).write_bytes(damaged)
            with pytest.warns(CacheWarning):
                assert read_entry(cache, chunk) is None
        shutil.rmtree(entry, ignore_errors=True)
        shutil.copytree(pristine, entry)
        (entry / file.name).unlink()
        if file.name == MANIFEST:
            assert read_entry(cache, chunk) is None  # no manifest: no entry (a miss, nothing to warn about)
        else:
            with pytest.warns(CacheWarning):
                assert read_entry(cache, chunk) is None


def test_a_damaged_entry_is_read_again_and_rewritten(cached: tuple[Path, Path, tl.Frames]) -> None:
    corpus, cache, first = cached
    entry = only_entry(cache)
    for name in ("actions.feather", "problems.feather", MANIFEST):
        data = bytearray((entry / name).read_bytes())
        data[len(data) // 2] ^= 0x10
        (entry / name).write_bytes(bytes(data))
        with pytest.warns(CacheWarning, match="is damaged"):
            again = tl.load(corpus, cache=cache, workers=1, progress=False)
        assert_same_frames(first, again)
        with warnings.catch_warnings():
            warnings.simplefilter("error")  # the entry was written again, whole
            assert_same_frames(first, tl.load(corpus, cache=cache, workers=1, progress=False))


def test_an_unwritable_cache_folder_is_a_warning_and_an_uncached_load(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    corpus = make_corpus(tmp_path / "c")
    expected = tl.load(corpus, workers=1, progress=False)
    # tests run as root, where a read-only mode stops nothing: a folder under a regular file
    # is one the OS refuses to make for anyone (ENOTDIR)
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    with pytest.warns(CacheWarning, match="cannot be written"):
        frames = tl.load(corpus, cache=blocker / "cache", workers=1, progress=False)
    assert_same_frames(expected, frames)
    # a folder that exists but refuses files (what EACCES / EROFS look like to the loader)
    folder = tmp_path / "readonly"
    folder.mkdir()

    def refused(*args: object, **kwargs: object) -> None:
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(cache_module.tempfile, "mkstemp", refused)
    with pytest.warns(CacheWarning, match="Permission denied"):
        frames = tl.load(corpus, cache=folder, workers=2, progress=False)
    assert_same_frames(expected, frames)
    assert list(folder.iterdir()) == []


def test_an_interrupted_write_leaves_nothing_behind(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    corpus = make_corpus(tmp_path / "c")
    cache = tmp_path / "cache"

    def interrupted(*args: object, **kwargs: object) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(cache_module.feather, "write_feather", interrupted)
    with pytest.raises(KeyboardInterrupt):
        tl.load(corpus, cache=cache, workers=1, progress=False)
    assert list(cache.iterdir()) == []


def test_stale_temporary_folders_are_swept(tmp_path: Path) -> None:
    """A process killed while writing an entry leaves its temporary folder; the next load
    removes it once it is a day old (a younger one may be another load's, still writing)."""
    cache = tmp_path / "cache"
    stale, fresh = cache / ".tmp-stale", cache / ".tmp-fresh"
    for folder in (stale, fresh):
        folder.mkdir(parents=True)
        (folder / "actions.feather").write_bytes(b"half")
    day_ago = time.time() - 2 * cache_module.STALE_TMP_SECONDS
    os.utime(stale, (day_ago, day_ago))
    tl.load(make_corpus(tmp_path / "c"), cache=cache, workers=1, progress=False)
    assert not stale.exists() and fresh.exists()


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc/self/maps")
def test_a_reload_maps_its_entries(cached: tuple[Path, Path, tl.Frames]) -> None:
    """The reloaded frames' strings are the entry's pages, not a copy of them."""
    corpus, cache, _ = cached
    again = tl.load(corpus, cache=cache, workers=1, progress=False)
    assert os.path.realpath(only_entry(cache) / "actions.feather") in Path("/proc/self/maps").read_text()
    del again


def test_frames_from_the_cache_outlive_its_entries(cached: tuple[Path, Path, tl.Frames]) -> None:
    """Entries removed and written anew while frames from them are alive (as the cache does it:
    by unlink and rename, never in place): the frames stay as they were, and are the user's
    to change."""
    corpus, cache, first = cached
    again = tl.load(corpus, cache=cache, workers=1, progress=False)
    shutil.rmtree(cache)
    tl.load(corpus, cache=cache, workers=1, progress=False)
    assert_same_frames(first, again)
    again.actions.loc[0, "text"] = "changed"
    again.actions.loc[0, "sequence"] = 10**6
    assert first.actions.loc[0, "text"] != "changed"


@pytest.mark.parametrize("mapped", [True, False])
def test_mapped_and_read_entries_give_the_same_frames(cached: tuple[Path, Path, tl.Frames], monkeypatch: pytest.MonkeyPatch, mapped: bool) -> None:
    corpus, cache, first = cached
    monkeypatch.setattr(cache_module, "MAP_ENTRIES", mapped)
    (chunk,) = make_chunks(list(file_refs(corpus)), "auto")
    tables = read_entry(cache, chunk)
    assert tables is not None
    assert_same_frames(first, tl.Frames.from_tables(tables))


def test_an_entry_that_cannot_be_mapped_is_read(cached: tuple[Path, Path, tl.Frames], monkeypatch: pytest.MonkeyPatch) -> None:
    """No mapping to be had (a process at its limit of mappings): the entry is read, a hit, no
    warning; not taken for a damaged one."""
    corpus, cache, first = cached

    def no_mapping(*args: object, **kwargs: object) -> None:
        raise OSError(12, "Cannot allocate memory")

    monkeypatch.setattr(cache_module.pa, "memory_map", no_mapping)
    (chunk,) = make_chunks(list(file_refs(corpus)), "auto")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        tables = read_entry(cache, chunk)
    assert tables is not None
    assert_same_frames(first, tl.Frames.from_tables(tables))
