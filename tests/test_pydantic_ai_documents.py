"""The pydantic-ai frames route (``reading.read_documents``, the format's ``to_documents``): a
history straight to its thread's JSON object gives what the careful route (pydantic-ai
validating every message, a Thread of models, then ``to_dict``) gives: on every pydantic-ai
fixture, on histories broken the ways files are, and in all five frames and the problems
frame. And it builds no model per action."""

from __future__ import annotations

import importlib.util
import random
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import orjson
import pandas as pd
import pytest

import threadlab as tl
import threadlab.formats.pydantic_ai as pydantic_ai
from threadlab.formats import Source
from threadlab.formats.pydantic_ai import fast

from .documents_route import both_routes, built_without_models

ROOT = Path(__file__).parent.parent
SAMPLES = sorted([*(ROOT / "tests" / "fixtures" / "pydantic_ai").glob("*.json*"),
                  *(ROOT / "tests" / "fixtures" / "real" / "pydantic_ai").glob("*.json*"),
                  *(ROOT / "tests" / "fixtures" / "inputs" / "pydantic_ai").glob("**/*.json*"),
                  *(ROOT / "data" / "pydantic_ai").glob("*.messages.json")])
HISTORIES = [p for p in SAMPLES if p.name.endswith(".messages.json") or p.name == "full_trace.json"]
FAST = [p for p in HISTORIES if p.name.endswith(".messages.json")]  # every message one the fast route vouches for


@contextmanager
def _careful(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Within it, every message goes through pydantic-ai and every thread is built of models."""
    with monkeypatch.context() as m:
        m.setattr(pydantic_ai, "to_documents", lambda source: None)
        m.setattr(fast, "ENABLED", False)
        yield


@pytest.mark.parametrize("path", FAST, ids=lambda p: str(p.relative_to(ROOT)))
def test_histories_take_the_route_without_a_model_per_action(path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    built_without_models(monkeypatch, lambda: pydantic_ai.to_documents(Source(path)))


def _break(message: dict[str, Any], rng: random.Random) -> None:
    """One change of the kind files carry: a value of another type, a field dropped or added, a
    bad time, an unknown part kind, a part of the other side, a duplicated return."""
    parts = message.get("parts") if isinstance(message.get("parts"), list) else []
    target = parts[rng.randrange(len(parts))] if parts and rng.random() < 0.7 else message
    if not isinstance(target, dict) or not target:
        return
    key = rng.choice(sorted(target))
    if target is message and key == "timestamp" and message.get("kind") == "response":
        return  # pydantic-ai puts the wall clock in its place: no two reads agree, whatever the route
    value = rng.choice([None, 7, "x", [], {}, {"kind": "image-url"}, "2026-02-30T08:00:00Z", "2026-03-01T08:00:00+02:00",
                        "tool-call", "brand-new-part", "retry-prompt", ["a", 1]])
    how = rng.randrange(4)
    if how == 0 and key != "parts":
        target[key] = value
    elif how == 1:
        del target[key]
    elif how == 2:
        target[rng.choice(["extra", "vendor_details", fast.DIGESTS])] = value
    elif parts:
        parts.append(dict(parts[rng.randrange(len(parts))]))


def _mutants(messages: list[Any], rng: random.Random, n: int) -> list[bytes]:
    out = []
    for index in range(n):
        mutated = orjson.loads(orjson.dumps(messages))
        for _ in range(rng.randint(1, 3)):
            message = mutated[rng.randrange(len(mutated))]
            if isinstance(message, dict):
                _break(message, rng)
        data = orjson.dumps(mutated, option=orjson.OPT_INDENT_2)
        if index % 6 == 5:
            data = data[: len(data) * 2 // 3]  # cut off
        out.append(data)
    return out


@pytest.mark.parametrize("path", SAMPLES, ids=lambda p: str(p.relative_to(ROOT)))
def test_same_documents_as_the_careful_route(path: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """The file itself and, of a history, thirty copies broken the ways files are."""
    copies = _mutants(orjson.loads(path.read_bytes()), random.Random(path.name), 30) if path in HISTORIES else []
    for index, data in enumerate(copies):
        (tmp_path / f"{index}-{path.name}").write_bytes(data)
    for target in [path, *(tmp_path / f"{index}-{path.name}" for index in range(len(copies)))]:
        new, old = both_routes(lambda target=target: Source(target), lambda: _careful(monkeypatch), "pydantic-ai")
        assert new == old, target.name


def test_same_frames_as_the_careful_route(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """All five frames and the problems frame, over every sample and broken histories."""
    rng = random.Random(16)
    for path in HISTORIES:
        for index, data in enumerate(_mutants(orjson.loads(path.read_bytes()), rng, 6)):
            (tmp_path / f"{index}-{path.name}").write_bytes(data)
    paths = [*map(str, SAMPLES), str(tmp_path)]
    new = tl.load(paths, progress=False, workers=1, cache=False)
    with _careful(monkeypatch):
        old = tl.load(paths, progress=False, workers=1, cache=False)
    assert len(new.actions) > 0 and len(new.problems) > 0
    for name, frame in new.tables().items():
        pd.testing.assert_frame_equal(frame, old.tables()[name], obj=name)


def test_generated_histories_take_the_one_pass_way_and_read_the_same(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """Histories as ``benchmarks/pydantic_ai_folder.py`` makes them (thinking, parallel calls,
    args as objects and as JSON text, returns of text and of objects, retries, usage) go the
    one-pass way (``direct``) and give what the careful route gives."""
    from pydantic_ai.messages import ModelMessagesTypeAdapter

    from threadlab.formats.pydantic_ai import container, direct, reading

    spec = importlib.util.spec_from_file_location("pydantic_ai_folder", ROOT / "benchmarks" / "pydantic_ai_folder.py")
    assert spec is not None and spec.loader is not None
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    rng = random.Random(16)
    for index in range(12):
        target = tmp_path / f"history-{index}.messages.json"
        target.write_bytes(ModelMessagesTypeAdapter.dump_json(bench._history(rng, index), indent=2))
        (conversation,) = container.read(Source(target))
        assert direct.actions(reading._History(conversation).messages, "assistant") is not None
        new, old = both_routes(lambda target=target: Source(target), lambda: _careful(monkeypatch), "pydantic-ai")
        assert new == old, target.name
