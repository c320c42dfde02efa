"""Token counts as producers write them: an integer, or (JavaScript writers, some SDKs' JSON) the
same integer as a float, ``12.0``. A count is kept when it is exact: an int, or a float whose
value is a whole number no larger than 2**53 (every such integer is a float exactly, so nothing
was rounded before we saw it). Anything else present (``1.5``, ``1e308``, ``"12"``, ``true``) is
no count: the cell stays empty and a ``usage`` problem names the field and the value, never
quietly. ``usage_from`` and ``figures_of`` map a producer's token object in its own names to
``Usage`` and back (Gemini CLI, Qwen Code, Copilot CLI, pi)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from threadlab.core.model import BaseAction, Usage
from threadlab.core.problems import short

EXACT = 2**53  # floats hold every integer up to this exactly


def count_of(value: Any) -> tuple[int | None, str | None]:
    """(the count, None); (None, why it is none) for a value present that is no count; (None,
    None) for a missing one (``None``)."""
    if value is None:
        return None, None
    if type(value) is int:
        return value, None
    if type(value) is float and value.is_integer() and abs(value) <= EXACT:
        return int(value), None
    if type(value) is float:
        why = "beyond the integers a float holds exactly" if value.is_integer() else "not a whole number"
        return None, f"{short(value)} is {why}, so no token count"
    return None, f"{short(value)} is a {type(value).__name__}, not a token count"


def counts_of(figures: dict[str, Any], problems: list[str], where: str = "") -> dict[str, int]:
    """Each field of ``figures`` that is a count, as an int; one phrase in ``problems`` for each
    that is present but none (``<where><field> is 1.5, not a whole number ...; left out``)."""
    out: dict[str, int] = {}
    for key, value in figures.items():
        count, why = count_of(value)
        if count is not None:
            out[key] = count
        elif why is not None:
            problems.append(f"{where}{key}: {why}; left out")
    return out


def counts_as(figures: dict[str, tuple[str, Any]], problems: list[str], where: str = "usage.") -> dict[str, int]:
    """``counts_of`` for figures given as ``their name → (our name, value)``: the counts under
    our names, the phrases naming theirs."""
    found = counts_of({theirs: value for theirs, (_, value) in figures.items()}, problems, where)
    return {figures[theirs][0]: count for theirs, count in found.items()}


def usage_from(figures: Any, names: Mapping[str, str], where: str, problem: Callable[[str, str], None]) -> Usage | None:
    """The ``Usage`` of a token object in the API's names (``names``: theirs → ours), each figure
    that is no count named by ``problem("usage", phrase)``; None when there are none."""
    if type(figures) is not dict:
        return None
    problems: list[str] = []
    found = counts_as({k: (ours, figures.get(k)) for k, ours in names.items()}, problems, where)
    for phrase in problems:
        problem("usage", phrase)
    return Usage(**found) if found else None


def figures_of(action: BaseAction, names: Mapping[str, str]) -> dict[str, int] | None:
    """An action's usage back in the API's names (``names``: ours → theirs): what a writer puts
    back where the reader found it (a tool call holds its figures as a dict)."""
    usage = getattr(action, "usage", None)
    figures = usage if isinstance(usage, dict) else usage.model_dump(exclude_none=True) if usage is not None else None
    return {theirs: figures[ours] for ours, theirs in names.items() if ours in figures} if figures else None
