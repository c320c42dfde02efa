"""One large Inspect AI ``.eval`` log into frames: threadlab against inspect_ai's own
``inspect_ai.analysis.samples_df`` / ``messages_df``, on the same file, side by side.

The log is made from a real one (``tests/fixtures/inspect_ai/tools_epochs.eval``, written by
inspect_ai with its mock model): its samples are copied with new ids and longer texts (random
words, so the zip does not shrink them away) until the file has the size asked for; header and
summaries are rewritten to match, so inspect_ai reads it as its own.

    .venv/bin/python benchmarks/inspect_eval.py 300MB            # make (once, cached) and time
    .venv/bin/python benchmarks/inspect_eval.py 1GB --skip-messages-df

Prints seconds per reader and the ratios (inspect_ai's time / threadlab's)."""

from __future__ import annotations

import argparse
import copy
import random
import sys
import tempfile
import time
import zipfile
from pathlib import Path
from typing import Any

import orjson

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

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


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("size", nargs="?", default="300MB")
    parser.add_argument("--dir", default=str(Path(tempfile.gettempdir()) / "threadlab-bench"))
    parser.add_argument("--skip-messages-df", action="store_true")
    args = parser.parse_args()
    folder = Path(args.dir)
    folder.mkdir(parents=True, exist_ok=True)
    log = folder / f"inspect_{args.size}.eval"
    if not log.exists():
        timed(f"make {args.size} log", lambda: make_log(log, _size(args.size)))
    print(f"log: {log} ({log.stat().st_size / 2**20:.0f} MiB)")

    from inspect_ai.analysis import messages_df, samples_df

    import threadlab

    t1, frames = timed("threadlab.load(log, workers=1)", lambda: threadlab.load(str(log), progress=False, workers=1))
    tl, frames = timed("threadlab.load(log)", lambda: threadlab.load(str(log), progress=False))
    n_threads, n_actions = len(frames.threads), len(frames.actions)
    ts, sdf = timed("inspect_ai.analysis.samples_df(log)", lambda: samples_df(str(log), quiet=True))
    print(f"threadlab: {n_threads} threads, {n_actions} actions; samples_df: {len(sdf)} rows")
    print(f"ratio samples_df / threadlab.load: {ts / tl:.1f}x")
    print(f"threadlab workers=1 / default workers: {t1 / tl:.2f}x (one file is one task: near 1.0 means one core)")
    if not args.skip_messages_df:
        tm, mdf = timed("inspect_ai.analysis.messages_df(log)", lambda: messages_df(str(log), quiet=True))
        print(f"messages_df: {len(mdf)} rows; ratio messages_df / threadlab.load: {tm / tl:.1f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
