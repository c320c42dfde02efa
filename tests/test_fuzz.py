"""Fuzzing (issue 13): every bundled sample (data/ and tests/fixtures/, every format) mutated as
a hostile or broken producer would: wrong types, deletions, duplications, truncations, huge
and tiny numbers, odd timestamps, lists where strings belong, deep nesting.

For each mutant: ``read_all(strict=False)`` raises nothing but ThreadError (a file with no
thread in it says so), ``validate`` and the canonical writer raise nothing, and a lenient
``load`` of the mutant beside a valid file raises nothing and gives the valid file's rows
exactly as it gives them alone.

A bug caught by the safety nets is an ``internal`` problem row naming the file and the line
of threadlab it came from. In the core, the frames, the loaders and ThreadProtocol reading
it fails the test. In a wire-format converter (``threadlab/formats/<format>/``) it costs only
its file, as it must, and is reported as a ConverterFailureWarning with its line, for the
converter's owner: the converters are fuzzed here, not mended.

Bounded and deterministic: a fixed number of mutants per sample, derandomized hypothesis, no
example database (about a minute on two cores; ``THREADLAB_FUZZ_MUTANTS`` sets another number)."""

from __future__ import annotations

import os
import re
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import orjson
import pyarrow as pa
import pyarrow.compute as pc
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import threadlab as tl
from threadlab.core.canonical import json_bytes
from threadlab.core.validation import validate
from threadlab.formats.reading import UnreadFilesWarning
from threadlab.frames.frames import Frames
from threadlab.loading.chunks import read_chunk
from threadlab.loading.files import Chunk, FileRef

from .test_lenient import assert_good_kept

ROOT = Path(__file__).resolve().parent.parent
SUFFIXES = (".json", ".jsonl", ".ndjson", ".sse")
# a few per sample in every run (about a minute); THREADLAB_FUZZ_MUTANTS=50 for a longer hunt
MUTANTS_PER_SAMPLE = int(os.environ.get("THREADLAB_FUZZ_MUTANTS", "4"))
FUZZ = settings(
    max_examples=MUTANTS_PER_SAMPLE,
    derandomize=True,
    database=None,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.function_scoped_fixture],
)


def samples() -> list[Path]:
    found = []
    for folder in (ROOT / "data", ROOT / "tests" / "fixtures"):
        for path in sorted(folder.rglob("*")):
            if path.suffix in SUFFIXES and path.is_file() and "runs" not in path.parts[-2:-1]:
                found.append(path)
    return [*found, ROOT / "data" / "runs" / "run-000.json"]


SAMPLES = samples()

# --- odd values ------------------------------------------------------------------------------

ODD_TIMES = [
    "2026-06-30T23:59:60Z", "2026-13-01T00:00:00Z", "2026-01-05t09:00:00z", "2026-W02-1T09:00:00Z", "not a time", "",
    "0001-01-01T00:00:00+01:00", "9999-12-31T23:59:59-01:00", "1600-01-01T00:00:00Z", "0999-06-01T00:00:00Z",
    "2026-01-05T09:00:00.123456789Z", "2026-01-05T09:00:00", "2026-01-05 09:00:00+05:45", "1767600000",
]
ODD_NUMBERS = [2**63, 2**64, 2**100, -(2**63) - 1, -1, -10, 0, 5e-324, 1e308, -0.0, 1.5, 2.0, True, False]


def deep(levels: int, leaf: Any) -> Any:
    for n in range(levels):
        leaf = [leaf] if n % 2 else {"d": leaf}
    return leaf


def odd_value(original: Any) -> st.SearchStrategy[Any]:
    """A value of the wrong type, or of the right type at its edges, for ``original``."""
    common = st.sampled_from([None, 5, "5", [], {}, ["x"], {"x": 1}, True, 2**64, "\x00", "é" * 3, "<script>alert(1)</script>"])
    if isinstance(original, str):
        return st.one_of(st.sampled_from(ODD_TIMES), st.just([original]), st.just({"text": original}), st.sampled_from(ODD_NUMBERS), common,
                         st.text(max_size=20), st.just(original * 50))
    if isinstance(original, bool | int | float):
        return st.one_of(st.sampled_from(ODD_NUMBERS), st.just(str(original)), st.just([original]), common)
    if isinstance(original, list):
        return st.one_of(st.just(original[:1] * 3), st.just(original[::-1]), st.just({"0": original}), common)
    if isinstance(original, dict):
        return st.one_of(st.just(list(original.values())), st.just(list(original)), common)
    return st.one_of(st.sampled_from(ODD_TIMES + ODD_NUMBERS), common)


# --- where to mutate -------------------------------------------------------------------------


def places(value: Any, limit: int = 4000) -> list[tuple[Any, Any]]:
    """(container, key) of every value inside ``value``, breadth first (at most ``limit``)."""
    out: list[tuple[Any, Any]] = []
    todo = [value]
    while todo and len(out) < limit:
        node = todo.pop(0)
        items = node.items() if isinstance(node, dict) else enumerate(node) if isinstance(node, list) else ()
        for key, child in items:
            out.append((node, key))
            if isinstance(child, dict | list):
                todo.append(child)
    return out


def _copy(value: Any) -> Any:
    """A copy of a JSON value; one nested deeper than orjson writes is shared instead (the
    mutant is written out whole right after, so sharing a subtree changes nothing)."""
    try:
        return orjson.loads(orjson.dumps(value))
    except TypeError:
        return value


def mutate_json(value: Any, data: st.DataObject) -> Any:
    spots = places(value)
    if not spots:
        return data.draw(odd_value(value))
    container, key = spots[data.draw(st.integers(0, len(spots) - 1))]
    original = container[key]
    op = data.draw(st.sampled_from(["replace", "replace", "replace", "delete", "duplicate", "wrap", "deepen"]))
    if op == "replace":
        container[key] = data.draw(odd_value(original))
    elif op == "delete":
        del container[key]
    elif op == "duplicate":
        if isinstance(container, list):
            container.insert(key, _copy(original))
        else:
            container[f"{key}_copy"] = original
            container[key] = _copy(original)
    elif op == "wrap":
        container[key] = [original]
    else:
        container[key] = deep(data.draw(st.sampled_from([300, 600, 1100])), original)
    return value


def payloads(text: bytes) -> Iterator[tuple[int, bytes, Any]]:
    """(line index, prefix, JSON value) of each line holding JSON (JSON Lines, SSE data lines)."""
    for index, line in enumerate(text.split(b"\n")):
        prefix = b"data: " if line.startswith(b"data: ") else b""
        try:
            yield index, prefix, orjson.loads(line[len(prefix):])
        except orjson.JSONDecodeError:
            continue


def mutant_bytes(original: bytes, data: st.DataObject) -> bytes:
    """One to three mutations of the sample: in its JSON (the whole document, or one line of
    JSON Lines / SSE), or of its bytes (truncated, a range cut out or doubled)."""
    out = original
    for _ in range(data.draw(st.integers(1, 3))):
        kind = data.draw(st.sampled_from(["json", "json", "json", "json", "truncate", "cut", "double"]))
        if kind == "truncate":
            out = out[: data.draw(st.integers(0, max(0, len(out) - 1)))]
            continue
        if kind in ("cut", "double"):
            start = data.draw(st.integers(0, max(0, len(out) - 1)))
            end = min(len(out), start + data.draw(st.integers(1, 200)))
            out = out[:start] + (out[start:end] * 2 if kind == "double" else b"") + out[end:]
            continue
        try:
            whole = orjson.loads(out)
        except orjson.JSONDecodeError:
            lines = list(payloads(out))
            if not lines:
                continue
            index, prefix, value = lines[data.draw(st.integers(0, len(lines) - 1))]
            parts = out.split(b"\n")
            parts[index] = prefix + json_bytes(mutate_json(value, data))
            out = b"\n".join(parts)
        else:
            out = json_bytes(mutate_json(whole, data))
    return out


# --- the checks ------------------------------------------------------------------------------

# formats/ modules that are no wire-format converter: a failure in them fails the test
NOT_CONVERTERS = ("__init__.py", "reading.py", "registry.py", "source.py", "threadprotocol.py", "walk.py")
_AT = re.compile(r"\(at threadlab/([^:]+):(\d+)\)")


class ConverterFailureWarning(UserWarning):
    """A wire-format converter failed on a mutant (the file cost only itself)."""


def internal_failures(messages: list[str], mutant: Path) -> None:
    """Fail on an internal problem outside the converters; warn about those inside."""
    for message in messages:
        at = _AT.search(message)
        where = at.group(1) if at else "?"
        assert where.startswith("formats/") and where.removeprefix("formats/") not in NOT_CONVERTERS, (mutant.read_bytes()[:300], message)
        warnings.warn(ConverterFailureWarning(f"{mutant.name}: {message[message.index(': ') + 2:]}"), stacklevel=2)


@pytest.fixture(scope="module")
def good(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Frames, dict[str, pa.Table]]:
    """A valid file, and what it gives alone: as frames and as the chunk reader's tables."""
    path = tmp_path_factory.mktemp("good") / "good.thread.json"
    path.write_bytes((ROOT / "data" / "threadprotocol" / "research_team.thread.json").read_bytes())
    return path, tl.load([path], workers=1, progress=False), read_chunk(Chunk((FileRef.of(path),)))


def good_part(tables: dict[str, pa.Table], source: Path) -> dict[str, pa.Table]:
    return {name: t.filter(pc.equal(t["source"], str(source))) for name, t in tables.items() if name != "problems"}


def check_mutant(mutant: Path, good: tuple[Path, Frames, dict[str, pa.Table]]) -> None:
    """read_all, validate, the canonical writer, and the chunk reader (what each load worker
    runs: fast path, converters, extraction, Arrow) with the valid file in the same chunk."""
    with warnings.catch_warnings(record=True) as caught:  # a lenient read raises nothing
        warnings.simplefilter("always", UnreadFilesWarning)
        threads = tl.read_all(mutant, strict=False)
    for unread in (w.message for w in caught if isinstance(w.message, UnreadFilesWarning)):
        assert unread.problems, "an unread file is named with its problems"
        internal_failures([p.message for p in unread.problems if p.rule == "internal"], mutant)
    for thread in threads:
        validate(thread)
        again = tl.read(tl.dumps(thread), strict=False)  # canonical JSON reads back as written
        assert tl.dumps(again) == tl.dumps(thread)
    path, _, alone = good
    tables = read_chunk(Chunk((FileRef.of(path), FileRef.of(mutant))))
    for name, table in good_part(tables, path).items():
        assert table.equals(good_part(alone, path)[name]), name
    internal_failures([p["message"] for p in tables["problems"].to_pylist() if p["rule"] == "internal"], mutant)


@pytest.mark.parametrize("sample", SAMPLES, ids=[str(p.relative_to(ROOT)) for p in SAMPLES])
def test_mutants_of_every_sample(sample: Path, good: tuple[Path, Frames, dict[str, pa.Table]], tmp_path: Path) -> None:
    original = sample.read_bytes()
    made: list[Path] = []

    @FUZZ
    @given(st.data())
    def run(data: st.DataObject) -> None:
        mutant = tmp_path / f"m{len(made):03d}" / sample.name
        mutant.parent.mkdir()
        made.append(mutant)
        mutant.write_bytes(mutant_bytes(original, data))
        check_mutant(mutant, good)

    run()
    # and a whole lenient load of them all beside the valid file: its rows as it gives them alone
    path, alone, _ = good
    assert_good_kept(tl.load([path, *made], workers=1, progress=False), alone, path)
