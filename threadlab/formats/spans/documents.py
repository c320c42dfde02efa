"""Span files as documents: one JSON value, JSON Lines, or concatenated pretty-printed objects
(``ConsoleSpanExporter``), each item with its line, and what could not be read."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from typing import Any

import orjson

from threadlab.formats.source import Source

Failure = tuple[int | None, str, str]  # (line, rule, message)


def read_items(source: Source, take: Callable[[Any, int | None], bool], what: str) -> list[Failure]:
    """Hand every item of ``source`` (a document, or each element of a document that is a list)
    to ``take(item, line)``; what it refuses and what is not JSON become failures."""
    failures: list[Failure] = []
    if source.is_object:
        documents: Any = [(None, source.obj)]
    else:
        source.text()  # an encoding problem is the file's, with its line
        documents = iter_documents(source.data)
    for line, doc in documents:
        if isinstance(doc, ValueError):
            failures.append((line, "json", f"{source.name} {doc}"))
            continue
        for item in doc if isinstance(doc, list) else [doc]:
            try:
                if take(item, line):
                    continue
                failures.append((line, "schema", f"{source.name} line {line}: {str(item)[:80]!r} is not {what}"))
            except (ValueError, TypeError, AttributeError, KeyError) as exc:
                failures.append((line, "schema", f"{source.name} line {line}: {exc}"))
    return failures


def iter_documents(data: bytes) -> Iterator[tuple[int, Any]]:
    """(line, JSON value) of each document in ``data``: one JSON value, JSON Lines, or
    concatenated (pretty-printed) objects. A part that is not JSON yields ``(line, error)``,
    an ``ValueError`` saying why, and reading goes on at the next line."""
    try:
        yield 1, orjson.loads(data)
        return
    except orjson.JSONDecodeError:
        pass
    lines = data.split(b"\n")
    first = next((ln for ln in lines if ln.strip()), b"")
    try:
        orjson.loads(first)
    except orjson.JSONDecodeError:
        yield from _concatenated(data.decode("utf-8"))  # the caller has checked the encoding
        return
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            yield number, orjson.loads(line)
        except orjson.JSONDecodeError as exc:
            last = number == len(lines) or not any(ln.strip() for ln in lines[number:])
            why = "ends before the JSON does (truncated?)" if last and exc.pos >= len(line.rstrip()) - 1 else f"is not valid JSON: {exc.msg}"
            yield number, ValueError(f"line {number} {why}")


def _concatenated(text: str) -> Iterator[tuple[int, Any]]:
    """Pretty-printed objects one after another (``ConsoleSpanExporter``'s output)."""
    decoder = json.JSONDecoder()
    pos, n = 0, len(text)
    while pos < n:
        while pos < n and text[pos] in " \t\r\n":
            pos += 1
        if pos >= n:
            break
        line = text.count("\n", 0, pos) + 1
        try:
            value, end = decoder.raw_decode(text, pos)
        except json.JSONDecodeError as exc:
            nl = text.find("\n", pos)
            why = "ends before the JSON does (truncated?)" if exc.pos >= len(text.rstrip()) - 1 else f"is not valid JSON: {exc.msg}"
            yield exc.lineno, ValueError(f"line {exc.lineno} {why}")
            pos = n if nl < 0 else nl + 1
            continue
        yield line, value
        pos = end
