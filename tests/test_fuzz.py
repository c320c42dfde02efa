"""Fuzzing (issues 13 and 24): every sample the conformance suite runs (``tests/fixtures/<format>/``,
``tests/fixtures/real/<format>/``, ``data/<format>/``: every registered format, zips and SQLite
databases too) mutated as a hostile or broken producer, or a live file, would (``mutants.py``:
wrong types, deletions, duplications, truncations, odd numbers and times, nesting 10,000 deep,
strings of megabytes, numbers beyond any float, torn last lines, zip members that inflate far
beyond their size, columns computed on read, damaged bytes).

For each mutant: ``read_all(strict=False)`` raises nothing but ThreadError (a file with no
thread in it says so), ``read_all(strict=True)`` raises ThreadError or nothing, ``validate`` and
the canonical writer raise nothing, and a lenient ``load`` of the mutant beside a valid file
raises nothing and gives the valid file's rows exactly as it gives them alone. No mutant may
take longer than ``MUTANT_SECONDS`` (a hang) or raise the process's peak memory by more than
``MUTANT_MB`` (a memory bomb).

A bug caught by the safety nets is an ``internal`` problem row naming the file and the line
of threadlab it came from. In the core, the frames, the loaders and ThreadProtocol reading
it fails the test. In a wire-format converter (``threadlab/formats/<format>/``) it costs only
its file, as it must, and is reported as a ConverterFailureWarning with its line, for the
converter's owner.

Bounded and deterministic: a fixed number of mutants per sample, derandomized hypothesis, no
example database: under a minute on two cores with ``-n 2``; ``THREADLAB_FUZZ_MUTANTS=20`` (or
more) for a longer hunt."""

from __future__ import annotations

import os
import re
import resource
import signal
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pyarrow as pa
import pyarrow.compute as pc
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import threadlab as tl
from threadlab.core.validation import validate
from threadlab.formats import detect_format
from threadlab.formats.common.reading import UnreadFilesWarning
from threadlab.formats.common.registry import FORMATS
from threadlab.formats.common.source import Source
from threadlab.frames.frames import Frames
from threadlab.loading.chunks import read_chunk
from threadlab.loading.files import Chunk, FileRef

from .conformance.containers import container_kind
from .conformance.fixtures import Fixture, fixtures
from .mutants import fixed_mutants, mutant_sqlite, mutant_text, mutant_zip
from .test_lenient import assert_good_kept

ROOT = Path(__file__).resolve().parent.parent
MUTANTS_PER_SAMPLE = int(os.environ.get("THREADLAB_FUZZ_MUTANTS", "2"))  # and two fixed ones (torn, a bomb)
MUTANT_SECONDS = 60  # a mutant's checks on a shared two-core machine take well under a second
MUTANT_MB = 512  # the worst bomb's budget (a zip member: 100x the archive, at least 64 MiB) twice, and room
FUZZ = settings(
    max_examples=MUTANTS_PER_SAMPLE,
    derandomize=True,
    database=None,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.function_scoped_fixture],
)
SAMPLES: list[Fixture] = fixtures()
MUTATORS = {"zip": mutant_zip, "sqlite": mutant_sqlite, None: mutant_text}


def test_every_registered_format_is_fuzzed() -> None:
    fuzzed = {f.format or detect_format(Source(f.path)).NAME for f in SAMPLES}
    assert {spec.name for spec in FORMATS} <= fuzzed
    assert {container_kind(f.path) for f in SAMPLES} >= {"zip", "sqlite", None}


# --- the checks ------------------------------------------------------------------------------

# formats/ modules that are no wire-format converter: a failure in them fails the test
NOT_CONVERTERS = (
    "__init__.py",
    "common/describe.py",
    "common/format_table.py",
    "common/reading.py",
    "common/registry.py",
    "common/source.py",
    "common/walk.py",
    "threadprotocol/__init__.py",
)
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


def _peak_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


@contextmanager
def bounded(mutant: Path) -> Iterator[None]:
    """The checks of one mutant: a hang is a failure naming it (an alarm), and so is a rise of
    the process's peak memory beyond ``MUTANT_MB``."""

    def hung(signum: int, frame: object) -> None:
        raise TimeoutError(f"{mutant}: its checks took more than {MUTANT_SECONDS} s (a hang?)")

    before = _peak_mb()
    previous = signal.signal(signal.SIGALRM, hung)
    signal.alarm(MUTANT_SECONDS)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)
    assert _peak_mb() - before < MUTANT_MB, f"{mutant}: peak memory rose by {_peak_mb() - before:.0f} MB (a memory bomb?)"


@pytest.fixture(scope="module")
def good(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Frames, dict[str, pa.Table]]:
    """A valid file, and what it gives alone: as frames and as the chunk reader's tables."""
    path = tmp_path_factory.mktemp("good") / "good.thread.json"
    path.write_bytes((ROOT / "data" / "threadprotocol" / "research_team.thread.json").read_bytes())
    return path, tl.load([path], workers=1, progress=False), read_chunk(Chunk((FileRef.of(path),)))


def good_part(tables: dict[str, pa.Table], source: Path) -> dict[str, pa.Table]:
    return {name: t.filter(pc.equal(t["source"], str(source))) for name, t in tables.items() if name != "problems"}


def check_mutant(mutant: Path, format: str, good: tuple[Path, Frames, dict[str, pa.Table]]) -> None:
    """read_all lenient and strict, validate, the canonical writer, and the chunk reader (what
    each load worker runs: fast path, converters, extraction, Arrow) with the valid file in the
    same chunk."""
    with warnings.catch_warnings(record=True) as caught:  # a lenient read raises nothing
        warnings.simplefilter("always", UnreadFilesWarning)
        threads = tl.read_all(mutant, format, strict=False)
    for unread in (w.message for w in caught if isinstance(w.message, UnreadFilesWarning)):
        assert unread.problems, "an unread file is named with its problems"
        internal_failures([p.message for p in unread.problems if p.rule == "internal"], mutant)
    try:
        tl.read_all(mutant, format, strict=True)
    except tl.ThreadError as exc:
        assert exc.problems, "a ThreadError names its problems"
    for thread in threads:
        validate(thread)
        again = tl.read(tl.dumps(thread), strict=False)  # canonical JSON reads back as written
        assert tl.dumps(again) == tl.dumps(thread)
    path, _, alone = good
    tables = read_chunk(Chunk((FileRef.of(path), FileRef.of(mutant))))
    for name, table in good_part(tables, path).items():
        assert table.equals(good_part(alone, path)[name]), name
    internal_failures([p["message"] for p in tables["problems"].to_pylist() if p["rule"] == "internal"], mutant)


@pytest.mark.parametrize(("index", "sample"), list(enumerate(SAMPLES)), ids=[f.id for f in SAMPLES])
def test_mutants_of_every_sample(index: int, sample: Fixture, good: tuple[Path, Frames, dict[str, pa.Table]], tmp_path: Path) -> None:
    original = sample.path.read_bytes()
    kind = container_kind(sample.path)
    format = sample.format or "auto"
    made: list[Path] = []

    def check(mutant_bytes: bytes) -> None:
        mutant = tmp_path / f"m{len(made):03d}" / sample.path.name
        mutant.parent.mkdir()
        made.append(mutant)
        mutant.write_bytes(mutant_bytes)
        with bounded(mutant):
            check_mutant(mutant, format, good)

    for fixed in fixed_mutants(kind, original, index):  # torn, and a bomb: every run
        check(fixed)

    @FUZZ
    @given(st.data())
    def run(data: st.DataObject) -> None:
        check(MUTATORS[kind](original, data))

    run()
    # and a whole lenient load of them all beside the valid file: its rows as it gives them alone
    path, alone, _ = good
    assert_good_kept(tl.load([path, *made], workers=1, progress=False), alone, path)
