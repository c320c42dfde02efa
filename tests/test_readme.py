"""Every snippet of the README runs, so the README cannot go stale again (issue 28: the tour's
``compare_perspectives(thread, "Router", ...)`` failed on the tour's own thread,
``tl.widgets.set_static_copies`` did not exist, blocks used names nothing defined).

The ```python blocks run in order in one namespace, as a reader pasting them into one notebook
would, from a temporary folder where ``data/`` is the repository's bundled data: what they write
(``out.json``, ``share/``, the cache, ``threads/``) lands there. A block after a
``<!-- not run: why -->`` line needs the reader's own agents and files; it is only compiled, and
there are ``NOT_RUN`` of them, so they cannot multiply silently. Each ``threadlab ...`` line of the
```bash blocks runs too (exit 1 where its comment says so, else 0)."""

from __future__ import annotations

import ast
import os
import re
import shlex
import subprocess
import sys
import warnings
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from threadlab.core.loss import WriteLoss

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
NOT_RUN = 1  # the block of the reader's own agents, clients and files (Formats)
FENCE = re.compile(r"^```(\w*)\n(.*?)^```", re.M | re.S)
NOT_RUN_MARK = re.compile(r"<!-- not run: (.+?) -->\s*$")


@dataclass(frozen=True)
class Block:
    language: str
    code: str
    line: int
    not_run: str | None  # the reason, for a block marked not to run


def blocks(text: str) -> list[Block]:
    found = []
    for match in FENCE.finditer(text):
        before = text[: match.start()].rstrip().splitlines()
        mark = NOT_RUN_MARK.search(before[-1]) if before else None
        found.append(Block(match.group(1), match.group(2), text.count("\n", 0, match.start()) + 2, mark.group(1) if mark else None))
    return found


def test_the_readme_marks_only_its_schematic_block_not_to_run() -> None:
    found = blocks(README.read_text())
    assert sum(b.language == "python" for b in found) >= 6
    marked = [b for b in found if b.not_run]
    assert len(marked) == NOT_RUN, [(b.line, b.not_run) for b in marked]
    for block in marked:  # not run, but still Python
        compile(block.code, f"README.md, the block at line {block.line}", "exec", flags=ast.PyCF_ALLOW_TOP_LEVEL_AWAIT)


@pytest.fixture
def workdir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A temporary folder holding ``data/``; the widgets' process-wide state (the README turns
    static copies off) is put back afterwards, so later tests in the process see the default."""
    from threadlab.widgets import view

    (tmp_path / "data").symlink_to(ROOT / "data", target_is_directory=True)
    monkeypatch.chdir(tmp_path)
    state = dict(view._STATE)
    yield tmp_path
    view._STATE.clear()
    view._STATE.update(state)


def _data_files() -> list[tuple[str, int]]:
    return sorted((os.path.join(folder, name), os.stat(os.path.join(folder, name)).st_mtime_ns)
                  for folder, _, names in os.walk(ROOT / "data") for name in names if "__pycache__" not in folder)


def test_every_python_block_of_the_readme_runs(workdir: Path) -> None:
    before = _data_files()
    namespace: dict[str, object] = {"__name__": "__readme__"}
    ran = 0
    for block in blocks(README.read_text()):
        if block.language != "python" or block.not_run:
            continue
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", WriteLoss)  # the writers' blocks say what they lose, as they should
                exec(compile(block.code, f"README.md, the block at line {block.line}", "exec"), namespace)
        except Exception as exc:
            raise AssertionError(f"the README's python block at line {block.line} fails: {type(exc).__name__}: {exc}") from exc
        ran += 1
    assert ran >= 5
    assert (workdir / "out.json").is_file() and (workdir / "share" / "threadlab-schema.json").is_file()  # written here, not in data/
    assert _data_files() == before


def test_every_threadlab_command_of_the_readme_runs(workdir: Path) -> None:
    env = {k: v for k, v in os.environ.items() if k not in ("COLUMNS", "LINES")}
    commands = [line for b in blocks(README.read_text()) if b.language == "bash" for line in b.code.splitlines() if line.startswith("threadlab ")]
    assert len(commands) >= 5
    for line in commands:
        args = shlex.split(line, comments=True)
        done = subprocess.run([sys.executable, "-m", "threadlab", *args[1:]], capture_output=True, text=True, timeout=300, cwd=workdir, env=env)
        expected = 1 if "exit 1" in line.partition("#")[2] else 0
        assert done.returncode == expected and "Traceback" not in done.stderr, f"{line}\n{done.stderr}"
