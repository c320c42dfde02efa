"""Planted runs for the analysis tests: clean ThreadProtocol runs with one failure pattern put at
a known place in each, and the finding every scanner must report for it.

A clean run is a person's prompt, then turns of the main agent: a tool call with arguments no
other call has, its successful return about a second later, and an answer whose input tokens
grow gently (at most 1.5× the first); it ends on the agent's answer. No built-in scanner finds
anything in it. Each ``plant_<scanner>`` builds a run with clean turns before (and, where the
pattern allows, after) the planted part (a failing call is of a tool no clean turn calls, so a
clean turn never reads as its retry) and returns the rows expected of every scanner, worked
out from the sequences the builder handed out, not from threadlab. Deterministic per seed.

The expected rows are ``Expected`` (scanner, first_sequence, last_sequence, agent_name,
tool_name, severity) keyed by thread id."""

from __future__ import annotations

import random
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any, NamedTuple

import orjson

START = datetime(2026, 5, 4, 8, 0, tzinfo=UTC)
TOOLS = ("search_web", "read_file", "run_python", "query_db")
AGENTS = {"main": "Main", "helper": "Helper"}


class Expected(NamedTuple):
    scanner: str
    first_sequence: int
    last_sequence: int
    agent_name: str | None
    tool_name: str | None
    severity: str


class Run:
    """Builds one thread, handing out sequences and times."""

    def __init__(self, thread_id: str, seed: int) -> None:
        self.thread_id = thread_id
        self.rng = random.Random(seed)
        self.now = START + timedelta(hours=seed % 1000)
        self.actions: list[dict[str, Any]] = []
        self.calls = 0
        self.base_tokens = self.rng.randint(900, 1100)
        self.answers = 0

    def add(self, action_type: str, after_s: float = 0.5, **fields: Any) -> int:
        self.now += timedelta(seconds=after_s)
        stamp = self.now.strftime("%Y-%m-%dT%H:%M:%S.%fZ")
        self.actions.append({"action_type": action_type, "timestamp": stamp, "sequence": len(self.actions) + 1, **fields})
        return len(self.actions)

    def prompt(self, text: str = "Please look into the quarterly numbers.") -> int:
        return self.add("user_message", content=text)

    def answer(self, agent: str = "main", text: str = "Here is what I found.", *, input_tokens: int | None = None,
               finish_reason: str = "stop", output_tokens: int = 120) -> int:
        grown = int(self.base_tokens * (1 + 0.5 * min(self.answers, 10) / 10))  # at most 1.5× the first
        self.answers += 1
        usage = {"input_tokens": input_tokens if input_tokens is not None else grown, "output_tokens": output_tokens}
        return self.add("assistant_message", agent_id=agent, content=text, finish_reason=finish_reason, usage=usage,
                        metadata={"model_name": "gpt-4o", "provider_name": "openai"})

    def call(self, agent: str = "main", tool: str | None = None, args: dict[str, Any] | None = None, *, status: str = "success",
             result: Any = None, latency_s: float | None = None, answered: bool = True) -> tuple[int, int]:
        """A tool call and (unless not ``answered``) its return; (call, return) sequences (-1: none)."""
        self.calls += 1
        call_id = f"{self.thread_id}-call-{self.calls}"
        tool = tool or TOOLS[self.calls % len(TOOLS)]
        args = args if args is not None else {"query": f"{self.thread_id} question {self.calls}"}
        c = self.add("tool_call", agent_id=agent, tool_name=tool, tool_call_id=call_id, args=args)
        if not answered:
            return c, -1
        latency = latency_s if latency_s is not None else self.rng.uniform(0.8, 1.2)
        content = result if result is not None else ({"rows": [self.calls], "count": 1} if status == "success" else f"{tool} failed: bad input")
        r = self.add("tool_return", after_s=latency, tool_call_id=call_id, tool_name=tool, status=status, content=content)
        return c, r

    def turns(self, n: int, agent: str = "main") -> None:
        for _ in range(n):
            self.call(agent)
            self.answer(agent)

    def doc(self) -> dict[str, Any]:
        created = START.strftime("%Y-%m-%dT%H:%M:%SZ")
        agents = {a: {"agent_id": a, "agent_identifier": f"{a}_v1", "agent_name": name, "created_at": created} for a, name in AGENTS.items()}
        return {"version": "1.0.0", "thread_id": self.thread_id, "created_at": created, "title": f"planted run {self.thread_id}",
                "agents": agents, "actions": self.actions}


def clean(run: Run) -> list[Expected]:
    run.prompt()
    run.turns(run.rng.randint(1, 4))
    return []


def _start(run: Run) -> None:
    run.prompt()
    run.turns(run.rng.randint(1, 3))


def _finish(run: Run, text: str = "Here is what I found.") -> None:
    """The agent answers, then a few clean turns."""
    run.answer(text=text)
    run.turns(run.rng.randint(0, 2))


def plant_repeated_call(run: Run) -> list[Expected]:
    _start(run)
    args = {"query": "the same question again", "limit": 5}
    first, _ = run.call(tool="search_web", args=args)
    run.call(tool="read_file")  # another call between: the three are within 4 of the agent's calls
    run.call(tool="search_web", args=args)
    _, last = run.call(tool="search_web", args=args)
    _finish(run)
    return [Expected("repeated_call", first, last, "Main", "search_web", "warning")]


def plant_error_streak(run: Run) -> list[Expected]:
    _start(run)
    first, _ = run.call(tool="search_api", status="error")
    run.call(tool="fetch_page", status="validation_error", result=[{"loc": ["path"], "msg": "required"}])
    _, last = run.call(tool="exec_code", status="error", result="Traceback: ZeroDivisionError")
    _finish(run, "Those all failed.")
    return [Expected("error_streak", first, last, "Main", None, "error")]


def plant_retry_after_error(run: Run) -> list[Expected]:
    _start(run)
    args = {"query": "retried question"}
    first, _ = run.call(tool="search_api", args=args, status="error", result="search_api failed: timeout after 30 s")
    _, last = run.call(tool="search_api", args=args)
    _finish(run)
    return [Expected("retry_after_error", first, last, "Main", "search_api", "info")]


def plant_pending_call(run: Run) -> list[Expected]:
    _start(run)
    seq, _ = run.call(tool="query_db", answered=False)
    return [Expected("pending_call", seq, seq, "Main", "query_db", "warning")]


def plant_orphan_return(run: Run) -> list[Expected]:
    _start(run)
    seq = run.add("tool_return", tool_call_id=f"{run.thread_id}-ghost", tool_name="read_file", status="success", content="late")
    run.answer()
    return [Expected("orphan_return", seq, seq, None, "read_file", "warning")]


def plant_truncated(run: Run) -> list[Expected]:
    _start(run)
    seq = run.answer(text="The report begins with", finish_reason="length", output_tokens=4096)
    run.prompt("Go on.")
    run.answer()
    return [Expected("truncated", seq, seq, "Main", None, "warning")]


def plant_refusal(run: Run) -> list[Expected]:
    _start(run)
    seq = run.answer(text="I’m sorry, but I can’t help with that request.")
    run.prompt("Fine, summarise the table instead.")
    run.answer()
    return [Expected("refusal", seq, seq, "Main", None, "warning")]


def plant_context_growth(run: Run) -> list[Expected]:
    run.prompt()
    run.call()
    run.answer()  # the first model call: base_tokens
    run.turns(run.rng.randint(0, 2))
    run.call()
    seq = run.answer(input_tokens=run.base_tokens * 5)
    run.turns(run.rng.randint(0, 2))
    return [Expected("context_growth", seq, seq, None, None, "info")]


def plant_latency_outlier(run: Run) -> list[Expected]:
    _start(run)
    first, last = run.call(tool="read_file", latency_s=45.0)
    _finish(run)
    return [Expected("latency_outlier", first, last, "Main", "read_file", "info")]


def plant_interrupted(run: Run) -> list[Expected]:
    _start(run)
    run.call()
    seq = run.add("user_message", content="[Request interrupted by user]", metadata={"author": "harness", "harness": "interrupt"})
    run.prompt("Stop that; look at March only.")
    run.answer()
    return [Expected("interrupted", seq, seq, "Main", None, "warning")]


def plant_unanswered(run: Run) -> list[Expected]:
    _start(run)
    seq = run.prompt("And what about April?")
    last = run.add("system.log", data={"note": "session closed"})
    return [Expected("unanswered", seq, last, "Main", None, "warning")]


def plant_subagent_failure(run: Run) -> list[Expected]:
    _start(run)
    run.add("system.agent_join", data={"agent_id": "helper", "invited_by": "main"})
    first, _ = run.call("helper", tool="read_file")
    run.answer("helper", text="Reading the second file.")
    _, last = run.call("helper", tool="fetch_page", status="error", result="fetch_page failed: connection refused")
    run.answer()
    return [Expected("subagent_failure", first, last, "Helper", "fetch_page", "error")]


PLANTS: dict[str, Callable[[Run], list[Expected]]] = {
    name.removeprefix("plant_"): fn for name, fn in globals().items() if name.startswith("plant_") and callable(fn)
}


def write_corpus(folder: Path, *, seed: int = 7, per_pattern: int = 3, clean_runs: int = 12) -> dict[str, list[Expected]]:
    """Write clean runs and ``per_pattern`` runs of every plant (shuffled) as ThreadProtocol
    files in ``folder``; returns the expected rows of each thread id."""
    rng = random.Random(seed)
    jobs = [("clean", clean)] * clean_runs + [(name, fn) for name, fn in PLANTS.items() for _ in range(per_pattern)]
    rng.shuffle(jobs)
    expected: dict[str, list[Expected]] = {}
    folder.mkdir(parents=True, exist_ok=True)
    for index, (name, plant) in enumerate(jobs):
        run = Run(f"{name}-{index:03d}", seed * 1000 + index)
        expected[run.thread_id] = plant(run)
        (folder / f"{run.thread_id}.thread.json").write_bytes(orjson.dumps(run.doc(), option=orjson.OPT_INDENT_2))
    return expected
