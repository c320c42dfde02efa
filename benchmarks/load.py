"""How fast is ``threadlab.load``? Timed against the alternatives on the same corpus, in one run.

    python benchmarks/load.py 200MB 1GB          # corpora are made under benchmarks/corpus/
    python benchmarks/load.py 100MB --shapes long --repeat 3

Every size is measured on two corpus shapes (``benchmarks/corpus.py``): many short threads
(about 50 actions a file) and few long ones (about 1,000 actions a file); the same bytes, so
per-file costs weigh on the first and per-action costs on the second. A last table puts the
shapes side by side.

Each method runs in its own subprocess (a cold interpreter, the corpus already in the OS page
cache after a warm-up read) so its peak memory is its own: RSS of the process and all its
children (pool workers), sampled every 20 ms.

    threadlab   threadlab.load(folder): all five frames (default workers, no cache)
    naive       json.load each file + pandas.json_normalize(actions) + concat: one flat table
    orjson      orjson.loads of every file, nothing else: the parse floor (one process)
    orjson2     the same in two processes (a pool started before the clock, as threadlab's is)
    duckdb      DuckDB read_json + unnest(actions) to an Arrow table: one flat table
    cached      threadlab.load(folder, cache=...) again after a first load filled the cache
    against     threadlab.load(folder) of another checkout (``--against /path/to/checkout``: its
                own benchmarks/load.py runs the child, so its threadlab is imported), in the same
                rounds: this checkout's time over it is the speed-up, measured side by side

Targets (issue #16), on both shapes: at least 8x faster than naive; at most 3x the one-process
orjson floor; short threads at most 0.67x DuckDB's time, long threads no slower than DuckDB;
1 GB in under 15 s with peak RSS at most 1.2x the corpus; cached reload of 1 GB at least 10x
faster than the first load."""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from benchmarks.corpus import SHAPES, parse_size, write_corpus  # noqa: E402

METHODS = ("threadlab", "naive", "orjson", "orjson2", "duckdb", "cached")


# --- one method, in a subprocess ------------------------------------------------------------


class PeakRSS:
    """Peak resident memory of a process and all its descendants (pool workers, a forkserver
    and its workers), sampled from outside: a sampling thread inside the measured process would
    change what it measures (threadlab forks workers only when no other thread runs). RSS counts
    a page shared by forked workers once per process (the interpreter and its imports, about
    200 MB, two or three times); PSS (Linux) shares it out, so the PSS peak is what the machine
    really gave. ``base`` is the tree's RSS after the imports, before the clock: what is left of
    the peak is the load's own.

    The sampler must not take the cores it measures: RSS (``/proc/<pid>/statm``, microseconds)
    is read every 20 ms, the list of descendants (a scan of ``/proc``, about 1 ms) every
    ``PEAK`` seconds, and PSS (``smaps_rollup``: the kernel walks the page tables, about 5 ms a
    process of a few hundred MB) every ``SLOW`` seconds, or ``PEAK`` seconds while the RSS total
    is at a new peak (so the PSS peak is a sample near the RSS peak, not every peak's). Read
    every 20 ms, they took about 3 CPU-s of a 2-core machine during a 10 s two-worker load: a
    quarter of the second core, taken from the measured process and not from a one-process
    baseline, whose second core was free."""

    SLOW = 1.0
    PEAK = 0.25

    def __init__(self, pid: int) -> None:
        import psutil

        self.proc = psutil.Process(pid)
        self.tree: list[Any] = []
        self.listed = self.pss_read = -1e9  # (monotonic times of the last scan and PSS read)
        self.peak = 0
        self.peak_pss = 0
        self.base = 0
        self.sample()
        self.base, self.peak, self.peak_pss = self.peak, 0, 0
        self.listed = -1e9

    def sample(self) -> None:
        import psutil

        now = time.monotonic()
        if now - self.listed >= self.PEAK:
            try:
                self.tree = [self.proc, *self.proc.children(recursive=True)]
            except psutil.Error:
                return
            self.listed = now
        total = 0
        for proc in self.tree:
            try:
                total += proc.memory_info().rss
            except (psutil.Error, OSError):
                pass
        if now - self.pss_read >= (self.PEAK if total > self.peak else self.SLOW):
            self.pss_read = now
            pss = 0
            for proc in self.tree:
                try:
                    pss += getattr(proc.memory_full_info(), "pss", 0)
                except (psutil.Error, OSError):
                    pass
            self.peak_pss = max(self.peak_pss, pss)
        self.peak = max(self.peak, total)


AFTER = "_after"  # a result's key: a function giving the fields measured once the clock has stopped


def timed(run: Callable[[], dict[str, Any]]) -> dict[str, Any]:
    """``run()`` on the clock; the fields its result leaves for after the clock (``AFTER``: the
    frames' deep memory, which walks every string of a million rows and is no part of a load)
    are measured once it has stopped."""
    start = time.perf_counter()
    result = run()
    seconds = time.perf_counter() - start
    after = result.pop(AFTER, None)
    if after is not None:
        result.update(after())
    result["seconds"] = seconds
    return result


def deep_memory(*tables: Any) -> dict[str, Any]:
    """``frames_bytes``: the deep memory of the DataFrames ``tables``."""
    return {"frames_bytes": sum(int(df.memory_usage(deep=True).sum()) for df in tables)}


def _files(folder: Path) -> list[Path]:
    return sorted(folder.rglob("thread-*.json"))


def run_threadlab(folder: Path, cache: Path | None = None) -> dict[str, Any]:
    import threadlab

    frames = threadlab.load(folder, progress=False, cache=cache)
    return {"rows": len(frames.actions), "problems": len(frames.problems), AFTER: lambda: deep_memory(*frames.tables().values())}


def run_naive(folder: Path) -> dict[str, Any]:
    import pandas as pd

    frames = []
    for path in _files(folder):
        with path.open() as fh:
            doc = json.load(fh)
        frame = pd.json_normalize(doc["actions"])
        frame["thread_id"] = doc["thread_id"]
        frames.append(frame)
    table = pd.concat(frames, ignore_index=True)
    return {"rows": len(table), AFTER: lambda: deep_memory(table)}


def run_orjson(folder: Path) -> dict[str, Any]:
    import orjson

    n = 0
    for path in _files(folder):
        n += len(orjson.loads(path.read_bytes())["actions"])
    return {"rows": n}


def _count_actions(paths: list[Path]) -> int:
    import orjson

    return sum(len(orjson.loads(path.read_bytes())["actions"]) for path in paths)


_POOL: Any = None  # orjson2's two worker processes, started before the clock


def run_orjson2(folder: Path) -> dict[str, Any]:
    paths = _files(folder)
    chunks = [paths[i:i + 64] for i in range(0, len(paths), 64)]
    return {"rows": sum(_POOL.map(_count_actions, chunks))}


def run_duckdb(folder: Path) -> dict[str, Any]:
    import duckdb

    con = duckdb.connect()
    pattern = str(folder / "**" / "thread-*.json")
    query = f"select thread_id, unnest(actions, recursive := true) from read_json('{pattern}', maximum_object_size=67108864)"
    table = con.sql(query).to_arrow_table()
    return {"rows": table.num_rows, "frames_bytes": table.nbytes}


def _import_first(method: str) -> None:
    """Imports are not what is measured: each method's libraries are loaded before the clock."""
    import orjson  # noqa: F401
    import pandas  # noqa: F401

    if method in ("threadlab", "cached", "fill-cache"):
        from threadlab.formats.common.registry import folder_planners
        from threadlab.loading.pool import warm_up

        folder_planners()  # the formats a folder walk asks about
        warm_up()
    if method == "duckdb":
        import duckdb  # noqa: F401
    if method == "orjson2":
        import multiprocessing

        global _POOL
        _POOL = multiprocessing.get_context("fork").Pool(2)
        _POOL.map(_count_actions, [[], []])  # both workers up


def child(method: str, folder: Path, cache: Path) -> None:
    _import_first(method)
    runs = {
        "threadlab": lambda: run_threadlab(folder),
        "naive": lambda: run_naive(folder),
        "orjson": lambda: run_orjson(folder),
        "orjson2": lambda: run_orjson2(folder),
        "duckdb": lambda: run_duckdb(folder),
        "cached": lambda: run_threadlab(folder, cache),
        "fill-cache": lambda: run_threadlab(folder, cache),
    }
    print("ready", flush=True)  # the driver's baseline memory sample comes after the imports
    sys.stdin.readline()
    print(json.dumps(timed(runs[method])), flush=True)


# --- the driver ------------------------------------------------------------------------------


AGAINST: list[Path] = []  # the other checkout of ``--against``


def measure(method: str, folder: Path, cache: Path) -> dict[str, Any]:
    """Run one method in a child (this script, or the ``--against`` checkout's)."""
    script = str(AGAINST[0] / "benchmarks" / "load.py") if method == "against" else __file__
    return measure_child([sys.executable, script, "--child", "threadlab" if method == "against" else method, str(folder), "--cache", str(cache)])


def measure_child(argv: list[str]) -> dict[str, Any]:
    """Run a child that prints "ready", waits for a line, works and prints its JSON result; its
    peak memory (with all its descendants) is sampled here, and its CPU time (all of them, over
    the child's whole life) from the rusage of reaped children. Shared by the benchmarks."""
    proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert proc.stdin is not None and proc.stdout is not None and proc.stderr is not None
    if proc.stdout.readline().strip() != "ready":
        proc.wait()
        return {"error": (proc.stderr.read().strip().splitlines() or ["failed"])[-1]}
    rss = PeakRSS(proc.pid)
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    proc.stdin.write("go\n")
    proc.stdin.flush()
    lines: list[str] = []
    reader = threading.Thread(target=lambda: lines.extend(proc.stdout), daemon=True)  # type: ignore[arg-type]
    reader.start()
    while reader.is_alive():
        rss.sample()
        reader.join(0.02)
    err = proc.stderr.read()
    proc.wait()
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode != 0 or not lines:
        return {"error": (err.strip().splitlines() or ["failed"])[-1]}
    result = json.loads(lines[-1])
    result["peak_rss"] = rss.peak
    result["peak_pss"] = rss.peak_pss
    result["base_rss"] = rss.base
    # CPU of the child and all its workers over the child's whole life: its imports are in it
    # too (about a second, much the same for every method); on a machine shared with other
    # work, CPU time says more than the clock
    result["cpu_total"] = (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)
    return result


def _warm(folder: Path) -> int:
    """Read every file once so every method starts with the corpus in the page cache."""
    return sum(len(p.read_bytes()) for p in _files(folder))


def size_label(size: int, shape: str = "short") -> str:
    """``200MB``, ``1GB``; ``200MB-long`` for the long shape (also the corpus folder's name)."""
    label = f"{size / (1 << 20):.0f}MB" if size < 1 << 30 else f"{size / (1 << 30):.0f}GB"
    return label if shape == "short" else f"{label}-{shape}"


def bench(size: int, root: Path, methods: tuple[str, ...], repeat: int = 1, shape: str = "short") -> dict[str, Any]:
    """Every method ``repeat`` times, in rounds (the order turns each round, so no method
    always runs first or last); the report gives medians and each ratio's spread over rounds."""
    label = size_label(size, shape)
    folder = root / label.lower()
    made = time.perf_counter()
    paths = write_corpus(folder, size, shape=shape)
    corpus_bytes = _warm(folder)
    print(f"\n## corpus {label}: {len(paths)} files ({shape} threads), {corpus_bytes / 1e6:.0f} MB "
          f"({time.perf_counter() - made:.0f} s to make/check)", flush=True)
    cache = root / f".cache-{label.lower()}"
    rounds: list[dict[str, Any]] = []
    for turn in range(repeat):
        shutil.rmtree(cache, ignore_errors=True)
        order = methods[turn % len(methods):] + methods[: turn % len(methods)]
        results: dict[str, Any] = {}
        for method in order:
            if method == "cached":
                results["fill-cache"] = measure("fill-cache", folder, cache)
            results[method] = measure(method, folder, cache)
            r = results[method]
            print(f"  round {turn + 1}: {method:<10} " + (f"{r['seconds']:7.2f} s" if "seconds" in r else r.get("error", "?")), flush=True)
        rounds.append(results)
    shutil.rmtree(cache, ignore_errors=True)
    report(label, corpus_bytes, rounds)
    return {"label": label, "shape": shape, "files": len(paths), "corpus_bytes": corpus_bytes, "rounds": rounds}


def _median(values: list[float]) -> float:
    ordered = sorted(values)
    mid = len(ordered) // 2
    return ordered[mid] if len(ordered) % 2 else (ordered[mid - 1] + ordered[mid]) / 2


def _typical(rounds: list[dict[str, Any]], method: str) -> dict[str, Any]:
    """The run of ``method`` with the median time (its memory and CPU figures with it)."""
    runs = sorted((r[method] for r in rounds if "seconds" in r.get(method, {})), key=lambda r: r["seconds"])
    if not runs:
        return next((r[method] for r in rounds if method in r), {})
    return runs[(len(runs) - 1) // 2]


def _spread(rounds: list[dict[str, Any]], top: str, bottom: str) -> tuple[float, str] | None:
    """Median of the per-round ratios top/bottom, and their range when there are several."""
    ratios = [r[top]["seconds"] / r[bottom]["seconds"] for r in rounds if "seconds" in r.get(top, {}) and "seconds" in r.get(bottom, {})]
    if not ratios:
        return None
    text = f"{_median(ratios):.2f}" + (f" ({min(ratios):.2f}-{max(ratios):.2f} over {len(ratios)} rounds)" if len(ratios) > 1 else "")
    return _median(ratios), text


def report(label: str, corpus_bytes: int, rounds: list[dict[str, Any]]) -> None:
    mb = corpus_bytes / 1e6
    names = list(dict.fromkeys(name for r in rounds for name in r))
    results = {name: _typical(rounds, name) for name in names}
    note = f" (median of {len(rounds)} rounds)" if len(rounds) > 1 else ""
    print(f"\n| {label}{note} | seconds | CPU s (all processes, with imports) | MB/s | peak RSS MB | RSS / corpus | "
          "peak PSS MB | PSS / corpus | RSS after imports MB | (peak RSS - it) / corpus | rows | frames MB |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for method, r in results.items():
        if "seconds" not in r:
            print(f"| {method} | failed: {r.get('error', '?')} |")
            continue
        frames = f"{r['frames_bytes'] / 1e6:.0f}" if "frames_bytes" in r else ""
        pss, base = r.get("peak_pss", 0), r.get("base_rss", 0)
        print(f"| {method} | {r['seconds']:.2f} | {r['cpu_total']:.2f} | {mb / r['seconds']:.0f} | {r['peak_rss'] / 1e6:.0f} | "
              f"{r['peak_rss'] / corpus_bytes:.2f} | {pss / 1e6:.0f} | {pss / corpus_bytes:.2f} | {base / 1e6:.0f} | "
              f"{(r['peak_rss'] - base) / corpus_bytes:.2f} | {r['rows']:,} | {frames} |")

    def ratio(other: str) -> str:
        found = _spread(rounds, "threadlab", other)
        return found[1] if found else "n/a"

    print("\nratios (threadlab time / other time, per round):")
    print(f"  a/b naive        {ratio('naive')}")
    print(f"  a/c orjson floor {ratio('orjson')}")
    print(f"  a/c2 orjson, 2 processes {ratio('orjson2')}")
    print(f"  a/d duckdb       {ratio('duckdb')}")
    if "against" in results:
        print(f"  a/e the other checkout (--against) {ratio('against')}")
    a = results.get("threadlab", {})
    cpu = a.get("cpu_total")
    floor = results.get("orjson", {}).get("cpu_total")
    if cpu and floor:
        print(f"CPU seconds, all processes: threadlab {cpu:.2f} vs orjson floor {floor:.2f} ({cpu / floor:.2f}x)")
    naive = _spread(rounds, "naive", "threadlab")
    if naive:
        print(f"threadlab is {naive[1]} x faster than naive")
    cached = _spread(rounds, "fill-cache", "cached")
    if cached:
        plain = _spread(rounds, "threadlab", "cached")
        print(f"cached reload: {results['cached']['seconds']:.2f} s vs {results['fill-cache']['seconds']:.2f} s first load with cache writes: "
              f"{cached[1]} x faster" + (f"; vs a no-cache load {plain[1]} x" if plain else ""))
    frames_bytes = a.get("frames_bytes")
    if frames_bytes:
        print(f"frames memory (deep) {frames_bytes / 1e6:.0f} MB = {frames_bytes / corpus_bytes:.2f} x corpus bytes")


def side_by_side(summaries: list[dict[str, Any]]) -> None:
    """One size's shapes in one table: each method's median seconds, and threadlab's time over
    it (median of the per-round ratios)."""
    if len(summaries) < 2:
        return
    print("\n| method | " + " | ".join(f"{s['label']}: s | threadlab / it" for s in summaries) + " |")
    print("|---|" + "---:|---:|" * len(summaries))
    names = list(dict.fromkeys(name for s in summaries for r in s["rounds"] for name in r))
    for name in names:
        cells = []
        for s in summaries:
            seconds = _typical(s["rounds"], name).get("seconds")
            found = _spread(s["rounds"], "threadlab", name) if name not in ("threadlab", "fill-cache") else None
            cells.append(f"{seconds:.2f}" if seconds is not None else "n/a")
            cells.append(f"{found[0]:.2f}" if found else "")
        print(f"| {name} | " + " | ".join(cells) + " |")
    print("  (" + "; ".join(f"{s['label']}: {s['files']} files, {s['corpus_bytes'] / 1e6:.0f} MB" for s in summaries) + ")")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="threadlab.load against naive pandas, the orjson floor and DuckDB")
    parser.add_argument("sizes", nargs="*", type=parse_size, default=[parse_size("200MB")], help="corpus sizes (10MB .. 1GB)")
    parser.add_argument("--root", type=Path, default=HERE / "corpus")
    parser.add_argument("--methods", default=",".join(METHODS))
    parser.add_argument("--shapes", default=",".join(SHAPES), help=f"corpus shapes, of {','.join(SHAPES)}")
    parser.add_argument("--repeat", type=int, default=1, help="rounds of every method (medians are reported)")
    parser.add_argument("--delete-over", type=parse_size, default=parse_size("500MB"), help="delete corpora at least this big afterwards")
    parser.add_argument("--against", type=Path, help="another checkout whose threadlab.load runs in the same rounds (method 'against')")
    parser.add_argument("--child", nargs=2, metavar=("METHOD", "FOLDER"), help=argparse.SUPPRESS)
    parser.add_argument("--cache", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        child(args.child[0], Path(args.child[1]), args.cache)
        return 0
    print(f"# threadlab.load benchmark — {os.cpu_count()} cores, Python {sys.version.split()[0]}")
    methods = tuple(args.methods.split(","))
    if args.against:
        AGAINST.append(args.against.resolve())
        methods = (*methods, "against") if "against" not in methods else methods
    out_dir = HERE / "out"
    out_dir.mkdir(exist_ok=True)
    shapes = [shape for shape in args.shapes.split(",") if shape]
    if unknown := set(shapes) - set(SHAPES):
        parser.error(f"unknown shapes {sorted(unknown)}: use {','.join(SHAPES)}")
    for size in args.sizes:
        summaries = []
        for shape in shapes:
            summary = bench(size, args.root, methods, max(1, args.repeat), shape)
            summaries.append(summary)
            (out_dir / f"load-{summary['label'].lower()}.json").write_text(json.dumps(summary, indent=2))
            if size >= args.delete_over:
                shutil.rmtree(args.root / summary["label"].lower(), ignore_errors=True)
        side_by_side(summaries)
    return 0


if __name__ == "__main__":
    sys.exit(main())
