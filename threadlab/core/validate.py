"""The five ThreadProtocol validation rules.

The rules run over the thread's JSON object (a dict, as read from disk or from
``Thread.to_dict()``), so the same code checks a model in memory and a file on the fast path
of the loaders, without building a model per action."""

from __future__ import annotations

import re
from collections.abc import Mapping
from datetime import datetime
from typing import Any

from threadlab.core.model import CORE_ACTION_TYPES, Thread
from threadlab.core.problems import Problem
from threadlab.core.timefmt import format_timestamp, parse_timestamp

_CORE = frozenset(CORE_ACTION_TYPES)
SYSTEM_NAME = re.compile(r"^system\.[a-z][a-z0-9_]*(\.[a-z][a-z0-9_]*)*$")
# system actions whose ``data`` names agents (spec + RC2)
AGENT_KEYS_IN_SYSTEM_DATA = ("agent_id",)

RULES = {
    "sequence-order": "sequence values are unique and run 1, 2, 3 ... in list order",
    "tool-call-match": "every tool_return answers an earlier tool_call with the same tool name",
    "agent-ref": "every agent_id is a key of the agents registry",
    "action-type-name": "action_type is a core name or system.<snake_case name>",
    "time-order": "timestamps do not go backwards as sequence goes forwards",
}


def validate(thread: Thread | Mapping[str, Any]) -> list[Problem]:
    """Check ``thread`` against the five rules; an empty list means valid."""
    doc = thread.to_dict() if isinstance(thread, Thread) else thread
    return validate_dict(doc)


def validate_dict(doc: Mapping[str, Any]) -> list[Problem]:
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
            report("agent-ref", f"agents[{key!r}] has agent_id {config.get('agent_id')!r}; the key and agent_id must agree", None)

    actions = doc.get("actions") or []
    calls: dict[str, str] = {}
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
            report("sequence-order", f"action #{index} has no integer sequence (got {seq!r})", None)
        elif where == index and where not in seen_sequences:
            seen_sequences.add(where)
        else:
            if where in seen_sequences:
                report("sequence-order", f"sequence {where} is used more than once", where)
            elif where != index:
                report("sequence-order", f"action #{index} has sequence {where}; expected {index}", where)
            seen_sequences.add(where)
        kind = get("action_type")
        is_core = kind in core
        # 4. action type names
        if not is_core and not (isinstance(kind, str) and system_name(kind)):
            report("action-type-name", f"action_type {kind!r} is neither a core action nor system.<snake_case name>", where)
        # 3. agent references
        agent_id = get("agent_id")
        if agent_id is not None and agent_id not in agents:
            report("agent-ref", f"{kind} names agent_id {agent_id!r}, which is not in the agents registry", where)
        if not is_core and isinstance(kind, str) and kind.startswith("system."):
            data = get("data")
            if isinstance(data, Mapping):
                for key in AGENT_KEYS_IN_SYSTEM_DATA:
                    ref = data.get(key)
                    if ref is not None and ref not in agents:
                        report("agent-ref", f"{kind} data.{key} {ref!r} is not in the agents registry", where)
        # 2. tool call/return correlation
        if kind == "tool_call":
            call_id = get("tool_call_id")
            if isinstance(call_id, str):
                calls[call_id] = get("tool_name")
        elif kind == "tool_return":
            call_id = get("tool_call_id")
            if call_id not in calls:
                report("tool-call-match", f"tool_return {call_id!r} answers no earlier tool_call", where)
            elif calls[call_id] != get("tool_name"):
                report(
                    "tool-call-match",
                    f"tool_return {call_id!r} names tool {get('tool_name')!r} but the call was to {calls[call_id]!r}",
                    where,
                )
        # 5. time order
        stamp = get("timestamp")
        if stamp is None:
            continue
        try:
            moment = parse_timestamp(stamp)
        except ValueError:
            report("schema", f"timestamp {stamp!r} is not ISO 8601", where)
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

