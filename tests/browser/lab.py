"""A JupyterLab server and a Debian Chromium page for browser tests and the browser benchmark.

``running_lab`` starts ``jupyter lab`` on a free port with a token set here, a private runtime,
settings and workspace folder, and ``window.jupyterapp`` exposed so a test can run commands;
``chromium_page`` drives /usr/bin/chromium through Playwright (never a downloaded browser).
``run_notebook`` opens a notebook, runs every cell and waits until all have finished."""

from __future__ import annotations

import os
import secrets
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import nbformat

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking"]
VENV_BIN = Path(sys.executable).parent


@dataclass(frozen=True)
class Lab:
    url: str
    token: str
    root: Path

    def notebook_url(self, name: str) -> str:
        return f"{self.url}/lab/tree/{name}?token={self.token}&reset"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


LAB_SETTINGS = {
    # no "get notified about Jupyter news?" toast over the screenshots, no update check
    "apputils-extension/notification": '{"checkForUpdates": false, "fetchNews": "false"}',
    # every cell stays attached, so an output below the fold renders when it arrives
    "notebook-extension/tracker": '{"windowingMode": "none"}',
}


def write_lab_settings(settings: Path) -> None:
    for name, text in LAB_SETTINGS.items():
        target = settings / "@jupyterlab" / f"{name}.jupyterlab-settings"
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text)


@contextmanager
def running_lab(root: Path, *, timeout_s: float = 90) -> Iterator[Lab]:
    """JupyterLab serving ``root``; stopped (with its kernels) on exit."""
    port, token = free_port(), secrets.token_hex(16)
    private = root / ".lab"
    env = {**os.environ, "JUPYTER_RUNTIME_DIR": str(private / "runtime"), "JUPYTER_CONFIG_DIR": str(private / "config"),
           "JUPYTER_PLATFORM_DIRS": "1", "PYTHONUNBUFFERED": "1"}
    cmd = [
        str(VENV_BIN / "jupyter"), "lab", "--no-browser", f"--port={port}", "--ip=127.0.0.1",
        f"--IdentityProvider.token={token}", "--allow-root", "--LabApp.extension_manager=readonly", f"--notebook-dir={root}", "--LabApp.expose_app_in_browser=True",
        f"--LabApp.user_settings_dir={private / 'settings'}", f"--LabApp.workspaces_dir={private / 'workspaces'}",
        "--LabApp.news_url=", "--ServerApp.port_retries=0",
    ]
    write_lab_settings(private / "settings")
    log = (root / "jupyter.log").open("wb")
    proc = subprocess.Popen(cmd, env=env, stdout=log, stderr=subprocess.STDOUT, cwd=root)
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + timeout_s
        while True:
            if proc.poll() is not None:
                raise RuntimeError(f"jupyter lab exited with {proc.returncode}; see {root / 'jupyter.log'}")
            try:
                with urllib.request.urlopen(f"{url}/api/status?token={token}", timeout=2) as response:
                    if response.status == 200:
                        break
            except OSError:
                pass
            if time.monotonic() > deadline:
                raise TimeoutError(f"jupyter lab did not answer on {url} within {timeout_s} s; see {root / 'jupyter.log'}")
            time.sleep(0.3)
        yield Lab(url, token, root)
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=5)
        log.close()


@contextmanager
def chromium_page(*, width: int = 1280, height: int = 1100) -> Iterator[tuple[Any, list[str]]]:
    """A Playwright page in Debian's Chromium, and the list of dialogs it saw (each dismissed)."""
    from playwright.sync_api import sync_playwright

    dialogs: list[str] = []
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
        try:
            page = browser.new_page(viewport={"width": width, "height": height})
            page.on("dialog", lambda dialog: (dialogs.append(dialog.message), dialog.dismiss()))
            yield page, dialogs
        finally:
            browser.close()


def write_notebook(path: Path, cells: list[str]) -> None:
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(src) for src in cells]
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nbformat.write(nb, path)


def open_notebook(page: Any, lab: Lab, name: str, *, timeout_s: float = 60) -> None:
    """Open a notebook and wait for its kernel to be idle."""
    page.goto(lab.notebook_url(name), wait_until="domcontentloaded")
    page.wait_for_function("() => window.jupyterapp && document.querySelector('.jp-Notebook .jp-Cell')", timeout=timeout_s * 1000)
    page.wait_for_function(
        """() => { const w = window.jupyterapp.shell.currentWidget;
                   return w && w.sessionContext && w.sessionContext.session && w.sessionContext.session.kernel
                          && w.sessionContext.session.kernel.status === 'idle'; }""",
        timeout=timeout_s * 1000,
    )


def run_all(page: Any, *, timeout_s: float = 120) -> None:
    """Run every cell of the open notebook and wait until each has an execution count."""
    page.evaluate("() => window.jupyterapp.commands.execute('notebook:run-all-cells')")
    page.wait_for_function(
        """() => { const w = window.jupyterapp.shell.currentWidget;
                   const cells = w.content.widgets.filter(c => c.model.type === 'code');
                   return cells.every(c => c.model.executionCount !== null && !c.node.querySelector('.jp-InputArea-prompt').textContent.includes('*'))
                          && w.sessionContext.session.kernel.status === 'idle'; }""",
        timeout=timeout_s * 1000,
    )


def cell_output(page: Any, index: int, *, live: bool = True) -> Any:
    """The output area of the code cell at ``index`` (0-based); with ``live``, without the
    static copy a widget leaves beside itself for exported pages (hidden in JupyterLab)."""
    area = page.locator(".jp-Notebook .jp-CodeCell").nth(index).locator(".jp-Cell-outputArea")
    return area.locator(":scope > .jp-OutputArea-child:not(:has(.tl-static))").first if live else area
