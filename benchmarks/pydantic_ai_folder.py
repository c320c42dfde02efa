"""How fast is ``threadlab.load`` on a folder of pydantic-ai histories? Timed against the naive
way and the parse floor on the same folder, in one run (interleaved rounds, medians).

    python benchmarks/pydantic_ai_folder.py                 # 40 MB, 5 rounds
    python benchmarks/pydantic_ai_folder.py --mb 200 --rounds 3

The folder (made once under benchmarks/corpus/, kept) holds one history a file, as an app saves
them: ``ModelMessagesTypeAdapter.dump_json`` of a multi-turn, tool-using run (system prompt and
instructions, user prompts, thinking, text, parallel tool calls with JSON-object or JSON-string
args, tool returns of text and of objects, a retry now and then, usage, model and provider
names, ids), built from pydantic-ai's own message classes.

Each method runs in its own subprocess, its libraries imported before the clock:

    threadlab          threadlab.load(folder): all five frames (default workers, no cache)
    threadlab-careful  the same with the fast route off (THREADLAB_PYDANTIC_AI_FAST=0): every
                       message validated by pydantic-ai, as before the fast route
    naive              json.load each file + pandas.json_normalize of its parts (message fields
                       as meta) + concat: one flat table
    orjson             orjson.loads of every file, nothing else: the parse floor (one process)

Target (issue #16): threadlab at least 8x faster than naive."""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
METHODS = ("threadlab", "threadlab-careful", "naive", "orjson")
WORDS = ("the forecast for lisbon shows light rain in the morning and clear skies after noon so the walking tour "
         "works best after lunch budget converted at the current rate leaves room for two dinners and a museum "
         "pass order status shipped tracking number carrier delivery window refund policy invoice total").split()
TOOLS = ("get_forecast", "convert_currency", "search_docs", "lookup_order", "run_sql", "read_file", "send_email")


# --- the folder -----------------------------------------------------------------------------------


def _text(rng: random.Random, low: int, high: int) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(rng.randint(low, high))).capitalize() + "."


def _history(rng: random.Random, index: int) -> list[Any]:
    """One run: its messages as pydantic-ai objects."""
    from pydantic_ai import messages as pai
    from pydantic_ai.usage import RequestUsage

    when = datetime(2026, 3, 1, 8, 0, tzinfo=UTC) + timedelta(minutes=index)
    run_id, conversation = f"run-{index:06d}", f"conv-{index:06d}"
    model = rng.choice(("claude-sonnet-4-5", "gpt-5", "gemini-2.5-flash"))

    def tick() -> datetime:
        nonlocal when
        when += timedelta(seconds=rng.uniform(0.2, 9.0))
        return when

    messages: list[Any] = [pai.ModelRequest(
        parts=[pai.SystemPromptPart(content=_text(rng, 20, 60), timestamp=tick()), pai.UserPromptPart(content=_text(rng, 8, 40), timestamp=when)],
        timestamp=when, instructions="You are a concise assistant. " + _text(rng, 5, 20), run_id=run_id, conversation_id=conversation)]
    for turn in range(rng.randint(3, 14)):
        for _step in range(rng.randint(1, 3)):
            calls = [pai.ToolCallPart(tool_name=rng.choice(TOOLS),
                                      args=({"query": _text(rng, 2, 8), "limit": rng.randint(1, 50)} if rng.random() < 0.7
                                            else json.dumps({"id": rng.randint(1, 10**6)})),
                                      tool_call_id=f"call_{index}_{turn}_{n}_{rng.randint(0, 10**9)}") for n in range(rng.randint(1, 3))]
            parts: list[Any] = []
            if rng.random() < 0.4:
                parts.append(pai.ThinkingPart(content=_text(rng, 10, 60), signature="c2ln" * 8, provider_name="anthropic"))
            if rng.random() < 0.5:
                parts.append(pai.TextPart(content=_text(rng, 5, 30)))
            usage = RequestUsage(input_tokens=rng.randint(200, 20000), output_tokens=rng.randint(20, 2000), cache_read_tokens=rng.randint(0, 5000))
            messages.append(pai.ModelResponse(parts=[*parts, *calls], usage=usage, model_name=model, timestamp=tick(), provider_name="anthropic",
                                              provider_response_id=f"resp_{rng.randint(0, 10**12)}", finish_reason="tool_call",
                                              run_id=run_id, conversation_id=conversation))
            returns: list[Any] = []
            for call in calls:
                if rng.random() < 0.05:
                    returns.append(pai.ToolReturnPart(tool_name=call.tool_name, content="Invalid arguments, try again",
                                                      tool_call_id=call.tool_call_id, timestamp=tick(), outcome="retried",
                                                      retry=pai.RetryInfo(cause="validation_error", attempt=1, max_retries=3)))
                    continue
                content = (_text(rng, 10, 120) if rng.random() < 0.5
                           else {"results": [{"title": _text(rng, 2, 6), "score": round(rng.random(), 3)} for _ in range(rng.randint(1, 5))]})
                returns.append(pai.ToolReturnPart(tool_name=call.tool_name, content=content, tool_call_id=call.tool_call_id, timestamp=tick()))
            messages.append(pai.ModelRequest(parts=returns, timestamp=when, run_id=run_id, conversation_id=conversation))
        usage = RequestUsage(input_tokens=rng.randint(200, 20000), output_tokens=rng.randint(20, 2000))
        messages.append(pai.ModelResponse(parts=[pai.TextPart(content=_text(rng, 20, 120))], usage=usage, model_name=model, timestamp=tick(),
                                          provider_name="anthropic", finish_reason="stop", run_id=run_id, conversation_id=conversation))
        if turn:
            messages.append(pai.ModelRequest(parts=[pai.UserPromptPart(content=_text(rng, 5, 30), timestamp=tick())], timestamp=when,
                                             run_id=run_id, conversation_id=conversation))
    return messages


def make_folder(megabytes: int, root: Path) -> Path:
    """The folder of about ``megabytes`` MB (made once, then reused)."""
    from pydantic_ai.messages import ModelMessagesTypeAdapter

    folder = root / f"pydantic_ai_{megabytes}MB"
    done = folder / ".complete"
    if done.exists():
        return folder
    folder.mkdir(parents=True, exist_ok=True)
    rng = random.Random(16)
    total, index = 0, 0
    while total < megabytes * 1_000_000:
        data = ModelMessagesTypeAdapter.dump_json(_history(rng, index), indent=2)
        (folder / f"history-{index:06d}.messages.json").write_bytes(data)
        total += len(data)
        index += 1
    done.write_text(f"{index} files, {total} bytes\n")
    return folder


# --- one method, in a subprocess ---------------------------------------------------------------------


def _files(folder: Path) -> list[Path]:
    return sorted(folder.glob("history-*.messages.json"))


def run_threadlab(folder: Path) -> dict[str, Any]:
    import threadlab

    frames = threadlab.load(folder, progress=False, cache=False)
    return {"rows": len(frames.actions), "problems": len(frames.problems)}


def run_naive(folder: Path) -> dict[str, Any]:
    import pandas as pd

    tables = []
    for path in _files(folder):
        with path.open() as fh:
            messages = json.load(fh)
        tables.append(pd.json_normalize(messages, record_path="parts", meta=["kind", "timestamp", "model_name", "run_id"],
                                        meta_prefix="message.", errors="ignore"))
    table = pd.concat(tables, ignore_index=True)
    return {"rows": len(table)}


def run_orjson(folder: Path) -> dict[str, Any]:
    import orjson

    return {"rows": sum(len(orjson.loads(path.read_bytes())) for path in _files(folder))}


def child(method: str, folder: Path) -> None:
    import orjson  # noqa: F401
    import pandas  # noqa: F401

    if method.startswith("threadlab"):
        from threadlab.formats.common.registry import folder_planners
        from threadlab.loading.pool import warm_up

        folder_planners()
        warm_up()
    run = {"threadlab": run_threadlab, "threadlab-careful": run_threadlab, "naive": run_naive, "orjson": run_orjson}[method]
    start = time.perf_counter()
    result = run(folder)
    result["seconds"] = time.perf_counter() - start
    print(json.dumps(result), flush=True)


def measure(method: str, folder: Path) -> dict[str, Any]:
    # every module's bytecode cached (as after any install), whatever the caller's shell says
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["THREADLAB_PYDANTIC_AI_FAST"] = "0" if method == "threadlab-careful" else "1"
    out = subprocess.run([sys.executable, __file__, "--child", method, str(folder)], cwd=ROOT, env=env,
                         capture_output=True, text=True)
    if out.returncode != 0:
        return {"error": (out.stderr.strip().splitlines() or ["failed"])[-1]}
    return json.loads(out.stdout.strip().splitlines()[-1])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--mb", type=int, default=40, help="size of the folder, MB")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--methods", default=",".join(METHODS))
    parser.add_argument("--root", type=Path, default=ROOT / "benchmarks" / "corpus")
    parser.add_argument("--child", nargs=2, metavar=("METHOD", "FOLDER"), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        child(args.child[0], Path(args.child[1]))
        return 0
    methods = [m for m in args.methods.split(",") if m]
    folder = make_folder(args.mb, args.root)
    files = _files(folder)
    size = sum(p.stat().st_size for p in files)
    print(f"# pydantic-ai folder: {len(files)} histories, {size / 1e6:.0f} MB — {os.cpu_count()} cores, "
          f"load average {os.getloadavg()[0]:.1f}, {args.rounds} rounds")
    times: dict[str, list[float]] = {m: [] for m in methods}
    rows: dict[str, Any] = {}
    for turn in range(args.rounds):
        for method in methods[turn % len(methods):] + methods[: turn % len(methods)]:  # the order turns each round
            result = measure(method, folder)
            if "error" in result:
                print(f"{method}: {result['error']}")
                return 1
            times[method].append(result["seconds"])
            rows[method] = result.get("rows")
    print("\n| method | median s | min–max s | MB/s | rows | naive / method | method / orjson floor |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    naive = statistics.median(times["naive"]) if "naive" in times else None
    floor = statistics.median(times["orjson"]) if "orjson" in times else None
    for method, values in times.items():
        m = statistics.median(values)
        vs_naive = f"{naive / m:.1f}x" if naive else ""
        vs_floor = f"{m / floor:.1f}x" if floor else ""
        print(f"| {method} | {m:.2f} | {min(values):.2f}–{max(values):.2f} | {size / 1e6 / m:.0f} | {rows[method]} | {vs_naive} | {vs_floor} |")
    if "threadlab" in times and "threadlab-careful" in times:
        print(f"\nfast route / careful route: {statistics.median(times['threadlab']) / statistics.median(times['threadlab-careful']):.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
