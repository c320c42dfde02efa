"""The OpenAI Agents SDK's reading of Responses items: who speaks, and how a tool failed.

Agents SDK items (``session.get_items()``, ``result.to_input_list()``, a ``SQLiteSession``'s rows,
agency-swarm's saved list) are Responses-API input items (``common/responses/items.py`` maps each one),
but the SDK gives them a meaning the API does not:

- **Handoffs.** A handoff is a tool call named ``transfer_to_<agent>`` whose output names the
  next agent: ``{"assistant": "Billing agent"}`` as JSON, or as a Python dict's repr (older
  SDKs), or inside the JS SDK's ``{"type": "text", "text": ...}``. It becomes a
  ``system.handoff`` action {from_agent_id, to_agent_id, tool_call_id} right after the output,
  and the model items after it are the new agent's.
- **Runs.** A user message starts a new run (``Runner.run(agent, input, session=...)``). Items
  do not say which agent the app started the run with: an app that keeps its conversation in a
  session usually starts every run at its entry agent, one that keeps ``result.last_agent``
  starts where the last run ended. The run's own items decide when they can: the tools its
  first agent calls before any handoff (a tool or handoff that, so far, only one agent has
  called names that agent); else the run starts at the entry agent, whose name the items do not
  keep (``START_AGENT``, or the name the caller gives).
- **Tool failures.** The SDK's default ``failure_error_function`` answers a failed tool with
  ``"An error occurred while running the tool. ..."``: such an output is an error return.

Items tagged with their agent (agency-swarm's ``agent``) are that agent's whatever the rules say;
handoffs between them are still shown.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import orjson

from threadlab.core.builder import ThreadBuilder
from threadlab.core.model import BaseAction
from threadlab.formats.common.responses.items import ItemReader, call_id_of, output_text

START_AGENT = "Agent"  # the entry agent of a session or item list: its name is in no item
HANDOFF_PREFIX = "transfer_to_"  # the Agents SDK's default handoff tool name
TOOL_ERROR = "An error occurred while running the tool."  # the SDK's default failure_error_function text
DERIVED = "derived"  # key, in the format's metadata, of an action the reader made (written back as no item)
_REPR_HANDOFF = re.compile(r"""^\{'assistant': ['"](.+)['"]\}$""")
_OUTPUT_SUFFIXES = ("_call_output", "_call_result")


def tool_status(output: Any) -> str:
    """``"error"`` for the SDK's failed-tool text, else ``"success"``."""
    return "error" if isinstance(output, str) and output.startswith(TOOL_ERROR) else "success"


def handoff_target(tool_name: Any, output: Any) -> str | None:
    """The agent a handoff's output names, for a ``transfer_to_*`` call, else None."""
    output = output_text(output)
    if not isinstance(tool_name, str) or not tool_name.startswith(HANDOFF_PREFIX) or not isinstance(output, str):
        return None
    try:
        value = orjson.loads(output)
        name = value.get("assistant") if isinstance(value, dict) else None
    except orjson.JSONDecodeError:
        match = _REPR_HANDOFF.match(output.strip())
        name = match.group(1) if match else None
    return name.strip() if isinstance(name, str) and name.strip() else None


def starts_run(item: Any) -> bool:
    """A user message: the input of a new ``Runner.run``."""
    return isinstance(item, Mapping) and item.get("role") == "user" and item.get("type", "message") == "message"


def _call_name(item: Mapping[str, Any]) -> str | None:
    kind = item.get("type")
    if isinstance(kind, str) and kind.endswith("_call"):
        return item["name"] if isinstance(item.get("name"), str) else kind.removesuffix("_call")
    return None


def speakers(items: Sequence[Any], start: str = START_AGENT, tagged: Callable[[Any], str | None] | None = None) -> list[str]:
    """The agent each item belongs to, by the rules of the module docstring (``tagged`` gives
    an item's own agent tag, which wins)."""
    names: list[str] = []
    current = start
    calls: dict[str, tuple[str, str]] = {}  # call id -> (tool name, calling agent)
    owners: dict[str, set[str]] = {}  # tool name -> the agents that called it so far
    for index, item in enumerate(items):
        if starts_run(item):
            current = _run_agent(items, index + 1, owners, start)
        own = tagged(item) if tagged is not None else None
        speaker = own or current
        names.append(speaker)
        if not isinstance(item, Mapping):
            continue
        name, call_id = _call_name(item), call_id_of(item)
        if name is not None and call_id is not None:
            calls[call_id] = (name, speaker)
            owners.setdefault(name, set()).add(speaker)
        elif call_id in calls and str(item.get("type", "")).endswith(_OUTPUT_SUFFIXES):
            target = handoff_target(calls[call_id][0], item.get("output"))
            if target is not None:
                current = target
    return names


def _run_agent(items: Sequence[Any], first: int, owners: dict[str, set[str]], start: str) -> str:
    """Who a run starts with: the only agent that has called a tool this run calls before its
    first handoff, else the entry agent."""
    for item in items[first:]:
        if not isinstance(item, Mapping):
            continue
        if starts_run(item):
            break
        name = _call_name(item)
        if name is not None and len(owners.get(name, ())) == 1:
            return next(iter(owners[name]))
        if name is not None and name.startswith(HANDOFF_PREFIX):
            break  # what follows the handoff is another agent's
    return start


class SdkItemReader:
    """Agents SDK items onto ``builder`` through the shared mapping, with handoffs: ``add``
    gives the actions of one item (None for an item type the mapping does not know) and appends
    a ``system.handoff`` after a handoff's output. ``key`` is the format's metadata key."""

    def __init__(self, builder: ThreadBuilder, key: str) -> None:
        self.b = builder
        self.key = key
        self.items = ItemReader(builder, key, status_of=tool_status)
        self.handoff_calls: dict[str, tuple[str, str]] = {}  # call id -> (tool name, calling agent id)
        self.created_at: Any = None

    def add(
        self, item: Mapping[str, Any], *, agent: str | None, timestamp: Any = None, meta: dict[str, Any] | None = None, created_at: Any = None,
        where: str = "", line: int | None = None,
    ) -> list[BaseAction] | None:
        """``agent``: who speaks (None: an item no agent produced); ``created_at``: when an
        agent first named here joins (its ``AgentConfig.created_at``); ``where`` and ``line``:
        where the item is, named in its problems."""
        self.created_at = created_at
        agent_id = self.b.agent(agent, created_at=created_at) if agent else None
        actions = self.items.add(item, agent_id=agent_id, timestamp=timestamp, meta=meta, where=where, line=line)  # type: ignore[arg-type]
        if actions is None:
            return None
        for action in list(actions):
            if action.action_type == "tool_call" and action.tool_name.startswith(HANDOFF_PREFIX) and agent_id is not None:  # type: ignore[attr-defined]
                self.handoff_calls[action.tool_call_id] = (action.tool_name, agent_id)  # type: ignore[attr-defined]
            elif action.action_type == "tool_return" and action.tool_call_id in self.handoff_calls:  # type: ignore[attr-defined]
                handoff = self._handoff(action, timestamp)
                if handoff is not None:
                    actions.append(handoff)
        return actions

    def _handoff(self, back: BaseAction, timestamp: Any) -> BaseAction | None:
        name, caller = self.handoff_calls[back.tool_call_id]  # type: ignore[attr-defined]
        target = handoff_target(name, back.content)  # type: ignore[attr-defined]
        if target is None:
            return None
        to_id = self.b.agent(target, created_at=self.created_at)
        data = {"from_agent_id": caller, "to_agent_id": to_id, "tool_call_id": back.tool_call_id}  # type: ignore[attr-defined]
        return self.b.add("system.handoff", timestamp=timestamp, data=data, metadata={self.key: {DERIVED: "handoff"}})


__all__ = ["DERIVED", "HANDOFF_PREFIX", "START_AGENT", "TOOL_ERROR", "SdkItemReader", "handoff_target", "speakers", "starts_run", "tool_status"]
