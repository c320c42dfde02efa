"""One large Inspect AI ``.eval`` log into frames: threadlab against inspect_ai's own
``inspect_ai.analysis.samples_df`` / ``messages_df``, on the same file, side by side.

The log is made from a real one (``tests/fixtures/inspect_ai/tools_epochs.eval``, written by
inspect_ai with its mock model): its samples are copied with new ids and longer texts (random
words, so the zip does not shrink them away) until the file has the size asked for; header and
summaries are rewritten to match, so inspect_ai reads it as its own.

    .venv/bin/python benchmarks/inspect_eval.py 100MB --before ../main   # side by side with another checkout
    .venv/bin/python benchmarks/inspect_eval.py 1GB --skip-inspect-ai

Each load runs in a fresh process (import included) and reports its peak RSS and its largest
worker's. Prints seconds per reader, the ratios, whether the frames agree (before / after, one
worker / shared out), and the issue's target line: a 100 MB ``.eval`` in under 5 s, a 1 GB one
in under 60 s (scaled to the size asked) without exceeding 2 GB RSS."""

from __future__ import annotations

import argparse
import copy
import os
import random
import subprocess
import sys
import tempfile
import time
import zipfile
from pathlib import Path
from typing import Any

import orjson

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks.installed import as_installed  # noqa: E402
from threadlab.formats.inspect_ai.container import members  # noqa: E402

TEMPLATE = ROOT / "tests" / "fixtures" / "inspect_ai" / "tools_epochs.eval"
_VOCAB = random.Random(1)
WORDS = ["".join(_VOCAB.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(_VOCAB.randint(2, 10))) for _ in range(5000)]


def _size(text: str) -> int:
    units = {"KB": 1 << 10, "MB": 1 << 20, "GB": 1 << 30}
    for unit, factor in units.items():
        if text.upper().endswith(unit):
            return int(float(text[: -len(unit)]) * factor)
    return int(text)


def _pad(sample: dict[str, Any], rng: random.Random, words: int) -> None:
    """Longer user prompts and assistant texts, in the messages and the model events alike."""
    extra = " ".join(rng.choice(WORDS) for _ in range(words))
    for message in sample.get("messages") or []:
        if message.get("role") in ("user", "assistant") and isinstance(message.get("content"), str):
            message["content"] += " " + extra
    for event in sample.get("events") or []:
        if event.get("event") == "model":
            for choice in (event.get("output") or {}).get("choices") or []:
                if isinstance(choice.get("message", {}).get("content"), str):
                    choice["message"]["content"] += " " + extra


def make_log(path: Path, size: int, seed: int = 7, words: int = 400) -> None:
    parts = {m.name: orjson.loads(m.data) for m in members(TEMPLATE.read_bytes(), wanted=("",))[0] if m.data and m.name.endswith(".json")}
    templates = [v for k, v in parts.items() if k.startswith("samples/")]
    summary_of = {(s["id"], s["epoch"]): s for s in parts["summaries.json"]}
    rng = random.Random(seed)
    header = parts["header.json"]
    summaries: list[dict[str, Any]] = []
    ids: list[str] = []
    tmp = path.with_suffix(".partial")
    with zipfile.ZipFile(tmp, "w", compression=zipfile.ZIP_DEFLATED, compresslevel=1) as out:
        out.writestr("_journal/start.json", orjson.dumps({"version": header["version"], "eval": header["eval"], "plan": header["plan"]}))
        i = 0
        while tmp.stat().st_size < size:
            base = templates[i % len(templates)]
            sample = copy.deepcopy(base)
            sid = f"s{i:07d}"
            sample["id"], sample["epoch"], sample["uuid"] = sid, 1, f"u{i:021d}"
            _pad(sample, rng, words)
            out.writestr(f"samples/{sid}_epoch_1.json", orjson.dumps(sample))
            summary = dict(summary_of[(base["id"], base["epoch"])], id=sid, epoch=1, uuid=sample["uuid"])
            summaries.append(summary)
            ids.append(sid)
            i += 1
            if i % 2000 == 0:
                out.fp.flush()  # type: ignore[union-attr]
        header = dict(header, eval=dict(header["eval"], dataset=dict(header["eval"]["dataset"], samples=len(ids), sample_ids=ids)))
        header["results"] = dict(header.get("results") or {}, total_samples=len(ids), completed_samples=len(ids))
        out.writestr("summaries.json", orjson.dumps(summaries))
        out.writestr("header.json", orjson.dumps(header))
    tmp.rename(path)


def timed(label: str, fn: Any) -> tuple[float, Any]:
    start = time.perf_counter()
    value = fn()
    seconds = time.perf_counter() - start
    print(f"{label:<44} {seconds:8.2f} s", flush=True)
    return seconds, value


_LOAD = """
import pickle, resource, sys, time
sys.path.insert(0, {root!r})
t0 = time.perf_counter()
import threadlab
frames = threadlab.load({log!r}, progress=False, workers={workers})
seconds = time.perf_counter() - t0
own, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
peak, workers = own.ru_maxrss >> 10, kids.ru_maxrss >> 10
cpu = own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime
if {dump!r}:
    with open({dump!r}, "wb") as fh:
        pickle.dump({{n: getattr(frames, n) for n in ("actions", "tool_calls", "usage", "threads", "problems")}}, fh)
print(seconds, cpu, peak, workers, len(frames.threads), len(frames.actions))
"""


def load_in_process(root: Path, log: Path, workers: int | None, dump: str = "") -> tuple[float, float, int, int, int, int]:
    """``threadlab.load`` of ``root``'s checkout in a fresh process: seconds (import included),
    CPU seconds (the process and its workers), peak RSS of the process and of its largest
    worker (MiB), threads, actions."""
    code = _LOAD.format(root=str(root), log=str(log), workers=workers, dump=dump)
    out = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, text=True, cwd=root)
    seconds, cpu, peak, worker, threads, actions = out.stdout.split()[-6:]
    return float(seconds), float(cpu), int(peak), int(worker), int(threads), int(actions)


def same_frames(a: str, b: str) -> str:
    import pickle

    import pandas as pd

    with open(a, "rb") as fa, open(b, "rb") as fb:
        left, right = pickle.load(fa), pickle.load(fb)
    for name in left:
        pd.testing.assert_frame_equal(left[name], right[name], check_categorical=False, obj=name)
    return "equal (pandas.testing.assert_frame_equal, all five frames)"


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("size", nargs="?", default="300MB")
    parser.add_argument("--dir", default=str(Path(tempfile.gettempdir()) / "threadlab-bench"))
    parser.add_argument("--before", help="another checkout (e.g. main) timed the same way, side by side, its frames compared")
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--skip-inspect-ai", action="store_true", help="no inspect_ai.analysis comparison")
    parser.add_argument("--skip-messages-df", action="store_true")
    args = parser.parse_args()
    folder = Path(args.dir)
    folder.mkdir(parents=True, exist_ok=True)
    log = folder / f"inspect_{args.size}.eval"
    if not log.exists():
        timed(f"make {args.size} log", lambda: make_log(log, _size(args.size)))
    size_mb = log.stat().st_size / 2**20
    print(f"log: {log} ({size_mb:.0f} MiB)")
    as_installed(ROOT, *([Path(args.before)] if args.before else []))
    runs = [("threadlab", ROOT, None), ("threadlab workers=1", ROOT, 1)]
    if args.before:
        runs += [("before", Path(args.before), None), ("before workers=1", Path(args.before), 1)]
    times: dict[str, list[float]] = {label: [] for label, _, _ in runs}
    cpus: dict[str, list[float]] = {label: [] for label, _, _ in runs}  # on a shared machine the fairer measure
    peaks: dict[str, int] = {}  # the process's peak RSS + its largest worker's (an upper bound of what was held at once)
    dumps = {label: str(folder / f"frames-{i}.pickle") for i, (label, _, _) in enumerate(runs)}
    for r in range(args.repeat):
        order = runs[r % len(runs):] + runs[: r % len(runs)]
        for label, root, workers in order:
            seconds, cpu, peak, worker, threads, actions = load_in_process(root, log, workers, dumps[label] if r == 0 else "")
            times[label].append(seconds)
            cpus[label].append(cpu)
            peaks[label] = max(peaks.get(label, 0), peak + worker)
            print(f"{label:<24} {seconds:7.2f} s  CPU {cpu:7.2f} s  peak RSS {peak} MiB (largest worker {worker} MiB)  {threads} threads, {actions} actions", flush=True)
    best = {label: min(t) for label, t in times.items()}
    tl = best["threadlab"]
    if args.before:
        cpu = {label: min(c) for label, c in cpus.items()}
        print(f"before / after (default workers): {best['before'] / tl:.2f}x; workers=1: {best['before workers=1'] / best['threadlab workers=1']:.2f}x; "
              f"CPU seconds: {cpu['before'] / cpu['threadlab']:.2f}x, workers=1 {cpu['before workers=1'] / cpu['threadlab workers=1']:.2f}x")
        print("frames before vs after:", same_frames(dumps["before"], dumps["threadlab"]))
    print("frames workers=1 vs shared out:", same_frames(dumps["threadlab workers=1"], dumps["threadlab"]))
    target = 5 * size_mb / 100 if size_mb < 500 else 60 * size_mb / 1024
    print(f"TARGET {size_mb:.0f} MiB .eval in {tl:.2f} s on {os.cpu_count()} cores (target {target:.0f} s at this size: "
          f"{'met' if tl <= target else 'not met'}); peak RSS of the process + its largest worker {peaks['threadlab']} MiB "
          f"(workers=1: {peaks['threadlab workers=1']} MiB; limit 2048 MiB at 1 GB)")
    if args.skip_inspect_ai:
        return 0
    from inspect_ai.analysis import messages_df, samples_df

    ts, sdf = timed("inspect_ai.analysis.samples_df(log)", lambda: samples_df(str(log), quiet=True))
    print(f"samples_df: {len(sdf)} rows; ratio samples_df / threadlab.load: {ts / tl:.1f}x")
    if not args.skip_messages_df:
        tm, mdf = timed("inspect_ai.analysis.messages_df(log)", lambda: messages_df(str(log), quiet=True))
        print(f"messages_df: {len(mdf)} rows; ratio messages_df / threadlab.load: {tm / tl:.1f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
