"""After load: ``tl.search`` and ``tl.scan`` over a generated corpus, side by side with pandas.

Both corpus shapes of ``benchmarks/corpus.py`` (many short threads, few long ones) are loaded
once each (cached beside the corpus in ``benchmarks/corpus/``: a second run reads them back in a
second); then, on the loaded frames:

- search, a plain term and a regular expression: ``tl.search`` (one row per hit, with snippets),
  ``frames.actions.text.str.contains`` (pandas' own vectorised search over the Arrow strings: a
  mask, no snippets) and a naive loop (``for text in actions.text``: ``in`` / ``re.search``);
- scan: ``tl.scan`` with every built-in scanner, and three of them (repeated_call, error_streak,
  unanswered) against the same three written the naive pandas way (``groupby`` per thread, a
  Python loop over each thread's rows).

Each figure is the first call on the loaded frames (what a user waits for: caches cold) and the
best of ``--repeat`` further calls. The scanners' own caches are per table, so a repeat of
``tl.scan`` is timed on a fresh copy of the frames' tables.

    python benchmarks/analysis.py 1GB --repeat 3
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from corpus import SHAPES, parse_size, write_corpus  # noqa: E402

import threadlab as tl  # noqa: E402

PLAIN = "timeout"
REGEX = r"time\w+ after \d+ s"


def timed(fn: Callable[[], Any], repeat: int) -> tuple[float, float, float | None, Any]:
    """(first call's wall time, its CPU time, the best wall time of ``repeat`` more (None: no
    repeat), the first call's result), in seconds. The CPU time is this process's: the machine is
    shared, and wall time there depends on who else runs."""
    start, cpu = time.perf_counter(), time.process_time()
    result = fn()
    first, first_cpu = time.perf_counter() - start, time.process_time() - cpu
    best = None
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        best = min(best if best is not None else float("inf"), time.perf_counter() - start)
    return first, first_cpu, best, result


def naive_contains(frames: tl.Frames, term: str) -> int:
    term = term.lower()
    return sum(1 for text in frames.actions["text"] if isinstance(text, str) and term in text.lower())


def naive_regex(frames: tl.Frames, pattern: str) -> int:
    rx = re.compile(pattern, re.IGNORECASE)
    return sum(1 for text in frames.actions["text"] if isinstance(text, str) and rx.search(text))


def naive_scan(frames: tl.Frames) -> int:
    """repeated_call, error_streak and unanswered as a pandas user writes them: per thread, per agent, in Python."""
    found = 0
    calls = frames.tool_calls[frames.tool_calls["call_sequence"].notna()]
    for _, group in calls.groupby(["source", "thread_id", "agent_id"], observed=True, sort=False):
        group = group.sort_values("call_sequence")
        keys = list(zip(group["tool_name"].astype(str), group["args"].astype(str), strict=True))
        status = group["status"].astype(str).tolist()
        for i in range(len(keys) - 2):  # the same call three times within five of the agent's calls
            window = keys[i: i + 5]
            if window.count(keys[i]) >= 3 and (i == 0 or keys[i - 1] != keys[i]):
                found += 1
        streak = 0
        for s in status:  # three failed calls in a row
            streak = streak + 1 if s in ("error", "validation_error") else 0
            found += streak == 3
    actions = frames.actions
    for _, group in actions.groupby(["source", "thread_id"], observed=True, sort=False):
        turns = group[group["author"].isin(["human", "agent", "tool"])]
        if len(turns) and turns["author"].iloc[-1] == "human":
            found += 1
    return found


def fresh(frames: tl.Frames) -> tl.Frames:
    """The same frames as new table objects (so no cache of an earlier scan is reused)."""
    return tl.Frames(**{name: table.copy(deep=False) for name, table in frames.tables().items()})


def run_shape(folder: Path, size: int, shape: str, repeat: int, naive: bool) -> dict[str, Any]:
    paths = write_corpus(folder, size, shape=shape)
    start = time.perf_counter()
    frames = tl.load(folder, progress=False, cache=folder.with_name(folder.name + ".threadlab-cache"))  # beside the corpus, not in the cwd
    loaded = time.perf_counter() - start
    out: dict[str, Any] = {"shape": shape, "files": len(paths), "threads": len(frames.threads), "actions": len(frames.actions),
                           "load_s": round(loaded, 2)}
    text = frames.actions["text"]
    rows: dict[str, tuple[float, float, float | None, Any]] = {
        "tl.search plain": timed(lambda: len(tl.search(frames, PLAIN)), repeat),
        "str.contains plain": timed(lambda: int(text.str.contains(PLAIN, case=False, regex=False).sum()), repeat),
        "tl.search regex": timed(lambda: len(tl.search(frames, REGEX, regex=True)), repeat),
        "str.contains regex": timed(lambda: int(text.str.contains(REGEX, case=False, regex=True).sum()), repeat),
    }
    if naive:
        rows["naive loop plain"] = timed(lambda: naive_contains(frames, PLAIN), 0)
        rows["naive loop regex"] = timed(lambda: naive_regex(frames, REGEX), 0)
    first, first_cpu, _, findings = timed(lambda: tl.scan(frames), 0)
    again = [timed(lambda f=fresh(frames): len(tl.scan(f)), 0)[0] for _ in range(repeat)]
    rows["tl.scan all 12"] = (first, first_cpu, min(again) if again else None, len(findings))
    three = ["repeated_call", "error_streak", "unanswered"]
    rows["tl.scan 3"] = timed(lambda: len(tl.scan(fresh(frames), three)), repeat)
    if naive:
        rows["naive pandas 3"] = timed(lambda: naive_scan(frames), 0)
    out["findings"] = {str(k): int(v) for k, v in findings["scanner"].astype(str).value_counts().items()}
    out["timings"] = {name: {"first_s": round(f, 3), "first_cpu_s": round(c, 3), "best_s": None if b is None else round(b, 3), "result": int(r)}
                      for name, (f, c, b, r) in rows.items()}
    out["load_average"] = os.getloadavg()[0]
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("size", type=parse_size, nargs="?", default=parse_size("1GB"))
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--shapes", default=",".join(SHAPES))
    parser.add_argument("--no-naive", action="store_true", help="leave out the naive loops (minutes at 1 GB)")
    parser.add_argument("--out", type=Path, default=HERE / "out" / "analysis.json")
    args = parser.parse_args(argv)
    label = f"{args.size >> 20}mb" if args.size < 1 << 30 else f"{args.size >> 30}gb"
    results = []
    for shape in args.shapes.split(","):
        folder = HERE / "corpus" / (label if shape == "short" else f"{label}-{shape}")
        result = run_shape(folder, args.size, shape, args.repeat, not args.no_naive)
        results.append(result)
        print(f"\n{shape} threads: {result['threads']:,} threads, {result['actions']:,} actions (load {result['load_s']} s)")
        print(f"  {'method':24s} {'first s':>8s} {'its CPU s':>9s} {'best s':>8s}  result")
        for name, t in result["timings"].items():
            best = "" if t["best_s"] is None else f"{t['best_s']:.3f}"
            print(f"  {name:24s} {t['first_s']:8.3f} {t['first_cpu_s']:9.3f} {best:>8s}  {t['result']:,}")
        print(f"  (load average {result['load_average']:.1f} at the end)")
        print("  findings: " + ", ".join(f"{k} {v:,}" for k, v in result["findings"].items()))
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(results, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
