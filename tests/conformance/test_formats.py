"""One suite every registered format runs by itself (as fsspec's tests/abstract/ does for its
filesystems): the registry entry is whole; each fixture is detected as its own format and no
other; every input record is accounted for; the round trip is exact or says why; every writer
keeps what it can of every fixture and says what it cannot; bad bytes give a problem naming the
file and line; look-alikes of other tools are refused with a message saying what they look like.

Fixtures are found by convention (``tests/conformance/fixtures.py``): a new format needs its
registry entry, its fixtures folder and its record counter (``records.py``), nothing else."""

from __future__ import annotations

import warnings
from pathlib import Path
from typing import Any

import orjson
import pytest

import threadlab
from tests.conformance.containers import container_kind, sqlite_breaks, zip_member_names
from tests.conformance.fixtures import ALL_FORMATS, Fixture, fixtures, formats_with_fixtures, lookalikes
from tests.conformance.records import COUNTERS
from tests.wild.conformance_expected import CONFORMANCE_XFAIL
from tests.wild.count import count
from tests.wild.expected import expected_disagreement
from threadlab.core.derive import iter_text
from threadlab.core.loss import WriteLoss
from threadlab.core.model import CORE_ACTION_TYPES, Thread
from threadlab.core.problems import ThreadError
from threadlab.formats import format_spec, get_format
from threadlab.formats.common.reading import UnreadFilesWarning
from threadlab.formats.common.registry import FORMATS, FormatModule, load_module
from threadlab.formats.common.source import Source

FIXTURES = fixtures()
TYPED = [f for f in FIXTURES if f.format is not None]
FILES_ONLY = [f for f in FIXTURES if f.path.is_file()]


def known_failures(test: str, cases: list[Any], case_id: Any) -> list[Any]:
    """The cases, those of the real corpus that fail today marked as strict expected failures
    (``tests/wild/conformance_expected.py`` says why; a fix makes the test fail until the line goes)."""
    listed = CONFORMANCE_XFAIL.get(test, {})
    out = []
    for case in cases:
        cid = case_id(case)
        marks = [pytest.mark.xfail(strict=True, reason=listed[cid])] if cid in listed else []
        out.append(pytest.param(*(case if isinstance(case, tuple) else (case,)), marks=marks, id=cid))
    return out


def lenient(source: Any, fmt: str) -> tuple[list[Thread], list[Any]]:
    """A lenient read: the threads, and the problems of what could not be read at all (a lenient
    read warns of those, it does not raise)."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", UnreadFilesWarning)
        threads = threadlab.read_all(source, fmt, strict=False)
    return threads, [p for w in caught if isinstance(w.message, UnreadFilesWarning) for p in w.message.problems]


def read(fixture: Fixture) -> list[Thread]:
    """The fixture's threads, read leniently as its format; a fixture that cannot be read at all
    fails here (no test passes on no threads)."""
    threads, unread = lenient(fixture.path, fixture.format or "auto")
    assert not unread, f"{fixture.id} cannot be read as {fixture.format}: {[str(p) for p in unread]}"
    return threads


# --- the registry -------------------------------------------------------------------------


@pytest.mark.parametrize("name", ALL_FORMATS)
def test_registry_entry_is_whole(name: str) -> None:
    spec = format_spec(name)
    module = load_module(spec)
    assert isinstance(module, FormatModule) and module.NAME == spec.name
    for alias in spec.names():
        assert format_spec(alias) is spec and format_spec(alias.upper().replace("-", "_")) is spec
    for export in spec.exports:
        assert callable(getattr(module, export)), f"{spec.module} exports no {export}"
        assert getattr(threadlab, export) is getattr(module, export)
    if spec.plans_folders:
        assert callable(module.plan_folder)
    assert name in COUNTERS, f"no record counter for {name}: add one to tests/conformance/records.py"
    assert name in formats_with_fixtures(), f"no fixtures for {name}: add tests/fixtures/<{name}>/ (or real/)"


def test_unknown_format_names_raise() -> None:
    with pytest.raises(ValueError, match="unknown format 'nope'; known formats: threadprotocol"):
        format_spec("nope")
    with pytest.raises(ValueError, match="unknown format"):
        threadlab.read_all(b"{}", format="nope")


def test_names_and_aliases_name_one_format_each() -> None:
    owners: dict[str, set[str]] = {}
    for spec in FORMATS:
        for n in spec.names():
            owners.setdefault(n.lower().replace("_", "-"), set()).add(spec.name)
    assert {n: o for n, o in owners.items() if len(o) > 1} == {}


# --- detection ----------------------------------------------------------------------------


@pytest.mark.parametrize("fixture", known_failures("test_fixture_is_claimed_by_its_format_only", TYPED, lambda f: f.id))
def test_fixture_is_claimed_by_its_format_only(fixture: Fixture) -> None:
    claimed = [m.NAME for m in (get_format(n) for n in ALL_FORMATS) if m.detect(Source(fixture.path))]
    assert claimed == [fixture.format]


@pytest.mark.parametrize("path", lookalikes(), ids=lambda p: p.name)
def test_lookalikes_are_refused_saying_what_they_are(path: Path) -> None:
    claimed = [n for n in ALL_FORMATS if get_format(n).detect(Source(path))]
    assert claimed == []
    with pytest.raises(ThreadError) as raised:
        threadlab.read_all(path)
    (problem,) = raised.value.problems
    assert problem.rule == "format" and str(path) in problem.message and "(" in problem.message
    frames = threadlab.load(path, progress=False)
    assert list(frames.problems["rule"]) == ["format"]


# --- the account --------------------------------------------------------------------------


@pytest.mark.parametrize("fixture", known_failures("test_every_input_record_is_accounted_for", FIXTURES, lambda f: f.id))
def test_every_input_record_is_accounted_for(fixture: Fixture) -> None:
    threads = read(fixture)
    assert threads, "a fixture gives at least one thread"
    fmt = threads[0].origin[1]
    assert fixture.format in (None, fmt)
    for thread in threads:
        assert thread.account is not None, f"{fmt} keeps no account of its input"
        assert len(thread.problems) >= thread.account.unconverted, "every record not converted has a problem naming it"
    assert sum(t.account.records for t in threads) == COUNTERS[fmt](fixture.path)
    if fmt != "threadprotocol":
        has_core = any(a.action_type in CORE_ACTION_TYPES for t in threads for a in t.actions)
        assert has_core or any(p.rule == "no-actions" for t in threads for p in t.problems)
    frames = threadlab.load(fixture.path, progress=False)
    assert frames.threads["n_records"].sum() == COUNTERS[fmt](fixture.path)
    assert frames.threads["n_unconverted"].sum() == sum(t.account.unconverted for t in threads)


# --- round trips --------------------------------------------------------------------------


def _canonical(thread: Thread) -> bytes:
    return orjson.dumps(thread.to_dict(), option=orjson.OPT_SORT_KEYS)


@pytest.mark.parametrize("fixture", known_failures("test_round_trip_is_exact_or_says_why", FIXTURES, lambda f: f.id))
def test_round_trip_is_exact_or_says_why(fixture: Fixture) -> None:
    """Each thread written back in its own format and read again (under the same name, so
    where-it-came-from metadata can agree) is the same thread, or the writer warned what its
    format could not hold."""
    for thread in read(fixture):
        fmt = thread.origin[1]
        module = get_format(fmt)
        if not format_spec(fmt).writes:  # a reader only: its writer refuses, saying why
            with pytest.raises(ValueError, match="does not write"):
                module.from_thread(thread)
            continue
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            wire = module.from_thread(thread)
        losses = [w.message for w in caught if isinstance(w.message, WriteLoss)]
        (again,) = read_back(Source(wire, name=thread.origin[0]), fmt)
        if not losses:
            assert _canonical(again) == _canonical(thread)


def read_back(source: Source, fmt: str) -> list[Thread]:
    """A writer's output read by its own reader, which must read it."""
    back, unread = lenient(source, fmt)
    assert not unread, f"the {fmt} writer's output does not read back: {[str(p) for p in unread]}"
    return back


def _projection(thread: Thread) -> list[tuple[Any, ...]]:
    """What any conversation format should keep of a core action: kind, speaker, text, tool."""
    out = []
    for a in thread.actions:
        if a.action_type not in CORE_ACTION_TYPES:
            continue
        args = getattr(a, "args", None)
        out.append(
            (
                a.action_type,
                thread.agent_name(getattr(a, "agent_id", None)),
                "".join(iter_text(getattr(a, "content", None))),
                getattr(a, "tool_name", None),
                getattr(a, "tool_call_id", None),
                getattr(a, "status", None),
                orjson.dumps(args, option=orjson.OPT_SORT_KEYS) if args is not None else None,
            )
        )
    return out


WRITE_CASES = [(f, n) for f in FIXTURES for n in ALL_FORMATS]


@pytest.mark.parametrize(("fixture", "writer"), known_failures("test_every_writer_keeps_what_it_can_and_says_what_it_cannot", WRITE_CASES, lambda c: f"{c[0].id}-{c[1]}"))
def test_every_writer_keeps_what_it_can_and_says_what_it_cannot(fixture: Fixture, writer: str) -> None:
    """Any thread, written by any writer and read back: the same messages, thinking, tool calls
    and returns, or a WriteLoss saying what is missing, or a ValueError saying why it cannot be
    written at all (a per-agent format given a multi-agent thread without ``agent=``)."""
    module = get_format(writer)
    for thread in read(fixture):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            try:
                wire = module.from_thread(thread)
            except ValueError as exc:
                assert str(exc), "a writer that refuses says why"
                continue
        losses = [w.message for w in caught if isinstance(w.message, WriteLoss)]
        assert all(loss.lost and loss.format == writer for loss in losses)
        back = read_back(Source(wire, name=f"written.{writer}"), writer)
        if not losses:
            assert [p for t in back for p in _projection(t)] == _projection(thread)


# --- bad bytes ----------------------------------------------------------------------------


def _corruptions(data: bytes) -> dict[str, bytes]:
    first_end = data.find(b"\n") + 1 or len(data) // 2
    middle = len(data) // 2
    return {
        "truncated": data[: len(data) * 2 // 3],
        "garbage-line": data[:first_end] + b"\x00garbage {not json\n" + data[first_end:],
        "bad-utf8": data[:middle] + b"\xff\xfe" + data[middle:],
    }


BAD_CASES = [(f, kind) for f in FILES_ONLY for kind in ("truncated", "garbage-line", "bad-utf8")]


@pytest.mark.parametrize(("fixture", "kind"), known_failures("test_bad_bytes_give_a_problem_naming_file_and_line", BAD_CASES, lambda c: f"{c[0].id}-{c[1]}"))
def test_bad_bytes_give_a_problem_naming_file_and_line(fixture: Fixture, kind: str, tmp_path: Path) -> None:
    bad = tmp_path / fixture.path.name
    bad.write_bytes(_corruptions(fixture.path.read_bytes())[kind])
    threads, unread = lenient(bad, fixture.format or "auto")  # never raises
    problems = [*unread, *(p for t in threads for p in t.problems)]
    located = [p for p in problems if p.line is not None and str(bad) in str(p)]
    container = container_kind(fixture.path)
    if container == "sqlite":  # line = a row id: each table that breaks off is named at its first unread row
        breaks = sqlite_breaks(bad)
        for table, row in breaks:
            assert any(p.line == row and f"row {row} of {table} " in p.message for p in located), f"no problem names row {row} of {table}: {[str(p) for p in problems]}"
        assert all(f"row {p.line} of " in p.message for p in located), [str(p) for p in located]
        assert breaks or any(str(bad) in str(p) for p in problems), f"no problem names {bad.name} (every row reads): {[str(p) for p in problems]}"
    elif container == "zip":  # line = a member's position, named with the member's name
        names = zip_member_names(fixture.path)
        assert located, f"no problem names {bad.name} and a member: {[str(p) for p in problems]}"
        assert all(f"member {p.line} ({names[p.line - 1]})" in p.message for p in located), [str(p) for p in located]
    else:
        assert located, f"no problem names {bad.name} and a line: {[str(p) for p in problems]}"
    frames = threadlab.load(bad, progress=False)  # lenient load never raises
    assert len(frames.problems) and (frames.problems["source"] == str(bad)).all()


# --- who wrote it ---------------------------------------------------------------------------


@pytest.mark.parametrize("fixture", TYPED, ids=lambda f: f.id)
def test_human_prompts_and_harness_turns_are_counted_apart(fixture: Fixture) -> None:
    """Prompts a person typed and turns the harness wrote in the user's role, each as the raw
    counter of ``tests/wild`` takes them from the file (where its format says who wrote a turn),
    except the disagreements ``tests/wild/expected.py`` lists for fixtures another change fixes."""
    assert fixture.format is not None
    listed = expected_disagreement(fixture.path)
    if listed is None or "format" in listed:  # a variant the counter does not read; a file not detected (tests/wild)
        return
    want = count(fixture.path, fixture.format)
    frames = threadlab.load(fixture.path, progress=False)
    got = {"human_prompts": int(frames.threads["n_human_prompts"].fillna(0).sum()), "harness_turns": int(frames.threads["n_harness_turns"].fillna(0).sum())}
    expected = {k: v[1] for k, v in listed.items() if k in got}
    for name in got:
        if getattr(want, name) is not None:
            assert got[name] == expected.get(name, getattr(want, name)), name
