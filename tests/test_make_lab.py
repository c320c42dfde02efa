"""The README's first command: `make lab` starts JupyterLab on notebooks/ (headless here)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time
import urllib.request
from pathlib import Path

from tests.browser.lab import free_port

ROOT = Path(__file__).resolve().parent.parent


def test_make_lab_serves_the_notebooks(tmp_path: Path) -> None:
    port, token = free_port(), "threadlab-test"
    args = f"--no-browser --port={port} --ip=127.0.0.1 --IdentityProvider.token={token} --ServerApp.port_retries=0"
    env = {**os.environ, "JUPYTER_RUNTIME_DIR": str(tmp_path / "runtime"), "JUPYTER_PLATFORM_DIRS": "1"}
    proc = subprocess.Popen(["make", "-s", "lab", f"ARGS={args}"], cwd=ROOT, env=env, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL, start_new_session=True)
    try:
        deadline = time.monotonic() + 90
        listing = None
        while time.monotonic() < deadline and proc.poll() is None:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/contents?token={token}", timeout=2) as response:
                    listing = json.load(response)
                    break
            except OSError:
                time.sleep(0.5)
        assert listing is not None, f"make lab did not serve on port {port} (exit code {proc.poll()})"
        names = {item["name"] for item in listing["content"]}
        assert {"01_explore_thread.ipynb", "02_compare_perspectives.ipynb", "03_token_usage_across_runs.ipynb"} <= names
    finally:
        os.killpg(proc.pid, signal.SIGTERM)
        proc.wait(timeout=30)
