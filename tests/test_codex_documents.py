"""The Codex frames route (``formats/codex/documents.py``, the format's ``to_documents``): a rollout
straight to its thread's JSON object gives the objects, problems and account the careful route
(a Thread of models, then ``to_dict``) gives: on every Codex fixture, on rollouts put together
and broken by hypothesis (the referee), and in all five frames of the benchmark's corpus. And it
builds no model per action."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import orjson
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import threadlab as tl
import threadlab.formats.codex as codex
from threadlab.formats import Source
from threadlab.formats.codex import documents

from .documents_route import both_routes, built_without_models, loader_view

ROOT = Path(__file__).parent.parent
FIXTURES = ROOT / "tests" / "fixtures"
SAMPLES = sorted({*FIXTURES.glob("codex/**/*.jsonl"), *FIXTURES.glob("real/codex/**/*.jsonl")})
ROLLOUTS = [p for p in SAMPLES if codex.detect(Source(p))]
# every line of every rollout fixture: the pieces hypothesis builds rollouts of
LINES = sorted({line for p in ROLLOUTS for line in p.read_bytes().splitlines() if line.strip()})


@contextmanager
def _careful(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    with monkeypatch.context() as m:
        m.setattr(codex, "to_documents", lambda source: None)  # the careful route only
        yield


def _both(monkeypatch: pytest.MonkeyPatch, data: bytes, name: str = "rollout.jsonl") -> tuple[Any, Any]:
    return both_routes(lambda: Source(data, name=name), lambda: _careful(monkeypatch))


def test_every_rollout_fixture_is_a_sample() -> None:
    assert len(ROLLOUTS) >= 30 and len(LINES) > 500


@pytest.mark.parametrize("path", SAMPLES, ids=lambda p: str(p.relative_to(ROOT)))
def test_same_documents_as_the_careful_route(path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    new, old = both_routes(lambda: Source(path), lambda: _careful(monkeypatch))
    assert new == old


@pytest.mark.parametrize("path", ROLLOUTS, ids=lambda p: str(p.relative_to(ROOT)))
def test_rollouts_take_the_route_without_a_model_per_action(path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    built_without_models(monkeypatch, lambda: codex.to_documents(Source(path)))


@pytest.mark.parametrize("seed", [0, 5])
def test_same_frames_as_the_careful_route_on_a_generated_sessions_tree(seed: int, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """The benchmark's corpus (``benchmarks/codex_corpus.py``: compacted, interrupted and resumed,
    forked rollouts), which the route must read as the careful one does: the frames the speed
    figures are quoted for."""
    from benchmarks.codex_corpus import write_sessions

    write_sessions(tmp_path / "corpus", 1_500_000, seed=seed)
    folder = tmp_path / "corpus" / "sessions"
    new = tl.load(folder, progress=False, workers=1)
    with _careful(monkeypatch):
        old = tl.load(folder, progress=False, workers=1)
    assert len(new.threads) > 20 and len(new.actions) > 1000 and new.actions["author"].eq("harness").any()
    for name, frame in new.tables().items():
        pd.testing.assert_frame_equal(frame, old.tables()[name], obj=name)


# --- the referee: rollouts hypothesis puts together from the fixtures' lines, and breaks ---------

_VALUES = st.sampled_from([None, 7, -1, 1.5, "x", "", [], {}, ["a", 1], {"type": "message"}, "2026-02-30T08:00:00Z",
                           "2026-03-01T08:00:00+02:00", 1e300, True])


def _broken(line: bytes, draw: Any) -> bytes:
    """A line changed the ways files are: a value replaced somewhere in it (the envelope, its
    payload, or one level further in), a key dropped, or the line cut short."""
    how = draw(st.integers(0, 5))
    if how == 5:
        return line[: draw(st.integers(0, max(0, len(line) - 1)))]
    try:
        value = orjson.loads(line)
    except orjson.JSONDecodeError:  # (cut short already)
        return line
    target = value
    for _ in range(draw(st.integers(0, 2))):
        inner = [v for v in target.values() if isinstance(v, dict)] if isinstance(target, dict) else []
        if not inner:
            break
        target = draw(st.sampled_from(inner))
    if not isinstance(target, dict) or not target:
        return line
    key = draw(st.sampled_from(sorted(target)))
    if how == 0:
        del target[key]
    else:
        target[key] = draw(_VALUES)
    return orjson.dumps(value)


@st.composite
def rollouts(draw: Any) -> bytes:
    """A rollout of fixture lines in any order (a session_meta first, mostly), some broken."""
    lines = draw(st.lists(st.sampled_from(LINES), min_size=1, max_size=30))
    metas = [line for line in LINES if b'"type":"session_meta"' in line[:200]]
    if draw(st.booleans()):
        lines.insert(0, draw(st.sampled_from(metas)))
    for index in draw(st.lists(st.integers(0, len(lines) - 1), max_size=4)):
        lines[index] = _broken(lines[index], draw)
    return b"\n".join(lines) + b"\n"


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(data=rollouts())
def test_referee_the_route_is_the_careful_route(data: bytes, monkeypatch: pytest.MonkeyPatch) -> None:
    new, old = _both(monkeypatch, data)
    assert new == old


def test_the_referee_sees_a_route_that_drops_a_late_write(monkeypatch: pytest.MonkeyPatch) -> None:
    """The mutation check: a route that loses what the reader writes on an action after adding
    it (usage given to a response, harness marks) is told apart by the comparison above."""
    path = next(p for p in ROLLOUTS if b'"last_token_usage":{' in p.read_bytes())
    with monkeypatch.context() as m:
        m.setattr(documents._Doc, "__setattr__", lambda self, name, value: None)
        new, old = both_routes(lambda: Source(path), lambda: _careful(monkeypatch))
    assert new != old
    assert loader_view(Source(path)) == old
