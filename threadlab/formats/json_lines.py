"""JSON Lines as the line readers meet them: the first lines of a head for detection, and every
line of a file parsed for conversion, a line that is not JSON being a failed record (its
``json`` problem names the line) rather than the end of the file."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import orjson

from threadlab.core.builder import ThreadBuilder
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
