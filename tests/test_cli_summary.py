"""`threadlab summary` on a path that holds nothing says so and exits non-zero."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path


def summary(*paths: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "threadlab", "summary", *paths], capture_output=True, text=True, timeout=120)


def test_summary_of_a_missing_path_is_a_clear_error(tmp_path: Path) -> None:
    out = summary(str(tmp_path / "nope"))
    assert out.returncode == 2
    assert f"no such file or folder: {tmp_path / 'nope'}" in out.stderr and "Empty DataFrame" not in out.stdout + out.stderr


def test_summary_of_an_empty_folder_or_glob_says_no_thread(tmp_path: Path) -> None:
    for target in (str(tmp_path), str(tmp_path / "*.json")):
        out = summary(target)
        assert out.returncode == 1, out
        assert f"no thread found in {target}" in out.stderr and "Empty DataFrame" not in out.stdout
