"""A thread → an Agents SDK session: a ``SQLiteSession`` database (one session), JSON Lines of
its items, or a JSON array of them.

``container="sqlite"`` gives a database the SDK opens as it is (``SQLiteSession(thread_id,
path)``), so a thread from any format can be continued with the Agents SDK;
``container="jsonl"`` gives the items one a line, ``"array"`` the JSON array ``get_items()``
returns (what ``Runner.run(agent, input=...)`` takes back). By default a thread goes back to the
container it came from (a database for threads of other formats). Items hold no agent names (the
handoffs give them back), no times (the database keeps seconds) and no tool statuses: what is
lost is named in a ``WriteLoss``."""

from __future__ import annotations

import json
from collections import Counter
from typing import Any

from threadlab.core.loss import nothing_to_write, report_loss
from threadlab.core.model import BaseAction, Thread
from threadlab.formats.common.providers.parts import part_losses
from threadlab.formats.common.responses.agents_sdk import DERIVED, START_AGENT
from threadlab.formats.common.responses.items import action_item, encode_part, return_name_lost
from threadlab.formats.openai_agents_session.reading import KEY, sqlite_time
from threadlab.formats.openai_agents_session.store import database_bytes

NAME = "openai-agents-session"
CONTAINERS = ("sqlite", "jsonl", "array")


def write_session(thread: Thread, container: str | None = None) -> bytes:
    meta = (thread.metadata or {}).get(KEY) or {}
    native = bool(meta.get("container"))
    chosen = container or meta.get("container") or "sqlite"
    if chosen not in CONTAINERS:
        raise ValueError(f"container must be one of {', '.join(CONTAINERS)}, not {chosen!r}")
    synthetic = (thread.metadata or {}).get("synthetic_timestamps") == len(thread.actions)  # no real time to lose
    lost: Counter[str] = Counter()
    rows: list[tuple[Any, str, Any]] = []
    calls = {a.tool_call_id for a in thread.actions if a.action_type == "tool_call"}  # type: ignore[attr-defined]
    for action in thread.actions:
        memo = _memo(action)
        if memo.get(DERIVED) or memo.get("hosted_result"):
            continue
        item = action_item(action, KEY)
        if item is None:
            if action.action_type == "system.unknown_item":
                item = action.data  # type: ignore[attr-defined]
            else:
                lost[f"{action.action_type} actions"] += 1
                continue
        if not native:
            lost.update(part_losses([action], encode_part, "a Responses item"))
        if not native and action.action_type == "tool_return" and getattr(action, "status", "success") != "success":
            lost["tool error statuses"] += 1
        if return_name_lost(action, item, calls):
            lost["tool names of returns whose call is not in the thread (an output item names no tool)"] += 1
        stamp = memo.get("created_at") or (sqlite_time(action.timestamp) if chosen == "sqlite" else None)
        if chosen == "sqlite" and "created_at" not in memo and action.timestamp.microsecond and not synthetic:
            lost["sub-second timestamps"] += 1
        rows.append((memo.get("row"), json.dumps(item), stamp))
    if not rows:
        raise nothing_to_write(NAME, thread)
    if not native:
        names = sorted({a.agent_name for a in thread.agents.values()} - {START_AGENT})
        if names:
            lost[f"agent names ({', '.join(names)}: session items do not say who spoke; only handoffs do)"] += 1
    if chosen != "sqlite" and meta.get("container") not in ("jsonl", "array") and thread.actions and not synthetic:
        lost["timestamps (items hold none)"] += 1
    report_loss(NAME, thread.thread_id, [f"{n} {what}" if n > 1 else what for what, n in sorted(lost.items())])
    if chosen == "jsonl":
        return "".join(data + "\n" for _, data, _ in rows).encode()
    if chosen == "array":
        return ("[\n" + ",\n".join(data for _, data, _ in rows) + "\n]\n").encode() if rows else b"[]\n"
    return database_bytes(meta.get("session_id") or thread.thread_id, rows, meta.get("created_at"), meta.get("updated_at"))


def _memo(action: BaseAction) -> dict[str, Any]:
    value = (action.metadata or {}).get(KEY)
    return value if isinstance(value, dict) else {}
