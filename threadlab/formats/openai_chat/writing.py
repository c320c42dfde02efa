"""A thread → OpenAI Chat Completions messages.

A thread read from this format goes back to its container exactly (the list, request,
response, pair, exchanges or JSON Lines it came from; a stream as the completion it assembled
into). Any other thread, or ``agent=`` given, is replayed from one agent's view
(``formats/common/providers/replay.py``) as the ``messages`` list a ``client.chat.completions.create`` call
takes: system prompts as ``system`` / ``developer`` messages, the user's as ``user``, the
agent's own text and tool calls as ``assistant`` messages carrying its ``name``, tool returns as
``tool`` messages, other agents' turns as user-side text. What the list cannot hold (thinking,
tool error statuses, non-text tool results, times, usage) is named in a ``WriteLoss``."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from typing import Any

import orjson

from threadlab.core.loss import report_loss
from threadlab.core.model import BaseAction, Thread
from threadlab.formats.common.providers.parts import part_losses
from threadlab.formats.common.providers.replay import OthersPolicy, Said, resolve_agent, view
from threadlab.formats.common.providers.writing import foreign_losses, loss_phrases, write_own_or_replay
from threadlab.formats.openai_chat.codec import KEY, default_message, encode_part

NAME = "openai-chat"


def _request(rest: Any, messages: list[Any]) -> Any:
    return {**rest, "messages": messages}


def _response(rest: Any, messages: list[Any]) -> Any:
    body = dict(rest)
    queue = list(messages)
    body["choices"] = [{**c, "message": queue.pop(0)} if isinstance(c, Mapping) and "message" not in c and queue else c for c in rest.get("choices") or []]
    return body


def to_openai_chat(thread: Thread, agent: str | None = None, *, others: OthersPolicy = "summarize", prefix: str = "{agent:Name}: ") -> list[dict[str, Any]]:
    """The ``messages`` a Chat Completions request takes, from ``agent``'s view of ``thread``
    (its id or name; a thread of one agent needs none), ready for
    ``client.chat.completions.create(model=..., messages=...)``. What the list cannot hold is
    named in a ``WriteLoss`` warning."""
    messages, lost = _replay(thread, agent, others, prefix)
    report_loss(NAME, thread.thread_id, loss_phrases(lost))
    return messages


def _replay(thread: Thread, agent: str | None, others: OthersPolicy, prefix: str) -> tuple[list[dict[str, Any]], Counter[str]]:
    agent_id = resolve_agent(thread, agent, NAME)
    picked = view(thread, agent_id, others, prefix)
    lost = foreign_losses(thread, picked, agent_id)
    messages: list[dict[str, Any]] = []
    turn: list[BaseAction] = []  # the assistant message being put together

    def flush() -> None:
        if turn:
            messages.append(default_message(turn, thread.agents))
            turn.clear()

    for item in picked:
        if isinstance(item, Said):
            flush()
            messages.append({"role": "user", "content": item.text})
            continue
        kind = item.action_type
        if kind == "thinking":
            lost["thinking blocks (Chat Completions requests hold none)"] += 1
        elif kind == "assistant_message":
            flush()
            turn.append(item)
        elif kind == "tool_call":
            turn.append(item)
        elif kind == "system.message":
            flush()
            messages.append(_system(item))
        else:
            flush()
            _note(item, lost)
            messages.append(default_message([item], thread.agents))
    flush()
    lost.update(part_losses(picked, encode_part, "a Chat Completions message"))
    return answers_after_calls(messages, lost), lost


def _system(action: BaseAction) -> dict[str, Any]:
    """A system prompt of any format as a ``system`` (or ``developer``) message of text."""
    data = action.data if isinstance(action.data, Mapping) else {"content": action.data}  # type: ignore[attr-defined]
    role = data.get("role") if data.get("role") in ("system", "developer") else "system"
    content = data.get("content")
    if not isinstance(content, str):
        texts = [p.get("text") for p in content if isinstance(p, Mapping) and isinstance(p.get("text"), str)] if isinstance(content, list) else []
        content = "\n\n".join(texts) if texts else orjson.dumps(content).decode()
    return {"role": role, "content": content}


def answers_after_calls(messages: list[dict[str, Any]], lost: Counter[str]) -> list[dict[str, Any]]:
    """Each tool message moved up to follow the assistant message that made its call (the API
    refuses a tool message after anything else; what others said meanwhile comes after, and
    ``lost`` counts the results moved past it); one whose call is not written becomes
    user-side text."""
    out: list[dict[str, Any]] = []
    taken: set[int] = set()
    for i, message in enumerate(messages):
        if i in taken:
            continue
        if message.get("role") == "tool":  # its call is not written: what it said, as user-side text
            message = {"role": "user", "content": f"[tool result {message.get('tool_call_id')}: {message.get('content')}]"}
        out.append(message)
        ids = {c.get("id") for c in message.get("tool_calls") or []} if message.get("role") == "assistant" else set()
        for j in range(i + 1, len(messages)) if ids else ():
            if messages[j].get("role") == "tool" and messages[j].get("tool_call_id") in ids and j not in taken:
                if any(messages[k].get("role") != "tool" for k in range(i + 1, j) if k not in taken):
                    lost["tool results moved up to follow their call (Chat Completions puts nothing between them)"] += 1
                out.append(messages[j])
                taken.add(j)
    return out


def _note(action: BaseAction, lost: Counter[str]) -> None:
    if action.action_type == "tool_return":
        if action.status != "success":  # type: ignore[attr-defined]
            lost["tool error statuses (a tool message has none)"] += 1
        if not isinstance(action.content, str):  # type: ignore[attr-defined]
            lost["tool results that are not text (written as JSON text)"] += 1


def write_chat(thread: Thread, agent: str | None = None) -> bytes:
    return write_own_or_replay(thread, KEY, NAME, agent, lambda actions: default_message(actions, thread.agents), _request, _response,
                               "chat.completion", lambda: _replay(thread, agent, "summarize", "{agent:Name}: "))
