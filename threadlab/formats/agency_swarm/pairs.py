"""The seed's thread per communicating pair: split a chat into pair threads and merge them back."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from threadlab.core.model import Thread, ToolCall
from threadlab.core.timefmt import format_timestamp
from threadlab.formats.agency_swarm.common import META, USER, entry_agent


def pair_key(chat_id: str, participant: str, other: str | None = None) -> str:
    """The seed's thread key: ``chat_id__A__B`` with the two names sorted, or
    ``chat_id__A__USER`` for an agent talking with the user."""
    if other is None or other == USER:
        return f"{chat_id}__{participant}__{USER}"
    first, second = sorted([participant, other])
    return f"{chat_id}__{first}__{second}"


def _pair_of(thread: Thread, action: Any, owners: dict[str, str]) -> tuple[str, str | None]:
    """(agent name, other participant's name or None for the user) the action belongs to: the
    (agent, callerAgent) of its agency-swarm item, else its agent (a tool return: its caller's)
    with the user."""
    kept = (action.metadata or {}).get(META)
    if isinstance(kept, Mapping) and isinstance(kept.get("agent"), str):
        caller = kept.get("callerAgent")
        return kept["agent"], caller if isinstance(caller, str) else None
    agent_id = getattr(action, "agent_id", None)
    if agent_id is None and action.action_type == "tool_return":
        agent_id = owners.get(action.tool_call_id)
    if agent_id is None:
        agent_id = (action.metadata or {}).get("recipient_agent_id")
    name = thread.agent_name(agent_id) if agent_id else None
    return name or entry_agent(thread), None


def pair_threads(thread: Thread) -> dict[str, Thread]:
    """One thread per communicating pair, keyed as the seed's ThreadManager keys them
    (``chat_id__A__B`` sorted, ``chat_id__A__USER``); each holds only what that pair exchanged,
    in the chat's order. ``merge_pair_threads`` puts them back together."""
    owners = {a.tool_call_id: a.agent_id for a in thread.actions if isinstance(a, ToolCall)}
    chat_id = thread.thread_id
    grouped: dict[str, list[Any]] = {}
    members: dict[str, tuple[str, str | None]] = {}
    for action in thread.actions:
        agent, other = _pair_of(thread, action, owners)
        key = pair_key(chat_id, agent, other)
        grouped.setdefault(key, []).append(action)
        members[key] = (agent, other)
    ids_by_name = {a.agent_name: k for k, a in thread.agents.items()}
    out: dict[str, Thread] = {}
    for key, actions in grouped.items():
        agent, other = members[key]
        names = sorted([agent, other]) if other else [agent, USER]
        copies = []
        for number, action in enumerate(actions, 1):
            copy = action.model_copy(deep=True)
            copy.sequence = number
            copy.metadata = {**(copy.metadata or {}), "chat_sequence": action.sequence}
            copies.append(copy)
        used = {getattr(a, "agent_id", None) for a in copies} | {ids_by_name.get(n) for n in names}
        used |= {(a.metadata or {}).get(k) for a in copies for k in ("recipient_agent_id", "sender_agent_id")}
        pair = Thread(
            thread_id=key,
            parent_thread_id=chat_id,
            created_at=copies[0].timestamp,
            updated_at=max(a.timestamp for a in copies),
            title=f"{names[0]} ↔ {names[1]}",
            metadata={"chat_id": chat_id, "participants": names, "chat": _chat_header(thread)},
            agents={k: v.model_copy() for k, v in thread.agents.items() if k in used},
            actions=copies,
        )
        out[key] = pair
    return out


def _chat_header(thread: Thread) -> dict[str, Any]:
    header = {
        "title": thread.title,
        "metadata": thread.metadata,
        "created_at": format_timestamp(thread.created_at) if thread.created_at else None,
        "updated_at": format_timestamp(thread.updated_at) if thread.updated_at else None,
        "parent_thread_id": thread.parent_thread_id,
    }
    return {k: v for k, v in header.items() if v not in (None, "")}


def merge_pair_threads(threads: Iterable[Thread] | Mapping[str, Thread]) -> Thread:
    """The whole chat back from its pair threads: actions in the chat's order (their
    ``chat_sequence``; by time when a pair thread was made elsewhere), agents united."""
    pairs = list(threads.values()) if isinstance(threads, Mapping) else list(threads)
    if not pairs:
        raise ValueError("merge_pair_threads: no pair threads given")
    head = pairs[0]
    chat_id = (head.metadata or {}).get("chat_id") or head.parent_thread_id or head.thread_id.split("__")[0]
    header = (head.metadata or {}).get("chat") or {}
    tagged = [(a, p) for p, pair in enumerate(pairs) for a in pair.actions]
    exact = all(isinstance((a.metadata or {}).get("chat_sequence"), int) for a, _ in tagged)
    if exact:
        tagged.sort(key=lambda t: t[0].metadata["chat_sequence"])  # type: ignore[index]
    else:
        tagged.sort(key=lambda t: (t[0].timestamp, t[1], t[0].sequence))
    actions = []
    for number, (action, _) in enumerate(tagged, 1):
        copy = action.model_copy(deep=True)
        copy.sequence = number
        meta = {k: v for k, v in (copy.metadata or {}).items() if k != "chat_sequence"}
        copy.metadata = meta or None
        actions.append(copy)
    agents = {}
    for pair in pairs:
        for key, agent in pair.agents.items():
            agents.setdefault(key, agent.model_copy())
    ordered = dict(sorted(agents.items(), key=lambda kv: (kv[1].created_at, kv[0])))
    times = [a.timestamp for a in actions]
    return Thread(
        thread_id=chat_id,
        parent_thread_id=header.get("parent_thread_id"),
        created_at=header.get("created_at") or (min(times) if times else None),
        updated_at=header.get("updated_at") or (max(times) if times else None),
        title=header.get("title", ""),
        metadata=header.get("metadata"),
        agents=ordered,
        actions=actions,
    )
