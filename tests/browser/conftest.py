"""Session fixtures: one JupyterLab on a copy of the bundled data, one Chromium page on the
widgets notebook with every cell run."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.browser.lab import Lab, chromium_page, open_notebook, run_all, running_lab, write_notebook
from tests.browser.notebook import CELLS, NOTEBOOK

ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = ROOT / "tests" / "artifacts"


@pytest.fixture(scope="module")
def lab(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Lab]:
    root = tmp_path_factory.mktemp("lab")
    data = root / "data"
    shutil.copytree(ROOT / "data" / "threadprotocol", data, ignore=shutil.ignore_patterns("*.py", "*.md"))
    shutil.copy(ROOT / "tests" / "fixtures" / "widgets" / "xss.thread.json", data / "xss.thread.json")
    write_notebook(root / NOTEBOOK, [source for _, source in CELLS])
    with running_lab(root) as server:
        yield server


@pytest.fixture(scope="module")
def widgets_page(lab: Lab) -> Iterator[tuple[Any, list[str]]]:
    """Module-scoped on purpose: Playwright's sync API keeps an asyncio loop marked as running in
    this thread while it is open, so a session-scoped page made every later ``asyncio.run`` in the
    same worker fail ("cannot be called from a running event loop")."""
    with chromium_page() as (page, dialogs):
        open_notebook(page, lab, NOTEBOOK)
        run_all(page)
        yield page, dialogs


@pytest.fixture(scope="session")
def artifacts() -> Path:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    return ARTIFACTS
