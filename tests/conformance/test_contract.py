"""The contract beyond one format: every problem rule a reader can raise is in the central list,
and a folder mixing every format loads into one frame set with every record accounted for."""

from __future__ import annotations

import ast
import shutil
from pathlib import Path

import threadlab
from tests.conformance.fixtures import ROOT, fixtures, lookalikes
from tests.conformance.records import COUNTERS
from threadlab.core.problems import RULES

# calls whose first argument is a problem rule name
_RULE_CALLS = {"Problem", "problem", "kept", "failed", "error", "report"}


def _rule_literals() -> dict[str, list[str]]:
    """Every string literal passed as the rule of a problem anywhere in threadlab/."""
    found: dict[str, list[str]] = {}
    for path in sorted((ROOT / "threadlab").rglob("*.py")):
        tree = ast.parse(path.read_text(), str(path))
        for node in ast.walk(tree):
            if not isinstance(node, ast.Call) or not node.args:
                continue
            name = node.func.id if isinstance(node.func, ast.Name) else node.func.attr if isinstance(node.func, ast.Attribute) else None
            first = node.args[0]
            if name in _RULE_CALLS and isinstance(first, ast.Constant) and isinstance(first.value, str) and len(node.args) >= 2:
                found.setdefault(first.value, []).append(f"{path.relative_to(ROOT)}:{node.lineno}")
    return found


def test_every_rule_in_the_code_is_in_the_central_list() -> None:
    unknown = {rule: where for rule, where in _rule_literals().items() if rule not in RULES}
    assert unknown == {}, "add these rule names to RULES in threadlab/core/problems.py"


def test_every_rule_raised_on_the_fixtures_is_in_the_central_list(tmp_path: Path) -> None:
    """Rules given by a variable (a reader's own ``problem(rule, ...)`` helper) escape the
    scan above: every problem of every fixture, lookalike and corrupted copy is checked here."""
    originals = [f.path for f in fixtures()] + lookalikes()
    paths = list(originals)
    for i, path in enumerate(p for p in originals if p.is_file()):
        bad = tmp_path / f"{i}-{path.name}"
        bad.write_bytes(path.read_bytes()[: path.stat().st_size // 2])
        paths.append(bad)
    frames = threadlab.load(paths, progress=False)
    assert set(frames.problems["rule"].dropna()) - set(RULES) == set()
    assert len(frames.problems)  # the corrupted copies did give problems


def test_a_folder_of_every_format_loads_into_one_frame_set(tmp_path: Path) -> None:
    """One fixture of each format (its companions with it), a look-alike and a file no format
    reads, in one folder: every format's threads come back, every record is counted, the
    look-alike and the unknown file are problems, nothing disappears."""
    chosen = {}
    for fixture in fixtures(origins=("fixture",)):
        chosen.setdefault(fixture.format, fixture)
    mixed = tmp_path / "mixed"
    mixed.mkdir()
    expected_records = 0
    for name, fixture in sorted(chosen.items()):
        target = mixed / f"{name}-{fixture.path.name}"
        shutil.copy(fixture.path, target)
        companion = fixture.path.parent / fixture.path.stem
        if companion.is_dir():  # a Claude session's subagents
            shutil.copytree(companion, mixed / target.stem)
        expected_records += COUNTERS[name](target)
    for path in lookalikes():
        shutil.copy(path, mixed / path.name)
    (mixed / "run.eval").write_bytes(b"PK\x03\x04" + bytes(60))  # a zip no format reads (yet)
    (mixed / "notes.md").write_text("# not data\n")
    frames = threadlab.load(mixed, progress=False)
    assert set(frames.threads["format"]) == set(chosen)
    assert frames.threads["n_records"].sum() == expected_records
    unread = frames.problems[frames.problems["rule"] == "format"]["source"]
    assert sorted(Path(s).name for s in unread) == sorted([*(p.name for p in lookalikes()), "run.eval"])
    assert not (frames.problems["source"].astype(str).str.endswith("notes.md")).any()


def test_the_readme_has_a_row_for_every_format() -> None:
    """A new format is documented where users look: a row of the README's Formats table."""
    from threadlab.formats.common.registry import FORMATS

    readme = (ROOT / "README.md").read_text()
    table = readme[readme.index("## Formats") :].split("\n## ", 1)[0]
    rows = [line for line in table.splitlines() if line.startswith("| `")]
    named = {line.split("`")[1] for line in rows}
    assert {spec.name for spec in FORMATS} <= named
