"""The OTel frames route (``otel.to_documents``: the span assembly writes each action as its
JSON object, no model per action) gives what the careful route (a Thread of models, then
``to_dict``) gives: on every otel fixture, on the bundled threads written as OTLP JSON, on
files broken the ways span files are (cut short, a line that is not JSON, spans of no
convention, mutated attributes), and in all five frames of a folder load."""

from __future__ import annotations

import random
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import orjson
import pandas as pd
import pytest

import threadlab as tl
import threadlab.formats.otel as otel
from threadlab.formats import Source
from threadlab.formats.otel import to_otlp

from .documents_route import both_routes, built_without_models

ROOT = Path(__file__).parent.parent
FIXTURES = sorted(p for folder in ("tests/fixtures/otel", "tests/fixtures/real/otel") for p in (ROOT / folder).glob("*.json*"))
THREADS = sorted((ROOT / "data" / "threadprotocol").glob("*.thread.json"))


@contextmanager
def _careful(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    with monkeypatch.context() as m:
        m.setattr(otel, "to_documents", lambda source: None)
        yield


def _same(monkeypatch: pytest.MonkeyPatch, data: bytes, name: str = "spans.json") -> None:
    new, old = both_routes(lambda: Source(data, name=name), lambda: _careful(monkeypatch))
    assert new == old


def _exported(path: Path) -> bytes:
    return orjson.dumps(to_otlp(tl.read(path, strict=False)))


@pytest.mark.parametrize("path", FIXTURES, ids=lambda p: p.name)
def test_route_gives_what_the_careful_route_gives(monkeypatch: pytest.MonkeyPatch, path: Path) -> None:
    _same(monkeypatch, path.read_bytes(), path.name)


@pytest.mark.parametrize("path", THREADS, ids=lambda p: p.name)
def test_exported_threads_read_the_same_either_way(monkeypatch: pytest.MonkeyPatch, path: Path) -> None:
    _same(monkeypatch, _exported(path))


def test_route_builds_no_model_per_action(monkeypatch: pytest.MonkeyPatch) -> None:
    data = _exported(ROOT / "data" / "threadprotocol" / "research_team.thread.json")
    built_without_models(monkeypatch, lambda: otel.to_documents(Source(data, name="spans.json")))


def _mutate(value: Any, rng: random.Random) -> None:
    """One attribute of one span given another value (a type, a bad message list, nothing)."""
    spans = [s for rs in value.get("resourceSpans", []) for ss in rs.get("scopeSpans", []) for s in ss.get("spans", [])]
    span = rng.choice(spans)
    attributes = span.get("attributes") or []
    if attributes and rng.random() < 0.8:
        attribute = rng.choice(attributes)
        attribute["value"] = rng.choice([{"stringValue": "[{\"role\": 7}]"}, {"intValue": "x"}, {}, {"stringValue": "not json"},
                                         {"arrayValue": {"values": [{"stringValue": "a"}]}}, {"boolValue": True}])
    else:
        span[rng.choice(["startTimeUnixNano", "parentSpanId", "name", "kind", "status"])] = rng.choice([None, 7, "x", {}, []])


@pytest.mark.parametrize("seed", range(12))
def test_broken_files_read_the_same_either_way(monkeypatch: pytest.MonkeyPatch, seed: int) -> None:
    rng = random.Random(seed)
    data = _exported(rng.choice(THREADS))
    value = orjson.loads(data)
    for _ in range(rng.randint(1, 4)):
        _mutate(value, rng)
    mutated = orjson.dumps(value)
    _same(monkeypatch, mutated)
    lines = FIXTURES[seed % len(FIXTURES)].read_bytes()
    _same(monkeypatch, lines[: len(lines) * 2 // 3])  # cut short
    _same(monkeypatch, mutated + b"\nnot json\n" + b'{"name": "GET /", "trace_id": "1", "span_id": "2"}\n')


def test_folder_frames_equal_either_way(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    for path in THREADS:
        (tmp_path / f"{path.stem}.otlp.json").write_bytes(_exported(path))
    for path in FIXTURES:
        (tmp_path / path.name).write_bytes(path.read_bytes())
    new = tl.load(str(tmp_path), progress=False, workers=1)
    with _careful(monkeypatch):
        old = tl.load(str(tmp_path), progress=False, workers=1)
    assert len(new.actions) > 50
    for name in ("actions", "tool_calls", "usage", "threads", "problems"):
        pd.testing.assert_frame_equal(getattr(new, name), getattr(old, name), check_categorical=False, obj=name)
