"""`pip install .` builds a wheel that works outside the repository: built here without network
(the dev extra holds the build backend), installed into a fresh virtual environment that sees
the test venv's dependencies but not this checkout, and run from a folder outside the repo.

Both the wheel and the sdist are built from a copy of the files a build reads, never in the
checkout: setuptools leaves a ``build/`` folder (and ``threadlab.egg-info``) where it builds,
and a ``build/`` folder in the repository root shadows the ``build`` package, so ``python -m
build`` there failed with "No module named build.__main__; 'build' is a package" (issue 28)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import sysconfig
import tarfile
import zipfile
from pathlib import Path

from threadlab._version import __version__

ROOT = Path(__file__).resolve().parent.parent
BUILD_INPUTS = ("pyproject.toml", "README.md", "LICENSE")


def _source_copy(tmp_path: Path) -> Path:
    """What setuptools reads to build threadlab, copied (a build writes beside its sources)."""
    tree = tmp_path / "src"
    shutil.copytree(ROOT / "threadlab", tree / "threadlab", ignore=shutil.ignore_patterns("__pycache__"))
    for name in BUILD_INPUTS:
        shutil.copy2(ROOT / name, tree / name)
    return tree


def _build(tree: Path, out: Path, what: str) -> Path:
    """``what`` ("sdist" or "wheel") built by setuptools' own PEP 517 hooks, in ``tree``."""
    code = f"from setuptools import build_meta; print(build_meta.build_{what}({str(out)!r}))"
    done = subprocess.run([sys.executable, "-c", code], cwd=tree, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert "deprecat" not in (done.stdout + done.stderr).lower(), done.stderr
    return out / done.stdout.strip().splitlines()[-1]


def test_the_licence_is_in_the_repository_the_sdist_and_the_wheel(tmp_path: Path) -> None:
    """``license = "MIT"`` needs its text beside it: the repository's LICENSE, the sdist and
    the wheel's ``.dist-info/licenses/`` (setuptools' ``license-files``)."""
    text = (ROOT / "LICENSE").read_text()
    assert text.startswith("MIT License") and "Permission is hereby granted, free of charge" in text
    before = sorted(p.name for p in ROOT.iterdir())
    tree = _source_copy(tmp_path)
    sdist = _build(tree, tmp_path / "dist", "sdist")
    with tarfile.open(sdist) as archive:
        members = {m.name.split("/", 1)[1]: m for m in archive.getmembers() if "/" in m.name}
        assert "LICENSE" in members
        assert archive.extractfile(members["LICENSE"]).read().decode() == text  # type: ignore[union-attr]
        assert "License-File: LICENSE" in archive.extractfile(members["PKG-INFO"]).read().decode()  # type: ignore[union-attr]
    wheel = zipfile.ZipFile(_build(tree, tmp_path / "dist", "wheel"))
    licences = [n for n in wheel.namelist() if n.endswith(".dist-info/licenses/LICENSE")]
    assert licences and wheel.read(licences[0]).decode() == text
    assert sorted(p.name for p in ROOT.iterdir()) == before  # nothing built in the checkout (no build/)


def test_wheel_installs_and_runs_outside_the_repo(tmp_path: Path) -> None:
    before = sorted(p.name for p in ROOT.iterdir())
    tree = _source_copy(tmp_path)
    built = subprocess.run([sys.executable, "-m", "pip", "wheel", str(tree), "--no-deps", "--no-build-isolation", "-w", str(tmp_path / "dist"), "-q"],
                           capture_output=True, text=True, timeout=300)
    assert built.returncode == 0, built.stderr
    assert "deprecat" not in (built.stdout + built.stderr).lower()
    assert sorted(p.name for p in ROOT.iterdir()) == before  # built in the copy: no build/ left in the checkout
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
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}  # a checkout on PYTHONPATH would be imported instead
    script = (
        "import threadlab as tl, pathlib, sys\n"
        f"assert pathlib.Path(tl.__file__).is_relative_to({str(site)!r}), tl.__file__\n"
        f"frames = tl.load({str(ROOT / 'data' / 'threadprotocol')!r}, progress=False)\n"
        "fig = tl.token_usage(frames)\n"
        "html = fig._repr_mimebundle_()['text/html']\n"
        "print(len(frames.threads), fig.layout.meta['threadlab'], 'threadlab-plotlyjs' in html)\n"
    )
    ran = subprocess.run([str(venv / "bin" / "python"), "-c", script], cwd=outside, capture_output=True, text=True, timeout=300, env=env)
    assert ran.returncode == 0, ran.stderr
    assert ran.stdout.split() == ["5", "token_usage", "True"]
    cli = subprocess.run([str(venv / "bin" / "python"), "-m", "threadlab", "summary", str(outside)], cwd=outside, capture_output=True, text=True,
                         timeout=300, env=env)
    assert cli.returncode == 1 and "no thread found" in cli.stderr
    version = subprocess.run([str(venv / "bin" / "python"), "-m", "threadlab", "--version"], cwd=outside, capture_output=True, text=True,
                             timeout=300, env=env)
    assert version.returncode == 0 and version.stdout.strip() == f"threadlab {__version__}"
