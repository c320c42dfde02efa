"""LangChain messages → actions.

Three spellings of a message are read, each as it came: ``messages_to_dict``'s ``{"type":
"human", "data": {...}}``, ``dumpd``'s ``{"lc": 1, "type": "constructor", "id": [...,
"AIMessage"], "kwargs": {...}}`` and ``model_dump``'s flat ``{"type": "ai", "content": ...}``
(LangGraph state values). One message is one record: ``human`` → user message (``author:
harness`` when langchain_core's ``lc_source`` marks it as the harness's); ``ai`` (and
its chunks) → its content's thinking / reasoning blocks as thinking, the rest as an assistant
message, each of ``tool_calls`` (or, in older dumps, ``additional_kwargs.tool_calls``) and
``invalid_tool_calls`` as a tool call, ``usage_metadata`` as its usage, the model from
``response_metadata``; ``name`` names the agent (multi-agent graphs set it); ``tool`` →
the return of the call it names (``status: "error"`` → error); ``system`` → ``system.message``;
``remove`` → ``system.remove_message``. Each message is checked with ``langchain_core``'s own
``messages_from_dict`` when installed (it builds message classes only; ``langchain_core.load``,
which can build other objects, is never used on a file)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from threadlab.core.authors import harness_metadata
from threadlab.core.builder import ThreadBuilder
from threadlab.core.model import BaseAction, Thread, Usage
from threadlab.formats.common.arguments import parsed_arguments
from threadlab.formats.common.counts import counts_as
from threadlab.formats.common.providers.sdk_types import check
from threadlab.formats.common.responses.items import remember
from threadlab.formats.langchain.wire import AGENT, KEY, default_data

_CLASS_TYPES = {
    "HumanMessage": "human", "AIMessage": "ai", "SystemMessage": "system", "ToolMessage": "tool", "FunctionMessage": "function",
    "ChatMessage": "chat", "RemoveMessage": "remove", "HumanMessageChunk": "HumanMessageChunk", "AIMessageChunk": "AIMessageChunk",
    "SystemMessageChunk": "SystemMessageChunk", "ToolMessageChunk": "ToolMessageChunk", "ChatMessageChunk": "ChatMessageChunk",
}
TYPES = frozenset({"human", "ai", "system", "tool", "function", "chat", "remove", "developer", *_CLASS_TYPES.values()})
_FINISH = {"stop": "stop", "end_turn": "stop", "tool_calls": "tool_call", "tool_use": "tool_call", "length": "length", "max_tokens": "length"}
_THINKING = ("thinking", "reasoning")
# lc_source → harness kind (langchain's SummarizationMiddleware marks its summary "summarization");
# any other source is its own kind
LC_SOURCE_KINDS = {"summarization": "compaction_summary", "async_subagent": "task_notification"}


def unwrap(message: Any) -> tuple[str, str | None, dict[str, Any], list[str] | None] | None:
    """(shape, message type, its fields, the ``dumpd`` class path) of a message, or None."""
    if not isinstance(message, Mapping):
        return None
    if message.get("lc") in (1, 2) and message.get("type") == "constructor" and isinstance(message.get("kwargs"), Mapping):
        path = message.get("id") if isinstance(message.get("id"), list) else []
        cls = path[-1] if path and isinstance(path[-1], str) else ""
        return "lc", _CLASS_TYPES.get(cls), dict(message["kwargs"]), path
    if isinstance(message.get("data"), Mapping) and isinstance(message.get("type"), str) and set(message) <= {"type", "data"}:
        return "dict", message["type"], dict(message["data"]), None
    if isinstance(message.get("type"), str) and "content" in message:
        return "flat", message["type"], dict(message), None
    return None


def is_message(message: Any) -> bool:
    found = unwrap(message)
    return found is not None and found[1] in TYPES and (found[0] != "flat" or bool(set(message) & {"additional_kwargs", "response_metadata", "tool_calls", "tool_call_id", "usage_metadata"}))


def lc_usage(usage: Any, problems: list[str] | None = None) -> Usage | None:
    """A message's ``usage_metadata``; a figure that is no count (``counts.count_of``) is left
    out, with a phrase in ``problems``."""
    if not isinstance(usage, Mapping):
        return None
    inp = usage.get("input_token_details") if isinstance(usage.get("input_token_details"), Mapping) else {}
    out = usage.get("output_token_details") if isinstance(usage.get("output_token_details"), Mapping) else {}
    fields = counts_as({
        "input_tokens": ("input_tokens", usage.get("input_tokens")),
        "output_tokens": ("output_tokens", usage.get("output_tokens")),
        "total_tokens": ("total_tokens", usage.get("total_tokens")),
        "input_token_details.cache_read": ("cache_read_tokens", inp.get("cache_read")),
        "input_token_details.cache_creation": ("cache_write_tokens", inp.get("cache_creation")),
        "output_token_details.reasoning": ("thinking_tokens", out.get("reasoning")),
    }, problems if problems is not None else [], "usage_metadata.")
    return Usage(**fields) if fields else None


class LangChainReader:
    def __init__(self, thread_id: str, source: str) -> None:
        self.b = ThreadBuilder(thread_id, source=source)
        self.calls: dict[str, str] = {}

    def add(self, message: Any, index: int, line: int | None) -> None:
        b = self.b
        where = f"message {index + 1}" + (f" (line {line})" if line is not None else "")
        found = unwrap(message)
        if found is None or found[1] not in TYPES:
            b.kept("unknown-type", f"{where} is no LangChain message ({str(message)[:80]}); kept as system.unknown_message", line=line)
            b.add("system.unknown_message", data=message, metadata={KEY: {"i": index}})
            return
        shape, kind, data, path = found
        reason = check("langchain.message", {"type": kind, "data": {k: v for k, v in data.items() if k != "type"}})
        if reason:
            b.problem("schema", f"{where}: langchain_core does not load it ({reason}); read as it is", line=line)
        kind = str(kind).removesuffix("MessageChunk").lower() if kind and kind.endswith("MessageChunk") else kind
        if kind == "chat":
            role = data.get("role")
            kind = "human" if role == "user" else "ai" if role == "assistant" else "system"
        actions = self._actions(kind, data, where, line)
        b.took()
        memo = remember(data, default_data(actions, self.b.agents, kind_of(shape, found[1], data)))
        info: dict[str, Any] = {"i": index, "shape": shape, "type": found[1]}
        if path is not None:
            info["id"] = path
            info["lc"] = message.get("lc")
        if memo:
            info["item"] = memo
        for n, action in enumerate(actions):
            meta = action.metadata if action.metadata is not None else {}
            meta[KEY] = info if n == 0 else {"i": index}
            action.metadata = meta

    def _actions(self, kind: str | None, data: dict[str, Any], where: str, line: int | None) -> list[BaseAction]:
        b = self.b
        content = data.get("content")
        if kind == "human":
            return [b.add("user_message", content=_content(content), metadata=harness_of(data))]
        if kind in ("system", "developer"):
            return [b.add("system.message", data={"role": kind, "content": content})]
        if kind in ("tool", "function"):
            call_id = data.get("tool_call_id") if isinstance(data.get("tool_call_id"), str) else f"function_{data.get('name')}"
            if call_id not in self.calls:
                b.problem("tool-call-match", f"{where} answers tool call {call_id!r}, which no earlier message made", line=line)
            name = self.calls.get(call_id) or (data.get("name") if isinstance(data.get("name"), str) else "unknown")
            status = "error" if data.get("status") == "error" else "success"
            return [b.add("tool_return", tool_call_id=call_id, tool_name=name, status=status, content=_content(content))]
        if kind == "remove":
            return [b.add("system.remove_message", data={"id": data.get("id")})]
        return self._ai(data, where, line)

    def _ai(self, data: dict[str, Any], where: str, line: int | None) -> list[BaseAction]:
        b = self.b
        agent = b.agent(data["name"] if isinstance(data.get("name"), str) and data["name"] else AGENT)
        rm = data.get("response_metadata") if isinstance(data.get("response_metadata"), Mapping) else {}
        model = rm.get("model_name") or rm.get("model")
        provider = rm.get("model_provider") or rm.get("ls_provider")
        meta = {"model_name": model, **({"provider_name": provider} if isinstance(provider, str) else {})} if isinstance(model, str) else None
        actions: list[BaseAction] = []
        content = data.get("content")
        parts = content if isinstance(content, list) else None
        if parts is not None:
            for block in parts:
                if isinstance(block, Mapping) and block.get("type") in _THINKING:
                    text = block.get("thinking") if block.get("type") == "thinking" else block.get("reasoning") or _summary(block)
                    actions.append(b.add("thinking", agent_id=agent, content=text if isinstance(text, str) else None,
                                         signature=block.get("signature") if isinstance(block.get("signature"), str) else None,
                                         provider_name=provider if isinstance(provider, str) else "unknown", metadata=dict(meta) if meta else None))
            content = [p for p in parts if not (isinstance(p, Mapping) and p.get("type") in _THINKING)] or ("" if parts else [])  # thinking alone: no text
        calls = data.get("tool_calls") if isinstance(data.get("tool_calls"), list) else []
        old = (data.get("additional_kwargs") or {}).get("tool_calls") if isinstance(data.get("additional_kwargs"), Mapping) else None
        if not calls and isinstance(old, list):  # dumps from before tool_calls was a field: OpenAI's shape
            calls = [{"id": c.get("id"), "name": (c.get("function") or {}).get("name"), "args": parsed_arguments((c.get("function") or {}).get("arguments")), "legacy": True} for c in old if isinstance(c, Mapping)]
        bad = data.get("invalid_tool_calls") if isinstance(data.get("invalid_tool_calls"), list) else []
        if content not in ("", [], None) or not (calls or bad or actions):  # thinking alone is no empty message
            action = b.add("assistant_message", agent_id=agent, content=_content(content), metadata=dict(meta) if meta else None)
            reason = rm.get("finish_reason") or rm.get("stop_reason")
            finish = _FINISH.get(reason) if isinstance(reason, str) else None
            if finish:
                action.finish_reason = finish  # type: ignore[attr-defined]
            actions.append(action)
        for n, call in enumerate([*calls, *bad]):
            call = call if isinstance(call, Mapping) else {}
            call_id = call.get("id") if isinstance(call.get("id"), str) else f"call_{len(b.actions)}_{n}"
            name = call.get("name") if isinstance(call.get("name"), str) else "unknown"
            if n >= len(calls):
                b.problem("schema", f"{where}: invalid tool call {name!r} ({call.get('error')}); its arguments are kept as text", line=line)
            self.calls[call_id] = name
            actions.append(b.add("tool_call", agent_id=agent, tool_name=name, tool_call_id=call_id, args=call.get("args"), metadata=dict(meta) if meta else None))
        phrases: list[str] = []
        usage = lc_usage(data.get("usage_metadata"), phrases)
        for phrase in phrases:
            b.problem("usage", f"{where}: {phrase}", line=line)
        if usage is not None and actions:
            target = next((a for a in actions if a.action_type == "assistant_message"), actions[0])
            target.usage = usage if target.action_type in ("assistant_message", "thinking") else usage.model_dump(exclude_none=True)  # type: ignore[attr-defined]
        return actions

    def build(self, container: dict[str, Any]) -> Thread:
        self.b.metadata[KEY] = container
        return self.b.build()


def harness_of(data: Mapping[str, Any]) -> dict[str, str] | None:
    """``author: harness`` for a human message the harness added: langchain_core marks one with
    ``additional_kwargs.lc_source`` (``add_notification_metadata``: "a human message the user
    didn't type, such as a background task update or a conversation summary"), naming the
    feature; that name is the harness kind (``summarization`` as ``compaction_summary``,
    ``async_subagent`` as ``task_notification``)."""
    extra = data.get("additional_kwargs")
    source = extra.get("lc_source") if isinstance(extra, Mapping) else None
    return harness_metadata(LC_SOURCE_KINDS.get(source, source)) if isinstance(source, str) and source else None


def _summary(block: Mapping[str, Any]) -> str | None:
    summary = block.get("summary")
    if isinstance(summary, list):
        texts = [s.get("text") for s in summary if isinstance(s, Mapping) and isinstance(s.get("text"), str)]
        return "\n\n".join(texts) or None
    return None


def _content(content: Any) -> Any:
    if isinstance(content, str):
        return content
    if not isinstance(content, list):
        return ""
    out: list[Any] = []
    for part in content:
        if isinstance(part, str):
            out.append({"type": "text", "text": part})
        elif isinstance(part, Mapping) and part.get("type") == "text" and isinstance(part.get("text"), str):
            out.append({"type": "text", "text": part["text"]})
        elif isinstance(part, Mapping) and part.get("type") == "image_url":
            url = part["image_url"].get("url") if isinstance(part.get("image_url"), Mapping) else part.get("image_url")
            out.append({"type": "image", "image_url": url} if isinstance(url, str) else dict(part))
        else:
            out.append(dict(part) if isinstance(part, Mapping) else {"type": "unknown", "value": part})
    return out


def kind_of(shape: str, kind: str | None, data: Mapping[str, Any]) -> str:
    return kind or "ai"


