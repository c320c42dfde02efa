"""How a Thread's actions fall into AI SDK messages, responses and steps - for the writers.

A thread read from Vercel data says so itself (``metadata.vercel_ai``: message id, response
number, step); any other thread is grouped the way the AI SDK would have produced it: a user
message ends the assistant's message, and a new step (model call) starts whenever an agent acts
after tool results came back."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from threadlab.core.model import BaseAction, Thread, ToolCall, ToolReturn
from threadlab.core.timefmt import format_timestamp
from threadlab.formats.vercel_ai.assemble import AGENT_ACTIONS, FORMAT_KEY


def vercel_of(action: BaseAction) -> dict[str, Any]:
    meta = action.metadata or {}
    value = meta.get(FORMAT_KEY)
    return value if isinstance(value, dict) else {}


@dataclass
class Response:
    """The actions of one response (one ``start`` … ``finish``), with their step numbers."""

    role: str
    actions: list[BaseAction] = field(default_factory=list)
    steps: list[int] = field(default_factory=list)

    @property
    def head(self) -> dict[str, Any]:
        return vercel_of(self.actions[0]) if self.actions else {}

    @property
    def message_id(self) -> str | None:
        return self.head.get("message_id")


def responses(thread: Thread) -> Iterator[Response]:
    """Consecutive runs of actions that one response (or one user message) produced."""
    current: Response | None = None
    step = 0
    after_tools = False
    last_turn: Any = None
    for action in thread.actions:
        vercel = vercel_of(action)
        is_user = action.action_type == "user_message" and "steering_id" not in vercel
        role = "user" if is_user else ("system" if vercel.get("role") == "system" else "assistant")
        if vercel:
            new = current is None or vercel.get("turn") != last_turn
            last_turn = vercel.get("turn")
            step = int(vercel.get("step", 0))
        else:
            new = current is None or role != current.role or role == "user" or last_turn is not None
            last_turn = None
            if new:
                step = 0
            if action.action_type in AGENT_ACTIONS and (step == 0 or after_tools):
                step += 1
                after_tools = False
            if isinstance(action, ToolReturn):
                after_tools = True
        if new:
            if current is not None:
                yield current
            current = Response(role)
            after_tools = isinstance(action, ToolReturn)
        current.actions.append(action)
        current.steps.append(step)
    if current is not None:
        yield current


def tool_outcomes(thread: Thread) -> dict[str, ToolReturn]:
    """tool_call_id → the return that answered it (the last one)."""
    calls = {a.tool_call_id for a in thread.actions if isinstance(a, ToolCall)}
    return {a.tool_call_id: a for a in thread.actions if isinstance(a, ToolReturn) and a.tool_call_id in calls}


def resolutions(thread: Thread) -> dict[str, dict[str, Any]]:
    """tool_call_id → the ``system.tool_resolved`` data for it."""
    found: dict[str, dict[str, Any]] = {}
    for action in thread.actions:
        data = getattr(action, "data", None)
        if action.action_type == "system.tool_resolved" and isinstance(data, dict) and isinstance(data.get("tool_call_id"), str):
            found[data["tool_call_id"]] = data
    return found


def usage_total(actions: list[BaseAction]) -> dict[str, int] | None:
    """The summed usage of a response's actions, as AI SDK ``totalUsage``."""
    names = {
        "input_tokens": "inputTokens",
        "output_tokens": "outputTokens",
        "total_tokens": "totalTokens",
        "thinking_tokens": "reasoningTokens",
        "cache_read_tokens": "cachedInputTokens",
    }
    total: dict[str, int] = {}
    for action in actions:
        usage = getattr(action, "usage", None)
        if usage is None:
            continue
        values = usage.model_dump() if hasattr(usage, "model_dump") else dict(usage)
        for key, wire in names.items():
            if isinstance(values.get(key), int):
                total[wire] = total.get(wire, 0) + values[key]
        if isinstance(values.get("cache_write_tokens"), int):
            details = total.setdefault("inputTokenDetails", {})  # type: ignore[assignment]
            details["cacheWriteTokens"] = details.get("cacheWriteTokens", 0) + values["cache_write_tokens"]  # type: ignore[index, attr-defined]
    return total or None


def media_url(part: dict[str, Any]) -> str | None:
    """A media content part's URL, or its inline data as a ``data:`` URL (how the AI SDK sends files)."""
    if part.get("content_type") == "binary" and part.get("data") is not None:
        return f"data:{part.get('media_type')};base64,{part['data']}"
    return part.get("url")


def media_fields(part: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    """(UI type, snake_case fields) of the source/file chunk or part a media content part came
    from; both writers feed these to the matching pydantic-ai model."""
    kind = str(part.get("type"))
    meta = part.get("metadata") or {}
    if kind == "source-url":
        return kind, {"source_id": part.get("identifier") or "", "url": part.get("url") or "", "title": meta.get("title")}
    if kind == "source-document":
        fields = {"source_id": part.get("identifier") or "", "media_type": part["media_type"], "title": meta.get("title") or ""}
        return kind, {**fields, "filename": meta.get("filename")}
    fields = {"url": media_url(part) or "", "media_type": part["media_type"]}
    return ("reasoning-file" if kind == "reasoning-file" else "file"), fields


def thinking_provider_metadata(action: Any) -> dict[str, dict[str, Any]]:
    """Where the AI SDK carries a reasoning part's provider (and Anthropic's signature)."""
    return {action.provider_name: {"signature": action.signature} if action.signature else {}}


class ThreadView:
    """What both writers look up across the whole thread before writing any one message."""

    def __init__(self, thread: Thread) -> None:
        self.thread = thread
        self.outcomes = tool_outcomes(thread)
        self.resolved = resolutions(thread)
        self.multi_agent = len(thread.agents) > 1
        self.synthetic = bool((thread.metadata or {}).get("synthetic_timestamps"))

    def message_metadata(self, response: Response) -> dict[str, Any] | None:
        """The message metadata a Vercel reader kept, or - for any other thread - the
        ``createdAt`` (real times only), ``model`` and ``totalUsage`` the readers probe for."""
        head = response.head
        if head:
            meta = head.get("message_metadata")
            return dict(meta) if isinstance(meta, dict) else None
        meta: dict[str, Any] = {}
        if not self.synthetic:
            meta["createdAt"] = format_timestamp(response.actions[0].timestamp)
        model = next(((a.metadata or {}).get("model_name") for a in response.actions if (a.metadata or {}).get("model_name")), None)
        if model:
            meta["model"] = model
        usage = usage_total(response.actions)
        if usage:
            meta["totalUsage"] = usage
        agent = self.first_agent(response)
        if agent:
            meta["agent"] = self.thread.agent_name(agent)
        return meta or None

    def first_agent(self, response: Response) -> str | None:
        """The agent of a response not read from Vercel data: the first that acts in it (its
        name goes in the message metadata, where the readers' default attribution finds it)."""
        if response.head:
            return None
        return next((a.agent_id for a in response.actions if a.action_type in AGENT_ACTIONS and getattr(a, "agent_id", None)), None)  # type: ignore[attr-defined]

    def agent_part(self, action: BaseAction, current: str | None) -> tuple[str | None, dict[str, Any] | None]:
        """In a thread not read from Vercel data, a ``data-agent`` part wherever the acting
        agent changes within a response (the readers' default attribution reads it back)."""
        owner = getattr(action, "agent_id", None)
        if action.action_type not in AGENT_ACTIONS or not owner or owner == current or vercel_of(action):
            return current, None
        return owner, {"type": "data-agent", "data": {"name": self.thread.agent_name(owner), "id": owner}}
