"""A table that fits the terminal: ``threadlab summary``'s threads.

Each column is as wide as its widest cell. When a row is wider than the terminal, the text
columns give way first, one after the other in the order given (a title before the path that
tells rows apart), each down to a floor, a cut cell ending or starting in
"…" where it loses least: a path keeps its end (the file name), an id its two ends, a title its
start. When that is not enough, columns are left out, the least needed first, and the caller
says which. Numbers are never cut. pandas' ``to_string`` wraps a wide table into blocks of
columns or cuts the middle columns out, and prints ``<NA>`` for an unknown count."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

ELLIPSIS = "…"
GAP = "  "


@dataclass(frozen=True)
class Column:
    header: str
    cells: Sequence[str]
    numeric: bool = False  # right-aligned and never cut
    keep: Literal["start", "end", "ends"] = "start"  # what a cut cell keeps
    floor: int = 8  # the narrowest a text column is cut to
    gives: int = 0  # text columns are cut lowest first, each down to its floor before the next
    rank: int = 0  # columns are left out highest rank first (0: never)

    def natural(self) -> int:
        return max([len(self.header), *(len(c) for c in self.cells)])

    def narrowest(self) -> int:
        return self.natural() if self.numeric else min(self.natural(), max(self.floor, len(self.header)))


def cut(text: str, width: int, keep: str = "start") -> str:
    """``text`` in at most ``width`` characters, "…" where it was cut."""
    if len(text) <= width:
        return text
    if width <= 1:
        return ELLIPSIS[:width]
    if keep == "end":
        return ELLIPSIS + text[len(text) - width + 1 :]
    if keep == "ends":
        head = (width - 1) // 2
        return text[:head] + ELLIPSIS + text[len(text) - (width - 1 - head) :]
    return text[: width - 1] + ELLIPSIS


def fit(columns: Sequence[Column], width: int | None) -> tuple[list[Column], list[int], list[str]]:
    """The columns that fit in ``width`` characters (None: no limit), the width of each, and
    the headers of the columns left out."""
    kept = list(columns)
    dropped: list[str] = []
    while True:
        widths = [c.natural() for c in kept]
        if width is None or _total(widths) <= width:
            return kept, widths, dropped
        _shrink(kept, widths, _total(widths) - width)
        if _total(widths) <= width:
            return kept, widths, dropped
        candidates = [c for c in kept if c.rank > 0]
        if not candidates:
            return kept, widths, dropped  # as narrow as it goes: the terminal wraps it
        worst = max(candidates, key=lambda c: (c.rank, kept.index(c)))
        kept.remove(worst)
        dropped.append(worst.header)


def _total(widths: Sequence[int]) -> int:
    return sum(widths) + len(GAP) * max(0, len(widths) - 1)


def _shrink(columns: Sequence[Column], widths: list[int], excess: int) -> None:
    """Take ``excess`` characters from the text columns, in the order of their ``gives``."""
    order = sorted((i for i, c in enumerate(columns) if not c.numeric), key=lambda i: columns[i].gives)
    for i in order:
        take = min(excess, widths[i] - columns[i].narrowest())
        if take > 0:
            widths[i] -= take
            excess -= take
        if excess <= 0:
            return


def render(columns: Sequence[Column], widths: Sequence[int]) -> list[str]:
    """Header and rows, cells cut to their column's width; no trailing blanks."""

    def row(cells: Sequence[str]) -> str:
        out = []
        for column, cell, w in zip(columns, cells, widths, strict=True):
            text = cut(cell, w, column.keep) if not column.numeric else cell
            out.append(text.rjust(w) if column.numeric else text.ljust(w))
        return GAP.join(out).rstrip()

    n = len(columns[0].cells) if columns else 0
    return [row([c.header for c in columns]), *(row([c.cells[i] for c in columns]) for i in range(n))]
