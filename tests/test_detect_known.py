"""Detection with what the loader already knows (``Source.has``): the loader searches a whole
file for ``"actions"`` before it decides how to read it, and detection then asks the same
question of the first MB (``threadprotocol.detect``). The answer is taken from the first search,
so every decision must be the one detection makes on a fresh ``Source`` of the path."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest

from threadlab.core.problems import ThreadError
from threadlab.formats import Source, detect_format
from threadlab.formats.common.source import read_regular

FIXTURES = Path(__file__).parent / "fixtures"
FILES = sorted(p for p in FIXTURES.rglob("*") if p.is_file() and p.stat().st_size < 8 << 20)
MARKERS = (b'"actions"', b'"thread_id"', b'"resourceSpans"', b"\n", b"zz-nowhere-zz")
WITHIN = (None, 0, 1, 64, 4096, 1 << 16, 1 << 20)


def _decision(source: Source) -> str:
    try:
        return detect_format(source).NAME
    except ThreadError as exc:
        return "error: " + ";".join(sorted(p.rule for p in exc.problems))


@pytest.mark.parametrize("fixture", FILES, ids=[str(p.relative_to(FIXTURES)) for p in FILES])
def test_detection_is_the_same_with_the_loaders_search_known(fixture: Path) -> None:
    """Every fixture file: a fresh Source of the path, and the Source the loader makes (the
    bytes in hand, ``"actions"`` searched for end to end first), are detected alike."""
    known = Source(fixture, data=read_regular(fixture))
    known.has(b'"actions"')
    assert _decision(known) == _decision(Source(fixture))


@pytest.mark.parametrize("fixture", FILES[:: max(1, len(FILES) // 60)], ids=lambda p: str(p.relative_to(FIXTURES)))
def test_has_answers_as_the_head_does(fixture: Path) -> None:
    """``has(marker, within)`` is ``marker in head(within)`` (the whole bytes for None), whatever
    was asked before: each marker is asked at every bound, widest first and narrowest first."""
    data = read_regular(fixture)
    for order in (WITHIN, tuple(reversed(WITHIN))):
        source = Source(fixture, data=data)
        for marker in MARKERS:
            for within in order:
                expected = marker in (data if within is None else data[:within])
                assert source.has(marker, within) is expected, (marker, within)
        assert [Source(fixture).has(m, 4096) for m in MARKERS] == [m in data[:4096] for m in MARKERS]


def test_a_thread_whose_actions_begin_past_the_first_mb_is_not_claimed_by_their_search(tmp_path: Path) -> None:
    """``"actions"`` only past the first MB (and no ``"thread_id"`` in the first 4 KB): the
    ThreadProtocol detector passes the file over, with the loader's search known or not (a
    search remembered without its bound would claim it)."""
    doc = {"padding": "x" * (1 << 21), "actions": [], "thread_id": "t", "version": "1.0.0"}
    path = tmp_path / "late.json"
    path.write_bytes(orjson.dumps(doc))
    known = Source(path, data=path.read_bytes())
    assert known.has(b'"actions"') and not known.has(b'"actions"', 1 << 20)
    assert _decision(known) == _decision(Source(path)) != "threadprotocol"


def test_the_loader_searches_a_span_export_for_a_thread_object_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """An OTLP export read by the loader: its bytes are searched end to end for ``"actions"``
    once (by the reader), and the ThreadProtocol detector takes that answer instead of copying
    and searching the first MB again; the file reads as otel all the same."""
    from threadlab.loading.reader import read_items

    path = FIXTURES / "otel" / "agent_framework_otlp_snake.json"
    asked: list[int] = []
    real = Source.head
    monkeypatch.setattr(Source, "head", lambda self, size=8192: asked.append(size) or real(self, size))
    items = list(read_items(path))
    assert items and all(getattr(item, "format", None) == "otel" for item in items)
    assert 1 << 20 not in asked
