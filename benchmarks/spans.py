"""How fast does threadlab read span exports? Against the naive way, side by side in one run.

    python benchmarks/spans.py 20MB --repeat 3        # corpus under benchmarks/corpus/spans-20mb/
    python benchmarks/spans.py 200MB --before ../main # and another checkout's threadlab, side by side

The corpus: the ThreadProtocol benchmark corpus (``corpus.py``: multi-agent runs with tool
calls, failures, long texts) written as OTLP JSON by threadlab's own ``otel`` writer, one trace
per file: an ``invoke_agent`` span per agent run, a ``chat`` span per model response whose
``gen_ai.input.messages`` repeat the whole history (as real instrumentations do: the files grow
with the square of a conversation's length), an ``execute_tool`` span per answered call.

Methods, each in a fresh subprocess, in rotating order each round:

    threadlab    threadlab.load(folder): all five frames, each message once (default workers)
    threadlab-1  threadlab.load(folder, workers=1): the same on one core
    naive        json.load each file, walk resourceSpans → scopeSpans → spans, pandas.json_normalize
                 of the spans, concat: one flat table of spans whose attributes are still OTLP
                 key/value lists and whose messages are still JSON strings, repeated per span
    orjson       orjson.loads of every file, nothing else: the parse floor

Each load is timed after its imports (threadlab's with its folder planners and price data, as
``claude_projects.py`` does; pandas for naive), and with them on a second clock. The report gives
each method's median time and the ratios naive / threadlab and threadlab / orjson per round
(median and spread), on both clocks: on a shared machine absolute times mean little."""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from benchmarks.corpus import parse_size, write_corpus  # noqa: E402
from benchmarks.installed import as_installed  # noqa: E402

METHODS = ("threadlab", "threadlab-1", "naive", "orjson")

# each method: (what is imported before the clock, what is timed). The imports are timed on a
# clock of their own: the load's clock starts after them, as in the other benchmarks (a notebook
# imports once and loads many times), and the figures with imports are printed beside
_SETUP = {
    "threadlab": "import pandas, threadlab, threadlab.loading.api\nfrom threadlab.formats.common.registry import folder_planners\n"
                 "from threadlab.loading.pool import warm_up\nfolder_planners(); warm_up()",
    "naive": "import json, pathlib, pandas as pd",
    "orjson": "import orjson, pathlib",
}
_RUN = {
    "threadlab": "f = threadlab.load(FOLDER, progress=False); n = len(f.actions)",
    "threadlab-1": "f = threadlab.load(FOLDER, progress=False, workers=1); n = len(f.actions)",
    "naive": """
frames = []
for p in sorted(pathlib.Path(FOLDER).glob('*.json')):
    doc = json.load(open(p))
    spans = [s for rs in doc['resourceSpans'] for ss in rs['scopeSpans'] for s in ss['spans']]
    frames.append(pd.json_normalize(spans))
df = pd.concat(frames, ignore_index=True); n = len(df)
""",
    "orjson": "n = sum(len(orjson.loads(p.read_bytes())) for p in sorted(pathlib.Path(FOLDER).glob('*.json')))",
}


def make_corpus(size: int) -> Path:
    """ThreadProtocol corpus → one OTLP JSON file per thread (kept between runs)."""
    import orjson

    import threadlab
    from threadlab.formats.otel import to_otlp

    folder = HERE / "corpus" / f"spans-{size >> 20}mb"
    stamp = folder / ".spans"
    if stamp.exists():
        return folder
    source = write_corpus(HERE / "corpus" / f"threads-for-spans-{size >> 20}mb", size // 3)
    folder.mkdir(parents=True, exist_ok=True)
    written = 0
    for path in source:
        thread = threadlab.read(path)
        data = orjson.dumps(to_otlp(thread))
        (folder / f"{path.stem}.json").write_bytes(data)
        written += len(data)
        if written >= size:
            break
    stamp.write_text(str(written))
    return folder


def time_method(method: str, folder: Path, before: str | None = None) -> float:
    """Seconds of ``method``'s load in a fresh process, its imports done (``WITH_IMPORTS`` gets
    the time with them); ``before-*`` runs the threadlab method of the checkout ``before``."""
    root = Path(before) if method.startswith("before") and before else HERE.parent
    kind = method.replace("before", "threadlab")
    setup, run = _SETUP[kind.removesuffix("-1")], _RUN[kind]
    code = (f"import resource, sys, time; sys.path.insert(0, {str(root)!r}); FOLDER = {str(folder)!r}; t0 = time.perf_counter()\n"
            f"{setup}\nt1 = time.perf_counter()\n{run}\n"
            "u = [resource.getrusage(w) for w in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN)]\n"
            "t2 = time.perf_counter(); print(t2 - t1, t2 - t0, sum(r.ru_utime + r.ru_stime for r in u))")
    out = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, text=True, cwd=root)
    seconds, whole, cpu = out.stdout.strip().splitlines()[-1].split()
    CPU.setdefault(method, []).append(float(cpu))
    WITH_IMPORTS.setdefault(method, []).append(float(whole))
    return float(seconds)


WITH_IMPORTS: dict[str, list[float]] = {}  # seconds of each run with its imports

CPU: dict[str, list[float]] = {}  # CPU seconds of each run (the process and its workers, imports included)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("size", type=parse_size, nargs="?", default=parse_size("20MB"))
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--methods", default=",".join(METHODS))
    parser.add_argument("--before", help="another checkout (e.g. main): its threadlab timed too (methods before, before-1)")
    args = parser.parse_args(argv)
    methods = [m for m in args.methods.split(",") if m] + (["before", "before-1"] if args.before else [])
    folder = make_corpus(args.size)
    as_installed(HERE.parent, *([Path(args.before)] if args.before else []))
    files = sorted(folder.glob("*.json"))
    total = sum(p.stat().st_size for p in files)
    print(f"corpus: {len(files)} OTLP JSON files, {total / 1e6:.1f} MB, {folder}")
    times: dict[str, list[float]] = {m: [] for m in methods}
    for r in range(args.repeat):
        order = methods[r % len(methods):] + methods[: r % len(methods)]
        for method in order:
            times[method].append(time_method(method, folder, args.before))
        print(f"round {r + 1}: " + ", ".join(f"{m} {times[m][-1]:.2f}s" for m in methods), flush=True)
    for method in methods:
        print(f"{method:12s} median {statistics.median(times[method]):.2f}s, with imports {statistics.median(WITH_IMPORTS[method]):.2f}s "
              f"(CPU {statistics.median(CPU[method]):.2f}s with imports)")
    for a, b in (("naive", "threadlab"), ("naive", "threadlab-1"), ("before", "threadlab"), ("before-1", "threadlab-1")):
        if a in CPU and b in CPU:  # (threadlab's CPU counts its workers' too)
            print(f"CPU seconds {a} / {b}: median {statistics.median([x / y for x, y in zip(CPU[a], CPU[b], strict=True)]):.2f}x "
                  "(on a shared machine, the fairer measure)")
    ratio: dict[tuple[str, str], float] = {}
    pairs = (("naive", "threadlab"), ("naive", "threadlab-1"), ("threadlab", "orjson"), ("threadlab-1", "orjson"),
             ("naive", "before"), ("naive", "before-1"), ("before", "threadlab"), ("before-1", "threadlab-1"))
    for label, clock in (("", times), ("with imports: ", WITH_IMPORTS)):
        for a, b in pairs:
            if a in clock and b in clock:
                ratios = [x / y for x, y in zip(clock[a], clock[b], strict=True)]
                ratio[label + a, b] = statistics.median(ratios)
                print(f"{label}{a} / {b}: median {ratio[label + a, b]:.2f}x (min {min(ratios):.2f}, max {max(ratios):.2f})")
    for label, note in (("", "the load, imports done, as the other benchmarks time it"),
                        ("with imports: ", "imports included: threadlab's take about half a second, which a small corpus cannot make up")):
        found = [ratio[label + "naive", b] for b in ("threadlab", "threadlab-1") if (label + "naive", b) in ratio]
        if found:
            best = max(found)
            print(f"TARGET span exports at least 3x faster than json + json_normalize: {best:.2f}x ({'met' if best >= 3 else 'not met'}; {note})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
