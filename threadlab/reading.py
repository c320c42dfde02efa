"""``threadlab.read`` / ``threadlab.read_all``: any supported input to Threads."""

from __future__ import annotations

from typing import Any

from threadlab.core.model import Thread
from threadlab.core.problems import Problem, ThreadError
from threadlab.core.validate import validate_dict
from threadlab.formats import detect_format, get_format
from threadlab.formats.source import Source


def read_documents(source: Any, format: str = "auto") -> list[tuple[Thread, dict[str, Any]]]:
    """Lenient ``read_all`` that also returns each thread's canonical JSON object: computed once,
    it serves the validation rules here and the frames in the loaders."""
    src = source if isinstance(source, Source) else Source(source)
    module = detect_format(src) if format == "auto" else get_format(format)
    out = []
    for thread in module.to_threads(src):
        doc = thread.to_dict()
        thread.problems = _unique([p.with_source(src.name) for p in (*thread.problems, *validate_dict(doc))])
        thread.origin = (src.name, module.NAME)
        out.append((thread, doc))
    return out


def read_all(source: Any, format: str = "auto", *, strict: bool = True) -> list[Thread]:
    """Read every thread in ``source``: a path (file or folder a format understands), bytes, a
    str of JSON/SSE text, a dict or list, or an in-memory object of a supported library.

    Strict (default): raise ``ThreadError`` listing every problem. Lenient: return the threads
    with their problems on ``thread.problems``; whatever broke a rule is kept, not dropped."""
    src = source if isinstance(source, Source) else Source(source)
    threads = [thread for thread, _ in read_documents(src, format)]
    problems = [p for thread in threads for p in thread.problems]
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
