"""First use: ``import threadlab`` and ``threadlab --help`` must not load pandas, pyarrow,
pydantic or any converter's library (seconds, on a cold start); a call loads what it needs."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

DATA = Path(__file__).resolve().parents[1] / "data"
SAMPLE = DATA / "threadprotocol" / "research_team.thread.json"
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


def test_load_imports_no_parquet_writer() -> None:
    """pyarrow.parquet (with its filesystems and ssl) is for Parquet folders, not for load."""
    probe = "from threadlab import load\nimport sys\nprint('pyarrow.parquet' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_loading_claude_code_imports_no_pydantic_ai() -> None:
    """Formats tried before Claude Code in detection order (Vercel AI SDK streams and messages,
    pydantic-ai) sniff without importing pydantic-ai: a second or more per process, and per
    pool worker, for users who have none of those files."""
    loaded = _loaded_after(f"import threadlab\nassert len(threadlab.load({str(DATA / 'claude_code')!r}, progress=False).actions)")
    assert "pandas" in loaded
    assert "pydantic_ai" not in loaded


def test_first_load_of_data_imports_no_pydantic_ai() -> None:
    """The first ``load("data/")`` a new user runs (every bundled format, pydantic-ai histories and
    AI SDK streams among them) reads pydantic-ai's histories by the fast route and the AI SDK
    files with pydantic-ai's models loaded on their own: pydantic-ai itself (0.6 s and its schemas
    built on first use) is not imported."""
    loaded = _loaded_after(f"import threadlab\nf = threadlab.load({str(DATA)!r}, progress=False)\nassert len(f.threads) > 300")
    assert "pandas" in loaded
    assert "pydantic_ai" not in loaded


def test_a_small_load_imports_no_process_pool() -> None:
    """Under ``SMALL_LOAD_BYTES`` the files are read in this process: multiprocessing and the
    process pool executor are imported only when a pool starts."""
    probe = (f"import sys, threadlab\nf = threadlab.load({str(DATA / 'threadprotocol')!r}, progress=False)\n"
             "print(' '.join(m for m in ('multiprocessing', 'concurrent.futures.process') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert out.stdout.split() == []
