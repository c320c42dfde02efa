"""How fast does ``threadlab.load`` read a ``~/.claude/projects`` folder? Against the naive way,
side by side in one run (issue #27: 1 GB → frames under 20 s on 2 cores, at least 10x faster than
``pandas.read_json(lines=True)`` and 30x faster than Inspect Scout's own Claude Code import).

    python benchmarks/claude_projects.py 200MB --repeat 3   # corpus under benchmarks/corpus/claude-200mb/
    python benchmarks/claude_projects.py 1GB
    python benchmarks/claude_projects.py 100MB --against /work/main   # before/after, in the same rounds

The corpus is generated, deterministic by seed (each session a function of (seed, index)), in
the layout Claude Code 2.1 writes and with the shapes of the real transcripts in
``tests/fixtures/real/claude`` and ``tests/fixtures/claude/projects``: project folders of
session ``.jsonl`` files; per session queue operations, a prompt, attachments, assistant
messages written one content block a line (thinking with a signature, text, tool_use) with the
message's usage repeated on each, tool results with their ``toolUseResult`` (which repeats the
output, as the CLI does), ``uuid``/``parentUuid`` chains that fork at parallel tool calls,
``last-prompt``/``file-history-snapshot``/``system`` lines, a ``cost-state`` and a title. Some
sessions launch subagents (``<session>/subagents/agent-<id>.jsonl`` with a ``.meta.json``
sidecar; in older sessions ``agent-<id>.jsonl`` beside the session, without one); some older
ones open with ``summary`` lines. Session lengths are spread (log-normal: most sessions short,
a few thousands of lines long).

Methods, each in a fresh subprocess (imports before the clock), in rotating order each round:

    threadlab    threadlab.load(folder): all five frames (default workers, no cache)
    careful      the same with the Claude frames route off (``to_documents``): a Thread of
                 models per session, then its JSON object, as load read Claude Code before
    naive        pandas.read_json(path, lines=True) of every .jsonl, concatenated: one table
    normalize    json.loads of every line + pandas.json_normalize per file, concatenated
    orjson       orjson.loads of every line of every .jsonl, nothing else: the parse floor
    scout        Inspect Scout's Claude Code import (``inspect_scout.sources.claude_code``) of the
                 projects folder, every transcript read (``--scout-python``: the interpreter of an
                 environment where it is installed, e.g. ``python -m venv v && v/bin/pip install
                 inspect_scout orjson``; else this one, and the table says when it is not installed)
    against      threadlab.load of another checkout (``--against /path/to/checkout``: its own
                 benchmarks/claude_projects.py runs the child, so its threadlab is imported), in
                 the same rounds: the before of a before/after

Medians over rounds, and each ratio's median and range over rounds, are printed (timing
helpers from ``benchmarks/load.py``)."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from benchmarks.claude_corpus import jsonl_files, write_projects  # noqa: E402
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

METHODS = ("threadlab", "careful", "naive", "normalize", "orjson", "scout")
AGAINST: list[Path] = []  # the other checkout of ``--against``
SCOUT_PYTHON: list[str] = []  # the interpreter of ``--scout-python``
# issue #27's targets: threadlab at least this many times faster than each method, and under 20 s at 1 GB
TARGETS = {"naive": 10.0, "scout": 30.0}
TARGET_SECONDS_PER_GB = 20.0


# --- the methods, each in a subprocess ------------------------------------------------------------


def run_threadlab(folder: Path) -> dict[str, Any]:
    import threadlab

    frames = threadlab.load(folder / "projects", progress=False)
    return {"rows": len(frames.actions), "problems": len(frames.problems), AFTER: lambda: deep_memory(*frames.tables().values())}


def run_naive(folder: Path) -> dict[str, Any]:
    return read_json_all(jsonl_files(folder))


def run_normalize(folder: Path) -> dict[str, Any]:
    import pandas as pd

    frames = []
    for path in jsonl_files(folder):
        with path.open() as fh:
            frames.append(pd.json_normalize([json.loads(line) for line in fh if line.strip()]))
    table = pd.concat(frames, ignore_index=True)
    return {"rows": len(table), "frames_bytes": int(table.memory_usage(deep=False).sum())}


def run_orjson(folder: Path) -> dict[str, Any]:
    return parse_floor(jsonl_files(folder))


def run_scout(folder: Path) -> dict[str, Any]:
    import asyncio

    from inspect_scout.sources import claude_code  # type: ignore[import-not-found]

    async def read_all() -> dict[str, Any]:
        transcripts = messages = 0
        async for transcript in claude_code(path=folder / "projects"):
            transcripts += 1
            messages += len(transcript.messages)
        return {"rows": messages, "transcripts": transcripts}

    return asyncio.run(read_all())


def child(method: str, folder: Path) -> None:
    import pandas  # noqa: F401

    if method == "careful":
        import threadlab.formats.claude

        threadlab.formats.claude.to_documents = lambda source: None  # type: ignore[assignment]
    if method in ("threadlab", "careful"):
        from threadlab.formats.common.registry import folder_planners
        from threadlab.loading.pool import warm_up

        folder_planners()
        warm_up()
    if method == "scout":
        import inspect_scout.sources  # noqa: F401  (fails here, before "ready", when not installed)
    run = {"threadlab": run_threadlab, "careful": run_threadlab, "naive": run_naive, "normalize": run_normalize, "orjson": run_orjson,
           "scout": run_scout}[method]
    print("ready", flush=True)
    sys.stdin.readline()
    print(json.dumps(timed(lambda: run(folder))), flush=True)


def measure(method: str, folder: Path) -> dict[str, Any]:
    """One method in a fresh interpreter; its peak RSS and CPU (with its workers) taken from here
    (``against``: the other checkout's script, so its threadlab is the one imported)."""
    if method == "against":
        return measure_child([sys.executable, str(AGAINST[0] / "benchmarks" / "claude_projects.py"), "--child", "threadlab", str(folder)])
    python = SCOUT_PYTHON[0] if method == "scout" and SCOUT_PYTHON else sys.executable
    return measure_child([python, __file__, "--child", method, str(folder)])


# --- the driver -----------------------------------------------------------------------------------


def bench(size: int, root: Path, methods: tuple[str, ...], repeat: int, seed: int) -> dict[str, Any]:
    label = "claude-" + size_label(size).lower()
    folder = root / label
    paths, corpus = made_corpus(label, folder, write_projects, size, seed, ".jsonl files")
    rounds = run_rounds(methods, repeat, lambda method: measure(method, folder))
    print_table(label, corpus, methods, rounds)
    floor = _spread(rounds, "threadlab", "orjson")
    print(f"  threadlab / orjson floor: {floor[1] if floor else 'n/a'}")
    targets(rounds, corpus)
    return {"label": label, "files": len(paths), "corpus_bytes": corpus, "rounds": rounds}


def targets(rounds: list[dict[str, Any]], corpus: int) -> None:
    """Issue #27's targets, each met or not, from the ratios of this run (per-round medians)."""
    print("\ntargets (issue #27):")
    times = [r["threadlab"]["seconds"] for r in rounds if "seconds" in r.get("threadlab", {})]
    if times:
        per_gb = _median(times) / (corpus / 1e9)
        print(f"  threadlab {per_gb:.1f} s per GB (target under {TARGET_SECONDS_PER_GB:.0f} s at 1 GB): "
              + ("met" if per_gb < TARGET_SECONDS_PER_GB else "not met") + ("" if corpus > 0.9e9 else "  (scaled from a smaller corpus)"))
    for other, wanted in TARGETS.items():
        found = _spread(rounds, other, "threadlab")
        if found is None:
            why = next((r[other].get("error") for r in rounds if "error" in r.get(other, {})), None)
            print(f"  {other} / threadlab: n/a ({why or 'not run'}); target {wanted:.0f}x")
            continue
        print(f"  {other} / threadlab: {found[1]}; target at least {wanted:.0f}x: " + ("met" if found[0] >= wanted else "not met"))
    # on a machine shared with other work the clock says more about the others than about us: CPU
    # time of every process (imports included) over the same rounds
    for other in ("against", *TARGETS):
        cpu = [r[other]["cpu_total"] / r["threadlab"]["cpu_total"] for r in rounds
               if "cpu_total" in r.get(other, {}) and "cpu_total" in r.get("threadlab", {})]
        if cpu:
            print(f"  by CPU time, {other} / threadlab: {_median(cpu):.2f}" + (f" ({min(cpu):.2f}-{max(cpu):.2f})" if len(cpu) > 1 else ""))


def main(argv: list[str] | None = None) -> int:
    parser = arguments(__doc__.split("\n\n")[0], METHODS, HERE / "corpus")
    parser.add_argument("--scout-python", type=Path, help="the interpreter of an environment where inspect_scout is installed (method 'scout'); "
                                                          "by default this one")
    args = parser.parse_args(argv)
    if args.child:
        child(args.child[0], Path(args.child[1]))
        return 0
    methods = chosen_methods(args, AGAINST)
    as_installed(HERE.parent, *AGAINST)
    if args.scout_python:
        SCOUT_PYTHON.append(str(args.scout_python))
    print(f"# Claude Code projects → frames — {os.cpu_count()} cores, Python {sys.version.split()[0]}")
    each_size(args, "claude-", write_projects, bench, methods, HERE / "out")
    return 0


if __name__ == "__main__":
    sys.exit(main())
