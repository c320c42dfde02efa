"""Memory bombs cost their member, not the machine (issue 24 §7). Each read runs in a fresh
process whose peak RSS is compared with the same process reading a small valid file.

- An ``.eval`` of about 1 MB (deflate) or 35 KB (zstd) whose sample inflates to 1 GiB: the
  member is inflated a block at a time against the archive's budget (100 times its size, at
  least 64 MiB) and stops there, a ``size-limit`` problem naming the member and the limit; the
  other samples load. Before: 2.1 GB (deflate) and 3.2 GB (zstd) peak.
- The same bomb in a member no reader needs (``_journal/``): never inflated. Before: 2.1 GB.
- A 24 KB SQLite session whose messages table has a virtual column ``AS (zeroblob(300000000))``:
  only the named stored columns are selected, so it is never computed. Before: 900 MB."""

from __future__ import annotations

from pathlib import Path

import pytest

from threadlab.formats.inspect_ai.container import INFLATE_GRACE, INFLATE_RATIO

from .hostile import ROOT, eval_bomb, read_in_fresh_process, session_db

MB = 1 << 20


@pytest.fixture(scope="module")
def baseline() -> float:
    """Peak RSS of reading a small valid ``.eval`` (the interpreter, threadlab, the reader)."""
    return read_in_fresh_process(ROOT / "tests" / "fixtures" / "real" / "inspect_ai" / "log_streaming.eval")["peak_mb"]


@pytest.mark.parametrize("method", ["deflate", "zstd"])
def test_a_sample_that_inflates_to_a_gibibyte_stops_at_the_budget(method: str, baseline: float, tmp_path: Path) -> None:
    path = tmp_path / "bomb.eval"
    path.write_bytes(eval_bomb(method, "samples/9_epoch_1.json"))
    assert path.stat().st_size < MB * 1.05
    seen = read_in_fresh_process(path)
    budget = max(INFLATE_GRACE, INFLATE_RATIO * path.stat().st_size) / MB
    assert seen["peak_mb"] - baseline < 2.5 * budget + 40, seen["peak_mb"]  # at most 250 MB above the baseline, not 2-3 GB
    assert seen["threads"] == 1 and seen["actions"] > 0  # the sample before it loads
    [(rule, line, message)] = seen["problems"]
    assert (rule, line) == ("size-limit", 3)
    assert f"member 3 (samples/9_epoch_1.json) inflates beyond the {int(budget * MB):,} bytes" in message


@pytest.mark.parametrize("method", ["deflate", "zstd"])
def test_a_member_no_reader_needs_is_never_inflated(method: str, baseline: float, tmp_path: Path) -> None:
    path = tmp_path / "bomb.eval"
    path.write_bytes(eval_bomb(method, "_journal/summaries/1.json"))
    seen = read_in_fresh_process(path)
    assert seen["peak_mb"] - baseline < 20, seen["peak_mb"]
    assert (seen["threads"], seen["problems"]) == (1, [])


def test_a_column_computed_on_read_is_never_selected(baseline: float, tmp_path: Path) -> None:
    path = session_db(tmp_path / "session.db", extra_column=", pad BLOB AS (zeroblob(300000000)) VIRTUAL")
    assert path.stat().st_size < 32 * 1024
    seen = read_in_fresh_process(path)
    assert seen["peak_mb"] - baseline < 20, seen["peak_mb"]
    assert (seen["threads"], seen["actions"], seen["problems"]) == (1, 3, [])
