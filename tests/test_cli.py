"""The `threadlab` command, run as a user runs it (a subprocess)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import orjson

import threadlab as tl

from .test_core import DATA

GOOD = DATA / "research_team.thread.json"
BAD = DATA / "invalid-one_of_each_rule.thread.json"


def run(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "threadlab", *args], capture_output=True, text=True, cwd=cwd, timeout=120)


def test_validate_exit_codes_and_report() -> None:
    ok = run("validate", str(GOOD))
    assert ok.returncode == 0, ok.stderr
    assert "valid" in ok.stdout and "0 problem(s)" in ok.stdout
    bad = run("validate", str(BAD), str(GOOD))
    assert bad.returncode == 1
    for rule in tl.core.VALIDATION_RULES:
        assert f"[{rule}]" in bad.stdout
    assert "✗ " + str(BAD) + " — thread 00000000-bad0-4bad-8bad-000000000001: 6 problems" in bad.stdout
    assert "\n    sequence 4: [agent-ref] " in bad.stdout and bad.stdout.count(str(BAD)) == 1  # the file named once


def test_summary_prints_the_threads_table() -> None:
    out = run("summary", str(DATA))
    assert out.returncode == 0, out.stderr
    assert "Market brief: heat pumps" in out.stdout and "threadprotocol" in out.stdout
    assert "research_team.thread.json" in out.stdout  # the source column
    assert "problem(s):" in out.stdout and "[time-order]" in out.stdout


def test_convert_writes_canonical_json(tmp_path: Path) -> None:
    target = tmp_path / "out.json"
    done = run("convert", str(GOOD), "-o", str(target))
    assert done.returncode == 0, done.stderr
    assert tl.dumps(tl.read(target)) == tl.dumps(tl.read(GOOD))
    assert orjson.loads(target.read_bytes())["thread_id"] == tl.read(GOOD).thread_id
    refused = run("convert", str(BAD), "-o", str(tmp_path / "bad.json"))
    assert refused.returncode == 1 and f"{BAD} was not converted" in refused.stderr and "--lenient" in refused.stderr
    assert run("convert", str(BAD), "--lenient", "-o", str(tmp_path / "bad.json")).returncode == 0
