"""``threadlab.read`` / ``threadlab.read_all``: any supported input to Threads."""

from __future__ import annotations

from typing import Any

from threadlab.core.model import Thread
from threadlab.core.problems import Problem, ThreadError
from threadlab.core.validate import validate
from threadlab.formats import detect_format, get_format
from threadlab.formats.source import Source


def read_all(source: Any, format: str = "auto", *, strict: bool = True) -> list[Thread]:
    """Read every thread in ``source``: a path (file or folder a format understands), bytes, a
    str of JSON/SSE text, a dict or list, or an in-memory object of a supported library.

    Strict (default): raise ``ThreadError`` listing every problem. Lenient: return the threads
    with their problems on ``thread.problems``; whatever broke a rule is kept, not dropped."""
    src = source if isinstance(source, Source) else Source(source)
    module = detect_format(src) if format == "auto" else get_format(format)
    threads = module.to_threads(src)
    problems: list[Problem] = []
    for thread in threads:
        found = [p.with_source(src.name) for p in (*thread.problems, *validate(thread))]
        thread.problems = _unique(found)
        thread.origin = (src.name, module.NAME)
        problems.extend(thread.problems)
    if strict and problems:
        raise ThreadError(problems, source=src.name)
    return threads


def read(source: Any, format: str = "auto", *, strict: bool = True) -> Thread:
    """Read exactly one thread (see ``read_all`` for what ``source`` may be)."""
    threads = read_all(source, format, strict=strict)
    if len(threads) != 1:
        name = source.name if isinstance(source, Source) else str(source)[:80]
        raise ThreadError(
            [Problem("format", f"holds {len(threads)} threads; use threadlab.read_all", source=name)]
        )
    return threads[0]


def _unique(problems: list[Problem]) -> list[Problem]:
    seen: set[tuple[Any, ...]] = set()
    out = []
    for p in problems:
        key = (p.rule, p.message, p.sequence, p.line)
        if key not in seen:
            seen.add(key)
            out.append(p)
    return out
