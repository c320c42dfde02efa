"""``threadlab.load`` of URLs (``s3://bucket/runs/``, ``memory://``, ...): each URL mirrored on
disk (``formats/common/remote.py``), the mirror loaded as any folder is, and every name the frames give
(``source``, a problem's message, ``skipped.path``) spelled as the URL again.

With ``cache=`` the mirror is kept in the cache folder, where an object is copied again only when
its size or version changed, and a mirrored file keeps the store's modification time: the load
cache, keyed by path, size and mtime, then serves an unchanged object's frames without reading
it. Without one, the mirror is a temporary folder removed once the frames are made."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator, Mapping
from contextlib import ExitStack, contextmanager
from typing import Any

import pandas as pd

from threadlab.core.location import is_url, local_path
from threadlab.formats.common.remote import Staged, stage
from threadlab.frames.frames import TABLE_NAMES, Frames


def has_url(source: Any) -> bool:
    items = source if isinstance(source, list | tuple) else [source]
    return any(isinstance(item, str) and (is_url(item) or item.startswith("file://")) for item in items)


@contextmanager
def staged_sources(source: Any, *, storage_options: Mapping[str, Any] | None, cache: str | os.PathLike[str] | None,
                   keep: bool = False) -> Iterator[tuple[Any, list[Staged]]]:
    """(``source`` with each URL replaced by its mirror on disk, the mirrors). The temporary
    mirrors are removed on leaving, unless ``keep`` (a lazy load reads them later)."""
    single = not isinstance(source, list | tuple)
    out: list[Any] = []
    mirrors: list[Staged] = []
    with ExitStack() as stack:
        for item in [source] if single else source:
            if isinstance(item, str) and is_url(item):
                staged = stage(item, storage_options=storage_options, cache=cache)
                if not keep:
                    stack.callback(staged.close)
                mirrors.append(staged)
                out.append(staged.local)
            elif isinstance(item, str) and item.startswith("file://"):
                out.append(local_path(item))
            else:
                out.append(item)
        yield (out[0] if single else out), mirrors


def url_namer(mirrors: list[Staged]) -> Callable[[Any], Any]:
    """A walked path → the name the frames give it (the URL of a mirrored file; other values
    as they are)."""

    def url(path: Any) -> Any:
        if not isinstance(path, str):
            return path
        for staged in mirrors:
            named = staged.url_of(path)
            if named is not path:
                return named
        return path

    return url


def named_by_url(frames: Frames, mirrors: list[Staged]) -> Frames:
    """The frames with every mirror path spelled as its URL."""
    if not mirrors:
        return frames
    for name in TABLE_NAMES:
        setattr(frames, name, UrlNames(name, tuple(mirrors))(getattr(frames, name)))
    frames.skipped = UrlNames("skipped", tuple(mirrors))(frames.skipped)
    return frames


class UrlNames:
    """One table's frame with the mirrors' paths spelled as their URLs (``source``, a problem's
    ``message``, a skipped file's ``path``): picklable, so a Dask partition can be renamed where
    it is computed (``map_partitions``)."""

    def __init__(self, table: str, mirrors: tuple[Staged, ...]) -> None:
        self.table, self.mirrors = table, mirrors

    def url(self, path: Any) -> Any:
        return url_namer(list(self.mirrors))(path)

    def text(self, message: Any) -> Any:
        if isinstance(message, str):
            for staged in self.mirrors:
                message = staged.text(message)
        return message

    def __call__(self, frame: pd.DataFrame) -> pd.DataFrame:
        if not len(frame):
            return frame
        frame = frame.copy(deep=False)  # new columns, the others shared
        if "source" in frame.columns:
            frame["source"] = _mapped(frame["source"], self.url)
        if self.table == "problems":
            frame["message"] = frame["message"].map(self.text).astype(frame["message"].dtype)
        if self.table == "skipped":
            frame["path"] = frame["path"].map(self.url).astype(frame["path"].dtype)
        return frame


def _mapped(column: pd.Series, fn: Any) -> pd.Series:
    """A label column renamed value by value (a categorical's categories only)."""
    if isinstance(column.dtype, pd.CategoricalDtype):
        categories = [fn(c) for c in column.cat.categories]
        if len(set(categories)) == len(categories):
            return column.cat.rename_categories(categories)
        return column.astype(object).map(fn).astype("category")
    return column.map(fn).astype(column.dtype)


__all__ = ["UrlNames", "has_url", "named_by_url", "staged_sources", "url_namer"]
