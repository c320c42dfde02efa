"""One saved item → its action (agency-swarm tagged, or a plain OpenAI Agents SDK item)."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Any

import orjson

from threadlab.core.builder import ThreadBuilder
from threadlab.core.model import BaseAction
from threadlab.formats.agency_swarm.common import ARG_KEYS, DERIVED, META, SEND_MESSAGE, micros, time_of

HANDOFF_PREFIX = "transfer_to_"  # the Agents SDK's default handoff tool name
_RESULT_KEYS = ("output", "results", "outputs", "result")  # where a hosted call item keeps what it got
_FAILED = ("failed", "incomplete")
_OUTPUT_SUFFIXES = ("_call_output", "_call_result")  # Python SDK / agency-swarm, JS SDK
_REPR_HANDOFF = re.compile(r"""^\{'assistant': ['"](.+)['"]\}$""")


class ItemReader:
    """Turns items into actions on ``builder`` and keeps its account: each item is ``took``
    (an action now holds it) or ``kept`` (a ``system.unknown_item`` with its problem)."""

    def __init__(self, builder: ThreadBuilder, *, default_agent: str) -> None:
        self.b = builder
        self.calls: dict[str, tuple[str, str]] = {}  # call_id -> (tool name, calling agent id)
        self.current = default_agent  # a plain SDK list's speaking agent (changed by handoffs)

    def add(self, item: Mapping[str, Any], index: int, stamp: Any, line: int | None) -> BaseAction:
        try:
            when = micros(stamp)
        except ValueError as exc:
            self.b.problem("schema", f"item #{index + 1}: {exc}; its time is made up (kept as it came)", line=line)
            when = None
        kind = item.get("type", "message")
        role = item.get("role")
        tagged = "agent" in item  # agency-swarm names the agent of every item; the Agents SDK names none
        agent_id = self._agent(item.get("agent") if tagged else self.current, item.get("timestamp"))
        extra: dict[str, Any] = {}
        parent = item.get("parent_run_id")
        if isinstance(parent, str) and parent in self.calls:
            extra["parent_tool_call_id"] = parent
        if kind == "message" and role == "user":
            caller_id = self._agent(item.get("callerAgent"), item.get("timestamp"))
            content, mapped = _user_content(item.get("content"))
            extra |= {"recipient_agent_id": agent_id, **({"sender_agent_id": caller_id} if caller_id else {})}
            return self._took("user_message", item, index, mapped, extra, timestamp=when, content=content)
        if kind == "message" and role in ("system", "developer"):
            data = {"role": role, "content": item.get("content")}
            return self._took("system.message", item, index, ["content"], extra, timestamp=when, data=data)
        if kind == "item_reference":  # points back at an item the list already holds
            return self._took("system.item_reference", item, index, (), extra, timestamp=when, data={"id": item.get("id")})
        if agent_id is None:
            self.b.kept("agent-ref", f"item #{index + 1} ({kind}) has no agent name; kept as system.unknown_item", line=line)
            return self.b.add("system.unknown_item", timestamp=when, data=dict(item), metadata=_meta(item, index, (), {}))
        if kind == "message" and role == "assistant":
            content, mapped = _assistant_content(item.get("content"))
            return self._took("assistant_message", item, index, mapped, extra, timestamp=when, agent_id=agent_id, content=content)
        if kind == "reasoning":
            return self._reasoning(item, index, extra, when, agent_id)
        if isinstance(kind, str) and kind.endswith("_call") and isinstance(_call_id(item) or item.get("id"), str):
            return self._call(item, index, extra, when, agent_id, kind)
        if isinstance(kind, str) and kind.endswith(_OUTPUT_SUFFIXES) and isinstance(_call_id(item), str):
            return self._output(item, index, extra, when, kind, line)
        self.b.kept("unknown-type", f"item #{index + 1} is of type {kind!r} (role {role!r}), which threadlab does not map; kept as system.unknown_item", line=line)
        return self.b.add("system.unknown_item", timestamp=when, data=dict(item), metadata={META: {"index": index}})

    # --- one kind of item each --------------------------------------------------------------
    def _reasoning(self, item: Mapping[str, Any], index: int, extra: dict[str, Any], when: Any, agent_id: str) -> BaseAction:
        summary = item.get("summary") or []
        texts = [p.get("text") for p in summary if isinstance(p, Mapping) and p.get("type") == "summary_text"]
        mapped: list[str] = []  # the summary stays in metadata as it came (its parts may carry ids)
        if not texts and isinstance(item.get("content"), list):  # the JS SDK keeps reasoning text in content
            texts = [p.get("text") for p in item["content"] if isinstance(p, Mapping) and isinstance(p.get("text"), str)]
        if item.get("encrypted_content") is not None:
            mapped.append("encrypted_content")
        return self._took(
            "thinking",
            item,
            index,
            mapped,
            extra,
            timestamp=when,
            agent_id=agent_id,
            content="\n\n".join(t for t in texts if isinstance(t, str)) or None,
            signature=item.get("encrypted_content"),
            provider_name="openai",
            thinking_id=item.get("id") if isinstance(item.get("id"), str) else None,
        )

    def _call(self, item: Mapping[str, Any], index: int, extra: dict[str, Any], when: Any, agent_id: str, kind: str) -> BaseAction:
        """A function or custom tool call (answered by a later ``*_call_output``), or a hosted
        tool call (web/file search, code interpreter, MCP ...: no call_id, its result inside the
        item), which gets its return from the same item."""
        hosted = not isinstance(_call_id(item), str)
        call_id = item["id"] if hosted else _call_id(item)
        name = item.get("name") if isinstance(item.get("name"), str) else kind.removesuffix("_call")
        args = _call_args(item)
        self.calls[call_id] = (name, agent_id)
        if name == SEND_MESSAGE and isinstance(args, Mapping) and isinstance(args.get("recipient_agent"), str):
            extra["recipient_agent_id"] = self._agent(args["recipient_agent"], item.get("timestamp"))
        mapped = ("call_id",) if "call_id" in item and not hosted else ()  # the JS SDK's callId stays as it came
        call = self._took("tool_call", item, index, mapped, extra, timestamp=when, agent_id=agent_id, tool_name=name, tool_call_id=call_id, args=args)
        if hosted:
            result = next((item[k] for k in _RESULT_KEYS if k in item), None)
            failed = item.get("status") in _FAILED or item.get("error") not in (None, "")
            self.b.add(
                "tool_return",
                timestamp=when,
                tool_call_id=call_id,
                tool_name=name,
                status="error" if failed else "success",
                content=item.get("error") if failed and item.get("error") else result,
                metadata={META: {DERIVED: "hosted_call_result", "index": index}},
            )
        return call

    def _output(self, item: Mapping[str, Any], index: int, extra: dict[str, Any], when: Any, kind: str, line: int | None) -> BaseAction:
        call_id = _call_id(item)
        name, caller = self.calls.get(call_id, (None, None))
        if name is None:
            self.b.problem("tool-call-match", f"item #{index + 1} ({kind}) answers call_id {call_id!r}, which no earlier call has", line=line)
            name = item.get("name") if isinstance(item.get("name"), str) else kind.removesuffix("_output").removesuffix("_result").removesuffix("_call")
        output = item.get("output")
        if "call_id" in item:  # the Python SDK's output: the string the tool returned
            mapped, content = ["call_id", "output"], output
        else:  # the JS SDK's function_call_result: {"type": "text", "text": ...}, kept as it came
            mapped, content = [], _output_text(output)
        action = self._took("tool_return", item, index, mapped, extra, timestamp=when, tool_call_id=call_id, tool_name=name, status="success", content=content)
        target = _handoff_target(name, content)
        if target is not None and caller is not None:
            to_id = self._agent(target, item.get("timestamp"))
            meta = {META: {DERIVED: "handoff", "agent": target, "callerAgent": self.b.agents[caller].agent_name}}
            self.b.add("system.handoff", timestamp=when, data={"from_agent_id": caller, "to_agent_id": to_id, "tool_call_id": call_id}, metadata=meta)
            self.current = target
        return action

    # --- helpers ----------------------------------------------------------------------------
    def _took(self, action_type: str, item: Mapping[str, Any], index: int, mapped: Iterable[str], extra: dict[str, Any], **fields: Any) -> BaseAction:
        self.b.took()
        return self.b.add(action_type, metadata=_meta(item, index, mapped, extra), **fields)

    def _agent(self, name: Any, stamp: Any) -> str | None:
        if not isinstance(name, str) or not name:
            return None
        return self.b.agent(name, created_at=time_of(stamp))


def _call_id(item: Mapping[str, Any]) -> Any:
    """The call id: ``call_id`` (Python SDK, agency-swarm) or ``callId`` (JS SDK)."""
    return item.get("call_id", item.get("callId"))


def _output_text(output: Any) -> Any:
    if isinstance(output, Mapping) and output.get("type") in ("text", "input_text", "output_text") and isinstance(output.get("text"), str):
        return output["text"]
    return output


def _handoff_target(tool_name: str, output: Any) -> str | None:
    """The agent a handoff's output names, for a ``transfer_to_*`` call: ``{"assistant":
    "Billing agent"}`` as JSON, or as a Python dict's repr (older Agents SDKs)."""
    if not tool_name.startswith(HANDOFF_PREFIX) or not isinstance(output, str):
        return None
    try:
        value = orjson.loads(output)
        name = value.get("assistant") if isinstance(value, dict) else None
    except orjson.JSONDecodeError:
        match = _REPR_HANDOFF.match(output.strip())
        name = match.group(1) if match else None
    return name.strip() if isinstance(name, str) and name.strip() else None


def _meta(item: Mapping[str, Any], index: int, mapped: Iterable[str], extra: dict[str, Any]) -> dict[str, Any]:
    """The action's metadata: threadlab's own keys plus the item's unmapped fields (and its
    position in the saved list)."""
    skip = set(mapped)
    meta = {k: v for k, v in extra.items() if v is not None}
    meta[META] = {**{k: v for k, v in item.items() if k not in skip}, "index": index}
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


def _call_args(item: Mapping[str, Any]) -> Any:
    """The call's arguments, JSON-decoded when the string is JSON. The raw value stays in
    metadata under its own key (its key order and spacing are the producer's; args get their
    keys sorted; a custom tool's ``input`` is no ``arguments``)."""
    for key in ARG_KEYS:
        if key not in item:
            continue
        raw = item[key]
        if isinstance(raw, str):
            try:
                return orjson.loads(raw)
            except orjson.JSONDecodeError:
                return raw
        return raw
    return None
