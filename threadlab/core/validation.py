"""The five ThreadProtocol validation rules.

The rules run over the thread's JSON object (a dict, as read from disk or from
``Thread.to_dict()``), so the same code checks a model in memory and a file on the fast path
of the loaders, without building a model per action."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from datetime import UTC, datetime
from itertools import chain, count, islice, repeat
from operator import le
from typing import Any

from threadlab.core.model import CORE_ACTION_TYPES, Thread
from threadlab.core.nogc import no_gc
from threadlab.core.problems import VALIDATION_RULES, Problem, short
from threadlab.core.timefmt import format_timestamp, parse_timestamp

_CORE = frozenset(CORE_ACTION_TYPES)
_TOOL_KINDS = frozenset(("tool_call", "tool_return"))
_NAMED_KINDS = set(_CORE)  # the action types met so far that name a core action or a system action
_DICT, _INT = frozenset((dict,)), frozenset((int,))
SYSTEM_NAME = re.compile(r"^system\.[a-z][a-z0-9_]*(\.[a-z][a-z0-9_]*)*$")
# system actions whose ``data`` names agents (spec + RC2)
AGENT_KEYS_IN_SYSTEM_DATA = ("agent_id",)

RULES = VALIDATION_RULES  # the five rules this module checks
_TOKEN_KEYS = ("input_tokens", "output_tokens", "total_tokens", "thinking_tokens", "cache_read_tokens", "cache_write_tokens")


def validate(thread: Thread | Mapping[str, Any]) -> list[Problem]:
    """Check ``thread`` against the five rules; an empty list means valid."""
    with no_gc():  # the canonical dict of a big thread: millions of objects, no cycle among them
        doc = thread.to_dict() if isinstance(thread, Thread) else thread
        return validate_dict(doc)


def validate_dict(doc: Mapping[str, Any]) -> list[Problem]:
    """The problems of the thread object ``doc``. A valid thread (nearly every one a loader
    reads) is confirmed by whole-list checks (``_plainly_valid``); the action-by-action walk,
    which names each problem, runs only when one of them fails."""
    return validate_and_pair(doc)[0]


def validate_and_pair(doc: Mapping[str, Any]) -> tuple[list[Problem], list[list[int | None]] | None]:
    """``validate_dict``'s problems, and the thread's tool pairs when the whole-list checks
    worked them out (``paired_tool_actions``, as rows of ``doc["actions"]``; None when the walk
    decided), so the frames need not pair the tools again."""
    pairs = _plainly_valid(doc)
    if pairs is not None:
        return [], pairs
    return _walk(doc), None


def _plainly_valid(doc: Mapping[str, Any]) -> list[list[int | None]] | None:
    """The tool pairs (a list, maybe empty) only if ``_walk`` would find nothing: each rule
    checked over whole columns (lists and sets built in C), which costs a third of the walk on
    a valid thread. Any doubt (an unusual value, a system action naming an agent) answers
    None, and the walk decides."""
    try:
        return _columns_valid(doc)
    except TypeError:  # an unhashable value where a name belongs
        return None


def _columns_valid(doc: Mapping[str, Any]) -> list[list[int | None]] | None:
    agents = doc.get("agents") or {}
    actions = doc.get("actions") or []
    if type(agents) is not dict or type(actions) is not list:
        return None
    if any(type(c) is not dict or c.get("agent_id") not in (None, k) for k, c in agents.items()):
        return None
    if not actions:
        return []
    if set(map(type, actions)) != {dict}:
        return None
    get = dict.get
    sequences = list(map(get, actions, repeat("sequence")))
    if set(map(type, sequences)) != {int} or sequences != list(range(1, len(actions) + 1)):
        return None
    kinds = list(map(get, actions, repeat("action_type")))
    kind_set = set(kinds)
    if not kind_set <= _NAMED_KINDS:
        if any(type(k) is not str or (k not in _CORE and not SYSTEM_NAME.match(k)) for k in kind_set):
            return None
        if len(_NAMED_KINDS) < 4096:
            _NAMED_KINDS.update(kind_set)
    usages = [u for u in map(get, actions, repeat("usage")) if u is not None]
    if usages and not _counts_valid(usages):
        return None
    system_kinds = {k for k in kind_set if k.startswith("system.")}
    if system_kinds:  # system data may name agents
        datas = [a.get("data") for a, k in zip(actions, kinds, strict=True) if k in system_kinds]
        if any(type(d) is not dict and isinstance(d, Mapping) for d in datas):
            return None
        refs = {d.get(key) for d in datas if type(d) is dict for key in AGENT_KEYS_IN_SYSTEM_DATA}
        refs.discard(None)
        if not refs <= agents.keys():
            return None
    agent_ids = set(map(get, actions, repeat("agent_id")))
    agent_ids.discard(None)
    if not all(type(a) is str and a in agents for a in agent_ids):
        return None
    pairs: list[list[int | None]] | None = []
    if not _TOOL_KINDS.isdisjoint(kind_set):  # the tool actions only, in order
        rows = [i for i, k in enumerate(kinds) if k in _TOOL_KINDS]
        tools = list(map(actions.__getitem__, rows))
        pairs = paired_tool_actions(
            rows, map(get, tools, repeat("action_type")), map(get, tools, repeat("tool_call_id")), map(get, tools, repeat("tool_name"))
        )
        if pairs is None:
            return None
    stamps = [s for s in map(get, actions, repeat("timestamp")) if s is not None]
    try:
        # ISO text straight through the C parser; aware datetimes of any offset compare as
        # instants, and a naive one (UTC by our rule) makes the comparison raise: the walk then
        moments = list(map(datetime.fromisoformat, stamps))
        if not all(map(le, moments, islice(moments, 1, None))) or (moments and moments[0].tzinfo is None):
            return None
        if moments:  # in order, so only the first and last can lie outside UTC's years 1-9999
            moments[0].astimezone(UTC), moments[-1].astimezone(UTC)
        return pairs
    except (ValueError, TypeError, OverflowError):
        return None


def _counts_valid(usages: list[Any]) -> bool:
    """Every usage is a dict and none of its integers is below zero (over all the thread's
    usages at once)."""
    if set(map(type, usages)) != _DICT:
        return False
    values = list(chain.from_iterable(map(dict.values, usages)))
    types = set(map(type, values))
    if int not in types:
        return True
    ints = values if types == _INT else [v for v in values if type(v) is int]
    return min(ints) >= 0


def _walk(doc: Mapping[str, Any]) -> list[Problem]:
    thread_id = doc.get("thread_id")
    thread_id = thread_id if isinstance(thread_id, str) else None
    problems: list[Problem] = []

    def report(rule: str, message: str, sequence: int | None) -> None:
        problems.append(Problem(rule, message, thread_id, sequence))

    agents = doc.get("agents") or {}
    if not isinstance(agents, Mapping):
        report("agent-ref", "agents is not an object of agent_id -> AgentConfig", None)
        agents = {}
    for key, config in agents.items():
        if isinstance(config, Mapping) and config.get("agent_id") not in (None, key):
            report("agent-ref", f"agents[{short(key)}] has agent_id {short(config.get('agent_id'))}; the key and agent_id must agree", None)

    actions = doc.get("actions") or []
    if not isinstance(actions, list):
        report("schema", f"actions is {type(actions).__name__}, not a list", None)
        actions = []
    calls: dict[str, str] = {}
    unanswered: dict[str, int | None] = {}  # call id -> sequence of its call, until a return comes
    seen_sequences: set[int] = set()
    last_time: datetime | None = None
    last_time_seq: int | None = None
    core = _CORE
    system_name = SYSTEM_NAME.match
    for index, action in enumerate(actions, 1):
        if type(action) is not dict and not isinstance(action, Mapping):
            report("schema", f"action #{index} is {type(action).__name__}, not an object", None)
            continue
        get = action.get
        seq = get("sequence")
        where = seq if type(seq) is int or (isinstance(seq, int) and not isinstance(seq, bool)) else None
        # 1. sequence
        if where is None:
            report("sequence-order", f"action #{index} has no integer sequence (got {short(seq)})", None)
        elif where == index and where not in seen_sequences:
            seen_sequences.add(where)
        else:
            if where in seen_sequences:
                report("sequence-order", f"sequence {where} is used more than once", where)
            elif where != index:
                report("sequence-order", f"action #{index} has sequence {where}; expected {index}", where)
            seen_sequences.add(where)
        kind = get("action_type")
        is_core = type(kind) is str and kind in core  # (a list or dict here is reported, not hashed)
        # 4. action type names
        if not is_core and not (type(kind) is str and system_name(kind)):
            report("action-type-name", f"action_type {short(kind)} is neither a core action nor system.<snake_case name>", where)
        kind = kind if type(kind) is str else short(kind)
        # 3. agent references
        agent_id = get("agent_id")
        if agent_id is not None and not _known(agent_id, agents):
            report("agent-ref", f"{kind} names agent_id {short(agent_id)}, which is not in the agents registry", where)
        if not is_core and kind.startswith("system."):
            data = get("data")
            if isinstance(data, Mapping):
                for key in AGENT_KEYS_IN_SYSTEM_DATA:
                    ref = data.get(key)
                    if ref is not None and not _known(ref, agents):
                        report("agent-ref", f"{kind} data.{key} {short(ref)} is not in the agents registry", where)
        # 2. tool call/return correlation
        if kind == "tool_call":
            call_id = get("tool_call_id")
            if type(call_id) is str:
                if call_id in unanswered:
                    earlier = unanswered[call_id]
                    report(
                        "tool-call-match",
                        f"tool_call {short(call_id)} reuses the id of an earlier call{f' (sequence {earlier})' if earlier is not None else ''} that has no return yet",
                        where,
                    )
                calls[call_id] = get("tool_name")
                unanswered[call_id] = where
        elif kind == "tool_return":
            call_id = get("tool_call_id")
            if type(call_id) is not str or call_id not in calls:
                report("tool-call-match", f"tool_return {short(call_id)} answers no earlier tool_call", where)
            elif calls[call_id] != get("tool_name"):
                report(
                    "tool-call-match",
                    f"tool_return {short(call_id)} names tool {short(get('tool_name'))} but the call was to {short(calls[call_id])}",
                    where,
                )
            else:
                unanswered.pop(call_id, None)
        # token counts (not one of the five rules: a count below zero is no count)
        usage = get("usage")
        if type(usage) is dict or isinstance(usage, Mapping):
            for key in _TOKEN_KEYS:
                count = usage.get(key)
                if type(count) is int and count < 0:
                    report("usage", f"usage.{key} is {count}; a token count cannot be negative", where)
        # 5. time order
        stamp = get("timestamp")
        if stamp is None:
            continue
        try:
            if type(stamp) is not str and not isinstance(stamp, datetime):
                raise ValueError("not text")
            moment = parse_timestamp(stamp)
        except ValueError as exc:
            reason = "is out of range in UTC" if "out of range" in str(exc) else "is not ISO 8601"
            report("schema", f"timestamp {short(stamp)} {reason}", where)
            continue
        if last_time is not None and moment < last_time:
            report(
                "time-order",
                f"timestamp {stamp} is earlier than sequence {last_time_seq}'s ({format_timestamp(last_time)})",
                where,
            )
        else:
            last_time, last_time_seq = moment, where
    return problems


def _known(agent_id: Any, agents: Mapping[str, Any]) -> bool:
    """Is ``agent_id`` a key of the registry? (A list or dict is never one, and is not hashed.)"""
    try:
        return agent_id in agents
    except TypeError:
        return False


def tool_actions_pair(kinds: Iterable[Any], call_ids: Iterable[Any], names: Iterable[Any]) -> bool:
    """Every return answers an earlier call of its id and tool, and no id is reused while its
    call is open (the tool actions' columns, in order). Shared by the dict and Struct checks so
    both fast paths accept exactly the same threads."""
    return paired_tool_actions(count(), kinds, call_ids, names) is not None


def paired_tool_actions(
    rows: Iterable[int], kinds: Iterable[Any], call_ids: Iterable[Any], names: Iterable[Any]
) -> list[list[int | None]] | None:
    """The tool actions' pairs when they pair (``tool_actions_pair``), else None: ``[call row,
    return row]`` per call in call order (None for a return not yet made), and ``[None, row]``
    where a return answers no open call (a second return of an id), as ``derive.tool_pairs``
    pairs them; ``rows`` names each tool action."""
    calls: dict[Any, Any] = {}
    unanswered: dict[str, int] = {}  # call id -> its pair in ``found``
    found: list[list[int | None]] = []
    for row, kind, call_id, name in zip(rows, kinds, call_ids, names, strict=False):  # (rows may be endless)
        if kind == "tool_call":
            if type(call_id) is str:
                if call_id in unanswered:  # an id reused while its call is open
                    return None
                calls[call_id] = name
                unanswered[call_id] = len(found)
            found.append([row, None])
        elif type(call_id) is not str or call_id not in calls or calls[call_id] != name:
            return None
        else:
            at = unanswered.pop(call_id, None)
            if at is None:
                found.append([None, row])
            else:
                found[at][1] = row
    return found
