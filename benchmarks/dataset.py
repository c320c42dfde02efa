"""The archive's speed (issue 27): reading a Parquet dataset back, and ``tl.sync`` of an unchanged
folder and of one with 1% of its sessions grown, each against a first load of the same folder.

    python benchmarks/dataset.py 100MB              # a Claude Code projects folder of 100 MB
    python benchmarks/dataset.py 1GB --repeat 3 --corpora claude,threadprotocol

Targets: read back ≥ 10× faster than a first load; sync of an unchanged folder ≥ 20×; with 1% of
the sessions grown ≥ 10×.

Corpora (generated, deterministic by seed): ``claude`` (``benchmarks/claude_corpus.py``: the
layout and shapes Claude Code writes, sessions with subagent folders) and ``threadprotocol``
(``benchmarks/corpus.py``: many short thread files). Each step runs in a fresh interpreter
(imports before the clock; ``benchmarks/load.py``'s ``measure_child``):

    load      threadlab.load(folder): a first load (default workers, no cache)
    write     frames.to_parquet(dataset) of that load (the clock covers the write only)
    read      threadlab.read_parquet(dataset)
    sync      threadlab.sync(folder, archive) of a folder the archive already holds
    grown     the same after 1% of the sessions grew by a few lines (appended copies of their
              last lines, with a later mtime; put back as they were after the round)
    archive   threadlab.read_parquet(archive) after the grown round: the archive's deletion lists
              (the grown sessions' old rows, twice) left out as it reads

The first sync into a fresh archive is timed too (``first-sync``: a load plus a write)."""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import sys
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from benchmarks.claude_corpus import write_projects  # noqa: E402
from benchmarks.corpus import parse_size, write_corpus  # noqa: E402
from benchmarks.load import _median, _spread, measure_child, size_label  # noqa: E402

STEPS = ("load", "read", "sync", "grown", "archive")
TARGETS = {"read": 10.0, "sync": 20.0, "grown": 10.0, "archive": 10.0}
GROWN_SHARE = 0.01


# --- the steps, each in a subprocess ------------------------------------------------------------


def child(step: str, folder: Path, dataset: Path) -> None:
    import pyarrow.parquet  # noqa: F401

    import threadlab
    import threadlab.frames.dataset_read
    import threadlab.loading.archive
    from threadlab.formats.common.registry import folder_planners
    from threadlab.loading.pool import warm_up

    folder_planners()
    warm_up()
    frames = threadlab.load(folder, progress=False) if step == "write" else None
    print("ready", flush=True)
    sys.stdin.readline()
    start = time.perf_counter()
    result: dict[str, Any] = {}
    if step == "load":
        result["rows"] = len(threadlab.load(folder, progress=False).actions)
    elif step == "write":
        assert frames is not None
        frames.to_parquet(dataset)
        result["rows"] = len(frames.actions)
    elif step == "read":
        result["rows"] = len(threadlab.read_parquet(dataset).actions)
    else:  # first-sync, sync, grown
        report = threadlab.sync(folder, dataset, progress=False)
        result.update(converted=len(report.converted), unchanged=len(report.unchanged), removed=len(report.removed))
    result["seconds"] = time.perf_counter() - start
    print(json.dumps(result), flush=True)


def measure(step: str, folder: Path, dataset: Path) -> dict[str, Any]:
    return measure_child([sys.executable, __file__, "--child", step, str(folder), str(dataset)])


# --- growing sessions, and putting them back ------------------------------------------------------


def grow(files: list[Path], seed: int) -> list[tuple[Path, int, int, int]]:
    """Append copies of the last lines of 1% of ``files`` (at least one): (path, size, atime,
    mtime) of each before, to put it back."""
    chosen = random.Random(seed).sample(files, max(1, round(len(files) * GROWN_SHARE)))
    before = []
    for path in chosen:
        info = path.stat()
        before.append((path, info.st_size, info.st_atime_ns, info.st_mtime_ns))
        tail = path.read_bytes().splitlines(keepends=True)[-3:]
        with path.open("ab") as fh:
            fh.write(b"".join(line if line.endswith(b"\n") else line + b"\n" for line in tail))
    return before


def restore(before: list[tuple[Path, int, int, int]]) -> None:
    for path, size, atime, mtime in before:
        os.truncate(path, size)
        os.utime(path, ns=(atime, mtime))


# --- the driver -----------------------------------------------------------------------------------


def corpus(kind: str, size: int, root: Path, seed: int) -> tuple[str, Path, list[Path]]:
    """(label, the folder to load, its session files)."""
    if kind == "claude":
        label = "claude-" + size_label(size).lower()
        write_projects(root / label, size, seed=seed)
        folder = root / label / "projects"
        files = [p for p in folder.rglob("*.jsonl") if "subagents" not in p.parts and not p.name.startswith("agent-")]
        return label, folder, sorted(files)
    label = size_label(size).lower()
    paths = write_corpus(root / label, size, seed=seed)
    return label, root / label, sorted(paths)


def bench(kind: str, size: int, root: Path, repeat: int, seed: int) -> dict[str, Any]:
    label, folder, files = corpus(kind, size, root, seed)
    total = sum(p.stat().st_size for p in folder.rglob("*") if p.is_file())
    for path in folder.rglob("*"):  # every step starts with the corpus in the page cache
        if path.is_file():
            path.read_bytes()
    work = root / "datasets" / label
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    print(f"\n## {label}: {len(files)} sessions, {total / 1e6:.0f} MB; {max(1, round(len(files) * GROWN_SHARE))} grown per round", flush=True)
    first_sync = measure("first-sync", folder, work / "archive")
    print(f"  first sync: {first_sync.get('seconds', float('nan')):.2f} s ({first_sync.get('converted')} converted)", flush=True)
    wrote = measure("write", folder, work / "dataset")
    print(f"  write dataset: {wrote.get('seconds', float('nan')):.2f} s", flush=True)
    rounds: list[dict[str, Any]] = []
    for turn in range(repeat):
        results = {}
        for step in STEPS:
            if step == "grown":
                before = grow(files, seed + turn)
                try:
                    results[step] = measure("sync", folder, work / "archive")
                finally:
                    restore(before)
                    measure("sync", folder, work / "archive")  # the archive follows the files back
            elif step == "archive":
                results[step] = measure("read", folder, work / "archive")
            else:
                results[step] = measure(step, folder, work / ("dataset" if step == "read" else "archive"))
            r = results[step]
            extra = f" ({r['converted']} converted, {r['unchanged']} unchanged)" if "converted" in r else ""
            print(f"  round {turn + 1}: {step:<6} " + (f"{r['seconds']:8.3f} s{extra}" if "seconds" in r else r.get("error", "?")), flush=True)
        rounds.append(results)
    size_on_disk = sum(p.stat().st_size for p in (work / "dataset").rglob("*") if p.is_file())
    print(f"\n| {label} (median of {repeat}) | seconds | first load / this | target | met |")
    print("|---|---:|---:|---:|---|")
    load_s = _median([r["load"]["seconds"] for r in rounds if "seconds" in r["load"]])
    print(f"| first load (tl.load) | {load_s:.2f} | 1 | | |")
    ratios: dict[str, float] = {}
    for step, name in (("read", "read the dataset back (tl.read_parquet)"), ("sync", "tl.sync, unchanged"), ("grown", f"tl.sync, {GROWN_SHARE:.0%} of sessions grown"),
                       ("archive", "read the archive back, with its deletion lists")):
        spread = _spread(rounds, "load", step)
        seconds = _median([r[step]["seconds"] for r in rounds if "seconds" in r.get(step, {})])
        if spread is None:
            print(f"| {name} | failed | | ≥ {TARGETS[step]:.0f}× | no |")
            continue
        ratios[step] = spread[0]
        print(f"| {name} | {seconds:.3f} | {spread[1]} | ≥ {TARGETS[step]:.0f}× | {'yes' if spread[0] >= TARGETS[step] else 'no'} |")
    print(f"\ndataset on disk: {size_on_disk / 1e6:.1f} MB ({size_on_disk / total:.0%} of the corpus)")
    document = json.loads((work / "archive" / "threadlab-schema.json").read_bytes())
    deleted = document.get("deleted") or {}
    print(f"archive: {len(document['parts'])} parts, {len(deleted)} with deletion lists ({sum(map(len, deleted.values()))} sources' old rows left out)")
    return {"label": label, "sessions": len(files), "corpus_bytes": total, "first_sync": first_sync, "write": wrote, "rounds": rounds, "ratios": ratios}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("sizes", nargs="*", type=parse_size, default=[parse_size("100MB")], help="corpus sizes, like 100MB or 1GB")
    parser.add_argument("--corpora", default="claude", help="claude, threadprotocol or both (comma-separated)")
    parser.add_argument("--root", type=Path, default=HERE / "corpus")
    parser.add_argument("--repeat", type=int, default=1, help="rounds (medians are reported)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--child", nargs=3, metavar=("STEP", "FOLDER", "DATASET"), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        child(args.child[0], Path(args.child[1]), Path(args.child[2]))
        return 0
    print(f"# dataset read back and tl.sync against a first load — {os.cpu_count()} cores, Python {sys.version.split()[0]}")
    for size in args.sizes:
        for kind in args.corpora.split(","):
            summary = bench(kind, size, args.root, max(1, args.repeat), args.seed)
            (HERE / "out").mkdir(exist_ok=True)
            (HERE / "out" / f"dataset-{summary['label']}.json").write_text(json.dumps(summary, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
