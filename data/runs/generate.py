"""Regenerate data/runs/: a corpus of 300 generated multi-agent runs for the token-usage notebook.

    .venv/bin/python data/runs/generate.py

The threads come from the benchmark corpus generator (``benchmarks/corpus.py``: a planner on
claude-sonnet-4-5, a researcher on gpt-4o and a coder on gemini-2.5-flash, tool calls with errors
and pending calls, usage with cache reads), scaled down to ~12 KB per run and written as canonical
ThreadProtocol JSON, one compact file per run. Input tokens are then recomputed the way a chat
API counts them: each model call re-sends the whole conversation so far (a fixed system prompt and
tool schemas, plus every earlier action's text), so usage grows over a thread as it does in real
runs; written (as an app that saves each run would). Deterministic:
the same command writes the same bytes.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import orjson

HERE = Path(__file__).parent
sys.path.insert(0, str(HERE.parent.parent / "benchmarks"))

from corpus import thread_doc  # noqa: E402

import threadlab as tl  # noqa: E402

RUNS, SEED = 300, 2026
SYSTEM_PROMPT_TOKENS = 1_400  # instructions + tool schemas sent with every call
CHARS_PER_TOKEN = 4


def resend_context(doc: dict[str, Any]) -> dict[str, Any]:
    """Input tokens of each call = system prompt + everything said before it."""
    context_chars = 0
    for action in doc["actions"]:
        usage = action.get("usage")
        if usage and "input_tokens" in usage:
            inp = SYSTEM_PROMPT_TOKENS + context_chars // CHARS_PER_TOKEN
            if "cache_read_tokens" in usage:  # the unchanged prefix of the last call is cached
                usage["cache_read_tokens"] = int(inp * 0.6)
            usage["input_tokens"] = inp
            usage["total_tokens"] = inp + usage["output_tokens"]
        context_chars += len(orjson.dumps({k: v for k, v in action.items() if k in ("content", "args", "data")}))
    return doc


def main() -> None:
    total = 0
    for index in range(RUNS):
        path = HERE / f"run-{index:03d}.json"
        path.write_bytes(tl.dumps(tl.read(resend_context(thread_doc(SEED, index, target_bytes=12_000)))) + b"\n")
        total += path.stat().st_size
    print(f"wrote {RUNS} runs, {total / 1e6:.1f} MB")


if __name__ == "__main__":
    main()
