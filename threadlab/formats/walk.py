"""Paths, folders and globs → the files to read, in a stable order, and a problem for anything
that cannot be read as a file (a FIFO, a broken link, a symlink loop, an unlistable folder).

Which files a folder walk reads is a question of content, not of folders: every file with a
suffix some format reads, and any other file whose first bytes look like data (JSON, SSE, a zip
or SQLite file), so a file no format claims ends in a "no format reads this" problem instead of
vanishing. Formats that keep several files per conversation say which files are read together
(``registry.plan_folder``): a Claude Code session's subagent transcripts are read with it, not on
their own, and everything else in the same folder is still read.
"""

from __future__ import annotations

import glob as globlib
import operator
import os
import stat
from collections.abc import Iterator
from pathlib import Path
from typing import Any, NamedTuple

from threadlab.core.problems import Problem
from threadlab.formats.registry import data_suffixes, plan_folder

# files that are plainly not conversation data: skipped by a walk without a look inside
NOT_DATA_SUFFIXES = (
    ".md", ".rst", ".txt", ".py", ".pyc", ".ipynb", ".toml", ".yaml", ".yml", ".cfg", ".ini", ".lock", ".html", ".css",
    ".js", ".mjs", ".cjs", ".ts", ".png", ".jpg", ".jpeg", ".gif", ".svg", ".webp", ".pdf", ".parquet", ".feather", ".arrow",
)
S_ISREG = stat.S_ISREG
_name = operator.attrgetter("name")
_DATA_HEADS = (b"{", b"[", b"data:", b"event:", b"PK\x03\x04", b"SQLite format 3\x00")


class Found(NamedTuple):
    """A file to read; ``entry`` is its folder listing entry when a walk found it (its stat is
    cached there), ``companions`` the paths read together with it (for the cache key)."""

    path: str
    entry: os.DirEntry[str] | None = None
    companions: tuple[str, ...] = ()


def walk(source: Any) -> Iterator[Found | Problem | Any]:
    """Every file ``source`` names (a path, folder, glob or a list of them), then in-memory
    objects as they are, in a stable order; a ``Problem`` where something cannot be read as a
    file."""
    items = source if isinstance(source, list | tuple) else [source]
    for item in items:
        if not isinstance(item, str | os.PathLike):  # Threads and other in-memory objects
            yield item
            continue
        text = os.fspath(item)
        if text.startswith("~"):
            text = os.path.expanduser(text)
        if any(ch in text for ch in "*?[") and not os.path.lexists(text):
            for match in sorted(globlib.glob(text, recursive=True)):
                yield from walk(match)
            continue
        try:
            info = os.stat(text)
        except OSError:
            if os.path.islink(text):
                yield Problem("io", f"{text} is a broken symbolic link", source=text)
            else:
                yield Found(text)  # reading it says what is wrong (no such file ...)
            continue
        if stat.S_ISDIR(info.st_mode):
            yield from _walk_folder(text, set())
        elif stat.S_ISREG(info.st_mode):
            yield Found(text)
        else:
            yield _special(text, info.st_mode)


def _special(path: str, mode: int) -> Problem:
    kind = "a FIFO" if stat.S_ISFIFO(mode) else "a socket" if stat.S_ISSOCK(mode) else "a device" if stat.S_ISCHR(mode) or stat.S_ISBLK(mode) else "not a regular file"
    return Problem("io", f"{path} is {kind}, not a file; skipped", source=path)


def _walk_folder(folder: str, seen: set[tuple[int, int]]) -> Iterator[Found | Problem]:
    try:
        info = os.stat(folder)
        with os.scandir(folder) as listing:
            entries = [e for e in listing if not e.name.startswith(".")]
    except OSError as exc:
        yield Problem("io", f"{folder} cannot be listed: {exc.strerror or exc}", source=folder)
        return
    key = (info.st_dev, info.st_ino)
    if key in seen:  # a symbolic link back to a folder this walk is already in
        yield Problem("io", f"{folder} links back to a folder already being walked (a symlink loop); skipped", source=folder)
        return
    seen = seen | {key}
    plan = plan_folder(folder, entries)
    skipped = plan.skipped()
    suffixes = data_suffixes()
    entries.sort(key=_name)
    here = folder == "."  # paths as pathlib spells them: no "./"
    for entry in entries:
        name = entry.name
        if name in skipped:
            continue
        path = name if here else entry.path
        try:
            mode = entry.stat().st_mode
        except OSError:
            if entry.is_symlink() and name.lower().endswith(suffixes):
                yield Problem("io", f"{path} is a broken symbolic link", source=path)
            continue
        if S_ISREG(mode):
            if name.lower().endswith(suffixes) or _looks_like_data(entry):
                along = plan.companions.get(name)
                yield Found(path, entry, tuple(os.path.join(folder, n) for n in along) if along else ())
        elif stat.S_ISDIR(mode):
            yield from _walk_folder(path, seen)
        elif name.lower().endswith(suffixes):
            yield _special(path, mode)


def _looks_like_data(entry: os.DirEntry[str]) -> bool:
    """A file of no data suffix is read when its first bytes look like data, so that what no
    format reads is reported instead of silently passed over."""
    if entry.name.lower().endswith(NOT_DATA_SUFFIXES):
        return False
    try:
        with open(entry.path, "rb") as fh:
            head = fh.read(64)
    except OSError:
        return False
    return head.removeprefix(b"\xef\xbb\xbf").lstrip().startswith(_DATA_HEADS)


def expand_sources(source: Any) -> Iterator[Path | Problem | Any]:
    """``walk`` with each file as a Path (the CLI and ``read_all`` of a folder use this)."""
    for item in walk(source):
        yield Path(item.path) if isinstance(item, Found) else item
