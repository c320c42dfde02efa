"""agency-swarm's saved list → one multi-agent Thread (see the package docstring).

Every item ends in the thread's account: converted into an action (``took``), kept as a
``system.unknown_item`` with an ``unknown-type`` problem (``kept``), or only a problem (``failed``:
an item that is not an object, a JSON Lines line that is not JSON). Items become actions through
the Responses mapping every reader shares, with the Agents SDK's handoffs
(``responses.agents_sdk.SdkItemReader``); agency-swarm's own tags (``agent``, ``callerAgent``) say
who speaks and who called whom (a user-role message whose ``callerAgent`` is an agent is that
agent's ``send_message``: ``metadata.author`` ``agent``, not a person's prompt). Two kinds of action are made by the reader and written back as
nothing: a delegation's ``system.agent_join`` (agency-swarm's ``send_message``) and a handoff's
``system.handoff`` (the Agents SDK's ``transfer_to_*``)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

import orjson

from threadlab.core.authors import AUTHOR_KEY
from threadlab.core.builder import ThreadBuilder
from threadlab.core.canonical import json_bytes
from threadlab.core.model import BaseAction, Thread
from threadlab.formats.agency_swarm.common import DERIVED, META, SEND_MESSAGE, TAGS, is_model_output, items_of, micros, time_of
from threadlab.formats.agency_swarm.container import body_of
from threadlab.formats.agency_swarm.order import causal_order, monotonic_times
from threadlab.formats.agency_swarm.usage import Response, apply_usage
from threadlab.formats.common.json_lines import TORN_REASONS
from threadlab.formats.common.responses.agents_sdk import START_AGENT, SdkItemReader, speakers


def from_agency_swarm(
    items: Any,
    *,
    chat_id: str | None = None,
    usage: Mapping[str, Any] | None = None,
    title: str = "",
    source: str | None = None,
    agent: str = START_AGENT,
    lines: list[int | None] | None = None,
    broken: Iterable[tuple[int, str]] = (),
    body: dict[str, Any] | None = None,
) -> Thread:
    """One multi-agent thread from agency-swarm's flat saved list (what ``save_threads_callback``
    receives), re-nested in causal order. An item without an ``agent`` tag is spoken by whoever
    the Agents SDK's rules say (``agent``, the entry agent, until a handoff names another).

    ``usage``: the run's usage as agency-swarm reports it (``extract_usage_from_run_result()``,
    or the FastAPI response's ``usage``); its ``request_usage_entries`` are put on the model
    responses in causal order when their count matches, and the totals go on the thread's
    ``metadata["usage"]``. Items that carry a ``usage`` of their own keep it. ``lines`` /
    ``broken``: where each item was on its JSON Lines line, and the lines that were not JSON."""
    if isinstance(items, Mapping):
        found = items_of(items)
        if found is None:
            raise ValueError("from_agency_swarm: expected the saved list, or a dict with 'new_messages'/'chat_history' items")
        usage = usage if usage is not None else items.get("usage")
        body = body_of(items, found)
        items = found
    items = list(items)
    builder = ThreadBuilder(chat_id or _default_chat_id(items), title=title, source=source)
    for line, message in broken:
        builder.failed("truncated" if any(reason in message for reason in TORN_REASONS) else "json", message, line=line)
    starts: dict[int, int] = {}
    order = causal_order(items, builder, starts)
    times = monotonic_times(items, order)
    names = speakers([items[i] for i in order], agent, tagged=_tag)
    reader = SdkItemReader(builder, META)
    responses: list[Response] = []
    last_kind: dict[tuple[Any, Any], str] = {}
    retimed = 0
    run = 0  # a top-level user message starts a new run (one get_response call)
    for position, index in enumerate(order):
        item = items[index]
        line = lines[index] if lines is not None and index < len(lines) else None
        if not isinstance(item, Mapping):
            builder.failed("schema", f"item #{index + 1} is {type(item).__name__}, not an object; skipped", line=line)
            continue
        if index in starts:
            _join(builder, items, index, starts[index], times[index])
        action = _read_item(builder, reader, item, index, names[position], times[index], line)
        if times[index] != item.get("timestamp"):
            retimed += 1
        if action.action_type == "system.unknown_item":  # in no model response
            continue
        block = (_key(item.get("agent")), _key(item.get("parent_run_id")))
        kind = "model" if is_model_output(item) else "input"
        if kind == "input" and item.get("role") == "user" and item.get("callerAgent") is None:
            run += 1
        if kind == "model":
            if last_kind.get(block) != "model":
                responses.append(Response(top=item.get("parent_run_id") is None, run=run))
            responses[-1].actions.append(action)
            if responses[-1].usage is None and isinstance(item.get("usage"), Mapping):
                responses[-1].usage, responses[-1].where, responses[-1].line = item["usage"], f"item #{index + 1}", line
        last_kind[block] = kind
    kept: dict[str, Any] = {}
    if retimed:  # saved stamps pulled back so time runs forward in causal order
        kept["retimed_items"] = retimed
    if body is not None:  # the FastAPI body the list came in, written back around it
        kept["body"] = body
    if kept:
        builder.metadata[META] = kept
    apply_usage(builder, responses, usage)
    return builder.build()


def _key(value: Any) -> Any:
    """A value as a dict key: itself, or its JSON text when it is a list or an object."""
    return json_bytes(value, option=orjson.OPT_SORT_KEYS) if isinstance(value, list | dict) else value


def _tag(item: Any) -> str | None:
    """An item's own agent (agency-swarm's ``agent`` tag)."""
    name = item.get("agent") if isinstance(item, Mapping) else None
    return name if isinstance(name, str) and name else None


def _read_item(b: ThreadBuilder, reader: SdkItemReader, item: Mapping[str, Any], index: int, speaker: str, stamp: Any, line: int | None) -> BaseAction:
    """One saved item's actions (through the shared mapping), with agency-swarm's tags kept
    under ``META`` beside the mapping's memo; returns the item's own action."""
    try:
        when = micros(stamp)
    except ValueError as exc:
        b.problem("schema", f"item #{index + 1}: {exc}; its time is made up (kept as it came)", line=line)
        when = None
    born = time_of(item.get("timestamp"))
    agent = speaker if "agent" not in item else _tag(item)
    if agent is None and is_model_output(item):
        b.kept("agent-ref", f"item #{index + 1} ({item.get('type', 'message')}) has no agent name; kept as system.unknown_item", line=line)
        return b.add("system.unknown_item", timestamp=when, data=dict(item), metadata={META: {"index": index}})
    meta: dict[str, Any] = {META: {**{k: item[k] for k in TAGS if k in item}, "index": index}}
    parent = item.get("parent_run_id")
    if isinstance(parent, str) and parent in reader.items.calls:
        meta["parent_tool_call_id"] = parent
    if item.get("type", "message") == "message" and item.get("role") == "user":
        caller = _tag({"agent": item.get("callerAgent")})
        meta["recipient_agent_id"] = b.agent(agent, created_at=born) if agent else None
        meta["sender_agent_id"] = b.agent(caller, created_at=born) if caller else None
        meta[AUTHOR_KEY] = "agent" if caller else None  # another agent's send_message, in the user's role: no person wrote it
        meta = {k: v for k, v in meta.items() if v is not None}
    base = {k: v for k, v in item.items() if k not in TAGS}
    actions = reader.add(base, agent=agent, timestamp=when, meta=meta, created_at=born, where=f"item #{index + 1}", line=line)
    if actions is None:
        b.kept("unknown-type", f"item #{index + 1} is of type {item.get('type')!r} (role {item.get('role')!r}), which threadlab does not map; kept as system.unknown_item", line=line)
        return b.add("system.unknown_item", timestamp=when, data=dict(item), metadata={META: {"index": index}})
    b.took()
    for action in actions:
        args = getattr(action, "args", None)
        if getattr(action, "tool_name", None) == SEND_MESSAGE and action.action_type == "tool_call" and isinstance(args, Mapping) and isinstance(args.get("recipient_agent"), str):
            action.metadata = {**(action.metadata or {}), "recipient_agent_id": b.agent(args["recipient_agent"], created_at=born)}
        if action.action_type == "system.handoff":  # the pair it belongs to (pair_threads)
            data = action.data  # type: ignore[attr-defined]
            names = {"agent": b.agents[data["to_agent_id"]].agent_name, "callerAgent": b.agents[data["from_agent_id"]].agent_name}
            action.metadata = {META: {DERIVED: "handoff", **names}}
    return actions[0]


def _join(builder: ThreadBuilder, items: list[Any], index: int, call_index: int, stamp: Any) -> BaseAction | None:
    """A delegation: the recipient of a ``send_message`` call joins right before it first acts
    for that call (``system.agent_join`` {agent_id, invited_by, tool_call_id})."""
    item, call = items[index], items[call_index]
    recipient, caller = item.get("agent"), call.get("agent") if isinstance(call, Mapping) else None
    if not isinstance(recipient, str) or not recipient or not isinstance(caller, str) or not caller:
        return None
    agent_id = builder.agent(recipient, created_at=time_of(item.get("timestamp")))
    invited_by = builder.agent(caller)
    data = {"agent_id": agent_id, "invited_by": invited_by, "tool_call_id": item.get("parent_run_id")}
    if call.get("name") != SEND_MESSAGE:
        data["tool_name"] = call.get("name")
    # the pair this join belongs to (pair_threads), and the mark that no item is written for it
    meta = {META: {"agent": recipient, "callerAgent": caller, DERIVED: "delegation"}}
    return builder.add("system.agent_join", timestamp=time_of(stamp), data=data, metadata=meta)


def _default_chat_id(items: list[Any]) -> str:
    for item in items:
        if isinstance(item, Mapping) and isinstance(item.get("run_trace_id"), str) and item["run_trace_id"].startswith("trace_"):
            return "chat_" + item["run_trace_id"].removeprefix("trace_")
    for item in items:
        if isinstance(item, Mapping) and isinstance(item.get("agent_run_id"), str):
            return "chat_" + item["agent_run_id"].removeprefix("agent_run_")
    return "agency_swarm_chat"
