"""JSON Lines as the line readers meet them: the first lines of a head for detection, and every
line of a file parsed for conversion, a line that is not JSON being a failed record (its
``json`` problem names the line) rather than the end of the file.

A file an agent is still writing (or a copy cut short) ends in a torn line: the last line,
whose JSON the parser runs out of before it ends. Detection looks at the complete lines only
(``complete_lines``: a head of two good lines and half a third is JSON Lines), and a reader
calls the torn line ``truncated``, not ``json`` (``line_failure``): the lines before it are
read as they are.

A saved capture can be cut at its other end too: a stream recorded from the middle of a line, or
a first line whose end was lost. A first line that is such a fragment of JSON (``cut_first``)
is left out of the head the detectors see when lines follow it, so those lines decide what the
file is, and the readers call it ``truncated`` too (``torn_reason``). A first line of plain text
is no fragment: it still makes the file no format's.

Two writers appending to one file, or a writer that lost its newline, glue records onto one
line (``{...}{...}``): such a line is read as its records (``glued_values``), each then
accounted for by the reader, with a ``glued`` problem naming the line."""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from typing import Any, NamedTuple

import orjson

from threadlab.core.builder import ThreadBuilder
from threadlab.core.problems import ThreadError
from threadlab.formats.common.source import Source

HEAD = 65536  # what detectors sniff


def json_or_none(line: bytes) -> Any:
    """The line's JSON value, or None when it is not JSON."""
    try:
        return orjson.loads(line)
    except orjson.JSONDecodeError:
        return None


def glued_values(line: bytes) -> tuple[list[Any], bytes] | None:
    """The JSON objects or arrays a line holds one after another with nothing but whitespace
    between them (records glued without their newline), and what is left after the last one
    that parses (empty, or a torn tail); None when the line does not start with two such
    records. Each record is parsed by orjson, as a line is (the splitting only finds where
    each one ends)."""
    try:
        text = line.decode()
    except UnicodeDecodeError:
        return None
    decoder = json.JSONDecoder()
    values: list[Any] = []
    at, end = 0, len(text)
    while True:
        while at < end and text[at].isspace():
            at += 1
        if at == end or text[at] not in "{[":
            break
        try:
            _, stop = decoder.raw_decode(text, at)
            value = orjson.loads(text[at:stop])
        except (ValueError, RecursionError):
            break
        values.append(value)
        at = stop
    if len(values) < 2 and not (values and at < end):
        return None
    return values, text[at:].encode()


def ends_early(line: bytes, exc: orjson.JSONDecodeError) -> bool:
    """The parser ran out of the line before its JSON ended (a torn line, not a broken one)."""
    return exc.pos >= len(line.rstrip()) - 1 or "end of data" in exc.msg


def cut_first(line: bytes) -> bool:
    """Whether a file's first non-blank line is a fragment of JSON cut at one end: an object or
    array whose JSON ends early, or the end of one (``...}``) whose start is missing (it may
    begin at an inner object: ``{...}},...}]}``, JSON with more closing text after it)."""
    text = line.strip()
    if text[:1] in (b"{", b"[") and len(text) > 1:  # a bracket alone opens a pretty-printed document
        try:
            orjson.loads(text)
        except orjson.JSONDecodeError as exc:
            return ends_early(text, exc) or ("unexpected content after document" in exc.msg and text[-1:] in (b"}", b"]"))
        return False
    return text[-1:] in (b"}", b"]") and json_or_none(text) is None


def starts_cut(first: bytes, second: bytes) -> bool:
    """JSON Lines whose first line is cut at one end: the first line a fragment (``cut_first``),
    the second a JSON value on its own (not the next line of a pretty-printed document, whose
    first line ``[{...},`` is no fragment of a line)."""
    if not cut_first(first):
        return False
    try:
        orjson.loads(second)
    except orjson.JSONDecodeError:
        return False
    return True


def complete_lines(head: bytes, *, cut: bool | None = None) -> list[bytes]:
    """The non-blank lines of a file's head, less a last line that is torn: cut by the head's
    end (``cut``: the head is shorter than the file; by default, when it is ``HEAD`` long), or
    a live file's line still being written (no newline after it, and its JSON ends early); and
    less a first line cut at one end (``starts_cut``)."""
    lines = [line for line in head.split(b"\n") if line.strip()]
    if len(lines) > 1 and starts_cut(lines[0], lines[1]):
        lines = lines[1:]
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


def past_cut_first(head: bytes) -> bytes:
    """The head from its second line when its first line is cut at one end (``starts_cut``);
    else the head as it is: what a detector that looks at the head's first bytes sees."""
    first, _, rest = head.lstrip().partition(b"\n")
    second = next((line for line in rest.split(b"\n", 8) if line.strip()), b"")
    return rest if second and starts_cut(first, second) else head


def first_line(source: Source) -> bytes | None:
    """The file's first complete line (a capture's cut first line left out), or None."""
    lines = complete_lines(source.head(HEAD))
    return lines[0] if lines else None


def head_values(source: Source, count: int = 3) -> list[Any]:
    """The first ``count`` complete non-blank lines of the file's head, parsed (None for a line
    that is not JSON): what a detector looks at."""
    head = source.head(HEAD)
    return [_first_value(line) for line in complete_lines(head)[:count]]


def _first_value(line: bytes) -> Any:
    value = json_or_none(line)
    if value is None and line.lstrip()[:1] in (b"{", b"["):
        glued = glued_values(line)
        if glued is not None and not glued[1].strip():
            return glued[0][0]
    return value


class Edge(NamedTuple):
    """A non-blank line and where it stands: a file is torn at its first and last non-blank
    lines."""

    number: int
    line: bytes
    first: bool
    last: bool


def with_edges(lines: Iterable[tuple[int, bytes]]) -> Iterator[Edge]:
    """Each non-blank line with whether it is the first and the last, streamed (one line held
    back)."""
    held: tuple[int, bytes] | None = None
    first = True
    for number, line in lines:
        if not line or line.isspace():  # blank (as ``not line.strip()``, without copying every line)
            continue
        if held is not None:
            yield Edge(held[0], held[1], first, False)
            first = False
        held = (number, line)
    if held is not None:
        yield Edge(held[0], held[1], first, True)


def with_last(lines: Iterable[tuple[int, bytes]]) -> Iterator[tuple[int, bytes, bool]]:
    """(number, line, is it the last non-blank line?) for each non-blank line, streamed."""
    for edge in with_edges(lines):
        yield edge.number, edge.line, edge.last


TORN = "ends before its JSON does (a file still being written, or cut short)"
CUT_FIRST = "is a JSON value cut at one end (a capture that starts mid-stream, or a first line that lost its end)"
TORN_REASONS = (TORN, CUT_FIRST)


def torn_reason(line: bytes, exc: orjson.JSONDecodeError, edge: Edge) -> str | None:
    """Why a line that is not JSON is a torn edge of its file (``TORN``: the last line, its
    JSON ending early; ``CUT_FIRST``: the first line cut at one end, lines after it), or None
    when it is a broken line."""
    if edge.last and ends_early(line, exc):
        return TORN
    if edge.first and not edge.last and cut_first(line):
        return CUT_FIRST
    return None


def line_failure(edge: Edge, exc: orjson.JSONDecodeError) -> tuple[str, str]:
    """(rule, message) for a line that is not JSON: ``truncated`` for a torn edge of the file."""
    reason = torn_reason(edge.line, exc, edge)
    if reason is not None:
        return "truncated", f"line {edge.number} {reason}; the lines {'before' if reason == TORN else 'after'} it are read"
    return "json", f"line {edge.number} is not JSON ({exc.msg}); skipped"


def parsed_lines(source: Source, builder: ThreadBuilder) -> Iterator[tuple[int, Any]]:
    """Each non-blank line's JSON value with its line number; a line that is not JSON is the
    builder's failed record (``truncated`` when it is a torn edge of the file) and is skipped."""
    for edge in with_edges(source.lines()):
        try:
            value = orjson.loads(edge.line)
        except orjson.JSONDecodeError as exc:
            glued = glued_values(edge.line) if edge.line.lstrip()[:1] in (b"{", b"[") else None
            if glued is not None:
                values, rest = glued
                rest_failure = _rest_failure(edge, rest) if rest.strip() else None
                if rest_failure is None or len(values) > 1 or rest_failure[0] == "truncated":
                    builder.problem("glued", f"line {edge.number} holds {len(values) + (rest_failure is not None)} JSON records with no line break between them "
                                             f"(appended without their newline); each is read", line=edge.number)
                    yield from ((edge.number, v) for v in values)
                    if rest_failure is not None:
                        builder.failed(*rest_failure, line=edge.number)
                    continue
            rule, message = line_failure(edge, exc)
            builder.failed(rule, message, line=edge.number)
            continue
        yield edge.number, value


def _rest_failure(edge: Edge, rest: bytes) -> tuple[str, str]:
    """(rule, message) for what follows a glued line's last whole record."""
    try:
        orjson.loads(rest)
    except orjson.JSONDecodeError as exc:
        if edge.last and ends_early(rest, exc):
            return "truncated", f"line {edge.number}'s last record {TORN}; the records before it are read"
        return "json", f"line {edge.number}'s last record is not JSON ({exc.msg}); skipped"
    return "json", f"line {edge.number}'s last record is not JSON; skipped"


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
