"""JSON Lines as the line readers meet them: the first lines of a head for detection, and every
line of a file parsed for conversion, a line that is not JSON being a failed record (its
``json`` problem names the line) rather than the end of the file."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import orjson

from threadlab.core.builder import ThreadBuilder
from threadlab.core.problems import ThreadError
from threadlab.formats.source import Source


def json_or_none(line: bytes) -> Any:
    """The line's JSON value, or None when it is not JSON."""
    try:
        return orjson.loads(line)
    except orjson.JSONDecodeError:
        return None


def head_values(source: Source, count: int = 3) -> list[Any]:
    """The first ``count`` non-blank lines of the file's head, parsed (None for a line that is
    not JSON): what a detector looks at."""
    lines = [line for line in source.head(65536).split(b"\n")[: count + 1] if line.strip()]
    return [json_or_none(line) for line in lines[:count]]


def parsed_lines(source: Source, builder: ThreadBuilder) -> Iterator[tuple[int, Any]]:
    """Each non-blank line's JSON value with its line number; a line that is not JSON is the
    builder's failed record and is skipped."""
    for number, raw in source.lines():
        if not raw.strip():
            continue
        try:
            value = orjson.loads(raw)
        except orjson.JSONDecodeError as exc:
            builder.failed("json", f"line {number} is not JSON ({exc.msg}); skipped", line=number)
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
