"""A deterministic corpus of ThreadProtocol files for the loading benchmarks and tests.

Every file is a function of (seed, index) only, so the same command always writes the same
bytes and files can be made in any order. The mix is what multi-agent runs look like: a user
asks, three agents (a planner, a researcher, a coder on three providers) think, answer, call
tools (some fail, some fail validation, the last call of some threads is still pending), hand
over with ``system.*`` actions, and report usage with real model names so genai-prices finds a
cost. About one action in twelve carries multi-KB text (a pasted document, a long answer).

Two shapes: ``short`` (many short threads, about 50 actions each, sizes scattered: multi-agent
runs) and ``long`` (few long threads of about 1,000 actions each: long coding sessions, as
Claude Code users have). The same bytes make far fewer files in the long shape, so per-file
costs weigh less and per-action costs more.

    python benchmarks/corpus.py 200MB benchmarks/corpus/200mb
    python benchmarks/corpus.py 200MB benchmarks/corpus/200mb-long --shape long
"""

from __future__ import annotations

import argparse
import itertools
import multiprocessing
import os
import random
import re
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import orjson

AGENTS = (
    ("planner", "Planner", "claude-sonnet-4-5", "anthropic"),
    ("researcher", "Researcher", "gpt-4o", "openai"),
    ("coder", "Coder", "gemini-2.5-flash", "google"),
)
TOOLS = ("search_web", "read_file", "run_python", "query_db", "get_weather", "send_email")
WORDS = (
    "the agent plan search result table query file data model token cost latency error retry "
    "user thread tool call return success pending summary report analysis python frame column "
    "value index memory cluster partition cache parquet arrow json schema field sequence time "
    "order budget invoice customer region quarter growth forecast risk metric dashboard alert"
).split()
START = datetime(2026, 1, 5, 9, 0, tzinfo=UTC)
ACTIONS_PER_TURN = 5.5  # average actions one turn adds (for sizing)
SHAPES = ("short", "long")
LONG_ACTIONS = 1000  # actions in every thread of the long shape


def _stamp(moment: datetime) -> str:
    text = moment.strftime("%Y-%m-%dT%H:%M:%S")
    return text + (f".{moment.microsecond:06d}Z" if moment.microsecond else "Z")


def _words(rng: random.Random, n: int) -> str:
    return " ".join(rng.choices(WORDS, k=n)).capitalize() + "."


def _text(rng: random.Random) -> str:
    if rng.random() < 0.08:  # a long document or answer: several KB
        return "\n\n".join(_words(rng, rng.randint(60, 120)) for _ in range(rng.randint(4, 12)))
    return _words(rng, rng.randint(6, 60))


class _Thread:
    """Builds one thread's JSON object action by action (sequence and clock kept here)."""

    def __init__(self, rng: random.Random, index: int) -> None:
        self.rng = rng
        self.now = START + timedelta(minutes=17 * index, microseconds=rng.randint(0, 999_999))
        self.actions: list[dict[str, Any]] = []
        self.calls = 0
        self.index = index

    def add(self, action_type: str, **fields: Any) -> dict[str, Any]:
        self.now += timedelta(milliseconds=self.rng.randint(5, 4000), microseconds=self.rng.randint(0, 999))
        action = {"action_type": action_type, "timestamp": _stamp(self.now), "sequence": len(self.actions) + 1, **fields}
        self.actions.append(action)
        return action

    def usage(self, text: str) -> dict[str, int]:
        rng = self.rng
        inp = rng.randint(800, 40_000)
        out = max(1, len(text) // 4 + rng.randint(0, 200))
        usage = {"input_tokens": inp, "output_tokens": out, "total_tokens": inp + out}
        if rng.random() < 0.4:
            usage["cache_read_tokens"] = rng.randint(0, inp // 2)
        return usage

    def turn(self, agent: tuple[str, str, str, str], pending_ok: bool) -> None:
        rng = self.rng
        agent_id, _, model, provider = agent
        meta = {"model_name": model, "provider_name": provider}
        if rng.random() < 0.3:
            thought = _words(rng, rng.randint(20, 120))
            self.add("thinking", agent_id=agent_id, content=thought, provider_name=provider, metadata=meta)
        text = _text(rng)
        for _ in range(rng.choice((0, 1, 1, 2))):
            self.calls += 1
            call_id = f"call_{self.index}_{self.calls}"
            tool = rng.choice(TOOLS)
            args = {"query": _words(rng, rng.randint(3, 12)), "limit": rng.randint(1, 50), "options": {"lang": "en", "fresh": rng.random() < 0.5}}
            self.add("tool_call", agent_id=agent_id, tool_name=tool, tool_call_id=call_id, args=args, metadata=meta)
            if pending_ok and rng.random() < 0.5:
                return  # the run ended while this call was out: pending
            roll = rng.random()
            if roll < 0.08:
                self.add("tool_return", tool_call_id=call_id, tool_name=tool, status="error", content=f"{tool} failed: timeout after 30 s")
            elif roll < 0.12:
                self.add("tool_return", tool_call_id=call_id, tool_name=tool, status="validation_error",
                         content=[{"loc": ["limit"], "msg": "must be <= 20", "type": "less_than_equal"}])
            else:
                rows = [{"id": rng.randint(1, 10**6), "title": _words(rng, rng.randint(3, 9)), "score": round(rng.random(), 4)}
                        for _ in range(rng.randint(1, 6))]
                self.add("tool_return", tool_call_id=call_id, tool_name=tool, status="success", content={"rows": rows, "count": len(rows)})
        self.add("assistant_message", agent_id=agent_id, content=text, finish_reason="stop", usage=self.usage(text), metadata=meta)


def thread_doc(seed: int, index: int, *, target_bytes: int = 40_000, actions: int | None = None) -> dict[str, Any]:
    """One thread's JSON object; its size scatters around ``target_bytes``, or, with ``actions``,
    turns are added until it has at least that many actions (a turn adds a few at once)."""
    rng = random.Random(seed * 1_000_003 + index)
    thread = _Thread(rng, index)
    created = thread.now
    agents = {
        agent_id: {
            "agent_id": agent_id,
            "agent_identifier": f"{agent_id}_v{1 + index % 3}",
            "agent_name": name,
            "created_at": _stamp(created),
            "metadata": {"model_name": model},
        }
        for agent_id, name, model, _ in AGENTS
    }
    turns = max(1, int(rng.lognormvariate(0, 0.6) * target_bytes / 600 / ACTIONS_PER_TURN))
    if actions is not None:
        turns = sys.maxsize  # stopped below, once the thread is long enough
    thread.add("user_message", content=_text(rng))
    current = AGENTS[0]
    for turn in range(turns):
        if rng.random() < 0.25:
            nxt = rng.choice([a for a in AGENTS if a is not current])
            thread.add("system.handoff", data={"agent_id": nxt[0], "from_agent": current[0], "reason": _words(rng, 5)})
            current = nxt
        if rng.random() < 0.2:
            thread.add("user_message", content=_text(rng))
        last = turn == turns - 1 or (actions is not None and len(thread.actions) >= actions - ACTIONS_PER_TURN)
        thread.turn(current, pending_ok=last)
        if last:
            break
    return {
        "version": "1.0.0",
        "thread_id": f"bench-{seed}-{index:07d}",
        "created_at": _stamp(created),
        "updated_at": thread.actions[-1]["timestamp"],
        "title": _words(rng, 5),
        "metadata": {"project": f"project-{index % 7}", "run": index},
        "agents": agents,
        "actions": thread.actions,
    }


def write_corpus(folder: str | Path, total_bytes: int, *, seed: int = 0, files_per_dir: int = 1000, shape: str = "short") -> list[Path]:
    """Write thread files (indented, as ``threadlab.write`` does) of one of the ``SHAPES`` until
    ``total_bytes`` are on disk; returns the paths in order. An existing corpus of the same size
    and shape is kept."""
    if shape not in SHAPES:
        raise ValueError(f"shape {shape!r} is none of {SHAPES}")
    root = Path(folder)
    stamp = root / ".corpus"
    wanted = f"{seed} {total_bytes}" + ("" if shape == "short" else f" {shape}")
    if stamp.exists() and stamp.read_text() == wanted:
        return sorted(root.rglob("thread-*.json"))
    root.mkdir(parents=True, exist_ok=True)
    paths: list[Path] = []
    written = 0
    with multiprocessing.get_context("fork").Pool(os.cpu_count() or 1) as pool:
        # files are made in parallel but taken in index order, so the corpus does not depend
        # on the number of cores
        jobs = pool.imap(_write_one, ((root, seed, index, files_per_dir, shape) for index in itertools.count()), chunksize=8)
        for path, size in jobs:
            paths.append(path)
            written += size
            if written >= total_bytes:
                break
        pool.terminate()
    for extra in root.rglob("thread-*.json"):  # made ahead by the pool beyond the size asked for
        if int(extra.stem.split("-")[1]) >= len(paths):
            extra.unlink()
    stamp.write_text(wanted)
    return paths


def _write_one(job: tuple[Path, int, int, int, str]) -> tuple[Path, int]:
    root, seed, index, files_per_dir, shape = job
    folder = root / f"batch-{index // files_per_dir:04d}"
    folder.mkdir(exist_ok=True)
    path = folder / f"thread-{index:07d}.json"
    data = orjson.dumps(thread_doc(seed, index, actions=LONG_ACTIONS if shape == "long" else None), option=orjson.OPT_INDENT_2) + b"\n"
    path.write_bytes(data)
    return path, len(data)


def parse_size(text: str) -> int:
    match = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*([KMG]?B?)\s*", text.upper())
    if not match:
        raise argparse.ArgumentTypeError(f"size {text!r} is not like 10MB, 200MB or 1GB")
    scale = {"": 1, "B": 1, "K": 1 << 10, "KB": 1 << 10, "M": 1 << 20, "MB": 1 << 20, "G": 1 << 30, "GB": 1 << 30}[match.group(2)]
    return int(float(match.group(1)) * scale)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("size", type=parse_size, help="total bytes, e.g. 10MB, 200MB, 1GB")
    parser.add_argument("folder", type=Path)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--shape", choices=SHAPES, default="short", help="many short threads or few long ones")
    args = parser.parse_args(argv)
    paths = write_corpus(args.folder, args.size, seed=args.seed, shape=args.shape)
    total = sum(p.stat().st_size for p in paths)
    print(f"{len(paths)} files ({args.shape} threads), {total / 1e6:.1f} MB in {args.folder}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
