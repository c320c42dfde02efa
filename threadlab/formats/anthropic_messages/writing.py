"""A thread → Anthropic Messages.

A thread read from this format goes back to its container exactly (a stream as the Message it
assembled into; a stream of several messages as a stream of those messages whole). Any other thread, or ``agent=`` given, is replayed from one agent's view
(``formats/common/providers/replay.py``) as the parameters a ``client.messages.create`` call takes besides the
model and ``max_tokens``: ``{"system": ..., "messages": [...]}``. User-side items (the user's
messages, tool results, other agents' turns as text) and the agent's own items are merged into
alternating ``user`` / ``assistant`` messages of blocks; tool errors keep ``is_error``; the
agent's Anthropic thinking keeps its signature. What the request cannot hold (agent names,
thinking of other providers, non-text tool results, times, usage) is named in a
``WriteLoss``."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from itertools import pairwise
from typing import Any

import orjson

from threadlab.core.loss import report_loss
from threadlab.core.model import Thread
from threadlab.formats.anthropic_messages.codec import (
    AGENT,
    KEY,
    PROVIDER,
    SYSTEM,
    USER_SIDE,
    action_blocks,
    default_message,
    encode_part,
    media_block,
)
from threadlab.formats.common.providers.parts import as_part, is_media, part_losses
from threadlab.formats.common.providers.replay import OthersPolicy, Said, resolve_agent, view
from threadlab.formats.common.providers.writing import foreign_losses, loss_phrases, write_own_or_replay

NAME = "anthropic-messages"


def _request(rest: Any, messages: list[Any]) -> Any:
    body = dict(rest)
    if messages and isinstance(messages[0], Mapping) and messages[0].get("role") == SYSTEM:
        body[SYSTEM] = messages[0].get("content")
        messages = messages[1:]
    body["messages"] = messages
    return body


def _response(rest: Any, messages: list[Any]) -> Any:
    content = messages[0].get("content") if messages and isinstance(messages[0], Mapping) else None
    return {**rest, "content": content}


def to_anthropic_messages(thread: Thread, agent: str | None = None, *, others: OthersPolicy = "summarize", prefix: str = "{agent:Name}: ") -> dict[str, Any]:
    """``{"system": ..., "messages": [...]}`` from ``agent``'s view of ``thread`` (its id or
    name; a thread of one agent needs none): ``client.messages.create(model=...,
    max_tokens=..., **to_anthropic_messages(thread, agent="Researcher"))``. ``system`` is left
    out when the thread has no system prompt. What the request cannot hold is named in a
    ``WriteLoss`` warning."""
    params, lost = _replay(thread, agent, others, prefix)
    report_loss(NAME, thread.thread_id, loss_phrases(lost))
    return params


def _replay(thread: Thread, agent: str | None, others: OthersPolicy, prefix: str) -> tuple[dict[str, Any], Counter[str]]:
    agent_id = resolve_agent(thread, agent, NAME)
    picked = view(thread, agent_id, others, prefix)
    lost = foreign_losses(thread, picked, agent_id)
    system: list[str] = []
    messages: list[dict[str, Any]] = []

    items: list[tuple[str, list[Any]]] = []

    def add(role: str, blocks: list[Any]) -> None:
        items.append((role, blocks))

    for item in picked:
        if isinstance(item, Said):
            add("user", [{"type": "text", "text": item.text}])
            continue
        kind = item.action_type
        if kind == "system.message":
            content = item.data.get("content") if isinstance(item.data, Mapping) else item.data  # type: ignore[attr-defined]
            system.append(content if isinstance(content, str) else orjson.dumps(content).decode())
            continue
        if kind == "thinking" and (item.provider_name != PROVIDER or not item.signature):  # type: ignore[attr-defined]
            lost["thinking blocks without an Anthropic signature (the API refuses them)"] += 1
            continue
        if kind == "tool_return" and not isinstance(item.content, str | list):  # type: ignore[attr-defined]
            lost["tool results that are not text (written as JSON text)"] += 1
        add("user" if kind in USER_SIDE else "assistant", action_blocks(item))
    lost.update(part_losses(picked, encode_part, "an Anthropic message"))
    named = sum(1 for a in picked for p in _parts(a) if is_media(p) and p.get("identifier") is not None and media_block(p) is not None)
    if named:
        lost["file names of media parts (an image or document block names no file)"] += named
    names = sorted({thread.agent_name(getattr(a, "agent_id", None)) or "" for a in picked if not isinstance(a, Said) and getattr(a, "agent_id", None)} - {AGENT, ""})
    if names:
        lost[f"agent names ({', '.join(names)}: Anthropic messages name no speaker)"] += 1
    joined = sum(1 for before, after in pairwise(picked) if _is_text_turn(before) and _is_text_turn(after))
    if joined:  # e.g. a harness's context right before the person's prompt, or two prompts in a row
        lost["user messages joined with the one before into one turn (Anthropic turns alternate)"] += joined
    for role, blocks in _turns(results_after_uses(_turns(items))):  # alternating turns of blocks
        messages.append({"role": role, "content": blocks})
    for message in messages:  # the API wants a user turn's tool results before its text
        if message["role"] == "user":
            message["content"].sort(key=lambda block: block.get("type") != "tool_result" if isinstance(block, Mapping) else True)
    params: dict[str, Any] = {"messages": messages}
    if system:
        params = {SYSTEM: "\n\n".join(system), **params}
        if len(system) > 1:
            lost["system prompts as separate messages (joined into one system parameter)"] += 1
    return params, lost


def _parts(item: Any) -> list[Any]:
    content = getattr(item, "content", None) if not isinstance(item, Said) else None
    return [as_part(p) for p in content] if isinstance(content, list) else []


def _is_text_turn(item: Any) -> bool:
    """A user message, or another agent's turn said as user text."""
    return isinstance(item, Said) or getattr(item, "action_type", None) == "user_message"


def _turns(items: list[tuple[str, list[Any]]]) -> list[tuple[str, list[Any]]]:
    """Consecutive items of one role as one turn."""
    out: list[tuple[str, list[Any]]] = []
    for role, blocks in items:
        if out and out[-1][0] == role:
            out[-1] = (role, [*out[-1][1], *blocks])
        else:
            out.append((role, list(blocks)))
    return out


def results_after_uses(items: list[tuple[str, list[Any]]]) -> list[tuple[str, list[Any]]]:
    """Each tool result moved up to follow the assistant turn that used the tool (the API
    refuses a ``tool_result`` anywhere else; what others said meanwhile comes after)."""
    out: list[tuple[str, list[Any]]] = []
    taken: set[int] = set()
    for i, (role, blocks) in enumerate(items):
        if i in taken:
            continue
        if role == "user" and any(isinstance(b, Mapping) and b.get("type") == "tool_result" for b in blocks):  # no tool_use before it
            blocks = [{"type": "text", "text": f"[tool result {b.get('tool_use_id')}: {b.get('content')}]"} if isinstance(b, Mapping) and b.get("type") == "tool_result" else b for b in blocks]
        out.append((role, blocks))
        ids = {b.get("id") for b in blocks if isinstance(b, Mapping) and b.get("type") == "tool_use"} if role == "assistant" else set()
        following = range(i + 1, len(items)) if ids else range(0)
        for j in following:
            later = items[j][1]
            if items[j][0] == "user" and later and all(isinstance(b, Mapping) and b.get("type") == "tool_result" and b.get("tool_use_id") in ids for b in later) and j not in taken:
                out.append(items[j])
                taken.add(j)
    return out


def _as_events(messages: list[Any]) -> list[tuple[str | None, Any]]:
    """A stream of whole messages: each a ``message_start`` carrying its content, and its stop."""
    out: list[tuple[str | None, Any]] = []
    for message in messages:
        out += [("message_start", {"type": "message_start", "message": message}), ("message_stop", {"type": "message_stop"})]
    return out


def write_anthropic(thread: Thread, agent: str | None = None) -> bytes:
    return write_own_or_replay(thread, KEY, NAME, agent, default_message, _request, _response, "Message",
                               lambda: _replay(thread, agent, "summarize", "{agent:Name}: "), _as_events)
