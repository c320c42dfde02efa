"""How fast are ``read``, ``validate`` and ``tool_pairs`` on one very big thread?

    python benchmarks/big_thread.py                        # 1M actions, this checkout
    python benchmarks/big_thread.py --against /work/main   # and another checkout, side by side

The thread is one ThreadProtocol file on one line (as ``threadlab.write(..., indent=False)``
and most producers write it): a user turn, then agent turns of thinking, tool calls, their
returns and an answer with usage, until it holds ``--actions`` actions. Each checkout runs in
its own cold subprocess (its own ``PYTHONPATH``), one after the other on the same file, for
``--repeat`` rounds; the report gives each step's median and the ratio to the first checkout.
Times are CPU seconds of the measuring process (the machine is shared and noisy: its wall
clock mostly measures the neighbours); compare ratios within one run."""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import orjson

HERE = Path(__file__).resolve().parent
STEPS = ("read", "validate", "tool_pairs")
TOOLS = ("search_web", "read_file", "run_python", "query_db")


def _stamp(micros: int) -> str:
    seconds, micro = divmod(micros, 1_000_000)
    text = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(1_767_600_000 + seconds))
    return f"{text}.{micro:06d}Z" if micro else f"{text}Z"


def big_thread(n_actions: int, seed: int = 1) -> dict[str, Any]:
    """One thread of ``n_actions`` actions (short texts: the cost per action is what is measured)."""
    rng = random.Random(seed)
    clock = 0
    actions: list[dict[str, Any]] = []
    agents = ("planner", "researcher")

    def add(kind: str, **fields: Any) -> None:
        nonlocal clock
        clock += rng.randint(1_000, 2_000_000)
        actions.append({"action_type": kind, "timestamp": _stamp(clock), "sequence": len(actions) + 1, **fields})

    add("user_message", content="Compare the quarterly numbers and draft a summary.")
    calls = 0
    while len(actions) < n_actions:
        agent = agents[len(actions) % 2]
        meta = {"model_name": "gpt-4o", "provider_name": "openai"}
        if rng.random() < 0.3:
            add("thinking", agent_id=agent, content="Checking which table holds the figures.", provider_name="openai", metadata=meta)
        for _ in range(rng.choice((0, 1, 2))):
            calls += 1
            call_id, tool = f"call_{calls}", rng.choice(TOOLS)
            add("tool_call", agent_id=agent, tool_name=tool, tool_call_id=call_id, args={"query": "q3 revenue", "limit": rng.randint(1, 50)})
            add("tool_return", tool_call_id=call_id, tool_name=tool, status="success", content={"rows": [{"id": rng.randint(1, 999), "score": 0.5}]})
        usage = {"input_tokens": rng.randint(800, 40_000), "output_tokens": rng.randint(10, 900)}
        add("assistant_message", agent_id=agent, content="Revenue grew 4% over the quarter.", finish_reason="stop", usage=usage, metadata=meta)
    del actions[n_actions:]
    stamp = _stamp(0)
    registry = {a: {"agent_id": a, "agent_identifier": a, "agent_name": a.title(), "created_at": stamp} for a in agents}
    return {"version": "1.0.0", "thread_id": "big", "created_at": stamp, "title": "big", "agents": registry, "actions": actions}


def measure(path: str) -> dict[str, float]:
    """In the measured subprocess: each step timed once (read, then validate and tool_pairs of
    what was read), as CPU seconds of the process: on a shared machine the wall clock mostly
    measures the neighbours."""
    import threadlab as tl
    from threadlab.core.derive import tool_pairs
    try:
        from threadlab.core.validation import validate
    except ModuleNotFoundError:  # a checkout from before the module was renamed
        from threadlab.core.validate import validate  # type: ignore[no-redef]

    out: dict[str, float] = {}
    started = time.process_time()
    thread = tl.read(path, strict=False)
    out["read"] = time.process_time() - started
    started = time.process_time()
    problems = validate(thread)
    out["validate"] = time.process_time() - started
    started = time.process_time()
    pairs = tool_pairs(thread)
    out["tool_pairs"] = time.process_time() - started
    assert not problems and len(thread.actions) > 0 and pairs, "the benchmark thread must be valid"
    return out


def run_checkout(root: Path, path: Path) -> dict[str, float]:
    env = {**os.environ, "PYTHONPATH": str(root)}
    code = (
        f"import json, sys; sys.path.insert(1, {str(HERE)!r}); import big_thread, threadlab; "
        f"assert threadlab.__file__.startswith({str(root.resolve())!r}), threadlab.__file__; "
        f"print(json.dumps(big_thread.measure({str(path)!r})))"
    )
    # run in the checkout: the current folder comes first on sys.path, before PYTHONPATH
    done = subprocess.run([sys.executable, "-c", code], env=env, cwd=root, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise SystemExit(f"{root}: {done.stderr[-2000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--actions", type=int, default=1_000_000)
    parser.add_argument("--against", type=Path, action="append", default=[], help="another checkout to time side by side")
    parser.add_argument("--repeat", type=int, default=1)
    args = parser.parse_args(argv)
    checkouts = [HERE.parent, *args.against]
    with tempfile.TemporaryDirectory(prefix="big-thread-") as tmp:
        path = Path(tmp) / "big.thread.json"
        path.write_bytes(orjson.dumps(big_thread(args.actions)))
        print(f"{args.actions:,} actions, {path.stat().st_size / 1e6:.0f} MB, one line", flush=True)
        rounds: dict[Path, list[dict[str, float]]] = {c: [] for c in checkouts}
        for _ in range(args.repeat):
            for checkout in checkouts:
                rounds[checkout].append(run_checkout(checkout, path))
                print(f"  {checkout}: {rounds[checkout][-1]}", flush=True)
    first = checkouts[0]
    print(f"\n{'checkout (CPU s, median)':40s} " + " ".join(f"{s:>14s}" for s in STEPS))
    for checkout in checkouts:
        medians = [statistics.median(r[s] for r in rounds[checkout]) for s in STEPS]
        base = [statistics.median(r[s] for r in rounds[first]) for s in STEPS]
        cells = " ".join(f"{m:8.2f} s{'' if checkout == first else f' {m / b:4.2f}x'}".rjust(14) for m, b in zip(medians, base, strict=True))
        print(f"{str(checkout)[:40]:40s} {cells}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
