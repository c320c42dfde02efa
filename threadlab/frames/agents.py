"""Per-agent tables derived from the five frames (no sixth stored frame): what each agent of
each thread cost and did (``agent_usage``), and who delegated to whom (``delegations``).

Delegation follows the metadata convention (docs/DEVELOPING.md, "Metadata conventions"):

- ``system.agent_join`` with data ``{agent_id, invited_by, tool_call_id?}``: ``invited_by``
  started ``agent_id``, through the tool call ``tool_call_id`` when there is one;
- ``system.handoff`` with data ``{from_agent_id, to_agent_id, tool_call_id?}`` (the older
  ``{from_agent, agent_id}`` that threadlab's own generated runs carry is read too);
- where neither is written, an agent that acts while another agent's tool call is still open
  was started by that call (``kind="inferred"``): a sub-agent run inside a delegate tool, an
  agency-swarm ``send_message``. A join without ``tool_call_id`` is linked to such a call too.

In the actions frame a system action carries its data as JSON in ``text``. A delegation lasts
until its tool call returns (or, without a call, until the agent is started again); the
agent's actions, tokens, cost and tool errors meanwhile are counted on it."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np
import orjson
import pandas as pd

if TYPE_CHECKING:
    from threadlab.frames.frames import Frames

KEYS = ["source", "thread_id", "agent_id"]
ERRORS = ("error", "validation_error")
DELEGATION_COLUMNS = ["source", "thread_id", "parent_agent_id", "parent_name", "child_agent_id", "child_name", "kind", "sequence",
                      "tool_call_id", "tool_name", "status", "latency_s", "args", "result", "child_actions", "child_tokens",
                      "child_cost_usd", "child_tool_errors"]


def _keyed(frame: pd.DataFrame, columns: list[str], *, no_source: Any = None) -> pd.DataFrame:
    """Key columns as plain objects, missing as None (a missing source as ``no_source``)."""
    out = frame[columns].copy()
    for c in ("source", "thread_id", "agent_id"):
        if c in out:
            out[c] = out[c].astype(object).where(out[c].notna(), no_source if c == "source" else None)
    return out


def agent_usage(frames: Frames) -> pd.DataFrame:
    """One row per agent per thread: actions, messages, tool calls, tool errors, tokens, cost
    and tool latency (total and mean), and how long the agent was active (first to last action)."""
    acts = _keyed(frames.actions, ["source", "thread_id", "agent_id", "agent_name", "action_type", "role", "timestamp"])
    acts = acts[(frames.actions["role"].astype(object) == "agent").to_numpy() & acts["agent_id"].notna().to_numpy()]
    kind = acts["action_type"].astype(object)
    acts = acts.assign(message=(kind == "assistant_message").to_numpy(), call=(kind == "tool_call").to_numpy())
    by = acts.groupby(KEYS, sort=False, dropna=False)
    table = by.agg(agent_name=("agent_name", "first"), n_actions=("action_type", "size"), n_messages=("message", "sum"),
                   first_action_at=("timestamp", "min"), last_action_at=("timestamp", "max"))
    table["active_s"] = (table["last_action_at"] - table["first_action_at"]).dt.total_seconds()
    calls = _keyed(frames.tool_calls, ["source", "thread_id", "agent_id", "status", "latency_s"])
    calls = calls[calls["agent_id"].notna().to_numpy()]
    calls = calls.assign(error=calls["status"].astype(object).isin(ERRORS).to_numpy())
    per_call = calls.groupby(KEYS, sort=False, dropna=False).agg(
        n_tool_calls=("status", "size"), n_tool_errors=("error", "sum"),
        tool_latency_s=("latency_s", lambda s: s.sum(min_count=1)), mean_tool_latency_s=("latency_s", "mean"))
    tokens = ["input_tokens", "output_tokens", "thinking_tokens", "cache_read_tokens", "cache_write_tokens", "total_tokens"]
    usage = _keyed(frames.usage, ["source", "thread_id", "agent_id", *tokens, "cost_usd"])
    usage = usage[usage["agent_id"].notna().to_numpy()]
    per_usage = usage.groupby(KEYS, sort=False, dropna=False).agg(
        n_model_calls=("cost_usd", "size"), **{t: (t, "sum") for t in tokens}, cost_usd=("cost_usd", lambda s: s.sum(min_count=1)))
    out = table.join(per_call, how="left").join(per_usage, how="left").reset_index()
    for c in ("n_messages", "n_tool_calls", "n_tool_errors", "n_model_calls", *tokens):
        out[c] = out[c].fillna(0).astype("Int64")
    columns = ["source", "thread_id", "agent_id", "agent_name", "n_actions", "n_messages", "n_model_calls", "n_tool_calls", "n_tool_errors",
               *tokens, "cost_usd", "tool_latency_s", "mean_tool_latency_s", "first_action_at", "last_action_at", "active_s"]
    return out[columns]


@dataclass
class _Delegation:
    parent: Any
    child: Any
    kind: str
    sequence: int
    call_id: Any = None
    open: bool = True
    actions: int = 0
    tokens: float = 0.0
    cost: float = float("nan")
    errors: int = 0
    sequences: list[int] = field(default_factory=list)


def _data(text: Any) -> dict[str, Any]:
    try:
        value = orjson.loads(text) if isinstance(text, str) else None
    except orjson.JSONDecodeError:
        return {}
    return value if isinstance(value, dict) else {}


def _thread_delegations(rows: pd.DataFrame) -> list[_Delegation]:
    """Walk one thread's actions in order (see the module docstring)."""
    out: list[_Delegation] = []
    active: dict[Any, _Delegation] = {}  # child agent -> its current delegation
    open_calls: dict[Any, Any] = {}  # tool_call_id -> calling agent, in the order opened
    by_call: dict[Any, _Delegation] = {}
    explicit: set[Any] = set()  # agents a join or handoff started: never inferred from other calls
    for seq, kind, role, agent, call_id, text in zip(rows["sequence"], rows["action_type"], rows["role"], rows["agent_id"],
                                                     rows["tool_call_id"], rows["text"], strict=True):
        if kind == "system.agent_join" or kind == "system.handoff":
            data = _data(text)
            if kind == "system.agent_join":
                parent, child = data.get("invited_by"), data.get("agent_id")
            else:
                parent = data.get("from_agent_id", data.get("from_agent"))
                child = data.get("to_agent_id", data.get("agent_id"))
            if isinstance(parent, str) and isinstance(child, str) and parent != child:
                item = _Delegation(parent, child, kind.removeprefix("system."), int(seq), data.get("tool_call_id"))
                out.append(item)
                active[child] = item
                explicit.add(child)
                if item.call_id:
                    by_call[item.call_id] = item
            continue
        if kind == "tool_return":
            open_calls.pop(call_id, None)
            item = by_call.get(call_id)
            if item is not None:
                item.open = False
            continue
        if role != "agent" or agent is None:
            continue
        current = active.get(agent)
        restarted = agent not in explicit and (current is None or not current.open)
        unlinked = current is not None and current.call_id is None and current.kind == "agent_join" and current.actions == 0
        if restarted or unlinked:
            caller = next(((cid, who) for cid, who in reversed(open_calls.items()) if who != agent and cid not in by_call), None)
            if caller is not None:
                if unlinked:
                    if current.parent == caller[1]:
                        current.call_id = caller[0]  # the join named no call: the parent's open call started the agent
                else:
                    current = _Delegation(caller[1], agent, "inferred", int(seq), caller[0])
                    out.append(current)
                    active[agent] = current
                by_call[caller[0]] = current
        if current is not None:
            current.actions += 1
            current.sequences.append(int(seq))
        if kind == "tool_call" and call_id is not None:
            open_calls[call_id] = agent
    return out


def delegations(frames: Frames) -> pd.DataFrame:
    """One row per delegation: parent and child agent, how (agent_join, handoff, inferred), the
    tool call that started it with its status, latency, args and result, and what the child did
    meanwhile (actions, tokens, cost, tool errors)."""
    acts = frames.actions
    cols = _keyed(acts, ["source", "thread_id", "sequence", "action_type", "role", "agent_id", "tool_call_id", "text"], no_source="")
    for c in ("action_type", "role", "tool_call_id"):
        cols[c] = cols[c].astype(object).where(cols[c].notna(), None)
    names = dict(zip(cols["agent_id"], acts["agent_name"].astype(object), strict=True))
    kinds = cols["action_type"]
    special = kinds.isin(["system.agent_join", "system.handoff"]).to_numpy()
    agents_per_thread = cols[cols["role"].to_numpy() == "agent"].groupby(["source", "thread_id"], dropna=False)["agent_id"].nunique()
    multi = set(agents_per_thread[agents_per_thread > 1].index) | set(map(tuple, cols.loc[special, ["source", "thread_id"]].to_numpy().tolist()))
    rows: list[dict[str, Any]] = []
    if multi:
        calls = _keyed(frames.tool_calls, ["source", "thread_id", "tool_call_id", "tool_name", "status", "latency_s", "args", "result"], no_source="")
        call_info = {(s, t, c): (n, st, lat, a, r) for s, t, c, n, st, lat, a, r in calls.itertuples(index=False)}
        usage = _keyed(frames.usage, ["source", "thread_id", "sequence", "total_tokens", "cost_usd"], no_source="")
        spent = {(s, t, int(q)): (0 if pd.isna(tok) else float(tok), float("nan") if pd.isna(c) else float(c))
                 for s, t, q, tok, c in usage.itertuples(index=False)}
        tc = _keyed(frames.tool_calls, ["source", "thread_id", "call_sequence", "status"], no_source="")
        failed = {(s, t, int(q)) for s, t, q, st in tc.itertuples(index=False) if st in ERRORS and not pd.isna(q)}
        wanted = cols[[k in multi for k in zip(cols["source"], cols["thread_id"], strict=True)]]
        for (source, tid), thread_rows in wanted.groupby(["source", "thread_id"], sort=False):
            for item in _thread_delegations(thread_rows.sort_values("sequence", kind="stable")):
                costs = [spent[(source, tid, q)] for q in item.sequences if (source, tid, q) in spent]
                info = call_info.get((source, tid, item.call_id), (None, None, np.nan, None, None))
                rows.append({"source": source or None, "thread_id": tid, "parent_agent_id": item.parent, "parent_name": names.get(item.parent, item.parent),
                             "child_agent_id": item.child, "child_name": names.get(item.child, item.child), "kind": item.kind,
                             "sequence": item.sequence, "tool_call_id": item.call_id, "tool_name": info[0], "status": info[1],
                             "latency_s": info[2], "args": info[3], "result": info[4], "child_actions": item.actions,
                             "child_tokens": sum(c[0] for c in costs), "child_cost_usd": sum(c[1] for c in costs) if costs else np.nan,
                             "child_tool_errors": sum((source, tid, q) in failed for q in item.sequences)})
    return pd.DataFrame(rows, columns=DELEGATION_COLUMNS)


__all__ = ["DELEGATION_COLUMNS", "agent_usage", "delegations"]
