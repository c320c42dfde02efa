"""The five rules over a thread's actions as decoded by ``structs`` (whole columns at a time).

``core.validation._columns_valid`` does the same over dicts; the Structs have already checked
every JSON type (sequences are integers, timestamps text, kinds core or ``system.<name>``), so
what is left is cheaper. True only when ``validate_dict`` would find nothing; any doubt answers
False and the file goes the usual way, where ``validate_dict`` names each problem."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from itertools import chain, islice
from operator import attrgetter, le
from typing import Any

from threadlab.core.validation import AGENT_KEYS_IN_SYSTEM_DATA, tool_actions_pair
from threadlab.loading.structs import StructUsage

_TOOL_KINDS = frozenset(("tool_call", "tool_return"))
_TOKEN_KEYS = ("input_tokens", "output_tokens", "total_tokens", "thinking_tokens", "cache_read_tokens", "cache_write_tokens")
_tokens = attrgetter(*_TOKEN_KEYS)


def rules_hold(columns: Mapping[str, Sequence[Any]], agents: Mapping[str, Any]) -> bool:
    """Whether a thread's actions (Structs, as ``structs.columns``) whose ``agents`` fit the
    models break none of the rules (nor carry a negative token count)."""
    try:
        return _rules_hold(columns, agents)
    except TypeError:  # an unhashable value where a name belongs
        return False


def _rules_hold(columns: Mapping[str, Sequence[Any]], agents: Mapping[str, Any]) -> bool:
    kinds = columns["action_type"]
    n = len(kinds)
    if not n:
        return True
    if columns["sequence"] != tuple(range(1, n + 1)):
        return False
    kind_set = set(kinds)
    usages = [u for u in columns["usage"] if u is not None]
    if usages:
        if not all(issubclass(t, StructUsage) for t in set(map(type, usages))):  # usage on a kind without it: free-form
            return False
        counts = [v for v in chain.from_iterable(map(_tokens, usages)) if v is not None]  # (integers, by their Struct)
        if counts and min(counts) < 0:
            return False
    system_kinds = {k for k in kind_set if k.startswith("system.")}
    if system_kinds:  # system data may name agents
        datas = [d for d, k in zip(columns["data"], kinds, strict=True) if k in system_kinds]
        refs = {d.get(key) for d in datas if type(d) is dict for key in AGENT_KEYS_IN_SYSTEM_DATA}
        refs.discard(None)
        if not refs <= agents.keys():
            return False
    agent_ids = set(columns["agent_id"])
    agent_ids.discard(None)
    if not all(type(a) is str and a in agents for a in agent_ids):
        return False
    if not _TOOL_KINDS.isdisjoint(kind_set):
        rows = [i for i, k in enumerate(kinds) if k in _TOOL_KINDS]
        pick = [columns[name] for name in ("action_type", "tool_call_id", "tool_name")]
        if not tool_actions_pair(*(map(column.__getitem__, rows) for column in pick)):
            return False
    try:
        # ISO text straight through the C parser (as _columns_valid does): aware datetimes of
        # any offset compare as instants; a naive one makes the comparison raise
        moments = list(map(datetime.fromisoformat, columns["timestamp"]))
        if not all(map(le, moments, islice(moments, 1, None))) or moments[0].tzinfo is None:
            return False
        moments[0].astimezone(UTC), moments[-1].astimezone(UTC)  # years 1-9999 in UTC
        return True
    except (ValueError, TypeError, OverflowError):
        return False
