"""Lines of a UI message stream, from whatever holds them, one at a time.

A 100 MB stream on disk is read line by line (never whole), a live HTTP response is read as
its lines arrive (``httpx.Response.iter_lines()``, a file object, any iterable of str/bytes),
and text already in memory is walked without splitting it into a second copy."""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator
from typing import Any

from threadlab.formats.common.source import Source

Line = str | bytes


def iter_lines(stream: Any) -> Iterator[tuple[int, Line]]:
    """(1-based line number, line without its newline) for a path, str, bytes, Source, file
    object or iterable of lines/text pieces."""
    if isinstance(stream, Source):
        yield from _source_lines(stream)
    elif isinstance(stream, str) and not _is_path(stream):
        yield from _split(stream.encode("utf-8"))
    elif isinstance(stream, str | bytes | bytearray | memoryview | os.PathLike):
        yield from _source_lines(Source(stream))
    elif hasattr(stream, "read") or isinstance(stream, Iterable):
        yield from _pieces_to_lines(stream)
    else:
        raise TypeError(f"cannot read a UI message stream from {type(stream).__name__}")


def _is_path(text: str) -> bool:
    return bool(text) and len(text) < 4096 and "\n" not in text and not text.lstrip().startswith(("data:", ":", "{"))


def _source_lines(source: Source) -> Iterator[tuple[int, Line]]:
    if source.is_object:
        yield from _pieces_to_lines(source.obj)
    elif source.path is not None:  # a file: streamed from disk (unless already read)
        yield from source.lines()
    else:
        yield from _split(source.data)


def _split(data: bytes) -> Iterator[tuple[int, bytes]]:
    """Lines of bytes in memory, one slice at a time (``splitlines`` would copy them all at once)."""
    start, number, size = 0, 0, len(data)
    while start < size:
        end = data.find(b"\n", start)
        if end < 0:
            end = size
        number += 1
        yield number, data[start:end].rstrip(b"\r")
        start = end + 1


_LINE_STARTS = ("data:", ":", "event:", "id:", "retry:", "{")
_LINE_STARTS_B = tuple(p.encode() for p in _LINE_STARTS)
_ENDS = ("}", "]")


def _starts_line(piece: Line) -> bool:
    return not piece or piece.startswith(_LINE_STARTS if isinstance(piece, str) else _LINE_STARTS_B)  # type: ignore[arg-type]


def _whole_line(held: Line, following: Line) -> bool:
    """Was ``held`` (a piece without a newline) a whole line? Yes when the next piece starts a
    new SSE line and ``held`` is one: empty, a comment/field, or a data line whose JSON closed."""
    if type(held) is not type(following) or not _starts_line(following):
        return False
    if not held:
        return True
    text = held if isinstance(held, str) else held.decode("utf-8", "replace")
    if text.startswith(("data:", "{")):
        return text.rstrip().endswith(_ENDS)
    return text.startswith((":", "event:", "id:", "retry:"))


def _pieces_to_lines(pieces: Iterable[Any]) -> Iterator[tuple[int, Line]]:
    """Items that are whole lines (``iter_lines()``), newline-terminated lines (a file) or raw
    chunks cut anywhere (``iter_bytes()``). A piece without a newline is held until the next
    piece shows whether it was a whole line (the next starts a new SSE line) or part of one."""
    number = 0
    held: Line | None = None
    for piece in pieces:
        if isinstance(piece, bytearray | memoryview):
            piece = bytes(piece)
        if not isinstance(piece, str | bytes):
            raise TypeError(f"a UI message stream line must be str or bytes, got {type(piece).__name__}")
        if held is not None:
            if _whole_line(held, piece):
                number += 1
                yield number, _strip(held)
            else:
                piece = held + piece  # type: ignore[operator]
            held = None
        newline = "\n" if isinstance(piece, str) else b"\n"
        if newline not in piece:  # type: ignore[operator]
            held = piece
            continue
        *complete, rest = piece.split(newline)  # type: ignore[arg-type]
        for line in complete:
            number += 1
            yield number, _strip(line)
        held = rest or None
    if held:
        number += 1
        yield number, _strip(held)


def _strip(line: Line) -> Line:
    return line.rstrip("\r") if isinstance(line, str) else line.rstrip(b"\r")
