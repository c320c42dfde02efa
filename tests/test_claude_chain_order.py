"""``chain.order_chain``'s shortcut (``in_file_order``): a file already in the order the walk of
its ``parentUuid`` tree would give is returned as it is, without the walk. Both routes use the
ordering, so the route tests cannot see it wrong: here the shortcut is held to the walk itself,
on any chain (forks, children before parents, times going back, lines without time or uuid,
repeated uuids, cycles, parents named nowhere)."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from threadlab.formats.claude import chain
from threadlab.formats.claude.wire import Entry

UUIDS = [f"u{i}" for i in range(12)]


@st.composite
def chain_line(draw: Any) -> dict[str, Any]:
    line: dict[str, Any] = {"type": "user"}
    parent = draw(st.one_of(st.none(), st.sampled_from([*UUIDS, "nowhere"])))
    if parent is not None:
        line["parentUuid"] = parent
    if draw(st.integers(0, 4)):
        line["timestamp"] = f"2026-01-01T00:00:{draw(st.integers(0, 9)):02d}.000Z"
    return line


@st.composite
def chain_lines(draw: Any) -> list[dict[str, Any]]:
    """Lines with distinct uuids mostly (as Claude Code writes them), some without one or
    repeating one, in any order."""
    lines = draw(st.lists(chain_line(), max_size=12))
    uuids = draw(st.permutations(UUIDS))
    for index, line in enumerate(lines):
        which = draw(st.integers(0, 9))
        if which >= 2:
            line["uuid"] = uuids[index % len(uuids)]
        elif which == 1:
            line["uuid"] = draw(st.sampled_from(UUIDS))
    return lines


def _walked(entries: list[Entry], monkeypatch: pytest.MonkeyPatch) -> tuple[list[int], list[int]]:
    ordered, dangling = chain._walk(entries)  # (the walk, without the shortcut)
    return [e.line for e in ordered], [e.line for e in dangling]


def _entries(lines: list[dict[str, Any]]) -> list[Entry]:
    return [Entry(line, "t.jsonl", number) for number, line in enumerate(lines, 1)]


@settings(max_examples=400, deadline=None)
@given(lines=chain_lines())
def test_the_shortcut_orders_as_the_walk(lines: list[dict[str, Any]]) -> None:
    entries = _entries(lines)
    ordered, dangling = chain.order_chain(entries)
    with pytest.MonkeyPatch.context() as m:
        assert ([e.line for e in ordered], [e.line for e in dangling]) == _walked(entries, m)


def test_a_file_in_chain_order_takes_the_shortcut(monkeypatch: pytest.MonkeyPatch) -> None:
    """A chain with a fork (two results of parallel calls) and a line without uuid, in the
    order Claude Code writes it: the shortcut answers (and gives the walk's order)."""
    lines = [
        {"uuid": "a", "parentUuid": None, "timestamp": "2026-01-01T00:00:01Z"},
        {"uuid": "b", "parentUuid": "a", "timestamp": "2026-01-01T00:00:02Z"},
        {"type": "queue-operation", "timestamp": "2026-01-01T00:00:02Z"},
        {"uuid": "c", "parentUuid": "b", "timestamp": "2026-01-01T00:00:03Z"},
        {"uuid": "d", "parentUuid": "b", "timestamp": "2026-01-01T00:00:03Z"},
        {"uuid": "e", "parentUuid": "d"},
    ]
    entries = _entries(lines)
    asked: list[bool] = []
    real = chain.in_file_order

    def shortcut(by_uuid: dict[str, Entry]) -> list[Entry] | None:
        found = real(by_uuid)
        asked.append(found is not None)
        return found

    monkeypatch.setattr(chain, "in_file_order", shortcut)
    ordered, _ = chain.order_chain(entries)
    assert asked == [True]
    assert [e.line for e in ordered] == _walked(_entries(lines), monkeypatch)[0] == [1, 2, 3, 4, 5, 6]


@pytest.mark.parametrize("lines", [
    [{"uuid": "c", "parentUuid": "p", "timestamp": "2026-01-01T00:00:01Z"}, {"uuid": "p", "timestamp": "2026-01-01T00:00:02Z"}],
    [{"uuid": "a", "timestamp": "2026-01-01T00:00:05Z"}, {"uuid": "b", "timestamp": "2026-01-01T00:00:04Z"}],
    [{"uuid": "a", "timestamp": "2026-01-01T00:00:05Z"}, {"uuid": "b", "timestamp": "2026-01-01T00:00:06Z"}, {"uuid": "c", "parentUuid": "a"}],
], ids=["child-before-parent", "time-goes-back", "untimed-child-of-an-earlier-line"])
def test_a_file_out_of_chain_order_is_walked(lines: list[dict[str, Any]], monkeypatch: pytest.MonkeyPatch) -> None:
    ordered, _ = chain.order_chain(_entries(lines))
    walked = _walked(_entries(lines), monkeypatch)[0]
    assert [e.line for e in ordered] == walked != list(range(1, len(lines) + 1))
