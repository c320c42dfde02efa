"""ThreadProtocol threads → pydantic-ai message histories (``to_pydantic_ai``).

Actions become parts, parts are grouped into ModelRequest/ModelResponse messages, and the whole
list is validated by pydantic-ai's own ``ModelMessagesTypeAdapter``. Actions read with
``from_pydantic_ai`` carry ``metadata["pydantic_ai"]`` (message index, part positions, envelope,
the fields canonical ones do not hold), so their history comes back exactly; actions from any
other source are grouped by side (user/tool results → request, agent output → response).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from pydantic_ai import messages as pai

from threadlab.core.model import (
    AssistantMessage,
    BaseAction,
    SystemAction,
    Thinking,
    Thread,
    ToolCall,
    ToolReturn,
    UserMessage,
)
from threadlab.formats.pydantic_ai import _parts as P

_OUTCOME = {"success": "success", "error": "failed", "validation_error": "retried"}
_LAST = float("inf")


@dataclass
class Item:
    """Parts of one action (or one piece of text another agent said) waiting to be grouped."""

    side: str  # "request" | "response"
    key: Any  # (history, message index) when known
    parts: list[tuple[float, dict[str, Any]]]
    timestamp: datetime
    envelope: dict[str, Any] | None = None
    held: list[list[Any]] = field(default_factory=list)
    action: BaseAction | None = None


def pai_meta(action: BaseAction) -> dict[str, Any]:
    meta = action.metadata or {}
    value = meta.get(P.KEY)
    return value if isinstance(value, dict) else {}


def history_of(action: BaseAction) -> str | None:
    return pai_meta(action).get("history")


# --- actions → parts --------------------------------------------------------------------------


def _message_parts(content: Any) -> list[dict[str, Any]]:
    if content is None or isinstance(content, str):
        return [{"part_kind": "text", "content": content or ""}]
    parts = []
    for part in content:
        data = part if isinstance(part, Mapping) else part.model_dump(exclude_none=True)
        if data.get("type") == "text":
            parts.append({"part_kind": "text", "content": data.get("text", "")})
        elif data.get("content_type") == "binary" or (data.get("type") == "image" and data.get("image_base64")):
            parts.append({"part_kind": "file", "content": P.media_to_pai(data)})
        elif "content_type" in data or data.get("type") == "image":  # a FilePart holds bytes only: say where it is
            url = data.get("url") or data.get("image_url")
            parts.append({"part_kind": "text", "content": f"[{data.get('media_category') or 'image'}: {url}]"})
        else:
            parts.append({"part_kind": "text", "content": P.text_of(data)})
    return parts


def rebuilt_parts(action: BaseAction) -> list[dict[str, Any]]:
    """The pydantic-ai parts an action stands for, from its canonical fields alone."""
    when = P.stamp(action.timestamp)
    if isinstance(action, UserMessage):
        return [{"part_kind": "user-prompt", "content": P.user_content_to_pai(action.content), "timestamp": when}]
    if isinstance(action, AssistantMessage):
        return _message_parts(action.content)
    if isinstance(action, Thinking):
        return [{"part_kind": "thinking", "content": action.content or "", "signature": action.signature,
                 "provider_name": action.provider_name, "id": action.thinking_id}]
    if isinstance(action, ToolCall):
        return [{"part_kind": "tool-call", "tool_name": action.tool_name, "tool_call_id": action.tool_call_id, "args": action.args}]
    if isinstance(action, ToolReturn):
        return [{"part_kind": "tool-return", "tool_name": action.tool_name, "content": action.content,
                 "tool_call_id": action.tool_call_id, "timestamp": when, "outcome": _OUTCOME.get(action.status, "failed")}]
    if isinstance(action, SystemAction) and action.action_type.startswith(P.SYSTEM_PREFIX):
        return [dict(action.data)] if isinstance(action.data, Mapping) else []
    return []


def _default_side(action: BaseAction, parts: list[dict[str, Any]]) -> str:
    if isinstance(action, AssistantMessage | Thinking | ToolCall):
        return "response"
    if parts and parts[0].get("part_kind") in ("builtin-tool-return", "text", "thinking", "file", "builtin-tool-call"):
        return "response"
    return "request"


def action_items(actions: Iterable[BaseAction]) -> list[Item]:
    """One Item per action pydantic-ai can hold; other system actions are left out."""
    actions = list(actions)
    sides: dict[Any, str] = {}
    for action in actions:
        meta = pai_meta(action)
        if "envelope" in meta and "message" in meta:
            sides[(meta.get("history"), meta["message"])] = meta["envelope"].get("kind", "request")
    items = []
    for action in actions:
        if isinstance(action, SystemAction) and not action.action_type.startswith(P.SYSTEM_PREFIX):
            continue  # system.tool_resolved and the like: pydantic-ai has no part for them
        if not isinstance(action, UserMessage | AssistantMessage | Thinking | ToolCall | ToolReturn | SystemAction):
            continue
        meta = pai_meta(action)
        parts = rebuilt_parts(action)
        rests = meta.get("rest") or []
        parts = [{**part, **(rests[i] if i < len(rests) and isinstance(rests[i], Mapping) else {})} for i, part in enumerate(parts)]
        positions = meta.get("parts")
        if not (isinstance(positions, list) and len(positions) == len(parts)):
            positions = [_LAST] * len(parts)
        key = (meta.get("history"), meta["message"]) if "message" in meta else None
        side = sides.get(key) or _default_side(action, parts)
        items.append(Item(side, key, list(zip(positions, parts, strict=True)), action.timestamp,
                          envelope=meta.get("envelope"), held=list(meta.get("held") or []), action=action))
    return items


# --- parts → messages ---------------------------------------------------------------------------


def group_items(items: Iterable[Item]) -> list[list[Item]]:
    """Consecutive items of one side and one message go together."""
    groups: list[list[Item]] = []
    keys: list[Any] = []
    for item in items:
        if groups and groups[-1][0].side == item.side and (item.key is None or keys[-1] is None or keys[-1] == item.key):
            groups[-1].append(item)
            if keys[-1] is None:
                keys[-1] = item.key
            continue
        groups.append([item])
        keys.append(item.key)
    return groups


def _usage(action: BaseAction) -> dict[str, Any] | None:
    usage = getattr(action, "usage", None)
    if usage is None:
        return None
    out = {"input_tokens": usage.input_tokens or 0, "output_tokens": usage.output_tokens or 0}
    if usage.cache_read_tokens:
        out["cache_read_tokens"] = usage.cache_read_tokens
    if usage.cache_write_tokens:
        out["cache_write_tokens"] = usage.cache_write_tokens
    if usage.thinking_tokens:
        out["output_reasoning_tokens"] = usage.thinking_tokens
    return out


def _response_envelope(group: list[Item], thread: Thread | None) -> dict[str, Any]:
    envelope: dict[str, Any] = {"kind": "response"}
    for item in group:
        action = item.action
        if action is None:
            continue
        meta = action.metadata or {}
        usage = _usage(action)
        if usage and "usage" not in envelope:
            envelope["usage"] = usage
        for key in ("model_name", "provider_name"):
            if meta.get(key) and key not in envelope:
                envelope[key] = meta[key]
        if isinstance(action, AssistantMessage) and action.finish_reason and "finish_reason" not in envelope:
            envelope["finish_reason"] = action.finish_reason
        agent = thread.agents.get(getattr(action, "agent_id", "") or "") if thread is not None else None
        if "model_name" not in envelope and agent is not None and (agent.metadata or {}).get("model_name"):
            envelope["model_name"] = agent.metadata["model_name"]  # type: ignore[index]
    return envelope


def group_message(group: list[Item], thread: Thread | None = None) -> dict[str, Any]:
    """One ModelRequest/ModelResponse JSON object from a group of items."""
    side = group[0].side
    envelope = next((dict(i.envelope) for i in group if i.envelope), None)
    if envelope is None:
        envelope = _response_envelope(group, thread) if side == "response" else {"kind": "request"}
        envelope["timestamp"] = P.stamp(group[0].timestamp)
    return {**envelope, "parts": _place(group)}


def _place(group: list[Item]) -> list[dict[str, Any]]:
    """Parts in action order, except that the parts of the original message (those with a
    position) fill their slots in position order, held system prompts included. When other
    agents' text joins a request, tool returns go first (as providers require)."""
    known = sorted(
        [(pos, 0, n, part) for n, (pos, part) in enumerate(p for i in group for p in i.parts if p[0] != _LAST)]
        + [(pos, -1, n, part) for n, (pos, part) in enumerate(p for i in group for p in i.held)],
        key=lambda x: (x[0], x[1], x[2]),
    )
    out: list[dict[str, Any]] = []
    queue = list(known)
    for item in group:
        for position, part in item.parts:
            if position == _LAST:
                out.append(part)
                continue
            while queue:
                _, held, _, next_part = queue.pop(0)
                out.append(next_part)
                if held == 0:
                    break
    out.extend(part for _, _, _, part in queue)
    if group[0].side == "request" and any(p[0] == _LAST for i in group for p in i.parts):
        out.sort(key=lambda part: 0 if part.get("part_kind") == "tool-return" else 1)
    return out


def items_to_messages(items: Iterable[Item], thread: Thread | None = None) -> list[pai.ModelMessage]:
    dicts = [group_message(group, thread) for group in group_items(items)]
    return pai.ModelMessagesTypeAdapter.validate_python(dicts)


def histories(thread: Thread) -> list[str]:
    """The agents whose own pydantic-ai history is in the thread (merged threads)."""
    found: list[str] = []
    for action in thread.actions:
        name = history_of(action) if isinstance(action, BaseAction) else None
        if name is not None and name not in found:
            found.append(name)
    return found


def to_pydantic_ai(thread: Thread, agent: str | None = None) -> list[pai.ModelMessage]:
    """The thread as a pydantic-ai message history (``list[ModelMessage]``).

    A single-agent history read with ``from_pydantic_ai`` comes back equal (same
    ``ModelMessagesTypeAdapter`` JSON). In a merged thread (``from_pydantic_ai_runs``) pass
    ``agent`` (id or name) to get that agent's own history back; for what an agent would see of
    the whole conversation use ``perspective``.

    pydantic-ai cannot hold ThreadProtocol system actions: ``system.tool_resolved``,
    ``system.agent_join`` and every other ``system.*`` action are left out, except the
    ``system.pydantic_ai.*`` actions this module writes for pydantic-ai's own framework parts,
    which are restored as those parts."""
    actions = [a for a in thread.actions if isinstance(a, BaseAction)]
    found = histories(thread)
    if agent is not None:
        agent_id = _agent_id(thread, agent)
        if found:
            actions = [a for a in actions if history_of(a) == agent_id]
        else:
            from threadlab.core.derive import actions_of_agent

            own = {id(a) for a in actions_of_agent(thread, agent_id)}
            actions = [a for a in actions if id(a) in own or isinstance(a, UserMessage)]
    elif len(found) > 1:
        names = ", ".join(repr(thread.agent_name(a)) for a in found)
        raise ValueError(
            f"thread {thread.thread_id} holds the histories of several agents ({names}); "
            "pass agent=... to get one back, or use perspective(thread, agent)"
        )
    return items_to_messages(action_items(actions), thread)


def _agent_id(thread: Thread, agent: str) -> str:
    if agent in thread.agents:
        return agent
    for key, config in thread.agents.items():
        if config.agent_name == agent or config.agent_identifier == agent:
            return key
    known = ", ".join(f"{c.agent_name!r} ({k})" for k, c in thread.agents.items())
    raise ValueError(f"thread {thread.thread_id} has no agent {agent!r}; its agents: {known}")


def to_json(thread: Thread, agent: str | None = None) -> bytes:
    return pai.ModelMessagesTypeAdapter.dump_json(to_pydantic_ai(thread, agent), indent=2) + b"\n"
