"""Paths, folders and globs → the files to read, in a stable order; a problem for anything that
cannot be read as a file (a FIFO, a broken link, a symlink loop, an unlistable folder); and, for
each file a folder walk meets and does not read, a ``Skipped`` saying why.

Which files a folder walk reads is a question of content, not of names. A file with a suffix
some format reads (``.json``, ``.jsonl``, ``.sse`` ...) is read: whatever it holds, reading it
says (a problem names an empty file, or one no format recognises). Any other file's first bytes
are sniffed (``content.not_data_reason``: a few hundred bytes, no parse): what may be data
(JSON, an SSE body, a zip or SQLite file) is read as that file would be alone, so a stream saved
as ``capture.chunks.txt`` gives its thread; the rest (a README, a script, a picture, a Parquet
file) is a ``Skipped`` naming what it is. Files with a data suffix are not sniffed by the walk:
their head is read by detection anyway, and on a cached reload of 10,000 files the extra open
of each would have doubled the walk (``benchmarks/walk.py``).

Formats that keep several files per conversation say which files are read together
(``registry.plan_folder``): a Claude Code session's subagent transcripts are read with it, not on
their own (they are read, so not listed), and everything else in the same folder is still read.
Files a plan rules out (a Codex home's ``config.toml``, a Claude Code home's settings) are
``Skipped`` with the plan's reason. Names starting with ``.`` are not walked (``.git``, a
``.threadlab-cache``, ``.DS_Store``): each is one ``Skipped`` (a hidden folder is not entered, so
its files are not listed one by one). A special file (FIFO, socket, device) or a broken link
named like data is a problem; one named otherwise is ``Skipped``.
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
from threadlab.formats.common.content import HEAD_BYTES, not_data_reason
from threadlab.formats.common.registry import data_suffixes, plan_folder

S_ISREG = stat.S_ISREG
S_ISDIR = stat.S_ISDIR
_name = operator.attrgetter("name")
HIDDEN_FILE = "a hidden file (names starting with '.' are not read in a folder)"
HIDDEN_FOLDER = "a hidden folder (not walked)"
BROKEN_LINK = "a broken symbolic link"


class Found(NamedTuple):
    """A file to read; ``entry`` is its folder listing entry when a walk found it (its stat is
    cached there), ``companions`` the paths read together with it (for the cache key)."""

    path: str
    entry: os.DirEntry[str] | None = None
    companions: tuple[str, ...] = ()


class Skipped(NamedTuple):
    """A file (or folder) a folder walk met and does not read, and why (``bytes``: its size;
    None for a folder, a special file or a link that leads nowhere)."""

    path: str
    reason: str
    bytes: int | None = None


def walk(source: Any) -> Iterator[Found | Problem | Skipped | Any]:
    """Every file ``source`` names (a path, folder, glob or a list of them), then in-memory
    objects as they are, in a stable order; a ``Problem`` where something cannot be read as a
    file, a ``Skipped`` for what a folder holds and is not read. A file named by a path or a
    glob is always read (its name was asked for); only a folder's entries are sniffed."""
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


def _special_kind(mode: int) -> str:
    return "a FIFO" if stat.S_ISFIFO(mode) else "a socket" if stat.S_ISSOCK(mode) else "a device" if stat.S_ISCHR(mode) or stat.S_ISBLK(mode) else "not a regular file"


def _special(path: str, mode: int) -> Problem:
    return Problem("io", f"{path} is {_special_kind(mode)}, not a file; skipped", source=path)


def _walk_folder(folder: str, seen: set[tuple[int, int]]) -> Iterator[Found | Problem | Skipped]:
    try:
        info = os.stat(folder)
        with os.scandir(folder) as listing:
            entries = list(listing)
    except OSError as exc:
        yield Problem("io", f"{folder} cannot be listed: {exc.strerror or exc}", source=folder)
        return
    key = (info.st_dev, info.st_ino)
    if key in seen:  # a symbolic link back to a folder this walk is already in
        yield Problem("io", f"{folder} links back to a folder already being walked (a symlink loop); skipped", source=folder)
        return
    seen = seen | {key}
    plan = plan_folder(folder, [e for e in entries if not e.name.startswith(".")])
    together = plan.read_together()
    suffixes = data_suffixes()
    entries.sort(key=_name)
    here = folder == "."  # paths as pathlib spells them: no "./"
    for entry in entries:
        name = entry.name
        if name in together:
            continue
        path = name if here else entry.path
        try:
            st = entry.stat()
        except OSError as exc:
            yield _unstatable(entry, path, suffixes, exc)
            continue
        mode = st.st_mode
        why = plan.ignore.get(name) or ((HIDDEN_FOLDER if S_ISDIR(mode) else HIDDEN_FILE) if name[0] == "." else None)
        if why is not None:
            yield Skipped(path, why, st.st_size if S_ISREG(mode) else None)
        elif S_ISREG(mode):
            why = None if name.lower().endswith(suffixes) else _sniff(entry.path, name)
            if why is None:
                along = plan.companions.get(name)
                yield Found(path, entry, tuple(os.path.join(folder, n) for n in along) if along else ())
            else:
                yield Skipped(path, why, st.st_size)
        elif S_ISDIR(mode):
            yield from _walk_folder(path, seen)
        elif name.lower().endswith(suffixes):
            yield _special(path, mode)
        else:
            yield Skipped(path, f"{_special_kind(mode)}, not a regular file")


def _unstatable(entry: os.DirEntry[str], path: str, suffixes: tuple[str, ...], exc: OSError) -> Problem | Skipped:
    """An entry the listing named that cannot be looked at: a link that leads nowhere (a
    problem when it is named like data), or one gone or hidden since the listing."""
    if entry.is_symlink():
        if entry.name.lower().endswith(suffixes):
            return Problem("io", f"{path} is a broken symbolic link", source=path)
        return Skipped(path, BROKEN_LINK)
    return Skipped(path, f"cannot be looked at: {exc.strerror or exc}")


def _sniff(path: str, name: str) -> str | None:
    """Why the file at ``path`` is not read (``content.not_data_reason`` of its first bytes), or
    None when it may be data. A file that cannot be opened is read: reading it says why."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except OSError:
        return None
    try:
        head = os.read(fd, HEAD_BYTES)
    except OSError:
        return None
    finally:
        os.close(fd)
    return not_data_reason(head, name)


def expand_sources(source: Any, skipped: list[Skipped] | None = None) -> Iterator[Path | Problem | Any]:
    """``walk`` with each file as a Path (the CLI and ``read_all`` of a folder use this); what
    the walk does not read goes to ``skipped`` when a list is given."""
    for item in walk(source):
        if isinstance(item, Skipped):
            if skipped is not None:
                skipped.append(item)
        else:
            yield Path(item.path) if isinstance(item, Found) else item
