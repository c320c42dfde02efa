"""What the converter benchmarks (``claude_projects.py``, ``codex_sessions.py``) share: every
method in rounds, in an order that turns each round (no method always first or last), and the
table of medians with each ratio to threadlab over the rounds."""

from __future__ import annotations

import argparse
import json
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import orjson

from benchmarks.load import AFTER, _median, _spread, _typical, size_label


def run_rounds(methods: tuple[str, ...], repeat: int, measure: Callable[[str], dict[str, Any]]) -> list[dict[str, Any]]:
    rounds: list[dict[str, Any]] = []
    for turn in range(repeat):
        order = methods[turn % len(methods):] + methods[: turn % len(methods)]
        results = {}
        for method in order:
            results[method] = r = measure(method)
            print(f"  round {turn + 1}: {method:<10} " + (f"{r['seconds']:8.2f} s" if "seconds" in r else r.get("error", "?")), flush=True)
        rounds.append(results)
    return rounds


def print_table(label: str, corpus: int, methods: tuple[str, ...], rounds: list[dict[str, Any]]) -> None:
    """Medians (seconds, MB/s, CPU of every process, peak RSS, rows) and, per round, each
    method's time over threadlab's."""
    print(f"\n| {label} (median of {len(rounds)}) | seconds | range | MB/s | CPU s (all processes, with imports) | peak RSS MB | rows |")
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


def read_json_all(paths: list[Path]) -> dict[str, Any]:
    """The naive way: ``pandas.read_json(path, lines=True)`` of every file, concatenated."""
    import pandas as pd

    table = pd.concat([pd.read_json(path, lines=True) for path in paths], ignore_index=True)
    return {"rows": len(table), AFTER: lambda: {"frames_bytes": int(table.memory_usage(deep=False).sum())}}


def parse_floor(paths: list[Path]) -> dict[str, Any]:
    """orjson.loads of every line of every file, nothing else."""
    n = 0
    for path in paths:
        with path.open("rb") as fh:
            for line in fh:
                if line.strip():
                    orjson.loads(line)
                    n += 1
    return {"rows": n}


def each_size(args: argparse.Namespace, prefix: str, make: Callable[..., list[Path]], bench: Callable[..., dict[str, Any]],
              methods: tuple[str, ...], out: Path) -> None:
    """Every size asked for: the corpus made only (``--make-only``), or benchmarked, its rounds
    kept in ``out/<label>.json``."""
    for size in args.sizes:
        if args.make_only:
            paths = make(args.root / (prefix + size_label(size).lower()), size, seed=args.seed)
            print(f"{len(paths)} files, {sum(p.stat().st_size for p in paths) / 1e6:.0f} MB")
            continue
        summary = bench(size, args.root, methods, max(1, args.repeat), args.seed)
        out.mkdir(exist_ok=True)
        (out / f"{summary['label']}.json").write_text(json.dumps(summary, indent=2))


def made_corpus(label: str, folder: Path, make: Callable[..., list[Path]], size: int, seed: int, noun: str) -> tuple[list[Path], int]:
    """The corpus made (or found) and read once, so every method starts with it in the page
    cache; its files and size in bytes."""
    made = time.perf_counter()
    paths = make(folder, size, seed=seed)
    corpus = sum(p.stat().st_size for p in paths)
    for path in paths:
        path.read_bytes()
    print(f"\n## {label}: {len(paths)} {noun}, {corpus / 1e6:.0f} MB ({time.perf_counter() - made:.0f} s to make/check)", flush=True)
    return paths, corpus


def arguments(description: str, methods: tuple[str, ...], root: Path) -> argparse.ArgumentParser:
    """The options every converter benchmark takes (a script adds its own)."""
    from benchmarks.corpus import parse_size

    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("sizes", nargs="*", type=parse_size, default=[parse_size("200MB")], help="corpus sizes, like 200MB or 1GB")
    parser.add_argument("--root", type=Path, default=root)
    parser.add_argument("--methods", default=",".join(methods))
    parser.add_argument("--repeat", type=int, default=1, help="rounds of every method (medians are reported)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--make-only", action="store_true", help="write the corpus and stop")
    parser.add_argument("--against", type=Path, help="another checkout whose threadlab.load runs in the same rounds (method 'against')")
    parser.add_argument("--child", nargs=2, metavar=("METHOD", "FOLDER"), help=argparse.SUPPRESS)
    return parser


def chosen_methods(args: argparse.Namespace, against: list[Path]) -> tuple[str, ...]:
    """``--methods``, with ``against`` added when ``--against`` names a checkout (kept in ``against``)."""
    methods = tuple(args.methods.split(","))
    if args.against:
        against.append(args.against.resolve())
        methods = (*methods, "against") if "against" not in methods else methods
    return methods
