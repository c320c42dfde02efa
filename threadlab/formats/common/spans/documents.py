"""Span files as documents: one JSON value, JSON Lines, or concatenated pretty-printed objects
(``ConsoleSpanExporter``), each item with its line, and what could not be read.

Every document is parsed by orjson, as every reader's JSON is: strict JSON (no ``NaN``), at
most 1,024 levels deep; a deeper one is that document's (or line's) ``json`` problem, never a
``RecursionError``. Concatenated objects are told apart by a scanner of brackets (strings
skipped) and each parsed on its own, so a broken one costs itself. One value orjson refuses is
read anyway: a string holding a lone UTF-16 surrogate escape (``"\\ud83d"``, a JavaScript
producer that cut an emoji in half). Such a document is read by the standard library (its
depth bounded the same way) and each lone surrogate kept as U+FFFD, with an ``encoding`` note
naming the line: the spans of the document are read, only the half character is lost, and said."""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator
from typing import Any, NamedTuple

import orjson

from threadlab.formats.common.json_lines import CUT_FIRST, starts_cut
from threadlab.formats.common.source import Source


class Failure(NamedTuple):
    """What could not be read as it came: (line, rule, message); ``record``: a record lost
    (False: a note about one that is read)."""

    line: int | None
    rule: str
    message: str
    record: bool = True


class Repaired(NamedTuple):
    """A document read with its lone surrogates replaced (``count`` of them)."""

    value: Any
    count: int


_SURROGATE = re.compile("[\ud800-\udfff]")
_TOKENS = re.compile(rb'"(?:[^"\\]|\\.)*"|[\[\]{}]')  # a string (skipped whole) or a bracket


def read_items(source: Source, take: Callable[[Any, int | None], bool], what: str) -> list[Failure]:
    """Hand every item of ``source`` (a document, or each element of a document that is a list)
    to ``take(item, line)``; what it refuses and what is not JSON become failures."""
    failures: list[Failure] = []
    if source.is_object:
        documents: Any = [(None, source.obj)]
    else:
        if not source.data.isascii():  # (ASCII is UTF-8: no copy of the file as text to find out)
            source.text()  # an encoding problem is the file's, with its line
        documents = iter_documents(source.data)
    for line, doc in documents:
        if isinstance(doc, ValueError):
            failures.append(Failure(line, "truncated" if isinstance(doc, Torn) else "json", f"{source.name} {doc}"))
            continue
        if isinstance(doc, Repaired):
            failures.append(Failure(line, "encoding", f"{source.name} line {line}: {doc.count} lone UTF-16 surrogate escape(s) (half a character, no Unicode) kept as U+FFFD", record=False))
            doc = doc.value
        for item in doc if isinstance(doc, list) else [doc]:
            try:
                if take(item, line):
                    continue
                failures.append(Failure(line, "schema", f"{source.name} line {line}: {str(item)[:80]!r} is not {what}"))
            except (ValueError, TypeError, AttributeError, KeyError) as exc:
                failures.append(Failure(line, "schema", f"{source.name} line {line}: {exc}"))
    return failures


class Torn(ValueError):
    """A document that ends before its JSON does (the file's last, cut short or still being written)."""


def _parse(data: bytes) -> Any:
    """``orjson.loads``; a document whose only fault is a lone surrogate escape is ``Repaired``."""
    try:
        return orjson.loads(data)
    except orjson.JSONDecodeError as exc:
        if "surrogate" not in exc.msg:
            raise
        try:
            value = json.loads(data, parse_constant=_no_constant)
        except RecursionError:
            raise orjson.JSONDecodeError("nests deeper than threadlab reads", "", 0) from None
        except ValueError:
            raise exc from None
        return _replace_surrogates(value)


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def _replace_surrogates(value: Any) -> Repaired:
    count = 0

    def fix(text: str) -> str:
        nonlocal count
        fixed, n = _SURROGATE.subn("\ufffd", text)
        count += n
        return fixed

    root: list[Any] = [value]
    todo: list[tuple[Any, Any]] = [(root, 0)]
    while todo:
        holder, key = todo.pop()
        item = holder[key]
        if isinstance(item, str):
            holder[key] = fix(item)
        elif isinstance(item, list):
            todo.extend((item, i) for i in range(len(item)))
        elif isinstance(item, dict):
            fixed = {fix(k) if isinstance(k, str) else k: v for k, v in item.items()}
            holder[key] = fixed
            todo.extend((fixed, k) for k in fixed)
    return Repaired(root[0], count)


def _too_deep(exc: orjson.JSONDecodeError) -> bool:
    return "depth" in exc.msg or "deeper" in exc.msg


def _why(exc: orjson.JSONDecodeError, last: bool, line: bytes) -> ValueError:
    if _too_deep(exc):
        return ValueError("nests deeper than threadlab reads (1,024 levels)")
    if last and (exc.pos >= len(line.rstrip()) - 1 or "end of data" in exc.msg):
        return Torn("ends before the JSON does (truncated?)")
    return ValueError(f"is not valid JSON: {exc.msg}")


def iter_documents(data: bytes) -> Iterator[tuple[int, Any]]:
    """(line, JSON value) of each document in ``data``: one JSON value, JSON Lines, or
    concatenated (pretty-printed) objects. A part that is not JSON yields ``(line, error)``,
    an ``ValueError`` saying why (``Torn`` for the last one, cut short), and reading goes on at
    the next line (the next object)."""
    try:
        yield 1, _parse(data)
        return
    except orjson.JSONDecodeError:
        pass
    lines = data.split(b"\n")
    filled = [n for n, ln in enumerate(lines, 1) if ln.strip()]
    first = lines[filled[0] - 1] if filled else b""
    cut = _cut_first_line(lines, filled)
    if not cut:
        try:
            _parse(first)
        except orjson.JSONDecodeError as exc:
            if not _too_deep(exc):  # (a whole line, only too deep: JSON Lines)
                yield from _concatenated(data)
                return
    for number in filled:
        line = lines[number - 1]
        try:
            yield number, _parse(line)
        except orjson.JSONDecodeError as exc:
            why = Torn(CUT_FIRST) if cut and number == filled[0] else _why(exc, number == filled[-1], line)
            yield number, type(why)(f"line {number} {why}")


def _cut_first_line(lines: list[bytes], filled: list[int]) -> bool:
    """JSON Lines whose first line is cut at one end (a capture begun mid-line): the first line
    is such a fragment and the next one is JSON on its own (not a pretty-printed object's
    second line)."""
    return len(filled) > 1 and starts_cut(lines[filled[0] - 1], lines[filled[1] - 1])


def _concatenated(data: bytes) -> Iterator[tuple[int, Any]]:
    """Pretty-printed objects one after another (``ConsoleSpanExporter``'s output): each found
    by its brackets, then parsed by orjson; text between them that is no object is skipped to
    the next line, with its problem."""
    pos, n = 0, len(data)
    while pos < n:
        while pos < n and data[pos] in b" \t\r\n":
            pos += 1
        if pos >= n:
            break
        line = data.count(b"\n", 0, pos) + 1
        if data[pos] not in b"{[":
            end = data.find(b"\n", pos)
            yield line, ValueError(f"line {line} is not valid JSON: not an object")
            pos = n if end < 0 else end + 1
            continue
        end = _value_end(data, pos)
        if end is None:
            yield line, Torn(f"line {line} ends before the JSON does (truncated?)")
            return
        try:
            yield line, _parse(data[pos:end])
        except orjson.JSONDecodeError as exc:
            at = line + data.count(b"\n", pos, pos + exc.pos)
            why = _why(exc, False, b"")
            yield at, type(why)(f"line {at} {why}")
        pos = end


def _value_end(data: bytes, start: int) -> int | None:
    """Where the object or array opening at ``start`` ends (after its closing bracket), by its
    brackets outside strings; None when it never closes."""
    depth = 0
    for token in _TOKENS.finditer(data, start):
        first = token.group()[:1]
        if first == b'"':
            continue
        depth += 1 if first in b"{[" else -1
        if depth == 0:
            return token.end()
    return None
