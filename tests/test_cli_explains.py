"""A CLI that explains itself (issue 28): what a newcomer met running ``threadlab`` on the bundled
data and on a folder of odd files, each checked as a user sees it (a subprocess; in-process where
a terminal is faked)."""

from __future__ import annotations

import argparse
import io
import os
import re
import shutil
import subprocess
import sys
import warnings
from pathlib import Path

import pytest

import threadlab as tl
from threadlab import cli
from threadlab._version import __version__
from threadlab.cli import summary
from threadlab.formats.common.registry import FORMATS

from .test_core import DATA

ROOT = Path(__file__).resolve().parent.parent
TEAM = DATA / "research_team.thread.json"  # three agents: Planner, Researcher, Writer
BAD = DATA / "invalid-one_of_each_rule.thread.json"


def run(*args: str, cwd: Path | None = None, columns: int | None = None) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in ("COLUMNS", "LINES")}
    if columns is not None:
        env["COLUMNS"] = str(columns)
    return subprocess.run([sys.executable, "-m", "threadlab", *args], capture_output=True, text=True, cwd=cwd, timeout=120, env=env)


@pytest.fixture
def odd_folder(tmp_path: Path) -> Path:
    """A folder of a file of no format, a text file named like JSON Lines, a rule-breaking
    thread and a good one."""
    folder = tmp_path / "odd"
    folder.mkdir()
    (folder / "nofmt.json").write_text('{"hello": 1}\n')
    (folder / "notes.jsonl").write_text("not json\n")
    shutil.copy(BAD, folder / BAD.name)
    shutil.copy(TEAM, folder / TEAM.name)
    return folder


def test_version() -> None:
    done = run("--version")
    assert done.returncode == 0 and done.stdout == f"threadlab {__version__}\n"


def _actions(parser: argparse.ArgumentParser) -> list[tuple[str, argparse.Action]]:
    found = []
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                found += [(f"{name} {a.dest}", a) for a in sub._actions]
        else:
            found.append((action.dest, action))
    return found


def test_every_argument_has_its_help() -> None:
    missing = [name for name, action in _actions(cli.build_parser()) if not (action.help or "").strip()]
    assert missing == []


def test_convert_help_lists_every_format_it_writes() -> None:
    done = run("convert", "--help")
    assert done.returncode == 0
    writers = [spec for spec in FORMATS if spec.writes]
    listed = done.stdout.split(f"--to writes any of these {len(writers)} formats", 1)[1]
    for spec in FORMATS:
        if not spec.writes:  # a reader only (opencode's store) is not offered
            assert not re.search(rf"^  {re.escape(spec.name)} ", listed, re.M), spec.name
            continue
        assert re.search(rf"^  {re.escape(spec.name)} +{re.escape(spec.suffix)} ", listed, re.M), spec.name
        for option in spec.write_options:
            assert f"--{option}" in listed.split(f"  {spec.name} ", 1)[1].splitlines()[0]


@pytest.mark.parametrize("command", ["summary", "validate", "convert"])
def test_a_missing_path_is_one_message_and_exit_code_everywhere(command: str, tmp_path: Path) -> None:
    nope = tmp_path / "nope.json"
    done = run(command, str(nope))
    assert (done.returncode, done.stdout, done.stderr) == (2, "", f"threadlab {command}: no such file or folder: {nope}\n")


def test_problems_name_the_file_once_and_the_formats_once(odd_folder: Path) -> None:
    """Each problem line named its file twice ("x.json: [format] x.json: no format ...") and
    listed all 17 formats; a folder's convert named the folder on every line, not the file."""
    names = ", ".join(s.name for s in FORMATS)
    validate = run("validate", str(odd_folder))
    refused = run("convert", str(odd_folder))
    assert validate.returncode == 1 and refused.returncode == 1
    for out in (validate.stdout, refused.stderr):
        assert out.count(names) == 1  # the formats, once
        for name in ("nofmt.json", "notes.jsonl", BAD.name):
            lines = [line for line in out.splitlines() if name in line]
            assert len(lines) == 1 and lines[0].count(name) == 1, lines  # each file named on one line, once
        assert f"{odd_folder / 'nofmt.json'}: [format] no format threadlab reads recognises this (a JSON object with keys hello)" in out
        assert f"{odd_folder}:" not in out  # the files are named, not the folder
        assert re.search(r"^    sequence 4: \[agent-ref\] assistant_message names agent_id 'ghost'", out, re.M)


def test_convert_of_a_rule_breaking_file_says_lenient_exists(tmp_path: Path) -> None:
    refused = run("convert", str(BAD), "-o", str(tmp_path / "out.json"))
    assert refused.returncode == 1 and "--lenient" in refused.stderr and not (tmp_path / "out.json").exists()
    unreadable = tmp_path / "notes.jsonl"
    unreadable.write_text("not json\n")
    nothing = run("convert", str(unreadable))
    assert nothing.returncode == 1 and "--lenient" not in nothing.stderr  # it would not help: no thread was read


@pytest.mark.parametrize("to", ["openai-chat", "anthropic-messages"])
def test_a_per_agent_writer_on_a_team_says_dash_dash_agent(to: str) -> None:
    done = run("convert", str(TEAM), "--to", to)
    assert done.returncode == 2 and done.stdout == ""
    assert "pass --agent with one of: Planner, Researcher, Writer" in done.stderr and "agent=" not in done.stderr
    assert run("convert", str(TEAM), "--to", to, "--agent", "Researcher").returncode == 0


def test_an_unknown_agent_names_the_agents_one_can_type() -> None:
    done = run("convert", str(TEAM), "--to", "openai-chat", "--agent", "Router")
    assert done.returncode == 2
    assert "has no agent 'Router'; its agents: 'Planner', 'Researcher', 'Writer'" in done.stderr


def test_writer_losses_are_lines_not_python_warnings(tmp_path: Path) -> None:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        tl.formats.get_format("pydantic-ai").from_thread(tl.read(TEAM))
    loss = next(w.message for w in caught if isinstance(w.message, tl.core.WriteLoss))
    done = run("convert", str(TEAM), "--to", "pydantic-ai", "-o", str(tmp_path / "planner.json"))
    assert done.returncode == 0
    lines = done.stderr.splitlines()
    assert lines == [f"the pydantic-ai writer could not keep, of thread {loss.thread_id}:", *(f"  - {lost}" for lost in loss.lost),
                     f"wrote {tmp_path / 'planner.json'}"]
    assert "WriteLoss" not in done.stderr and ".py:" not in done.stderr


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_summary_shows_a_progress_bar_on_a_terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    """83 s of silence on a 200 MB folder: on a terminal, a load that takes longer than
    ``PROGRESS_DELAY`` shows tqdm's bar on stderr (0 here, so this small load shows it)."""
    monkeypatch.setattr(summary, "PROGRESS_DELAY", 0)
    for tty, shown in ((_Terminal(), True), (io.StringIO(), False)):
        monkeypatch.setattr(sys, "stderr", tty)
        monkeypatch.setattr(sys, "stdout", io.StringIO())
        assert cli.main(["summary", str(DATA)]) == 0
        assert ("threadlab.load: 100%" in tty.getvalue() and "files" in tty.getvalue()) is shown, tty.getvalue()


def test_summary_has_a_source_column(tmp_path: Path) -> None:
    """Two files holding the same thread (a run saved after each turn, a copy) were two rows
    that looked like one thread listed twice."""
    for name in ("turn-1.json", "turn-2.json"):
        shutil.copy(TEAM, tmp_path / name)
    done = run("summary", str(tmp_path))
    assert done.returncode == 0
    header, *rows = [line for line in done.stdout.splitlines()[1:] if line.strip()]
    assert header.split()[:2] == ["source", "thread_id"]
    assert [row.split()[:2] for row in rows] == [["turn-1.json", tl.read(TEAM).thread_id], ["turn-2.json", tl.read(TEAM).thread_id]]
    assert done.stdout.splitlines()[0] == f"source: under {tmp_path}{os.sep}"


@pytest.mark.parametrize("columns", [60, 80, 120])
def test_summary_fits_the_terminal(columns: int, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", str(columns))
    monkeypatch.setattr(sys, "stdout", _Terminal())
    assert cli.main(["summary", str(ROOT / "data")]) == 0
    out = sys.stdout.getvalue()
    table = out.split("\n\n")[0].splitlines()  # the lines before the first blank: source folder, header, rows, a note
    assert len(table) > 300
    assert max(len(line) for line in table) <= columns
    assert "left out to fit" in " ".join(table[-3:])
    assert {"source", "thread_id", "actions", "problems"} <= set(table[1].split())
    assert any("…" in line for line in table)


def test_summary_to_a_pipe_is_the_whole_table() -> None:
    done = run("summary", str(ROOT / "data"), columns=60)
    header = done.stdout.splitlines()[1].split()
    assert header == ["source", "thread_id", "format", "title", "agents", "actions", "calls", "errors", "pending", "tokens", "cost", "$", "problems"]
    assert "claude_code/projects/-tmp-threadlab-claude-proj/024fedcc-b003-42c1-a123-c7cb6b78ed78.jsonl  024fedcc-b003-42c1-a123-c7cb6b78ed78 " in done.stdout
