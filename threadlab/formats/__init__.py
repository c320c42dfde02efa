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
from types import ModuleType

from threadlab.core.problems import Problem, ThreadError
from threadlab.formats.source import Source

# most specific first; threadprotocol last but one so a ThreadProtocol file is never mistaken
FORMAT_MODULES = ("threadprotocol", "pydantic_ai", "vercel_ai", "claude", "agency_swarm", "aitp")


def format_modules() -> list[ModuleType]:
    modules = []
    for name in FORMAT_MODULES:
        try:
            modules.append(importlib.import_module(f"threadlab.formats.{name}"))
        except ModuleNotFoundError as exc:
            if exc.name != f"threadlab.formats.{name}":
                raise
    return modules


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
    for module in format_modules():
        if module.detect(source):
            return module
    raise ThreadError(
        [Problem("format", f"{source.name} is in no format threadlab reads ({', '.join(m.NAME for m in format_modules())})", source=source.name)]
    )


def format_names() -> list[str]:
    return [m.NAME for m in format_modules()]


__all__ = ["FORMAT_MODULES", "Source", "detect_format", "format_modules", "format_names", "get_format"]
