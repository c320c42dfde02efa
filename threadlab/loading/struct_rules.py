"""The five rules over a thread's actions as decoded by ``structs`` (whole columns at a time).

``core.validation._columns_valid`` does the same over dicts; the Structs have already checked
every JSON type (sequences are integers, timestamps text, kinds core or ``system.<name>``), so
what is left is cheaper. An answer (the thread's tool pairs) only when ``validate_dict`` would
find nothing; any doubt answers None and the file goes the usual way, where ``validate_dict``
names each problem."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from itertools import islice
from operator import le
from typing import Any

from threadlab.core.validation import AGENT_KEYS_IN_SYSTEM_DATA, paired_tool_actions
from threadlab.loading.structs import StructUsage

_TOOL_KINDS = frozenset(("tool_call", "tool_return"))


Pairs = list[list[int | None]]


def rules_hold(columns: Mapping[str, Sequence[Any]], agents: Mapping[str, Any]) -> Pairs | None:
    """When a thread's actions (Structs, as ``structs.columns``) whose ``agents`` fit the
    models break none of the rules (nor carry a negative token count), their tool pairs
    (``validation.paired_tool_actions``: the extractor takes them as found here); else None."""
    try:
        return _rules_hold(columns, agents)
    except TypeError:  # an unhashable value where a name belongs
        return None


def _rules_hold(columns: Mapping[str, Sequence[Any]], agents: Mapping[str, Any]) -> Pairs | None:
    kinds = columns["action_type"]
    n = len(kinds)
    if not n:
        return []
    if columns["sequence"] != tuple(range(1, n + 1)):
        return None
    kind_set = set(kinds)
    usages = [u for u in columns["usage"] if u is not None]
    if usages:
        # usage on a kind without it is free-form (a usage Struct's counts are checked, none negative)
        if not all(issubclass(t, StructUsage) for t in set(map(type, usages))):
            return None
    system_kinds = {k for k in kind_set if k.startswith("system.")}
    if system_kinds:  # system data may name agents
        datas = [d for d, k in zip(columns["data"], kinds, strict=True) if k in system_kinds]
        refs = {d.get(key) for d in datas if type(d) is dict for key in AGENT_KEYS_IN_SYSTEM_DATA}
        refs.discard(None)
        if not refs <= agents.keys():
            return None
    agent_ids = set(columns["agent_id"])
    agent_ids.discard(None)
    if not all(type(a) is str and a in agents for a in agent_ids):
        return None
    pairs: Pairs | None = []
    if not _TOOL_KINDS.isdisjoint(kind_set):
        rows = [i for i, k in enumerate(kinds) if k in _TOOL_KINDS]
        pick = [columns[name] for name in ("action_type", "tool_call_id", "tool_name")]
        pairs = paired_tool_actions(rows, *(map(column.__getitem__, rows) for column in pick))
        if pairs is None:
            return None
    try:
        # ISO text straight through the C parser (as _columns_valid does): aware datetimes of
        # any offset compare as instants; a naive one makes the comparison raise
        moments = list(map(datetime.fromisoformat, columns["timestamp"]))
        if not all(map(le, moments, islice(moments, 1, None))) or moments[0].tzinfo is None:
            return None
        moments[0].astimezone(UTC), moments[-1].astimezone(UTC)  # years 1-9999 in UTC
        return pairs
    except (ValueError, TypeError, OverflowError):
        return None
