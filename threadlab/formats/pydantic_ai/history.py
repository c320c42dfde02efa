"""One agent's pydantic-ai history out of a thread (``to_pydantic_ai``, the format's
``from_thread``), and an honest list of what it could not hold.

Which agent: ``agent=`` when given; in a thread where several agents act and none is named,
the agent the conversation starts with (see ``selection``), and the warning names the others and
how to write theirs. Whatever the history cannot hold - other agents' actions, ThreadProtocol
system actions, the agent's name and registry, action ids and metadata of other formats,
timestamps a response has only one of, media a response cannot hold - is named in one
``WriteLoss``. Last, the history is read back and compared with the actions it was written from
(kind, text, tool, id, status, args): any difference the list above does not foresee is named too,
so a writer that changes something never does so quietly."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Any

import pydantic
from pydantic_ai import messages as pai

from threadlab.core.derive import iter_text
from threadlab.core.loss import nothing_to_write, report_loss
from threadlab.core.model import CORE_ACTION_TYPES, BaseAction, Thread
from threadlab.formats.pydantic_ai import _parts as P
from threadlab.formats.pydantic_ai.selection import acting_agents, agent_id_of, default_agent, own_actions, pai_meta
from threadlab.formats.pydantic_ai.writing import action_items, dump, grouped_messages

NAME = "pydantic-ai"
_AGENT_KEYS_WRITTEN = ("model_name",)
_AGENT_KEYS_NATIVE = ("model_name", "system_prompts", "instructions")
_ACTION_KEYS_WRITTEN = (P.KEY, "model_name", "provider_name")
_NONE = object()


@dataclass
class Written:
    thread_id: str
    messages: list[pai.ModelMessage]
    data: list[dict[str, Any]]  # their JSON, as ModelMessagesTypeAdapter dumps it
    missing: list[dict[int, list[str]]]
    lost: list[str]

    def json(self) -> bytes:
        return dump(self.data, self.missing)


def write(thread: Thread, agent: str | None = None) -> Written:
    """The history of ``agent`` (or of the agent the conversation starts with) and what it lost."""
    notes: list[str] = []
    agent_id = agent_id_of(thread, agent) if agent is not None else None
    acting = acting_agents(thread)
    if agent_id is None and len(acting) > 1:
        agent_id = default_agent(thread)
    actions, others = own_actions(thread, agent_id)
    if others and agent is None:  # named: the caller asked for that history, the others are not its
        names = ", ".join(f"{thread.agent_name(a) or a!r} ({n})" for a, n in others.items())
        picked = f"; wrote the history of {thread.agent_name(agent_id)!r}, the agent the conversation starts with"
        total = sum(others.values())
        notes.append(f"{total} action{'' if total == 1 else 's'} of other agents ({names}): a pydantic-ai history is one agent's; "
                     f"pass agent=... (--agent) to write another's{picked}")
    try:
        lost, messages, missing = _messages(thread, actions, check=False)
    except pydantic.ValidationError:  # some part pydantic-ai cannot take: check them one by one
        lost, messages, missing = _messages(thread, actions, check=True)
    notes += _thread_losses(thread, agent_id if agent_id is not None else (acting[0] if acting else None), actions, messages, named=agent is not None)
    notes += lost.phrases()
    data = pai.ModelMessagesTypeAdapter.dump_python(messages, mode="json")
    notes += _read_back(actions, data)
    return Written(thread.thread_id, messages, data, missing, notes)


def _messages(thread: Thread, actions: list[BaseAction], *, check: bool) -> tuple[P.Losses, list[pai.ModelMessage], list[dict[int, list[str]]]]:
    lost = P.Losses()
    items = action_items(actions, lost, check=check)
    for item in items:
        if item.action is not None:
            _action_losses(item.action, lost)
    messages, missing = grouped_messages(items, thread, lost, conversation_id=thread.thread_id)
    return lost, messages, missing


def _action_losses(action: BaseAction, lost: P.Losses) -> None:
    if action.action_id is not None:
        lost.add("action id{s}")
    rest = (pai_meta(action).get("rest") or [{}])[0]
    derived = P.authorship(rest.get("part_kind") if isinstance(rest, dict) else None)  # read again from the part written
    if action.action_type == "user_message" and not derived:  # a sub-agent's prompt: its delegating agent's when the
        derived = {"author": "agent"}  # histories are merged again (pydantic_ai/delegation.py), the person's alone
    foreign = sorted(k for k, v in (action.metadata or {}).items() if k not in _ACTION_KEYS_WRITTEN and derived.get(k, _NONE) != v)
    if foreign:
        lost.add("action{s} with metadata pydantic-ai has no field for", *foreign)
    extra = sorted(k for k in (action.model_extra or {}) if k != "usage")  # usage: written on the response
    if extra:
        lost.add("action{s} with fields beyond ThreadProtocol's", *extra)
    if getattr(action, "attachments", None):
        lost.add("user message{s} with attachments")


def _thread_losses(thread: Thread, agent_id: str | None, actions: list[BaseAction], messages: list[pai.ModelMessage], *,
                   named: bool) -> list[str]:
    """What of the thread and its agent the history cannot hold. When the caller named the agent,
    its name and the conversation's title are theirs to know: one agent's history holds neither."""
    out = []
    native = any("message" in pai_meta(a) for a in actions)
    config = thread.agents.get(agent_id) if agent_id is not None else None
    if config is not None:
        if config.agent_name != "assistant" and not named:
            out.append(f"the agent's name {config.agent_name!r} (a pydantic-ai history names no agent; it reads back as 'assistant')")
        keys = sorted(k for k in (config.metadata or {}) if k not in (_AGENT_KEYS_NATIVE if native else _AGENT_KEYS_WRITTEN))
        if keys:
            out.append(f"the agent's metadata ({', '.join(keys)})")
        if config.config_ref:
            out.append("the agent's config_ref")
    if thread.title and thread.title != _title(messages) and not named:
        out.append("the thread's title")
    keys = sorted(k for k in (thread.metadata or {}) if k != "synthetic_timestamps")
    if keys:
        out.append(f"the thread's metadata ({', '.join(keys)})")
    synthetic = (thread.metadata or {}).get("synthetic_timestamps")
    if synthetic and not native:
        out.append(f"{synthetic} synthesised timestamps (written as if they were real)")
    if thread.parent_thread_id:
        out.append("the thread's parent_thread_id")
    return out


def _title(messages: list[pai.ModelMessage]) -> str:
    """The title a reader gives the history (its first user prompt, cut to 80 characters)."""
    for message in messages:
        for part in message.parts:
            if isinstance(part, pai.UserPromptPart):
                content = part.content
                text = content if isinstance(content, str) else " ".join(c for c in content if isinstance(c, str))
                text = " ".join(text.split())
                return text if len(text) <= 80 else text[:79] + "…"
    return ""


def _projection(kind: str, fields: dict[str, Any]) -> tuple[Any, ...]:
    import orjson

    args = fields.get("args")
    return (kind, "".join(iter_text(fields.get("content"))), fields.get("tool_name"), fields.get("tool_call_id"),
            fields.get("status"), orjson.dumps(args, option=orjson.OPT_SORT_KEYS) if args is not None else None)


def _read_back(actions: list[BaseAction], data: list[dict[str, Any]]) -> list[str]:
    """Differences between the actions written and what the history reads back as."""
    from threadlab.formats.pydantic_ai.specs import history_specs
    from threadlab.formats.pydantic_ai.wire import Message

    specs = history_specs([Message.of_validated(m) for m in data], "assistant")
    want = [_projection(a.action_type, dict(a)) for a in actions if a.action_type in CORE_ACTION_TYPES]
    got = [_projection(s.action_type, s.fields) for s in specs if s.action_type in CORE_ACTION_TYPES]
    if want == got:
        return []
    if len(want) != len(got):
        return [f"the {len(want)} messages, thinking, tool calls and returns written read back as {len(got)} (parts merged or split)"]
    out = []
    missing = Counter(want) - Counter(got)
    if missing:
        first = next(w for w in want if w in missing)
        out.append(f"{sum(missing.values())} messages, thinking, tool calls or returns read back changed (first: {first[0]} {first[1][:40]!r})")
    else:
        moved = [w for w, g in zip(want, got, strict=True) if w != g]
        out.append(f"{len(moved)} messages, thinking, tool calls or returns read back in another order "
                   f"(tool results lead their request; first: {moved[0][0]} {moved[0][1][:40]!r})")
    return out


def to_pydantic_ai(thread: Thread, agent: str | None = None) -> list[pai.ModelMessage]:
    """The thread as a pydantic-ai message history (``list[ModelMessage]``).

    A single-agent history read with ``from_pydantic_ai`` comes back equal (same
    ``ModelMessagesTypeAdapter`` JSON). ``agent`` (id or name) picks whose history; in a thread
    where several agents act and none is named, the history of the agent the conversation starts
    with is written. For what an agent would see of the whole conversation use ``perspective``.
    Whatever the history cannot hold (other agents' actions, ``system.*`` actions other than
    pydantic-ai's own framework parts, the agent's name, ...) is named in a ``WriteLoss``
    warning."""
    written = write(thread, agent)
    report_loss(NAME, thread.thread_id, written.lost)
    return written.messages


def to_json(thread: Thread, agent: str | None = None) -> bytes:
    """``ModelMessagesTypeAdapter`` JSON of ``to_pydantic_ai`` (keys the history's own file did
    not have are left out again), warning as it does."""
    written = write(thread, agent)
    if not written.messages:
        raise nothing_to_write(NAME, thread)
    report_loss(NAME, thread.thread_id, written.lost)
    return written.json()


__all__ = ["to_json", "to_pydantic_ai", "write"]
