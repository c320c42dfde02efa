"""Aligning N runs of one task step by step (no pandas in the alignment itself).

A run is its list of step labels ("Researcher · web_search", "Planner · reply", "user"). Two
runs are aligned by Needleman-Wunsch (global alignment, unit cost for a gap or a different
label, equal labels free); N runs by the center-star method: the run closest to all others (the
medoid of a sample) is the center, every run is aligned to it, and the pairwise alignments are
merged so that a gap once opened in the center stays open for every run ("once a gap, always a
gap"). Each aligned column has a consensus label (the most common, gaps included), and a run
first diverges at the first column where fewer than half of the other runs share its label."""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

GAP = None
SAMPLE = 25  # runs the center is chosen among (all pairs aligned)


def align_pair(a: Sequence[str], b: Sequence[str]) -> list[tuple[int | None, int | None]]:
    """Global alignment of two label sequences: (index in a, index in b) per column, None for a gap."""
    n, m = len(a), len(b)
    cost = [[0] * (m + 1) for _ in range(n + 1)]
    for i in range(1, n + 1):
        cost[i][0] = i
    for j in range(1, m + 1):
        cost[0][j] = j
    for i in range(1, n + 1):
        row, prev, ai = cost[i], cost[i - 1], a[i - 1]
        for j in range(1, m + 1):
            row[j] = min(prev[j - 1] + (ai != b[j - 1]), prev[j] + 1, row[j - 1] + 1)
    out: list[tuple[int | None, int | None]] = []
    i, j = n, m
    # walking back from the end, a gap is taken before an equally good match: of two equal
    # steps the later one is the extra (a retry repeats a call; it is not the first attempt)
    while i or j:
        if j and cost[i][j] == cost[i][j - 1] + 1:
            out.append((None, j - 1))
            j -= 1
        elif i and cost[i][j] == cost[i - 1][j] + 1:
            out.append((i - 1, None))
            i -= 1
        else:
            out.append((i - 1, j - 1))
            i, j = i - 1, j - 1
    out.reverse()
    return out


def distance(a: Sequence[str], b: Sequence[str]) -> int:
    return sum(1 for x, y in align_pair(a, b) if x is None or y is None or a[x] != b[y])


def center_of(runs: list[list[str]], *, seed: int = 0) -> int:
    """The run with the least total distance to a sample of the runs (all of them when few)."""
    if len(runs) <= 2:
        return 0
    sample = list(range(len(runs))) if len(runs) <= SAMPLE else sorted(random.Random(seed).sample(range(len(runs)), SAMPLE))
    totals = {i: sum(distance(runs[i], runs[j]) for j in sample if j != i) for i in sample}
    return min(sample, key=lambda i: (totals[i], i))


@dataclass(frozen=True)
class Alignment:
    """``columns[k][r]``: the index of run r's step in column k, or None (a gap)."""

    center: int
    columns: list[list[int | None]]
    consensus: list[str | None]  # the most common label of each column (None: most runs have a gap)
    first_divergence: list[int | None]  # per run: the first column where it leaves the others, or None


def align_runs(runs: list[list[str]]) -> Alignment:
    """Center-star multiple alignment of the runs' label sequences (see the module docstring)."""
    if not runs:
        return Alignment(0, [], [], [])
    c = center_of(runs)
    center = runs[c]
    pairs = [align_pair(center, run) for run in runs]
    # the most steps any run puts between center step i-1 and center step i (slot 0: before the first)
    slots = [0] * (len(center) + 1)
    for pair in pairs:
        pending, slot = 0, 0
        for ci, _ in pair:
            if ci is None:
                pending += 1
            else:
                slots[slot] = max(slots[slot], pending)
                pending, slot = 0, ci + 1
        slots[slot] = max(slots[slot], pending)
    width = sum(slots) + len(center)
    starts, at = [], 0  # column of each slot's first insertion, and of each center step
    center_col = []
    for i in range(len(center) + 1):
        starts.append(at)
        at += slots[i]
        if i < len(center):
            center_col.append(at)
            at += 1
    columns: list[list[int | None]] = [[None] * len(runs) for _ in range(width)]
    for r, pair in enumerate(pairs):
        slot, used = 0, 0
        for ci, ri in pair:
            if ci is None:
                columns[starts[slot] + used][r] = ri
                used += 1
            else:
                columns[center_col[ci]][r] = ri
                slot, used = ci + 1, 0
    labels = [[None if i is None else runs[r][i] for r, i in enumerate(col)] for col in columns]
    consensus = [Counter(col).most_common(1)[0][0] for col in labels]
    first: list[int | None] = [None] * len(runs)
    for k, col in enumerate(labels):
        counts = Counter(col)
        for r, label in enumerate(col):
            if first[r] is None and len(runs) > 1 and (counts[label] - 1) * 2 < len(runs) - 1:
                first[r] = k
    return Alignment(c, columns, consensus, first)


def describe_column(alignment: Alignment, runs: list[list[str]], k: int, *, others: bool = True) -> str:
    """What most runs do at column ``k``, in words: its consensus label; where that is a gap,
    whether those runs had ended (no step after it either) or have no step here while the
    others do, and (``others``) what the others do ("most runs had ended · 2 runs: Router · reply")."""
    label = alignment.consensus[k]
    if label is not None:
        return label
    column = alignment.columns[k]
    gaps = [r for r, i in enumerate(column) if i is None]
    ended = sum(1 for r in gaps if all(col[r] is None for col in alignment.columns[k:]))
    head = "most runs had ended" if ended * 2 > len(gaps) else "most runs have no step here"
    doing = Counter(runs[r][i] for r, i in enumerate(column) if i is not None).most_common(1) if others else []
    if not doing:
        return head
    step, count = doing[0]
    return f"{head} · {count} run{'s' if count != 1 else ''}: {step}"
