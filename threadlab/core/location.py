"""Where a path points: this machine's disk, or an fsspec URL (``s3://``, ``gs://``, ``hf://``,
``memory://``, ...) through the optional extras (``threadlab[s3]``, ``[gcs]``, ``[hf]``).

A plain path (and a ``file://`` URL, which is one) is handled with ``os`` and pathlib, as
before: nothing of fsspec is imported for it. A URL is opened with ``fsspec.url_to_fs``, which
finds credentials where each store's own library looks (``AWS_*`` variables and
``~/.aws``, gcloud's application default credentials, ``HF_TOKEN``); threadlab never reads or
keeps one. ``storage_options`` are handed to the filesystem as they are (an ``endpoint_url``,
``anon=True``, a ``profile``)."""

from __future__ import annotations

import os
import re
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

_URL = re.compile(r"^[A-Za-z][A-Za-z0-9+.\-]*://")
# the extra that brings each protocol's filesystem, for the error a missing one raises
EXTRAS = {"s3": "s3", "s3a": "s3", "gs": "gcs", "gcs": "gcs", "hf": "hf"}


def is_url(value: Any) -> bool:
    """A URL some fsspec filesystem serves (``file://`` is a local path, not a URL here)."""
    return isinstance(value, str) and bool(_URL.match(value)) and not value.startswith("file://")


def local_path(value: str | os.PathLike[str]) -> str:
    """A plain path for a path or a ``file://`` URL (``~`` expanded)."""
    text = os.fspath(value)
    if text.startswith("file://"):
        text = text.removeprefix("file://")
    return os.path.expanduser(text)


def url_filesystem(url: str, storage_options: Mapping[str, Any] | None = None) -> tuple[Any, str]:
    """(fsspec filesystem, path within it) for ``url``; an ImportError naming the extra to install
    when the protocol's library is missing."""
    protocol = url.split("://", 1)[0].lower()
    hint = f"pip install 'threadlab[{EXTRAS[protocol]}]'" if protocol in EXTRAS else "install the fsspec filesystem for it"
    try:
        import fsspec
    except ImportError as exc:
        raise ImportError(f"{url}: reading or writing a URL needs fsspec ({hint})") from exc
    try:
        return fsspec.core.url_to_fs(url, **dict(storage_options or {}))
    except ImportError as exc:
        raise ImportError(f"{url}: the {protocol}:// filesystem is not installed ({hint}): {exc}") from exc
    except ValueError as exc:  # an unknown protocol
        raise ValueError(f"{url}: {exc}") from exc


@dataclass
class Location:
    """A folder on disk or under a URL, with the few operations a dataset needs. Paths inside
    it are relative, with ``/``."""

    root: str
    url: str
    fs: Any = None  # the fsspec filesystem of a URL; None on disk
    storage_options: Mapping[str, Any] = field(default_factory=dict)

    @classmethod
    def of(cls, target: str | os.PathLike[str], storage_options: Mapping[str, Any] | None = None) -> Location:
        text = os.fspath(target)
        if is_url(text):
            fs, path = url_filesystem(text, storage_options)
            return cls(path.rstrip("/"), text.rstrip("/"), fs, dict(storage_options or {}))
        path = local_path(text)
        return cls(path, path)

    @property
    def remote(self) -> bool:
        return self.fs is not None

    def path(self, rel: str = "") -> str:
        """The path of ``rel`` as the filesystem spells it."""
        if not rel:
            return self.root
        return f"{self.root}/{rel}" if self.remote else os.path.join(self.root, *rel.split("/"))

    def name(self, rel: str = "") -> str:
        """``rel`` as a user names it (the URL for a remote one)."""
        return f"{self.url}/{rel}" if rel else self.url

    def exists(self, rel: str) -> bool:
        return self.fs.exists(self.path(rel)) if self.remote else os.path.exists(self.path(rel))

    def is_dir(self, rel: str = "") -> bool:
        return self.fs.isdir(self.path(rel)) if self.remote else os.path.isdir(self.path(rel))

    def read_bytes(self, rel: str) -> bytes:
        if self.remote:
            return self.fs.cat_file(self.path(rel))
        with open(self.path(rel), "rb") as fh:
            return fh.read()

    def write_bytes(self, rel: str, data: bytes) -> None:
        """Write whole: on disk in a temporary file renamed into place (a reader sees the old
        file or the new one, never half); an object store's put is whole already."""
        if self.remote:
            self.fs.pipe_file(self.path(rel), data)
            return
        target = self.path(rel)
        os.makedirs(os.path.dirname(target) or ".", exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=".tmp-", dir=os.path.dirname(target) or ".")
        try:
            with os.fdopen(fd, "wb") as fh:
                fh.write(data)
            os.replace(tmp, target)
        except BaseException:
            if os.path.exists(tmp):
                os.unlink(tmp)
            raise

    def files(self, rel: str) -> list[str]:
        """Every file under the folder ``rel`` (relative to the root, sorted); none when it is
        missing. Names starting with ``.`` (a temporary file) are left out."""
        base = self.path(rel)
        out: list[str] = []
        if self.remote:
            if not self.fs.isdir(base):
                return []
            prefix = self.root.rstrip("/") + "/"
            for found in self.fs.find(base):
                name = found.removeprefix(prefix) if found.startswith(prefix) else found.split(self.root.rstrip("/") + "/", 1)[-1]
                if not name.rsplit("/", 1)[-1].startswith("."):
                    out.append(name)
            return sorted(out)
        for folder, folders, names in os.walk(base):
            folders[:] = [f for f in folders if not f.startswith(".")]
            inner = os.path.relpath(folder, self.root).replace(os.sep, "/")
            out.extend(f"{inner}/{n}" for n in names if not n.startswith("."))
        return sorted(out)

    def remove(self, rel: str) -> None:
        """Remove a file (nothing when it is gone already)."""
        try:
            if self.remote:
                self.fs.rm_file(self.path(rel))
            else:
                os.unlink(self.path(rel))
        except FileNotFoundError:
            pass

    def prune_folders(self, rel: str) -> None:
        """Remove the empty folders under ``rel`` (on disk; an object store has none)."""
        if self.remote:
            return
        for folder, _, _ in sorted(os.walk(self.path(rel)), key=lambda w: -len(w[0])):
            try:
                os.rmdir(folder)
            except OSError:
                pass

    def arrow_filesystem(self) -> Any:
        """The pyarrow filesystem to read and write Parquet here: pyarrow's own on disk (C++ I/O),
        the fsspec filesystem wrapped for a URL."""
        import pyarrow.fs as pafs

        if not self.remote:
            return pafs.LocalFileSystem()
        return pafs.PyFileSystem(pafs.FSSpecHandler(self.fs))


__all__ = ["EXTRAS", "Location", "is_url", "local_path", "url_filesystem"]
