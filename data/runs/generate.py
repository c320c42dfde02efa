"""Regenerate data/runs/: a corpus of 300 generated multi-agent runs for the token-usage notebook.

    .venv/bin/python data/runs/generate.py

The threads come from the benchmark corpus generator (``benchmarks/corpus.py``: a planner on
claude-sonnet-4-5, a researcher on gpt-4o and a coder on gemini-2.5-flash, tool calls with errors
and pending calls, usage with cache reads), scaled down to ~12 KB per run and written as canonical
ThreadProtocol JSON, one compact file per run (as an app that saves each run would). Deterministic:
the same command writes the same bytes.
"""

from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).parent
sys.path.insert(0, str(HERE.parent.parent / "benchmarks"))

from corpus import thread_doc  # noqa: E402

import threadlab as tl  # noqa: E402

RUNS, SEED = 300, 2026


def main() -> None:
    total = 0
    for index in range(RUNS):
        path = HERE / f"run-{index:03d}.json"
        path.write_bytes(tl.dumps(tl.read(thread_doc(SEED, index, target_bytes=12_000))) + b"\n")
        total += path.stat().st_size
    print(f"wrote {RUNS} runs, {total / 1e6:.1f} MB")


if __name__ == "__main__":
    main()
