"""Claude's line reader (``wire.read_lines``) against the plain way it stands for: the lines as
``Source.lines`` and ``with_edges`` give them (a file on disk streamed, bytes in hand split), each
parsed, with the same entries, line numbers and problems."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from threadlab.formats.claude.wire import BAD_LINE, read_lines
from threadlab.formats.common.json_lines import CUT_FIRST, cut_first, with_edges
from threadlab.formats.common.source import Source


def _reference(source: Source, file: str) -> list[tuple[Any, ...]]:
    """What ``read_lines`` gave before it split the lines itself: ``Source.lines`` through
    ``with_edges``, a line at a time."""
    out: list[list[Any]] = []
    for number, line, first, _ in with_edges(source.lines()):
        try:
            obj = orjson.loads(line)
        except orjson.JSONDecodeError as exc:
            problem = ("truncated", CUT_FIRST) if first and cut_first(line) else ("json", str(exc))
            out.append([{"type": BAD_LINE, "text": line.decode("utf-8", "replace")}, file, number, problem])
            continue
        if type(obj) is not dict:
            out.append([{"type": BAD_LINE, "value": obj}, file, number, ("schema", f"is a JSON {type(obj).__name__}, not an entry object")])
            continue
        out.append([obj, file, number, None])
    if out and out[-1][3] is not None and out[-1][3][0] == "json":
        out[-1][3] = ("truncated", "ends before its JSON does (a cut-off last line)")
    return [tuple(x) for x in out]


def _read(source: Source, file: str) -> list[tuple[Any, ...]]:
    return [(e.raw, e.file, e.line, e.problem) for e in read_lines(source, file)]


_PIECES = [b'{"type":"user","uuid":"a"}', b'{"type":"assistant","message":{"content":[]}}', b"[1,2]", b'"text"', b"3", b"null",
           b'{"type":"user"', b'"a"}}', b"}", b"{", b"not json", b"", b"  ", b"\t", b'{"a":1}{"b":2}', b'{"a":"\xff\xfe"}',
           b'{"a":1}\r', b"\r", b"\r\r", b' {"x": [1, {"y": 2}]} ', b'{"t":"caf\xc3\xa9"}', b'{"n":1e400}', b'{"bad":NaN}']


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(pieces=st.lists(st.sampled_from(_PIECES), min_size=0, max_size=8),
       ends=st.lists(st.sampled_from([b"\n", b"\r\n", b"\r", b"\n\n"]), min_size=8, max_size=8), final=st.booleans())
def test_read_lines_reads_as_the_lines_and_edges_do(pieces: list[bytes], ends: list[bytes], final: bool, tmp_path: Path) -> None:
    """Any mix of entries, other JSON values, broken and torn lines, blank lines and line ends
    (``\\r\\n``, a lone ``\\r``, none at the end): the same entries, line numbers and problems as
    reading the lines one at a time, from disk and from bytes in hand."""
    data = b"".join(piece + end for piece, end in zip(pieces, ends, strict=False))
    if pieces and not final:
        data = data[: len(data) - len(ends[len(pieces) - 1])]
    path = tmp_path / "lines.jsonl"
    path.write_bytes(data)
    assert _read(Source(path), "f") == _reference(Source(path), "f")
    assert _read(Source(path, data=data), "f") == _reference(Source(path, data=data), "f")
    assert _read(Source(data), "f") == _reference(Source(data), "f")
