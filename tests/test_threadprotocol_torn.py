"""A live ThreadProtocol JSON Lines file is still a file (issue 24 §7): its last line torn (a
writer still at it, or a copy cut short) is a ``truncated`` problem naming the line, and the
complete lines load as they would alone, as in every other JSON Lines reader
(``json_lines.line_failure``). It was a ``json`` problem. The careful reader
(``threadprotocol.to_threads``, what ``read_all`` uses) and the loaders' fast path
(``loading/reader.py``) give the same frames and problems; a broken line that is not the last
stays ``json``."""

from __future__ import annotations

from pathlib import Path

import orjson
import pandas as pd
import pytest

import threadlab as tl

DATA = Path(__file__).resolve().parent.parent / "data" / "threadprotocol"
THREADS = [DATA / "research_team.thread.json", DATA / "research_team_branch.thread.json", DATA / "approval_pending.thread.json"]


def _lines() -> list[bytes]:
    return [orjson.dumps(orjson.loads(p.read_bytes())) for p in THREADS]


def _problems(path: Path) -> tuple[list[tuple[str, int | None, str]], list[tuple[str, int | None, str]], int]:
    """(read_all's problems, the load's problem rows, the load's actions), each (rule, line, message)."""
    threads = tl.read_all(path, strict=False)
    careful = [(p.rule, p.line, p.message) for t in threads for p in t.problems]
    frames = tl.load(path, workers=1, progress=False)
    rows = [(r.rule, None if pd.isna(r.line) else int(r.line), r.message) for r in frames.problems.itertuples()]
    assert len(frames.actions) == sum(len(t.actions) for t in threads)
    return careful, rows, len(frames.actions)


@pytest.mark.parametrize("suffix", [".jsonl", ".json"])  # (JSON Lines in a .json file: the loader's other route)
@pytest.mark.parametrize("newline", [False, True], ids=["live", "cut-with-newline"])
def test_a_torn_last_line_is_truncated_and_the_complete_lines_load(suffix: str, newline: bool, tmp_path: Path) -> None:
    lines = _lines()
    whole = tmp_path / f"whole{suffix}"
    whole.write_bytes(b"\n".join(lines[:2]) + b"\n")
    torn = tmp_path / f"torn{suffix}"
    torn.write_bytes(b"\n".join(lines[:2]) + b"\n" + lines[2][: len(lines[2]) // 2] + (b"\n" if newline else b""))
    careful, rows, actions = _problems(torn)
    assert careful == rows  # both routes say the same
    assert [(rule, line) for rule, line, _ in careful] == [("truncated", 3)]
    assert "the lines before it are read" in careful[0][2]
    assert actions == _problems(whole)[2] > 0
    assert [tl.dumps(t) for t in tl.read_all(torn, strict=False)[:2]] == [tl.dumps(t) for t in tl.read_all(whole)]


def test_a_broken_line_before_the_last_stays_json(tmp_path: Path) -> None:
    lines = _lines()
    path = tmp_path / "middle.jsonl"
    path.write_bytes(b"\n".join([lines[0], lines[1][:100], lines[2]]) + b"\n")
    careful, rows, _ = _problems(path)
    assert careful == rows
    assert [(rule, line) for rule, line, _ in careful] == [("json", 2)]
