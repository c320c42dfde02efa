"""The wild corpus (``tests/fixtures/real/``, public files other projects committed): every file
loads with auto-detection as its folder's format, and what the frames say of it (prompts by
author, assistant texts, tool calls, returns, errors, tokens) is what a counter that does not
import threadlab takes from the raw bytes, except the disagreements listed in
``tests/wild/expected.py`` (asserted too, so a fix trims the list). The folder's size is held
(at least 200 files; repositories have a floor the test raises as they are added) and the README's formats table counts it."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conformance.fixtures import REAL, Fixture, fixtures
from tests.wild.compare import disagreements
from tests.wild.corpus import corpus_rows, readme_table_counts, table_counts
from tests.wild.expected import EXPECTED

FILES = fixtures(origins=("real",))
ROOT = Path(__file__).resolve().parents[2]


def key(f: Fixture) -> str:
    return f.path.relative_to(REAL).as_posix()


@pytest.mark.parametrize("fixture", FILES, ids=key)
def test_threadlab_counts_what_the_raw_file_holds(fixture: Fixture) -> None:
    assert fixture.format is not None
    want = EXPECTED[key(fixture)][2] if key(fixture) in EXPECTED else {}
    assert disagreements(fixture.path, fixture.format) == want


def test_every_expected_disagreement_names_a_real_file() -> None:
    assert sorted(set(EXPECTED) - {key(f) for f in FILES}) == []


def test_the_corpus_is_wide() -> None:
    rows = corpus_rows()
    repos = {r.repository for r in rows}
    assert len(rows) >= 200, len(rows)
    assert len(repos) >= 57, sorted(repos)  # issue 24 asks for 40: a floor, raised as repositories are added


def test_every_file_has_its_provenance_row() -> None:
    """Each file of the folder has a README row (repository, path, commit, licence), and each row a file."""
    rows = corpus_rows()
    named = {r.file for r in rows}
    on_disk = {p.relative_to(REAL).as_posix() for p in REAL.rglob("*") if p.is_file() and p.name != "README.md"}
    assert sorted(on_disk - named) == [] and sorted(named - on_disk) == []
    assert all(len(r.commit) == 40 and r.licence and r.path for r in rows)


def test_the_readme_formats_table_counts_the_corpus() -> None:
    assert readme_table_counts((ROOT / "README.md").read_text()) == table_counts()


def test_the_counters_do_not_import_threadlab() -> None:
    """The raw counters (the rules and the per-format counters they share with other tests) are
    an independent reading: loading them loads no threadlab module."""
    code = "import sys, tests.wild.rules; sys.exit(sorted(m for m in sys.modules if m.split('.')[0] == 'threadlab') != [])"
    assert subprocess.run([sys.executable, "-c", code], cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)}, check=False).returncode == 0
