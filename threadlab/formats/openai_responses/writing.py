"""A thread → OpenAI Responses items.

A thread read from this format goes back to its container exactly (a stream as the response it
ended with; a stream of several responses as a stream of those responses whole). Any other
thread is written as the JSON array of input items a ``client.responses.create(input=...)``
call takes, by the mapping Codex CLI and Agents SDK sessions share; items name no agent, hold no time and no tool status: what is lost is named
in a ``WriteLoss``."""

from __future__ import annotations

from collections import Counter
from typing import Any

import orjson

from threadlab.core.loss import nothing_to_write, report_loss
from threadlab.core.model import Thread
from threadlab.formats.common.providers.parts import part_losses
from threadlab.formats.common.providers.replay import unmatched_returns
from threadlab.formats.common.providers.writing import foreign_losses, history_of, loss_phrases, own_meta, rebuild_container
from threadlab.formats.common.responses.items import action_item, encode_part
from threadlab.formats.openai_responses.reading import AGENT, KEY, default_item, request_body, response_body

NAME = "openai-responses"


def _as_events(responses: list[Any]) -> list[tuple[str | None, Any]]:
    """A stream of whole responses: a ``response.created`` and a ``response.completed`` each."""
    out: list[tuple[str | None, Any]] = []
    for response in responses:
        out += [("response.created", {"type": "response.created", "response": {**response, "output": []}}),
                ("response.completed", {"type": "response.completed", "response": response})]
    return out


def write_responses(thread: Thread) -> bytes:
    if own_meta(thread, KEY) is not None:
        history, stray = history_of(thread, KEY, default_item)
        data, lost = rebuild_container(thread, KEY, history, request_body, response_body, "response", _as_events)
        if stray:
            lost.append(f"{stray} actions added after the thread was read (they belong to no item)")
        report_loss(NAME, thread.thread_id, lost)
        return data
    items: list[Any] = []
    lost: Counter[str] = foreign_losses(thread, [], None)
    lost.pop("actions of other agents (user-side text, or left out, in this agent's view)", None)
    for action in thread.actions:
        item = action_item(action, KEY, memo=False)
        if item is None:
            if not action.action_type.startswith("system."):
                lost[f"{action.action_type} actions"] += 1
            continue
        if action.action_type == "tool_return" and action.status != "success":  # type: ignore[attr-defined]
            lost["tool error statuses (an output item has none)"] += 1
        items.append(item)
    lost.update(part_losses(thread.actions, encode_part, "a Responses item"))
    orphans = unmatched_returns(list(thread.actions))
    if orphans:
        lost["tool names of returns without a call (an output item names only its call_id)"] += orphans
    if not items:
        raise nothing_to_write(NAME, thread)
    names = sorted({a.agent_name for a in thread.agents.values()} - {AGENT})
    if names:
        lost[f"agent names ({', '.join(names)}: items name no speaker)"] += 1
    report_loss(NAME, thread.thread_id, loss_phrases(lost))
    return orjson.dumps(items, option=orjson.OPT_INDENT_2) + b"\n"
