"""JSON Lines as the line readers meet them: the first lines of a head for detection, and every
line of a file parsed for conversion, a line that is not JSON being a failed record (its
``json`` problem names the line) rather than the end of the file.

A file an agent is still writing (or a copy cut short) ends in a torn line: the last line,
whose JSON the parser runs out of before it ends. Detection looks at the complete lines only
(``complete_lines``: a head of two good lines and half a third is JSON Lines), and a reader
calls the torn line ``truncated``, not ``json`` (``line_failure``): the lines before it are
read as they are."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

import orjson

from threadlab.core.builder import ThreadBuilder
from threadlab.core.problems import ThreadError
from threadlab.formats.source import Source

HEAD = 65536  # what detectors sniff


def json_or_none(line: bytes) -> Any:
    """The line's JSON value, or None when it is not JSON."""
    try:
        return orjson.loads(line)
    except orjson.JSONDecodeError:
        return None


def ends_early(line: bytes, exc: orjson.JSONDecodeError) -> bool:
    """The parser ran out of the line before its JSON ended (a torn line, not a broken one)."""
    return exc.pos >= len(line.rstrip()) - 1 or "end of data" in exc.msg


def complete_lines(head: bytes, *, cut: bool | None = None) -> list[bytes]:
    """The non-blank lines of a file's head, less a last line that is torn: cut by the head's
    end (``cut``: the head is shorter than the file; by default, when it is ``HEAD`` long), or
    a live file's line still being written (no newline after it, and its JSON ends early)."""
    lines = [line for line in head.split(b"\n") if line.strip()]
    if not lines or head.endswith(b"\n"):
        return lines
    if cut if cut is not None else len(head) >= HEAD:
        return lines[:-1]
    try:
        orjson.loads(lines[-1])
    except orjson.JSONDecodeError as exc:
        if ends_early(lines[-1], exc):
            return lines[:-1]
    return lines


def head_values(source: Source, count: int = 3) -> list[Any]:
    """The first ``count`` complete non-blank lines of the file's head, parsed (None for a line
    that is not JSON): what a detector looks at."""
    head = source.head(HEAD)
    return [json_or_none(line) for line in complete_lines(head)[:count]]


def with_last(lines: Iterable[tuple[int, bytes]]) -> Iterator[tuple[int, bytes, bool]]:
    """(number, line, is it the last non-blank line?) for each non-blank line, streamed (one
    line held back)."""
    held: tuple[int, bytes] | None = None
    for number, line in lines:
        if not line.strip():
            continue
        if held is not None:
            yield held[0], held[1], False
        held = (number, line)
    if held is not None:
        yield held[0], held[1], True


TORN = "ends before its JSON does (a file still being written, or cut short)"


def line_failure(number: int, line: bytes, exc: orjson.JSONDecodeError, last: bool) -> tuple[str, str]:
    """(rule, message) for a line that is not JSON: ``truncated`` for a torn last line."""
    if last and ends_early(line, exc):
        return "truncated", f"line {number} {TORN}; the lines before it are read"
    return "json", f"line {number} is not JSON ({exc.msg}); skipped"


def parsed_lines(source: Source, builder: ThreadBuilder) -> Iterator[tuple[int, Any]]:
    """Each non-blank line's JSON value with its line number; a line that is not JSON is the
    builder's failed record (``truncated`` when it is the torn last line) and is skipped."""
    for number, raw, last in with_last(source.lines()):
        try:
            value = orjson.loads(raw)
        except orjson.JSONDecodeError as exc:
            rule, message = line_failure(number, raw, exc, last)
            builder.failed(rule, message, line=number)
            continue
        yield number, value


def refusal(source: Source, message: str) -> ThreadError:
    """Why a named format refuses a file, naming the line where it can: a JSON document cut or
    broken (its parse error names the line), a first line that is not JSON or not UTF-8 (a cut
    or damaged one-line file: that line), JSON Lines of something else (``format``, the first
    line), one JSON document of something else (``format``). ``message`` says what the file
    is not (``"is not a Codex rollout ..."``)."""
    if source.is_object or source.is_dir or source.try_json() is not None:
        return source.error("format", message)
    for number, raw in source.lines():
        if not raw.strip():
            continue
        if json_or_none(raw) is not None or raw.strip() == b"null":
            return source.error("format", message, line=number)
        if raw.lstrip()[:1] in (b"{", b"["):  # the start of a document that does not parse
            try:
                source.json()
            except ThreadError as exc:
                return exc
        try:
            raw.decode("utf-8")
        except UnicodeDecodeError:
            return source.error("encoding", f"line {number} is not UTF-8, so it {message}", line=number)
        return source.error("json", f"line {number} is not JSON, so it {message}", line=number)
    return source.error("empty", f"holds no line, so it {message}")
