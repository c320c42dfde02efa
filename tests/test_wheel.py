"""`pip install .` builds a wheel that works outside the repository: built here without network
(the dev extra holds the build backend), installed into a fresh virtual environment that sees
the test venv's dependencies but not this checkout, and run from a folder outside the repo."""

from __future__ import annotations

import subprocess
import sys
import sysconfig
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_wheel_installs_and_runs_outside_the_repo(tmp_path: Path) -> None:
    built = subprocess.run([sys.executable, "-m", "pip", "wheel", str(ROOT), "--no-deps", "--no-build-isolation", "-w", str(tmp_path / "dist"), "-q"],
                           capture_output=True, text=True, timeout=300)
    assert built.returncode == 0, built.stderr
    assert "deprecat" not in (built.stdout + built.stderr).lower()
    wheel = next((tmp_path / "dist").glob("threadlab-*.whl"))
    names = zipfile.ZipFile(wheel).namelist()
    assert "threadlab/widgets/view.py" in names and "threadlab/frames/agents.py" in names
    assert not [n for n in names if n.startswith(("tests/", "notebooks/", "data/", "benchmarks/"))]
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True, timeout=120)
    site = Path(subprocess.run([str(venv / "bin" / "python"), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                               capture_output=True, text=True, check=True).stdout.strip())
    zipfile.ZipFile(wheel).extractall(site)  # what pip does with a pure-Python wheel
    # the dependencies, from the test venv, as a plain path: its .pth files (this checkout's editable hook) are not read
    (site / "deps.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    script = (
        "import threadlab as tl, pathlib, sys\n"
        f"assert pathlib.Path(tl.__file__).is_relative_to({str(site)!r}), tl.__file__\n"
        f"frames = tl.load({str(ROOT / 'data' / 'threadprotocol')!r}, progress=False)\n"
        "fig = tl.token_usage(frames)\n"
        "html = fig._repr_mimebundle_()['text/html']\n"
        "print(len(frames.threads), fig.layout.meta['threadlab'], 'threadlab-plotlyjs' in html)\n"
    )
    ran = subprocess.run([str(venv / "bin" / "python"), "-c", script], cwd=outside, capture_output=True, text=True, timeout=300)
    assert ran.returncode == 0, ran.stderr
    assert ran.stdout.split() == ["5", "token_usage", "True"]
    cli = subprocess.run([str(venv / "bin" / "python"), "-m", "threadlab", "summary", str(outside)], cwd=outside, capture_output=True, text=True, timeout=300)
    assert cli.returncode == 1 and "no thread found" in cli.stderr
