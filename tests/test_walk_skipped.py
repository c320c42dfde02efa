"""Nothing in a folder is skipped silently (issue 24 §2).

A folder walk used to pass over ``.txt`` files (and other suffixes) without a word: a provider
stream recorded as ``*.chunks.txt`` gave no thread and no problem in a folder, though it reads
alone. Now every file a walk meets is sniffed by content and either read or listed in
``frames.skipped`` with the reason. The captures are real files (``tests/fixtures/real/``, see
their READMEs) saved under a ``.txt`` name in the test's folder."""

from __future__ import annotations

import os
import shutil
import struct
import subprocess
import sys
import zlib
from pathlib import Path

import orjson
import pandas as pd
import pytest

import threadlab as tl
from tests.conformance.fixtures import FIXTURES, fixtures, lookalikes
from threadlab.formats.common.content import HEAD_BYTES, not_data_reason
from threadlab.formats.common.walk import Found, Skipped, walk
from threadlab.loading import chunks

REAL = FIXTURES / "real"
ANTHROPIC_SSE = REAL / "anthropic_messages" / "anthropic_sdk_tool_use_stream.sse"
OPENAI_SSE = REAL / "openai_chat" / "openai_python_tool_call_stream.sse"
AI_SDK_CHUNKS = REAL / "anthropic_messages" / "vercel_ai_anthropic_chunks.jsonl"
CODEX_ROLLOUT = next(iter(sorted((REAL / "codex").glob("rollout-*.jsonl"))))
CLAUDE_SESSION = REAL / "claude" / "cli-2.1.207-queue-operation" / "session_id_steering_order.jsonl"

# the captures, each under a name no format's suffix claims, and what it reads as alone
CAPTURES = {"x.chunks.txt": ANTHROPIC_SSE, "y.chunks.txt": OPENAI_SSE, "z.chunks.txt": AI_SDK_CHUNKS}
NOT_READ = {
    "README.md": "not conversation data: Markdown text",
    "notes.txt": "not conversation data: plain text",
    "plot.py": "not conversation data: Python source",
    "picture.png": "not conversation data: a PNG image",
    "blob": "not conversation data: binary content",
    "empty": "an empty file",
    "analysis.ipynb": "not conversation data: a Jupyter notebook",
    ".DS_Store": "a hidden file (names starting with '.' are not read in a folder)",
    ".git": "a hidden folder (not walked)",
    "codex-home/config.toml": "a Codex home's config.toml",
    "codex-home/auth.json": "a Codex home's credentials (auth.json, never opened)",
    "claude-home/settings.json": "a Claude Code settings file",
    "claude-home/todos": "in a Claude Code home, beside projects/ (only projects/ holds conversations)",
}


def png() -> bytes:
    """A valid 1x1 grey PNG."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", 1, 1, 8, 0, 0, 0, 0)) + chunk(b"IDAT", zlib.compress(b"\x00\x80")) + chunk(b"IEND", b"")


def make_folder(root: Path) -> Path:
    """A folder as users have them: captures saved as .txt beside notes, code, a picture, a
    notebook, an empty file, a binary blob, hidden entries, a Codex home and a Claude Code home."""
    root.mkdir()
    for name, source in CAPTURES.items():
        shutil.copyfile(source, root / name)
    (root / "README.md").write_text("# Runs of 2026-01-05\n\nThe captures were recorded with the SDKs' own clients.\n")
    (root / "notes.txt").write_text("The agent retried twice, then answered.\nNothing else happened.\n")
    (root / "plot.py").write_text("import threadlab as tl\n\nprint(tl.load('.'))\n")
    (root / "picture.png").write_bytes(png())
    (root / "blob").write_bytes(bytes(range(256)) * 4)
    (root / "empty").write_bytes(b"")
    (root / "analysis.ipynb").write_bytes(orjson.dumps({"cells": [], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}, option=orjson.OPT_INDENT_2))
    (root / ".DS_Store").write_bytes(b"\x00\x00\x00\x01Bud1" + bytes(64))
    (root / ".git").mkdir()
    (root / ".git" / "HEAD").write_text("ref: refs/heads/main\n")
    codex = root / "codex-home"
    (codex / "sessions" / "2026" / "02" / "23").mkdir(parents=True)
    shutil.copyfile(CODEX_ROLLOUT, codex / "sessions" / "2026" / "02" / "23" / CODEX_ROLLOUT.name)
    (codex / "config.toml").write_text('model = "gpt-5"\n')
    (codex / "auth.json").write_text('{"OPENAI_API_KEY": "sk-not-read"}')
    claude = root / "claude-home"
    (claude / "projects" / "-home-me-proj").mkdir(parents=True)
    shutil.copyfile(CLAUDE_SESSION, claude / "projects" / "-home-me-proj" / CLAUDE_SESSION.name)
    (claude / "settings.json").write_text('{"permissions": {"allow": ["Bash(ls:*)"]}, "model": "opus"}')
    (claude / "todos").mkdir()
    (claude / "todos" / "a.json").write_text("[]")
    return root


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    return make_folder(tmp_path / "runs")


def skipped_by_name(frames: tl.Frames, root: Path) -> dict[str, str]:
    return {os.path.relpath(str(p), root): str(r) for p, r in zip(frames.skipped["path"], frames.skipped["reason"], strict=True)}


def test_a_stream_saved_as_txt_reads_in_a_folder_as_it_does_alone(folder: Path) -> None:
    """Failed before: the .txt captures gave no thread and no problem in a folder."""
    frames = tl.load(folder, progress=False)
    sources = {os.path.basename(str(s)): f for s, f in zip(frames.threads["source"], frames.threads["format"], strict=True)}
    for name, original in CAPTURES.items():
        alone = tl.read_all(original, strict=False)
        assert sources.get(name) == alone[0].origin[1], f"{name} ({original.name}) was not read in the folder"
        rows = frames.actions[frames.actions["source"].astype(str) == str(folder / name)]
        assert len(rows) == sum(len(t.actions) for t in alone)


def test_every_file_is_read_or_listed_with_its_reason(folder: Path) -> None:
    frames = tl.load(folder, progress=False)
    skipped = skipped_by_name(frames, folder)
    assert skipped == NOT_READ
    sizes = dict(zip(frames.skipped["path"], frames.skipped["bytes"], strict=True))
    for path, size in sizes.items():
        assert (pd.isna(size) and os.path.isdir(path)) if not os.path.isfile(path) else size == os.path.getsize(path)
    read = {str(s) for s in frames.threads["source"]} | {str(s) for s in frames.problems["source"]}
    listed = set(frames.skipped["path"])
    for dirpath, dirnames, filenames in os.walk(folder):
        dirnames[:] = [d for d in dirnames if os.path.join(dirpath, d) not in listed]  # a listed folder is one row
        for name in filenames:
            path = os.path.join(dirpath, name)
            assert path in read or path in listed, f"{path} is silently absent"
    assert {os.path.basename(str(f)) for f in frames.threads["format"]} >= {"codex", "claude-code", "anthropic-messages", "openai-chat"}
    assert frames.problems.empty, frames.problems
    first = sorted(NOT_READ.values())[0]  # (every reason once: the first in order is shown)
    assert f"13 files skipped: 1 × {first}; " in repr(frames) and "; 10 more, for 10 other reason(s) (frames.skipped))" in repr(frames)
    assert "13 files skipped" in frames._repr_html_()


def test_strict_does_not_raise_for_skipped_files(folder: Path) -> None:
    strict = tl.load(folder, progress=False, strict=True)
    assert len(strict.skipped) == len(NOT_READ)


def test_the_cache_the_pool_dask_and_parquet_list_the_same_skipped_files(folder: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    first = tl.load(folder, progress=False, workers=1)
    cache = tmp_path / "cache"
    tl.load(folder, cache=cache, progress=False, workers=1)

    def no_reading(chunk: object) -> None:
        raise AssertionError("a cached chunk was read again")

    with monkeypatch.context() as patch:
        patch.setattr(chunks, "read_chunk", no_reading)
        cached = tl.load(folder, cache=cache, progress=False, workers=1)
    pooled = tl.load(folder, progress=False, workers=2)
    lazy = tl.load(folder, engine="dask")
    assert "13 files skipped" in repr(lazy)
    computed = lazy.compute(scheduler="synchronous")
    first.to_parquet(tmp_path / "out")
    back = tl.read_parquet(tmp_path / "out")
    for other in (cached, pooled, computed, back):
        pd.testing.assert_frame_equal(other.skipped, first.skipped)
        assert list(other.threads["thread_id"]) == list(first.threads["thread_id"])
    con = first.to_duckdb()
    assert con.execute("select count(*) from skipped where reason like 'not conversation data%'").fetchone()[0] == 6


def test_summary_counts_skipped_files_by_reason_and_lists_them_on_request(folder: Path) -> None:
    def summary(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "threadlab", "summary", *args], capture_output=True, text=True, timeout=120, check=False)

    out = summary(str(folder))
    assert out.returncode == 0, out.stderr
    assert "13 files skipped (not read; --skipped lists them):" in out.stdout
    counts = {line.strip().split("  ", 1)[1]: int(line.split()[0]) for line in out.stdout.split("skipped (not read", 1)[1].splitlines()[1:] if line.strip()}
    assert counts == {reason: list(NOT_READ.values()).count(reason) for reason in NOT_READ.values()}
    assert str(folder / "notes.txt") not in out.stdout
    listed = summary(str(folder), "--skipped")
    assert f"{folder / 'notes.txt'}: not conversation data: plain text" in listed.stdout
    assert f"{folder / 'claude-home' / 'settings.json'}: a Claude Code settings file" in listed.stdout
    nothing = tl.load(folder / "claude-home" / "todos", progress=False)  # a folder of nothing readable but []
    assert nothing.skipped.empty
    prose = folder / "prose"
    prose.mkdir()
    (prose / "a.txt").write_text("only words here\n")
    none = summary(str(prose))
    assert none.returncode == 1 and "no thread found" in none.stderr
    assert "1 file skipped" in none.stderr and "not conversation data: plain text" in none.stderr


@pytest.mark.timeout(60)  # a regression here is a hang: fail it fast
def test_special_files_and_broken_links_are_listed_or_problems(tmp_path: Path) -> None:
    """A FIFO or a broken link named like data is a problem, named otherwise it is listed. (The
    walk hung here before: ``pipe`` beside ``pipe.jsonl`` looks like a Claude Code session and
    its folder, and the Claude plan opened the FIFO to sniff it.)"""
    os.mkfifo(tmp_path / "pipe")
    os.mkfifo(tmp_path / "pipe.jsonl")
    os.symlink(tmp_path / "nowhere", tmp_path / "dangling")
    os.symlink(tmp_path / "nowhere.json", tmp_path / "dangling.json")
    frames = tl.load(tmp_path, progress=False)
    assert skipped_by_name(frames, tmp_path) == {"pipe": "a FIFO, not a regular file", "dangling": "a broken symbolic link"}
    assert sorted(os.path.basename(str(s)) for s in frames.problems["source"]) == ["dangling.json", "pipe.jsonl"]
    assert set(frames.problems["rule"]) == {"io"}


def test_content_not_the_suffix_decides() -> None:
    assert not_data_reason(b'data: {"type":"message_start"}\n', "capture.md") is None
    assert not_data_reason(b"\xef\xbb\xbf  [\n", "chunks.txt") is None
    assert not_data_reason(b": keep-alive\n\ndata: {}\n", "x.log") is None
    assert not_data_reason(b"PK\x03\x04rest", "log.zip") is None
    assert not_data_reason(b"SQLite format 3\x00rest", "sessions") is None
    assert not_data_reason('{"a": "€'.encode()[:-1], "cut.txt") is None  # the head ends inside a character
    assert not_data_reason(" ".join(["data: {}"]).encode("utf-16"), "utf16.txt") is None
    assert not_data_reason(b" " * HEAD_BYTES, "padded.txt") is None  # the data may start further on
    assert not_data_reason(b" \n\t", "blank.jsonl.txt") == "a blank file (whitespace only)"
    assert not_data_reason(b"# Title\n\n{not data}", "README") == "not conversation data: text"
    assert not_data_reason(b"PAR1\x15\x04", "table.bin") is None  # Parquet may be data (Phoenix, Langfuse exports): the detectors look at its footer
    assert not_data_reason(b"ARROW1\x00\x00", "frame.bin") == "not conversation data: an Arrow IPC (Feather) file"
    assert not_data_reason(b"\xff\xd8\xff\xe0", "photo") == "not conversation data: a JPEG image"
    assert not_data_reason(b"caf\xe9 au lait", "latin1.txt") == "not conversation data: binary content"


def test_every_fixture_head_is_taken_for_data() -> None:
    """What may be data (``content.DATA_HEADS``) covers what every format reads: each fixture
    and bundled file, sniffed as a walk would sniff it under a name of no data suffix, is data."""
    paths = [f.path for f in fixtures()] + lookalikes()
    assert len(paths) > 100
    for path in paths:
        with open(path, "rb") as fh:
            head = fh.read(HEAD_BYTES)
        assert not_data_reason(head, path.name + ".txt") is None, f"{path} would be skipped under another name"


def test_the_fixture_folders_readmes_are_listed_not_fixtures() -> None:
    found = [Path(item.path) for item in walk(FIXTURES) if isinstance(item, Found)]
    readmes = {Path(item.path) for item in walk(FIXTURES) if isinstance(item, Skipped) and item.path.endswith("README.md")}
    assert readmes >= {REAL / "codex" / "README.md", REAL / "anthropic_messages" / "README.md"}
    assert not any(p.name == "README.md" for p in found)
    assert {f.path for f in fixtures(origins=("fixture", "real"))} <= set(found)
