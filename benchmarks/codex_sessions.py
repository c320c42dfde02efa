"""How fast does ``threadlab.load`` read a ``~/.codex/sessions`` tree? Against the naive way,
side by side in one run (issue #27 item 6: every hot converter fast; our own aim, at least 5x faster than
``pandas.read_json(lines=True)`` at 200 MB).

    python benchmarks/codex_sessions.py 200MB --repeat 3      # corpus under benchmarks/corpus/codex-200mb/
    python benchmarks/codex_sessions.py 100MB --against /work/main   # before/after, in the same rounds

The corpus is generated, deterministic by seed (``codex_corpus.py`` says what the rollouts hold).

Methods, each in a fresh subprocess (imports before the clock), in rotating order each round:

    threadlab    threadlab.load(folder / "sessions"): all five frames (default workers, no cache)
    one          threadlab.load with one worker (in the benchmark's process)
    careful      the same (one worker) with the Codex frames route off (``to_documents``): a Thread
                 of models per rollout, then its JSON object. Both with one worker: the route's
                 gain without the workers' start and the parent's share in the figure
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
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from benchmarks.codex_corpus import rollout_files, write_sessions  # noqa: E402
from benchmarks.installed import as_installed  # noqa: E402
from benchmarks.load import AFTER, _median, _spread, deep_memory, measure_child, size_label, timed  # noqa: E402
from benchmarks.rounds import (  # noqa: E402
    arguments,
    chosen_methods,
    each_size,
    made_corpus,
    parse_floor,
    print_table,
    read_json_all,
    run_rounds,
)

METHODS = ("threadlab", "one", "careful", "naive", "orjson")
AGAINST: list[Path] = []
TARGET_OVER_NAIVE = 5.0


def run_threadlab(folder: Path, workers: int | None = None) -> dict[str, Any]:
    import threadlab

    frames = threadlab.load(folder / "sessions", progress=False, workers=workers)
    return {"rows": len(frames.actions), "problems": len(frames.problems), AFTER: lambda: deep_memory(*frames.tables().values())}


def run_naive(folder: Path) -> dict[str, Any]:
    return read_json_all(rollout_files(folder))


def run_orjson(folder: Path) -> dict[str, Any]:
    return parse_floor(rollout_files(folder))


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
    print(json.dumps(timed(lambda: run(folder))), flush=True)


def measure(method: str, folder: Path) -> dict[str, Any]:
    if method == "against":
        return measure_child([sys.executable, __file__, "--child", "threadlab", str(folder), "--checkout", str(AGAINST[0])])
    return measure_child([sys.executable, __file__, "--child", method, str(folder)])


def bench(size: int, root: Path, methods: tuple[str, ...], repeat: int, seed: int) -> dict[str, Any]:
    label = "codex-" + size_label(size).lower()
    folder = root / label
    paths, corpus = made_corpus(label, folder, write_sessions, size, seed, "rollouts")
    rounds = run_rounds(methods, repeat, lambda method: measure(method, folder))
    print_table(label, corpus, methods, rounds)
    for other in methods:  # on a shared machine the clock says more about the other work than about us
        cpu = [x[other]["cpu_total"] / x["threadlab"]["cpu_total"] for x in rounds if "cpu_total" in x.get(other, {}) and "cpu_total" in x.get("threadlab", {})]
        if other != "threadlab" and cpu:
            print(f"  by CPU time, {other} / threadlab: {_median(cpu):.2f}" + (f" ({min(cpu):.2f}-{max(cpu):.2f})" if len(cpu) > 1 else ""))
    found = _spread(rounds, "naive", "threadlab")
    if found:
        print(f"\nour own aim (issue #27 item 6 sets no Codex figure): naive / threadlab at least {TARGET_OVER_NAIVE:.0f}x: " + ("met" if found[0] >= TARGET_OVER_NAIVE else "not met"))
    return {"label": label, "files": len(paths), "corpus_bytes": corpus, "rounds": rounds}


def main(argv: list[str] | None = None) -> int:
    parser = arguments(__doc__.split("\n\n")[0], METHODS, HERE / "corpus")
    parser.add_argument("--checkout", type=Path, help=argparse.SUPPRESS)  # the child's threadlab: that checkout's
    args = parser.parse_args(argv)
    if args.child:
        if args.checkout:
            sys.path.insert(0, str(args.checkout))
        child(args.child[0], Path(args.child[1]))
        return 0
    methods = chosen_methods(args, AGAINST)
    as_installed(HERE.parent, *AGAINST)
    print(f"# Codex sessions → frames — {os.cpu_count()} cores, Python {sys.version.split()[0]}")
    each_size(args, "codex-", write_sessions, bench, methods, HERE / "out")
    return 0


if __name__ == "__main__":
    sys.exit(main())
