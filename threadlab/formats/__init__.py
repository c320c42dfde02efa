"""Formats: one module per wire format, all with the surface of ``common.registry.FormatModule``
(``NAME``, ``detect``, ``to_threads``, ``from_thread``), declared in one table
(``common.format_table.FORMATS``: aliases, suffixes, detection priority, writer options, exports).

Modules are imported when first needed; ``format="auto"`` asks each in priority order and
takes the first whose ``detect`` recognises the source (a format whose ``path_hint`` matches the
file's path is asked first: ``FormatSpec``)."""

from __future__ import annotations

import functools
import re
from collections.abc import Iterator
from types import ModuleType

import orjson

from threadlab.core.problems import Problem, ThreadError, failure
from threadlab.formats.common.format_table import FORMATS, FormatSpec
from threadlab.formats.common.registry import data_suffixes, format_spec, load_module
from threadlab.formats.common.source import Source


def format_modules() -> list[ModuleType]:
    """Every registered format module, in detection order (imports them all)."""
    return [load_module(spec) for spec in FORMATS]


def _iter_modules(source: Source | None = None) -> Iterator[ModuleType]:
    """Format modules in detection order, each imported only when reached; first those whose
    ``path_hint`` matches the source's path (``FormatSpec``)."""
    hinted = _hinted(source.path.as_posix()) if source is not None and source.path is not None else ()
    for spec in hinted:
        yield load_module(spec)
    for spec in FORMATS:
        if spec not in hinted:
            yield load_module(spec)


@functools.cache
def _hint_patterns() -> tuple[tuple[FormatSpec, re.Pattern[str]], ...]:
    return tuple((spec, re.compile(spec.path_hint)) for spec in FORMATS if spec.path_hint)


def _hinted(path: str) -> tuple[FormatSpec, ...]:
    return tuple(spec for spec, pattern in _hint_patterns() if pattern.search(path))


def get_format(name: str) -> ModuleType:
    """The format module called ``name`` (or one of its aliases); unknown names raise ValueError."""
    return load_module(format_spec(name))


def detect_format(source: Source) -> ModuleType:
    """The module of the first format (in priority order) that recognises ``source``; a
    ``ThreadError`` that says what is wrong (empty, not UTF-8, not JSON, no known format)."""
    failed: list[Problem] = []
    for module in _iter_modules(source):
        try:
            if module.detect(source):
                return module
        except ThreadError:
            raise  # the source itself cannot be read (missing, a FIFO): that is the answer
        except Exception as exc:  # a detector that trips on odd input does not claim it; said if no other does
            failed.append(
                Problem("internal", f"{source.name}: the {module.NAME} detector failed on it: {failure(exc)}", source=source.name)
            )
    if failed:
        raise ThreadError(failed)
    if not source.is_dir and not source.is_object:
        # say what is really wrong with a file no format recognised: empty, not JSON, not UTF-8
        head = source.head(64).lstrip()
        if not head or (head[:1] in (b"{", b"[") and not _json_lines(source)):
            source.json()
    what = source.describe() if not source.is_object else f"a {type(source.obj).__name__}"
    raise ThreadError(
        [
            Problem(
                "format",
                # (the formats are not listed: a folder of such files would list them on every row;
                # threadlab.formats.format_names() and `threadlab --help` do, once)
                f"{source.name}: no format threadlab reads recognises this ({what})",
                source=source.name,
            )
        ]
    )


def _json_lines(source: Source) -> bool:
    """The source is JSON Lines (its first line a whole JSON value, more lines after): not
    "invalid JSON", just of no format threadlab reads."""
    first, _, rest = source.head(1 << 16).lstrip().partition(b"\n")
    if not rest.strip():
        return False
    try:
        orjson.loads(first)
    except orjson.JSONDecodeError:
        return False
    return True


def format_names() -> list[str]:
    return [spec.name for spec in FORMATS]


__all__ = [
    "FORMATS",
    "FormatSpec",
    "Source",
    "data_suffixes",
    "detect_format",
    "format_modules",
    "format_names",
    "format_spec",
    "get_format",
]
