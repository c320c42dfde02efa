"""Copy coding-agent sessions made by the real programs from the test fixtures into ``data/``.

The sessions are made by the fixtures' own generators (each runs the real program offline against
a scripted model server on 127.0.0.1; see the README beside each); this script only copies a
small choice of them here, byte for byte, so the notebooks have one coding agent besides Claude
Code without depending on ``tests/``. Run from the repository root: ``python data/coding_agents/copy.py``.
"""

from __future__ import annotations

import shutil
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
HERE = Path(__file__).resolve().parent
CHOSEN = {
    # Codex 0.169.0, `codex exec`: reasoning, a shell call, an apply_patch call, a final answer
    "codex/rollout-2026-11-23T08-39-41-01a2078f-9bfd-7420-88bb-0e14bcff99d3.jsonl":
        "tests/fixtures/codex/codex-0.169.0/rollout-2026-11-23T08-39-41-01a2078f-9bfd-7420-88bb-0e14bcff99d3.jsonl",
    # Codex 0.169.0, the interactive program: the person's `!ls`, then a prompt
    "codex/rollout-2026-11-27T22-27-44-01a21f1f-233d-74a1-acc5-1487c36a2497.jsonl":
        "tests/fixtures/codex/codex-0.169.0/rollout-2026-11-27T22-27-44-01a21f1f-233d-74a1-acc5-1487c36a2497.jsonl",
    # Gemini CLI 0.61.0: the whole ~/.gemini it left (a session, then the same session resumed)
    "gemini-home": "tests/fixtures/gemini_cli/gemini-0.61.0/gemini-home",
}


def main() -> None:
    for target, source in CHOSEN.items():
        src, dest = ROOT / source, HERE / target
        if dest.is_dir():
            shutil.rmtree(dest)
        dest.parent.mkdir(parents=True, exist_ok=True)
        if src.is_dir():
            shutil.copytree(src, dest)
        else:
            shutil.copyfile(src, dest)


if __name__ == "__main__":
    main()
