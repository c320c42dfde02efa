"""``threadlab summary``: the threads table of files, folders and globs, fitted to the terminal.

A row is a thread *of a file*: the ``source`` column tells two files holding the same thread
(a run saved after each turn, a copy) from one thread listed twice. On a terminal a load that
takes more than a second shows tqdm's bar on stderr (a 200 MB folder loads for over a minute;
a quick one prints no bar), and the table is cut to the terminal's width."""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import textwrap
from collections.abc import Sequence
from typing import Any, TextIO

from threadlab.cli.report import print_problems, refuse_missing
from threadlab.cli.table import Column, fit, render

PROGRESS_DELAY = 1.0  # seconds a load runs before its bar shows


def run(args: argparse.Namespace) -> int:
    from threadlab.loading import load
    from threadlab.loading.api import problems_of

    refused = refuse_missing("summary", args.paths)
    if refused is not None:
        return refused
    frames = load(args.paths, format=args.format, progress=PROGRESS_DELAY if sys.stderr.isatty() else False)
    problems = problems_of(frames.problems)
    if frames.threads.empty:
        print(f"threadlab summary: no thread found in {', '.join(args.paths)}", file=sys.stderr)
        print_problems(problems, sys.stderr, mark="  ")
        print_skipped(frames.skipped, listing=args.skipped, out=sys.stderr)
        return 1
    print_threads(frames.threads, sys.stdout, terminal_width())
    if problems:
        print(f"\n{len(problems)} problem(s):")
        print_problems(problems, sys.stdout, mark="  ")
    print_skipped(frames.skipped, listing=args.skipped, out=sys.stdout)
    return 0


def terminal_width() -> int | None:
    """The terminal's columns (``COLUMNS`` when set) when the table goes to a terminal; None
    (no limit) when it goes to a file or a pipe, which get the whole table."""
    if not sys.stdout.isatty():
        return None
    return shutil.get_terminal_size().columns


def print_threads(threads: Any, out: TextIO, width: int | None) -> None:
    """The threads frame's main columns, one row per thread, cut to ``width``."""
    folder, sources = _relative([str(s) for s in threads["source"]])
    n = len(threads)

    def counts(name: str) -> list[str]:
        return [_count(v) for v in threads[name]]

    # text columns are cut title first, the source last (it tells rows apart); columns are
    # left out from the highest rank: pending, errors, agents, format, cost, calls, tokens, title
    columns = [
        Column("source", sources, keep="end", floor=16, gives=4),
        Column("thread_id", [str(v) for v in threads["thread_id"]], keep="ends", floor=13, gives=3),
        Column("format", [str(v) for v in threads["format"]], floor=10, gives=2, rank=5),
        Column("title", [_one_line(v) for v in threads["title"]], floor=10, gives=1, rank=1),
        Column("agents", counts("n_agents"), numeric=True, rank=6),
        Column("actions", counts("n_actions"), numeric=True),
        Column("calls", counts("n_tool_calls"), numeric=True, rank=2),
        Column("errors", counts("n_tool_errors"), numeric=True, rank=7),
        Column("pending", counts("n_pending"), numeric=True, rank=8),
        Column("tokens", counts("total_tokens"), numeric=True, rank=3),
        Column("cost $", [_cost(v) for v in threads["cost_usd"]], numeric=True, rank=4),
        Column("problems", counts("n_problems"), numeric=True),
    ]
    kept, widths, dropped = fit(columns, width)
    if folder:
        print(f"source: under {folder}{os.sep}", file=out)
    for line in render(kept, widths):
        print(line, file=out)
    if dropped:
        note = (f"({n} thread{'s' if n != 1 else ''}; {', '.join(dropped)} left out to fit {width} columns: "
                "a wider terminal, COLUMNS=200, or threadlab.load(...).threads shows them)")
        print("\n".join(textwrap.wrap(note, width or len(note))), file=out)


def _relative(paths: Sequence[str]) -> tuple[str, list[str]]:
    """The folder every path is in (empty when none is shared) and each path relative to it."""
    folders = {os.path.dirname(p) for p in paths}
    try:
        common = os.path.commonpath(list(folders)) if folders and "" not in folders else ""
    except ValueError:  # absolute and relative paths mixed
        common = ""
    if not common:
        return "", list(paths)
    return common, [os.path.relpath(p, common) for p in paths]


def _na(value: Any) -> bool:
    import pandas as pd

    return value is None or bool(pd.isna(value))


def _count(value: Any) -> str:
    return "–" if _na(value) else str(int(value))


def _cost(value: Any) -> str:
    if _na(value):
        return "–"
    return "<0.0001" if 0 < value < 0.00005 else f"{value:.4f}"


def _one_line(value: Any) -> str:
    return "" if _na(value) else " ".join(str(value).split())


def print_skipped(skipped: Any, *, listing: bool, out: TextIO) -> None:
    """How many files the walk did not read, by reason (most frequent first); with
    ``--skipped``, each file and its reason."""
    from threadlab.frames.skipped import reason_counts

    if skipped.empty:
        return
    n = len(skipped)
    hint = "" if listing else "; --skipped lists them"
    print(f"\n{n} file{'s' if n != 1 else ''} skipped (not read{hint}):", file=out)
    for reason, count in reason_counts(skipped):
        print(f"  {count:>6}  {reason}", file=out)
    if listing:
        print("", file=out)
        for path, reason in zip(skipped["path"], skipped["reason"], strict=True):
            print(f"  {path}: {reason}", file=out)
