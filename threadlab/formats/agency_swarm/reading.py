"""agency-swarm's saved list → one multi-agent Thread (see the package docstring)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

import orjson

from threadlab.core.builder import ThreadBuilder
from threadlab.core.model import BaseAction, Thread
from threadlab.formats.agency_swarm.common import META, SEND_MESSAGE, is_model_output, items_of, micros
from threadlab.formats.agency_swarm.order import causal_order, monotonic_times
from threadlab.formats.agency_swarm.usage import Response, apply_usage


def from_agency_swarm(
    items: Any,
    *,
    chat_id: str | None = None,
    usage: Mapping[str, Any] | None = None,
    title: str = "",
    source: str | None = None,
) -> Thread:
    """One multi-agent thread from agency-swarm's flat saved list (what ``save_threads_callback``
    receives), re-nested in causal order.

    ``usage``: the run's usage as agency-swarm reports it (``extract_usage_from_run_result()``,
    or the FastAPI response's ``usage``); its ``request_usage_entries`` are put on the model
    responses in causal order when their count matches, and the totals go on the thread's
    ``metadata["usage"]``. Items that carry a ``usage`` of their own keep it."""
    if isinstance(items, Mapping):
        found = items_of(items)
        if found is None:
            raise ValueError("from_agency_swarm: expected the saved list, or a dict with 'new_messages'/'chat_history' items")
        usage = usage if usage is not None else items.get("usage")
        items = found
    items = list(items)
    chat = chat_id or _default_chat_id(items)
    builder = ThreadBuilder(chat, title=title, source=source)
    order = causal_order(items, builder)
    times = monotonic_times(items, order)
    calls: dict[str, str] = {}
    responses: list[Response] = []
    last_kind: dict[tuple[Any, Any], str] = {}
    retimed = 0
    run = 0  # a top-level user message starts a new run (one get_response call)
    for index in order:
        item = items[index]
        if not isinstance(item, Mapping):
            builder.problem("schema", f"item #{index + 1} is {type(item).__name__}, not an object; skipped", line=None)
            continue
        action = _add_item(builder, item, index, times[index], calls)
        if action is None:
            continue
        if times[index] != item.get("timestamp"):
            retimed += 1
        block = (item.get("agent"), item.get("parent_run_id"))
        kind = "model" if is_model_output(item) else "input"
        if kind == "input" and item.get("role") == "user" and item.get("callerAgent") is None:
            run += 1
        if kind == "model" and last_kind.get(block) != "model":
            responses.append(Response(top=item.get("parent_run_id") is None, run=run))
        if kind == "model":
            responses[-1].actions.append(action)
        last_kind[block] = kind
    if retimed:  # saved stamps pulled back so time runs forward in causal order
        builder.metadata[META] = {"retimed_items": retimed}
    apply_usage(builder, responses, usage)
    return builder.build()


def _default_chat_id(items: list[Any]) -> str:
    for item in items:
        if isinstance(item, Mapping) and isinstance(item.get("run_trace_id"), str) and item["run_trace_id"].startswith("trace_"):
            return "chat_" + item["run_trace_id"].removeprefix("trace_")
    for item in items:
        if isinstance(item, Mapping) and isinstance(item.get("agent_run_id"), str):
            return "chat_" + item["agent_run_id"].removeprefix("agent_run_")
    return "agency_swarm_chat"


def _agent(builder: ThreadBuilder, name: Any, stamp: Any) -> str | None:
    if not isinstance(name, str) or not name:
        return None
    return builder.agent(name, created_at=micros(stamp) if stamp is not None else None)


def _kept(item: Mapping[str, Any], index: int, mapped: Iterable[str]) -> dict[str, Any]:
    skip = set(mapped)
    kept = {k: v for k, v in item.items() if k not in skip}
    kept["index"] = index
    return kept


def _add_item(builder: ThreadBuilder, item: Mapping[str, Any], index: int, stamp: Any, calls: dict[str, str]) -> BaseAction | None:
    agent_id = _agent(builder, item.get("agent"), item.get("timestamp"))
    caller_id = _agent(builder, item.get("callerAgent"), item.get("timestamp"))
    when = micros(stamp)
    kind = item.get("type", "message")
    role = item.get("role")
    extra: dict[str, Any] = {}
    if kind == "message" and role == "user":
        content, mapped = _user_content(item.get("content"))
        extra = {"recipient_agent_id": agent_id, **({"sender_agent_id": caller_id} if caller_id else {})}
        return builder.add("user_message", timestamp=when, content=content, metadata=_meta(item, index, mapped, extra))
    if agent_id is None:
        builder.problem("agent-ref", f"item #{index + 1} ({kind}) has no agent name; kept as system.unknown_item")
        return builder.add("system.unknown_item", timestamp=when, data=dict(item), metadata=_meta(item, index, (), {}))
    if kind == "message" and role == "assistant":
        content, mapped = _assistant_content(item.get("content"))
        return builder.add("assistant_message", timestamp=when, agent_id=agent_id, content=content, metadata=_meta(item, index, mapped, {}))
    if kind == "reasoning":
        summary = item.get("summary") or []
        texts = [p.get("text") for p in summary if isinstance(p, Mapping) and p.get("type") == "summary_text"]
        simple = len(summary) <= 1 and len(texts) == len(summary) and all(isinstance(t, str) for t in texts)
        mapped = ["summary"] if simple else []
        if item.get("encrypted_content") is not None:
            mapped.append("encrypted_content")
        return builder.add(
            "thinking",
            timestamp=when,
            agent_id=agent_id,
            content="\n\n".join(t for t in texts if isinstance(t, str)) or None,
            signature=item.get("encrypted_content"),
            provider_name="openai",
            thinking_id=item.get("id") if isinstance(item.get("id"), str) else None,
            metadata=_meta(item, index, mapped, {}),
        )
    if isinstance(kind, str) and kind.endswith("_call") and isinstance(item.get("call_id"), str):
        name = item.get("name") if isinstance(item.get("name"), str) else kind.removesuffix("_call")
        args, mapped = _call_args(item)
        calls[item["call_id"]] = name
        extra = {}
        if name == SEND_MESSAGE and isinstance(args, Mapping) and isinstance(args.get("recipient_agent"), str):
            extra["recipient_agent_id"] = _agent(builder, args["recipient_agent"], item.get("timestamp"))
        return builder.add(
            "tool_call",
            timestamp=when,
            agent_id=agent_id,
            tool_name=name,
            tool_call_id=item["call_id"],
            args=args,
            metadata=_meta(item, index, ["call_id", *mapped], extra),
        )
    if isinstance(kind, str) and kind.endswith("_call_output") and isinstance(item.get("call_id"), str):
        call_id = item["call_id"]
        name = calls.get(call_id)
        if name is None:
            builder.problem("tool-call-match", f"item #{index + 1} ({kind}) answers call_id {call_id!r}, which no earlier call has")
            name = kind.removesuffix("_call_output")
        return builder.add(
            "tool_return",
            timestamp=when,
            tool_call_id=call_id,
            tool_name=name,
            status="success",
            content=item.get("output"),
            metadata=_meta(item, index, ["call_id", "output"], {}),
        )
    if kind == "message" and role in ("system", "developer"):
        return builder.add("system.message", timestamp=when, data={"role": role, "content": item.get("content")}, metadata=_meta(item, index, ["content"], {}))
    return builder.add("system.unknown_item", timestamp=when, data=dict(item), metadata={META: {"index": index}})


def _meta(item: Mapping[str, Any], index: int, mapped: Iterable[str], extra: dict[str, Any]) -> dict[str, Any]:
    """The action's metadata: threadlab's own keys plus the item's unmapped fields."""
    meta = {k: v for k, v in extra.items() if v is not None}
    meta[META] = _kept(item, index, mapped)
    return meta


def _user_content(content: Any) -> tuple[Any, list[str]]:
    if isinstance(content, str):
        return content, ["content"]
    if isinstance(content, list):
        return [_part(p) for p in content], []
    return ("" if content is None else orjson.dumps(content).decode()), []


def _part(part: Any) -> Any:
    if isinstance(part, Mapping) and part.get("type") in ("input_text", "output_text") and isinstance(part.get("text"), str):
        return {"type": "text", "text": part["text"]}
    if isinstance(part, Mapping) and part.get("type") == "input_image" and isinstance(part.get("image_url"), str):
        return {"type": "image", "image_url": part["image_url"]}
    return dict(part) if isinstance(part, Mapping) else {"type": "unknown", "value": part}


def _assistant_content(content: Any) -> tuple[Any, list[str]]:
    """One plain output_text part → a string (the raw list is rebuilt on writing); anything
    richer → text parts, with the raw list kept in metadata."""
    if isinstance(content, list) and len(content) == 1 and _plain_output_text(content[0]):
        return content[0]["text"], ["content"]
    return _user_content(content)[0], []


def _plain_output_text(part: Any) -> bool:
    return isinstance(part, Mapping) and set(part) == {"annotations", "text", "type"} and part["type"] == "output_text" and part["annotations"] == [] and isinstance(part["text"], str)


def _call_args(item: Mapping[str, Any]) -> tuple[Any, list[str]]:
    """The call's arguments, JSON-decoded when the string is JSON. The string itself stays in
    metadata (its key order and spacing are the producer's; args get their keys sorted)."""
    for key in ("arguments", "input", "action"):
        if key not in item:
            continue
        raw = item[key]
        if isinstance(raw, str):
            try:
                return orjson.loads(raw), []
            except orjson.JSONDecodeError:
                return raw, [key]
        return raw, [key]
    return None, []
