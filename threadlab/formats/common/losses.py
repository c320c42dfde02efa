"""What a thread loses when written in a format, found by reading the written bytes back (the AI
SDK writers, ATIF, STS, Gemini CLI and Qwen Code use it, each with its reasons).

The two AI SDK writers hold less than ThreadProtocol in ways that depend on the thread (a UI
message stream carries no user messages; a UIMessage keeps a tool's outcome inside its call's
part, so a return written after other actions comes back at the end of its step; neither has
timestamps beyond a message's ``createdAt``, agent ids, or another format's metadata). Rather
than guess each case, the writer reads what it wrote with its own reader and compares: every
difference is named, per kind of thing, with the reason the format gives for it. A thread read
from the format and written back compares equal, so it warns about nothing."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Mapping
from difflib import SequenceMatcher
from typing import Any

import orjson

from threadlab.core.derive import iter_text
from threadlab.core.model import CORE_ACTION_TYPES, Thread

Key = tuple[Any, ...]
_THREAD_FIELDS = ("thread_id", "title", "parent_thread_id")
_AGENT_FIELDS = ("agent_id", "agent_identifier", "created_at", "config_ref", "metadata")
_SKIPPED = frozenset({"sequence", "agent_id", "metadata"})


def _json(value: Any) -> bytes:
    return orjson.dumps(value, option=orjson.OPT_SORT_KEYS, default=str)


def _key(action: Mapping[str, Any]) -> Key:
    """What makes an action the same action: kind, text, tool and data (not who, when, or how)."""
    return (
        action.get("action_type"),
        "".join(iter_text(action.get("content"))),
        action.get("tool_name"),
        action.get("tool_call_id"),
        action.get("status"),
        _json(action.get("args")) if "args" in action else None,
        _json(action.get("data")) if "data" in action else None,
    )


class _Tally:
    def __init__(self) -> None:
        self.counts: Counter[str] = Counter()

    def add(self, what: str, n: int = 1) -> None:
        self.counts[what] += n


def thread_losses(original: Thread, again: Thread, reasons: Mapping[str, str] | None = None) -> list[str]:
    """Phrases naming what of ``original`` is not in ``again`` (the written thread read back),
    each with the reason from ``reasons`` (keyed by the phrase's subject) when there is one."""
    before, after = original.to_dict(), again.to_dict()
    tally = _Tally()
    for name in _THREAD_FIELDS:
        if before.get(name) not in (None, "") and before.get(name) != after.get(name):
            tally.add(f"the thread's {name.replace('_', ' ')}")
    meta_before = {k: v for k, v in (before.get("metadata") or {}).items() if k != "synthetic_timestamps"}
    meta_after = after.get("metadata") or {}
    for key in sorted(k for k, v in meta_before.items() if meta_after.get(k) != v):
        tally.add(f"thread metadata {key!r}")
    _agents(before, after, tally)
    _actions(before, after, tally)
    reasons = reasons or {}
    out = []
    for subject, n in tally.counts.items():
        phrase = subject.format(n=n)
        reason = next((r for prefix, r in reasons.items() if subject.startswith(prefix)), None)
        out.append(f"{phrase} ({reason})" if reason else phrase)
    return out


def _names(doc: Mapping[str, Any]) -> dict[str, str]:
    return {agent_id: agent.get("agent_name") for agent_id, agent in (doc.get("agents") or {}).items()}


def _agents(before: Mapping[str, Any], after: Mapping[str, Any], tally: _Tally) -> None:
    by_name = {agent.get("agent_name"): agent for agent in (after.get("agents") or {}).values()}
    for agent in (before.get("agents") or {}).values():
        other = by_name.get(agent.get("agent_name"))
        if other is None:
            tally.add("{n} agent registrations")
            continue
        for name in _AGENT_FIELDS:
            if agent.get(name) is not None and agent.get(name) != other.get(name):
                tally.add(f"{{n}} agents' {name.replace('_', ' ')}")


def _actions(before: Mapping[str, Any], after: Mapping[str, Any], tally: _Tally) -> None:
    old, new = before.get("actions") or [], after.get("actions") or []
    old_keys, new_keys = [_key(a) for a in old], [_key(a) for a in new]
    pairs: list[tuple[int, int]] = []
    loose_old: list[int] = []
    loose_new: list[int] = []
    for tag, i1, i2, j1, j2 in SequenceMatcher(None, old_keys, new_keys, autojunk=False).get_opcodes():
        if tag == "equal":
            pairs.extend(zip(range(i1, i2), range(j1, j2), strict=True))
        else:
            loose_old.extend(range(i1, i2))
            loose_new.extend(range(j1, j2))
    waiting: dict[Key, list[int]] = {}
    for j in loose_new:
        waiting.setdefault(new_keys[j], []).append(j)
    moved = 0
    for i in loose_old:
        match = waiting.get(old_keys[i])
        if match:
            pairs.append((i, match.pop(0)))
            moved += 1
        else:
            tally.add(f"{{n}} {old[i].get('action_type')} actions")
    if moved:
        tally.add("the order of {n} actions", moved)
    for j in (j for js in waiting.values() for j in js):
        if new[j].get("action_type") in CORE_ACTION_TYPES:
            tally.add(f"{{n}} {new[j].get('action_type')} actions it had to add")
    old_names, new_names = _names(before), _names(after)
    made_up = (before.get("metadata") or {}).get("synthetic_timestamps") == len(old)  # no time was real
    skipped = _SKIPPED | {"timestamp"} if made_up else _SKIPPED
    for i, j in pairs:
        _fields(old[i], new[j], tally, skipped, lambda agent_id: old_names.get(agent_id, agent_id), lambda agent_id: new_names.get(agent_id, agent_id))


def _fields(
    a: Mapping[str, Any], b: Mapping[str, Any], tally: _Tally, skipped: frozenset[str], old_name: Callable[[Any], Any], new_name: Callable[[Any], Any]
) -> None:
    if a.get("agent_id") is not None and old_name(a["agent_id"]) != new_name(b.get("agent_id")):
        tally.add("the agent of {n} actions")
    for name, value in a.items():
        if name not in skipped and value is not None and value != b.get(name):
            tally.add(f"the {name.replace('_', ' ')} of {{n}} actions")
    meta_b = b.get("metadata") or {}
    for key, value in (a.get("metadata") or {}).items():
        if value != meta_b.get(key):
            tally.add(f"metadata {key!r} of {{n}} actions")
