"""First use: ``import threadlab`` and ``threadlab --help`` must not load pandas, pyarrow,
pydantic or any converter's library (seconds, on a cold start); a call loads what it needs."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

SAMPLE = Path(__file__).resolve().parents[1] / "data" / "threadprotocol" / "research_team.thread.json"
HEAVY = ("pandas", "pyarrow", "pydantic", "pydantic_ai", "plotly", "ipywidgets", "numpy")


def _loaded_after(code: str) -> set[str]:
    probe = f"{code}\nimport sys\nprint(' '.join(m for m in {HEAVY!r} if m in sys.modules))"
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    return set(out.stdout.split())


def test_import_threadlab_loads_no_heavy_library() -> None:
    assert _loaded_after("import threadlab") == set()


def test_cli_help_loads_no_heavy_library() -> None:
    assert _loaded_after("from threadlab.cli import build_parser\nbuild_parser().format_help()") == set()


def test_names_load_on_first_use() -> None:
    assert "pydantic" in _loaded_after("import threadlab\nthreadlab.Thread")
    assert {"pandas", "pyarrow"} <= _loaded_after("from threadlab import load")
    assert "pydantic_ai" not in _loaded_after(f"import threadlab\nthreadlab.read({str(SAMPLE)!r})")
