"""How fast does ``threadlab.load`` read a ``~/.codex/sessions`` tree? Against the naive way,
side by side in one run (issue #27 item 6: every hot converter fast; at least 5x faster than
``pandas.read_json(lines=True)`` at 200 MB).

    python benchmarks/codex_sessions.py 200MB --repeat 3      # corpus under benchmarks/corpus/codex-200mb/
    python benchmarks/codex_sessions.py 100MB --against /work/main   # before/after, in the same rounds

The corpus is generated, deterministic by seed (``codex_corpus.py`` says what the rollouts hold).

Methods, each in a fresh subprocess (imports before the clock), in rotating order each round:

    threadlab    threadlab.load(folder / "sessions"): all five frames (default workers, no cache)
    one          threadlab.load with one worker (in the benchmark's process)
    careful      the same (one worker) with the Codex frames route off (``to_documents``): a Thread
                 of models per rollout, then its JSON object. One worker, as the workers of a
                 default load start from a forkserver that never sees the switch
    naive        pandas.read_json(path, lines=True) of every rollout, concatenated: one table
    orjson       orjson.loads of every line of every rollout, nothing else: the parse floor
    against      threadlab.load of another checkout (``--against /path/to/checkout``: the child
                 puts it first on ``sys.path``, so its threadlab is imported; it needs no copy of
                 this script, so a checkout from before it works too)

Medians over rounds, each ratio's median and range over rounds, and CPU seconds of every process
(the machine may be shared: CPU time says more than the clock then)."""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path
from typing import Any

import orjson

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from benchmarks.codex_corpus import rollout_files, write_sessions  # noqa: E402
from benchmarks.corpus import parse_size  # noqa: E402
from benchmarks.load import _median, _spread, _typical, measure_child, size_label  # noqa: E402

METHODS = ("threadlab", "one", "careful", "naive", "orjson")
AGAINST: list[Path] = []
TARGET_OVER_NAIVE = 5.0


def run_threadlab(folder: Path, workers: int | None = None) -> dict[str, Any]:
    import threadlab

    frames = threadlab.load(folder / "sessions", progress=False, workers=workers)
    memory = sum(int(df.memory_usage(deep=True).sum()) for df in frames.tables().values())
    return {"rows": len(frames.actions), "frames_bytes": memory, "problems": len(frames.problems)}


def run_naive(folder: Path) -> dict[str, Any]:
    import pandas as pd

    table = pd.concat([pd.read_json(path, lines=True) for path in rollout_files(folder)], ignore_index=True)
    return {"rows": len(table), "frames_bytes": int(table.memory_usage(deep=False).sum())}


def run_orjson(folder: Path) -> dict[str, Any]:
    n = 0
    for path in rollout_files(folder):
        with path.open("rb") as fh:
            for line in fh:
                if line.strip():
                    orjson.loads(line)
                    n += 1
    return {"rows": n}


def child(method: str, folder: Path) -> None:
    import pandas  # noqa: F401

    if method == "careful":
        import threadlab.formats.codex

        threadlab.formats.codex.to_documents = lambda source: None  # type: ignore[attr-defined]
    if method in ("threadlab", "one", "careful"):
        import threadlab

        print(f"threadlab from {Path(threadlab.__file__).parent.parent}", file=sys.stderr)
        from threadlab.formats.common.registry import folder_planners
        from threadlab.loading.pool import warm_up

        folder_planners()
        warm_up()
    def one(folder: Path) -> dict[str, Any]:
        return run_threadlab(folder, workers=1)

    run = {"threadlab": run_threadlab, "one": one, "careful": one, "naive": run_naive, "orjson": run_orjson}[method]
    print("ready", flush=True)
    sys.stdin.readline()
    start = time.perf_counter()
    result = run(folder)
    result["seconds"] = time.perf_counter() - start
    print(json.dumps(result), flush=True)


def measure(method: str, folder: Path) -> dict[str, Any]:
    if method == "against":
        return measure_child([sys.executable, __file__, "--child", "threadlab", str(folder), "--checkout", str(AGAINST[0])])
    return measure_child([sys.executable, __file__, "--child", method, str(folder)])


def bench(size: int, root: Path, methods: tuple[str, ...], repeat: int, seed: int) -> dict[str, Any]:
    label = "codex-" + size_label(size).lower()
    folder = root / label
    made = time.perf_counter()
    paths = write_sessions(folder, size, seed=seed)
    corpus = sum(p.stat().st_size for p in paths)
    for path in paths:  # every method starts with the corpus in the page cache
        path.read_bytes()
    print(f"\n## {label}: {len(paths)} rollouts, {corpus / 1e6:.0f} MB ({time.perf_counter() - made:.0f} s to make/check)", flush=True)
    rounds: list[dict[str, Any]] = []
    for turn in range(repeat):
        order = methods[turn % len(methods):] + methods[: turn % len(methods)]
        results = {}
        for method in order:
            results[method] = r = measure(method, folder)
            print(f"  round {turn + 1}: {method:<10} " + (f"{r['seconds']:8.2f} s" if "seconds" in r else r.get("error", "?")), flush=True)
        rounds.append(results)
    print(f"\n| {label} (median of {repeat}) | seconds | range | MB/s | CPU s (all processes, with imports) | peak RSS MB | rows |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for method in methods:
        r = _typical(rounds, method)
        times = [x[method]["seconds"] for x in rounds if "seconds" in x.get(method, {})]
        if not times:
            print(f"| {method} | failed: {r.get('error', '?')} |")
            continue
        cpus = [x[method]["cpu_total"] for x in rounds if "cpu_total" in x.get(method, {})]
        print(f"| {method} | {_median(times):.2f} | {min(times):.2f}-{max(times):.2f} | {corpus / 1e6 / _median(times):.0f} | "
              f"{_median(cpus):.2f} | {r['peak_rss'] / 1e6:.0f} | {r['rows']:,} |")
    print("\nper round, median (range):")
    for other in methods:
        if other != "threadlab":
            found = _spread(rounds, other, "threadlab")
            print(f"  {other} / threadlab: {found[1] if found else 'n/a'}")
        cpu = [x[other]["cpu_total"] / x["threadlab"]["cpu_total"] for x in rounds if "cpu_total" in x.get(other, {}) and "cpu_total" in x.get("threadlab", {})]
        if other != "threadlab" and cpu:
            print(f"  by CPU time, {other} / threadlab: {_median(cpu):.2f}")
    found = _spread(rounds, "naive", "threadlab")
    if found:
        print(f"\ntarget (issue #27 item 6): naive / threadlab at least {TARGET_OVER_NAIVE:.0f}x: " + ("met" if found[0] >= TARGET_OVER_NAIVE else "not met"))
    return {"label": label, "files": len(paths), "corpus_bytes": corpus, "rounds": rounds}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("sizes", nargs="*", type=parse_size, default=[parse_size("200MB")], help="corpus sizes, like 200MB or 1GB")
    parser.add_argument("--root", type=Path, default=HERE / "corpus")
    parser.add_argument("--methods", default=",".join(METHODS))
    parser.add_argument("--repeat", type=int, default=1, help="rounds of every method (medians are reported)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--make-only", action="store_true", help="write the corpus and stop")
    parser.add_argument("--against", type=Path, help="another checkout whose threadlab.load runs in the same rounds (method 'against')")
    parser.add_argument("--child", nargs=2, metavar=("METHOD", "FOLDER"), help=argparse.SUPPRESS)
    parser.add_argument("--checkout", type=Path, help=argparse.SUPPRESS)  # the child's threadlab: that checkout's
    args = parser.parse_args(argv)
    if args.child:
        if args.checkout:
            sys.path.insert(0, str(args.checkout))
        child(args.child[0], Path(args.child[1]))
        return 0
    methods = tuple(args.methods.split(","))
    if args.against:
        AGAINST.append(args.against.resolve())
        methods = (*methods, "against") if "against" not in methods else methods
    print(f"# Codex sessions → frames — {os.cpu_count()} cores, Python {sys.version.split()[0]}")
    for size in args.sizes:
        if args.make_only:
            paths = write_sessions(args.root / ("codex-" + size_label(size).lower()), size, seed=args.seed)
            print(f"{len(paths)} files, {sum(p.stat().st_size for p in paths) / 1e6:.0f} MB")
            continue
        summary = bench(size, args.root, methods, max(1, args.repeat), args.seed)
        (HERE / "out").mkdir(exist_ok=True)
        (HERE / "out" / f"{summary['label']}.json").write_text(json.dumps(summary, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
