"""Files under a URL (``s3://bucket/runs/``, ``gs://…``, ``hf://datasets/…``, ``memory://…``) read
as a folder on disk would be: listed with fsspec, copied into a local mirror, and read there by
the same walk, readers and loader, so every format (a Claude Code session with its subagent
folder, an Inspect ``.eval`` zip, an SQLite session store) reads the same from a bucket as from
disk, and nothing of the local fast path changes. What the frames and problems say names the
URL, never the mirror (``Staged.url_of``).

The mirror is a temporary folder removed after the read, or, with ``cache=``, a folder kept in
the cache (``<cache>/remote/<hash of the URL>/``) where a file is copied again only when its
size or version changed: the version is the store's ETag where it gives one (S3, GCS, the Hub),
else its modification time. A mirrored file gets the store's modification time, so the load
cache and ``tl.sync``, which key files by size and mtime, see an unchanged object as unchanged."""

from __future__ import annotations

import hashlib
import os
import shutil
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

import orjson

from threadlab.core.location import is_url, url_filesystem
from threadlab.core.model import Thread
from threadlab.core.problems import Problem

INDEX = "index.json"
TREE = "tree"
COPY_THREADS = 8  # objects fetched at once


@dataclass
class Staged:
    """A URL mirrored on disk: ``local`` is what to read (a folder, or one file), ``url`` what
    it is called."""

    url: str
    local: str
    root: str  # the mirror's tree folder: local paths under it map to URLs under ``base``
    base: str
    temporary: bool
    files: int = 0
    copied: int = 0
    _tmp: str | None = field(default=None, repr=False)

    def url_of(self, path: str) -> str:
        """The URL of a path under the mirror (other paths as they are)."""
        if path == self.root:
            return self.base
        prefix = self.root + os.sep
        if path.startswith(prefix):
            return self.base + "/" + path[len(prefix):].replace(os.sep, "/")
        return path

    def text(self, message: str) -> str:
        """A message with the mirror's paths in it spelled as URLs."""
        return message.replace(self.root, self.base) if self.root in message else message

    def problem(self, problem: Problem) -> Problem:
        """A problem naming the URL, not the mirror."""
        source = self.url_of(problem.source) if problem.source else problem.source
        return Problem(problem.rule, self.text(problem.message), problem.thread_id, problem.sequence, source, problem.line)

    def thread(self, thread: Thread) -> Thread:
        """A thread read from the mirror, named by its URL (its origin and problems)."""
        name, fmt = thread.origin
        thread.origin = (self.url_of(name) if name else name, fmt)
        thread.problems[:] = [self.problem(p) for p in thread.problems]
        return thread

    def __enter__(self) -> Staged:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        if self.temporary and self._tmp is not None:
            shutil.rmtree(self._tmp, ignore_errors=True)
            self._tmp = None


def stage(url: str, *, storage_options: Mapping[str, Any] | None = None, cache: str | os.PathLike[str] | None = None) -> Staged:
    """Mirror what ``url`` names (an object, or every object under a prefix) on disk."""
    fs, path = url_filesystem(url, storage_options)
    path = path.rstrip("/")
    base = url.rstrip("/")
    if cache is not None:
        home = os.path.join(os.fspath(cache), "remote", hashlib.sha1(base.encode()).hexdigest()[:16])
        tmp = None
    else:
        home = tmp = tempfile.mkdtemp(prefix="threadlab-remote-")
    tree = os.path.join(home, TREE)
    try:
        listing = _listing(fs, path)
    except FileNotFoundError:
        raise FileNotFoundError(f"{url}: no such object or prefix") from None
    single = list(listing) == [""]
    if single:  # one object: mirrored under its own name (its suffix says what it is)
        name = path.rsplit("/", 1)[-1]
        listing = {name: listing[""]}
        base = base.rsplit("/", 1)[0]
        path = path.rsplit("/", 1)[0]
    staged = Staged(url, os.path.join(tree, *next(iter(listing)).split("/")) if single else tree, tree, base, cache is None, len(listing), _tmp=tmp)
    try:
        staged.copied = _mirror(fs, path, listing, home, tree)
    except BaseException:
        staged.close()
        raise
    return staged


def _listing(fs: Any, path: str) -> dict[str, dict[str, Any]]:
    """Relative name → the store's info for every object under ``path`` ('' for ``path`` itself
    when it is one object)."""
    if fs.isfile(path):
        return {"": fs.info(path)}
    if not fs.isdir(path):
        raise FileNotFoundError(path)
    found = fs.find(path, detail=True)
    prefix = path + "/"
    out = {}
    for name, info in sorted(found.items()):
        rel = name.removeprefix(prefix) if name.startswith(prefix) else name.rsplit("/", 1)[-1]
        if info.get("type", "file") != "directory" and rel and ".." not in rel.split("/"):
            out[rel] = info
    return out


def version_of(info: Mapping[str, Any]) -> str:
    """What says an object changed: its size with its ETag, else its modification time."""
    tag = info.get("ETag") or info.get("etag") or info.get("VersionId") or info.get("md5Hash") or info.get("blob_id")
    return f"{info.get('size')}:{tag if tag is not None else mtime_ns(info)}"


def mtime_ns(info: Mapping[str, Any]) -> int | None:
    value = info.get("LastModified") or info.get("mtime") or info.get("updated") or info.get("created") or info.get("last_modified")
    if isinstance(value, datetime):
        return int(value.timestamp() * 1_000_000) * 1000
    if isinstance(value, int | float):
        return int(value * 1_000_000_000) if value < 1e12 else int(value)
    if isinstance(value, str):
        try:
            return int(datetime.fromisoformat(value.replace("Z", "+00:00")).timestamp() * 1_000_000) * 1000
        except ValueError:
            return None
    return None


def _mirror(fs: Any, path: str, listing: Mapping[str, Mapping[str, Any]], home: str, tree: str) -> int:
    """Copy the objects whose version the mirror's index does not hold; remove mirrored files
    no longer listed. Returns how many were copied."""
    index_path = os.path.join(home, INDEX)
    try:
        with open(index_path, "rb") as fh:
            index = orjson.loads(fh.read())
    except (OSError, orjson.JSONDecodeError):
        index = {}
    wanted = {rel: version_of(info) for rel, info in listing.items()}
    stale = [rel for rel, version in wanted.items() if index.get(rel) != version or not os.path.isfile(os.path.join(tree, *rel.split("/")))]
    for rel in set(index) - set(wanted):
        try:
            os.unlink(os.path.join(tree, *rel.split("/")))
        except OSError:
            pass
    if stale:
        from concurrent.futures import ThreadPoolExecutor

        def copy(rel: str) -> None:
            target = os.path.join(tree, *rel.split("/"))
            os.makedirs(os.path.dirname(target), exist_ok=True)
            data = fs.cat_file(f"{path}/{rel}" if path else rel)
            with open(target, "wb") as fh:
                fh.write(data)
            when = mtime_ns(listing[rel])
            if when is not None:
                os.utime(target, ns=(when, when))

        with ThreadPoolExecutor(max_workers=COPY_THREADS) as pool:
            list(pool.map(copy, stale))
    os.makedirs(tree, exist_ok=True)
    with open(index_path, "wb") as fh:
        fh.write(orjson.dumps(wanted))
    return len(stale)


__all__ = ["Staged", "is_url", "stage", "version_of"]
