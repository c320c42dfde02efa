"""Time threadlab as a user runs it: installed, its modules compiled to bytecode.

pip compiles a package's modules when it installs it, and a checkout's first run writes its
``__pycache__``. A machine that sets ``PYTHONDONTWRITEBYTECODE`` (some CI images, this project's
sandboxes) compiles every threadlab module again in every timed process, 0.1-0.3 s a run that
no installed copy pays, while the baselines' libraries (pandas, orjson, inspect_scout) are read
from site-packages compiled at their install. ``as_installed`` compiles the checkouts' own
folders once (into the ``__pycache__`` folders git ignores) and lets the timed children read
that bytecode. ``first_use.py`` measures both bytecode states on purpose and does not use this."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

PACKAGES = ("threadlab", "benchmarks")


def as_installed(*checkouts: Path) -> None:
    """Compile each checkout's packages and let this process's children use the bytecode."""
    unset = os.environ.pop("PYTHONDONTWRITEBYTECODE", None) is not None
    for root in checkouts:
        folders = [str(root / name) for name in PACKAGES if (root / name).is_dir()]
        subprocess.run([sys.executable, "-m", "compileall", "-q", *folders], check=True, stdout=subprocess.DEVNULL)
    note = " (PYTHONDONTWRITEBYTECODE unset for the timed runs)" if unset else ""
    print(f"# bytecode: threadlab compiled as an install has it{note}", flush=True)
