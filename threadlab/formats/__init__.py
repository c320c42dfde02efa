"""The format registry: one module per wire format, each with the same small surface.

A format module defines::

    NAME: str                      # "threadprotocol", "pydantic-ai", ...
    ALIASES: tuple[str, ...]       # other names accepted by ``format=`` and ``--to``
    SUFFIX: str                    # file suffix when writing (".json", ".sse", ...)
    def detect(source: Source) -> bool
    def to_threads(source: Source) -> list[Thread]    # problems found go on thread.problems
    def from_thread(thread: Thread) -> bytes          # the wire form, for writing and the CLI

Modules are imported when first needed; ``format="auto"`` asks each in ``FORMAT_MODULES`` order
and takes the first that recognises the source.
"""

from __future__ import annotations

import importlib
from collections.abc import Iterator
from types import ModuleType

from threadlab.core.problems import Problem, ThreadError
from threadlab.formats.source import Source

# most specific first; threadprotocol last but one so a ThreadProtocol file is never mistaken
FORMAT_MODULES = ("threadprotocol", "vercel_ai_messages", "pydantic_ai", "vercel_ai", "claude", "agency_swarm", "aitp")
# the formats whose ``CLAIMS_FOLDERS`` is True (a folder of theirs is one source, such as a
# Claude Code project): a folder walk asks only these, so it never imports pydantic-ai and the
# other heavy formats just to look at a folder of ThreadProtocol files
FOLDER_FORMAT_MODULES = ("claude",)


def format_modules() -> list[ModuleType]:
    """Every registered format module (imports them all)."""
    return list(_iter_format_modules())


def folder_format_modules() -> list[ModuleType]:
    """The format modules that read a whole folder as one source."""
    return list(_iter_format_modules(FOLDER_FORMAT_MODULES))


def _iter_format_modules(names: tuple[str, ...] = FORMAT_MODULES) -> Iterator[ModuleType]:
    """Format modules in registry order, each imported only when reached."""
    for name in names:
        try:
            module = importlib.import_module(f"threadlab.formats.{name}")
        except ModuleNotFoundError as exc:
            if exc.name != f"threadlab.formats.{name}":
                raise
            continue
        if all(hasattr(module, attr) for attr in ("NAME", "detect", "to_threads", "from_thread")):
            yield module


def _norm(name: str) -> str:
    return name.lower().replace("_", "-")


def get_format(name: str) -> ModuleType:
    """The format module called ``name`` (or one of its aliases)."""
    wanted = _norm(name)
    for module in format_modules():
        if wanted == _norm(module.NAME) or wanted in {_norm(a) for a in getattr(module, "ALIASES", ())}:
            return module
    known = ", ".join(m.NAME for m in format_modules())
    raise ValueError(f"unknown format {name!r}; known formats: {known}")


def detect_format(source: Source) -> ModuleType:
    for module in _iter_format_modules():
        if module.detect(source):
            return module
    if not source.is_dir and not source.is_object:
        # say what is really wrong with a file no format recognised: empty, not JSON, not UTF-8
        head = source.head(64).lstrip()
        if not head or head[:1] in (b"{", b"["):
            source.json()
    raise ThreadError(
        [Problem("format", f"{source.name} is in no format threadlab reads ({', '.join(m.NAME for m in format_modules())})", source=source.name)]
    )


def format_names() -> list[str]:
    return [m.NAME for m in format_modules()]


__all__ = [
    "FOLDER_FORMAT_MODULES",
    "FORMAT_MODULES",
    "Source",
    "detect_format",
    "folder_format_modules",
    "format_modules",
    "format_names",
    "get_format",
]
