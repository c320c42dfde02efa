"""``make bench``: every benchmark script, one after another (add a line to SCRIPTS)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from benchmarks.installed import as_installed  # noqa: E402

SCOUT = ["--scout-python", os.environ["THREADLAB_SCOUT_PYTHON"]] if os.environ.get("THREADLAB_SCOUT_PYTHON") else []

# (script, arguments)
SCRIPTS: list[tuple[str, list[str]]] = [
    # three rounds: this machine is noisy, and the report gives each ratio's median and spread;
    # both corpus shapes (many short threads, few long ones), side by side
    ("load.py", ["200MB", "--repeat", "3"]),
    # naive pandas would take a quarter of an hour at 1 GB; the 1 GB targets are about threadlab
    # (both shapes too)
    ("load.py", ["1GB", "--methods", "threadlab,orjson,duckdb,cached", "--repeat", "2"]),
    # import threadlab, threadlab --help and a first tl.load("data/") in fresh processes, against python -c pass
    ("first_use.py", ["--rounds", "10"]),
    # the converters' formats (issue #16): a ~/.claude/projects folder and a folder of pydantic-ai
    # histories, each against the naive way (json / pandas) and the orjson parse floor; issue 27's
    # Claude targets at their sizes: 1 GB against read_json, 100 MB against Inspect Scout's import
    # (method "scout": an environment with inspect_scout, named by $THREADLAB_SCOUT_PYTHON)
    ("claude_projects.py", ["200MB", "--repeat", "3"]),
    ("claude_projects.py", ["1GB", "--repeat", "2", "--methods", "threadlab,naive"]),
    ("claude_projects.py", ["100MB", "--repeat", "2", "--methods", "threadlab,naive,orjson,scout", *SCOUT]),
    ("pydantic_ai_folder.py", ["--mb", "200", "--rounds", "3"]),
    # a ~/.codex/sessions tree of rollouts (issue 27 item 6), against read_json and the orjson floor, and the
    # frames route against the careful one (one worker each)
    ("codex_sessions.py", ["200MB", "--repeat", "3"]),
    # span exports (OTLP JSON, the history repeated on every model call) against json + json_normalize
    # (200 MB: at 20 MB the half second threadlab's imports take is most of its time)
    ("spans.py", ["200MB", "--repeat", "3"]),
    ("spans.py", ["1GB", "--repeat", "2"]),
    # one large Inspect AI .eval (issue 27's targets: 100 MB under 5 s on 2 cores, 1 GB under 60 s and 2 GB RSS),
    # against inspect_ai's own samples_df at 100 MB
    ("inspect_eval.py", ["100MB", "--repeat", "2", "--skip-messages-df"]),
    ("inspect_eval.py", ["1GB", "--skip-inspect-ai"]),
    # the archive (issue 27): a dataset read back, tl.sync unchanged and with 1% of sessions grown, against a first load
    ("dataset.py", ["1GB", "--corpora", "claude,threadprotocol"]),
    # after load: tl.search and tl.scan over the 1 GB corpora (both shapes) against str.contains and naive loops (issue 26)
    ("analysis.py", ["1GB", "--repeat", "3"]),
    # "run cell" to "figure drawn" for 1k/10k/100k/1M-action timelines, and the explorer's filters over 30,000 threads,
    # in JupyterLab + Debian Chromium
    ("widgets_browser.py", ["--sizes", "1000,10000,100000,1000000", "--explorer", "30000"]),
]


def main() -> int:
    failed = []
    as_installed(HERE.parent)
    for script, args in SCRIPTS:
        print(f"\n===== {script} {' '.join(args)} =====", flush=True)
        if subprocess.run([sys.executable, str(HERE / script), *args], check=False).returncode != 0:
            failed.append(script)
    if failed:
        print(f"failed: {', '.join(failed)}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
