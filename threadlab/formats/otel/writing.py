"""Thread → OTLP JSON (``resourceSpans``) in the GenAI conventions' newer attributes.

Each agent run is an ``invoke_agent`` span (a delegated agent's run under the ``execute_tool``
span of the call that started it); each model response a ``chat`` span whose
``gen_ai.input.messages`` hold the run's history so far and ``gen_ai.output.messages`` the
response; each answered tool call an ``execute_tool`` span from the call to its return; a
handoff the ``handoff to <agent>`` span OpenInference's Agents SDK instrumentor writes. Ids are
hex and times unix-nano strings, as OTLP/JSON says. ``formats/spans/verify.py`` then reads the
output back and names what did not survive."""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

import orjson
from openinference.semconv.trace import SpanAttributes as OI
from opentelemetry.semconv._incubating.attributes import gen_ai_attributes as G

from threadlab.core.canonical import model_to_dict
from threadlab.core.model import Thread

_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
_OUTPUT = ("assistant_message", "thinking", "tool_call")


def _ns(moment: datetime) -> int:
    return (moment - _EPOCH) // timedelta(microseconds=1) * 1000


@dataclass
class _Run:
    agent: str
    span_id: str
    parent: str | None
    actions: list[Any] = field(default_factory=list)


class _Ids:
    def __init__(self, thread: Thread) -> None:
        self.seed = thread.thread_id
        self.n = 0

    def next(self) -> str:
        self.n += 1
        return hashlib.sha256(f"{self.seed}:{self.n}".encode()).hexdigest()[:16]


def to_otlp(thread: Thread) -> dict[str, Any]:
    meta = (thread.metadata or {}).get("otel") or {}
    trace_ids = meta.get("trace_ids") if isinstance(meta, Mapping) else None
    trace_id = trace_ids[0] if isinstance(trace_ids, list) and trace_ids else hashlib.sha256(thread.thread_id.encode()).hexdigest()[:32]
    resource = meta.get("resource") if isinstance(meta, Mapping) and isinstance(meta.get("resource"), Mapping) else {"service.name": "threadlab"}
    spans = _Writer(thread, trace_id).spans()
    return {
        "resourceSpans": [
            {
                "resource": {"attributes": _kvs(resource)},
                "scopeSpans": [{"scope": {"name": "threadlab"}, "spans": spans}],
            }
        ]
    }


class _Writer:
    def __init__(self, thread: Thread, trace_id: str) -> None:
        self.thread = thread
        self.trace_id = trace_id
        self.ids = _Ids(thread)
        self.out: list[dict[str, Any]] = []
        self.calls: dict[str, Any] = {}  # tool_call_id → the call action
        self.tool_spans: dict[str, str] = {}  # tool_call_id → its execute_tool span id
        self.conversation = (thread.metadata or {}).get("otel", {}).get("conversation_id") if isinstance((thread.metadata or {}).get("otel"), Mapping) else None

    def agent_of(self, action: Any) -> str | None:
        agent = getattr(action, "agent_id", None)
        if agent is None and action.action_type == "user_message":
            agent = (action.metadata or {}).get("to_agent_id")
        if agent is None and action.action_type == "tool_return":
            call = self.calls.get(action.tool_call_id)
            agent = call.agent_id if call is not None else None
        if agent is None and action.action_type == "system.agent_join" and isinstance(getattr(action, "data", None), Mapping):
            agent = action.data.get("agent_id")
        return agent or next(iter(self.thread.agents), None)

    def runs(self) -> list[_Run]:
        runs: list[_Run] = []
        current: dict[str, _Run] = {}
        for action in self.thread.actions:
            if action.action_type == "tool_call":
                self.calls[action.tool_call_id] = action
                self.tool_spans[action.tool_call_id] = self.ids.next()
            agent = self.agent_of(action)
            if agent is None:
                continue
            join = action.action_type == "system.agent_join"
            if agent not in current or join:
                data = action.data if join and isinstance(action.data, Mapping) else {}
                parent_call = data.get("tool_call_id") or (action.metadata or {}).get("parent_tool_call_id")
                run = _Run(agent, self.ids.next(), self.tool_spans.get(parent_call) if parent_call else None)
                runs.append(run)
                current[agent] = run
            current[agent].actions.append(action)
        return runs

    def spans(self) -> list[dict[str, Any]]:
        for run in self.runs():
            self.write_run(run)
        return self.out

    def span(self, span_id: str, parent: str | None, name: str, start: datetime, end: datetime, attrs: dict[str, Any],
             error: str | None = None) -> None:
        body: dict[str, Any] = {"traceId": self.trace_id, "spanId": span_id, "name": name, "kind": 1,
                                "startTimeUnixNano": str(_ns(start)), "endTimeUnixNano": str(_ns(end)), "attributes": _kvs(attrs)}
        if parent:
            body["parentSpanId"] = parent
        body["status"] = {"code": 2, "message": error} if error else {}
        self.out.append(body)

    def write_run(self, run: _Run) -> None:
        agent = self.thread.agents.get(run.agent)
        name = agent.agent_name if agent else run.agent
        base = {G.GEN_AI_OPERATION_NAME: "invoke_agent", G.GEN_AI_AGENT_NAME: name}
        if self.conversation:
            base[G.GEN_AI_CONVERSATION_ID] = self.conversation
        times = [a.timestamp for a in run.actions]
        self.span(run.span_id, run.parent, f"invoke_agent {name}", min(times), max(times), base)
        system = list((agent.metadata or {}).get("system_instructions") or []) if agent else []
        history: list[dict[str, Any]] = []
        pending: list[Any] = []
        group: list[Any] = []
        for action in run.actions + [None]:
            if action is not None and action.action_type in _OUTPUT and getattr(action, "agent_id", None) == run.agent:
                group.append(action)
                continue
            if group:
                self.write_call(run, name, system, history, pending, group)
                pending, group = [], []
            if action is None:
                break
            if action.action_type == "system.handoff" and isinstance(action.data, Mapping):
                to = self.thread.agent_name(action.data.get("to_agent_id")) or action.data.get("to_agent_id")
                frm = self.thread.agent_name(action.data.get("from_agent_id")) or action.data.get("from_agent_id")
                self.span(self.ids.next(), run.span_id, f"handoff to {to}", action.timestamp, action.timestamp,
                          {OI.OPENINFERENCE_SPAN_KIND: "TOOL", OI.INPUT_VALUE: frm, OI.OUTPUT_VALUE: to})
            elif action.action_type in ("user_message", "tool_return"):
                pending.append(action)
                history.append(_message(action))
                if action.action_type == "tool_return":
                    self.write_tool(run, action)

    def write_call(self, run: _Run, name: str, system: list[str], history: list[dict[str, Any]], pending: list[Any], group: list[Any]) -> None:
        output = _response(group)
        first_out = next((a.timestamp for a in group if a.action_type != "tool_call"), group[0].timestamp)
        start = min([a.timestamp for a in pending] or [first_out])
        attrs: dict[str, Any] = {
            G.GEN_AI_OPERATION_NAME: "chat",
            G.GEN_AI_AGENT_NAME: name,
            G.GEN_AI_INPUT_MESSAGES: orjson.dumps(history).decode(),
            G.GEN_AI_OUTPUT_MESSAGES: orjson.dumps([output]).decode(),
        }
        if system:
            attrs[G.GEN_AI_SYSTEM_INSTRUCTIONS] = orjson.dumps([{"type": "text", "content": s} for s in system]).decode()
        meta = next((a.metadata for a in group if a.metadata), None) or {}
        if meta.get("model_name"):
            attrs[G.GEN_AI_RESPONSE_MODEL] = meta["model_name"]
        if meta.get("provider_name"):
            attrs[G.GEN_AI_PROVIDER_NAME] = meta["provider_name"]
        usage = next((a.usage for a in group if getattr(a, "usage", None) is not None), None)
        if usage is not None:
            for key, value in ((G.GEN_AI_USAGE_INPUT_TOKENS, usage.input_tokens), (G.GEN_AI_USAGE_OUTPUT_TOKENS, usage.output_tokens),
                               (G.GEN_AI_USAGE_CACHE_READ_INPUT_TOKENS, usage.cache_read_tokens),
                               (G.GEN_AI_USAGE_CACHE_CREATION_INPUT_TOKENS, usage.cache_write_tokens),
                               (G.GEN_AI_USAGE_REASONING_OUTPUT_TOKENS, usage.thinking_tokens)):
                if value is not None:
                    attrs[key] = value
        self.span(self.ids.next(), run.span_id, f"chat {meta.get('model_name') or name}", start, first_out, attrs)
        history.append(output)

    def write_tool(self, run: _Run, ret: Any) -> None:
        call = self.calls.get(ret.tool_call_id)
        if call is None:
            return
        result = ret.content if isinstance(ret.content, str) else orjson.dumps(_plain(ret.content)).decode()
        attrs = {G.GEN_AI_OPERATION_NAME: "execute_tool", G.GEN_AI_TOOL_NAME: call.tool_name, G.GEN_AI_TOOL_CALL_ID: call.tool_call_id,
                 G.GEN_AI_TOOL_CALL_ARGUMENTS: orjson.dumps(_plain(call.args)).decode(), G.GEN_AI_TOOL_CALL_RESULT: result}
        owner = next((r for r in [run] if r.agent == call.agent_id), run)
        self.span(self.tool_spans[call.tool_call_id], owner.span_id, f"execute_tool {call.tool_name}", call.timestamp, ret.timestamp,
                  attrs, error=ret.status if ret.status != "success" else None)


def _plain(value: Any) -> Any:
    if hasattr(value, "model_dump"):
        return model_to_dict(value)
    if isinstance(value, list):
        return [_plain(v) for v in value]
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    return value


def _parts(content: Any) -> list[dict[str, Any]]:
    if isinstance(content, str):
        return [{"type": "text", "content": content}]
    parts = []
    for part in content or []:
        raw = _plain(part)
        if raw.get("type") == "text":
            parts.append({"type": "text", "content": raw.get("text", "")})
        elif raw.get("content_type") == "url":
            parts.append({"type": "uri", "uri": raw.get("url"), "mime_type": raw.get("media_type"), "modality": raw.get("media_category")})
        elif raw.get("content_type") == "binary":
            parts.append({"type": "blob", "content": raw.get("data"), "mime_type": raw.get("media_type"), "modality": raw.get("media_category")})
        elif raw.get("type") == "image" and raw.get("image_url"):
            parts.append({"type": "image_url", "image_url": {"url": raw["image_url"]}})
        else:
            parts.append(raw)
    return parts


def _message(action: Any) -> dict[str, Any]:
    if action.action_type == "user_message":
        return {"role": "user", "parts": _parts(action.content)}
    result = _plain(action.content)
    return {"role": "tool", "parts": [{"type": "tool_call_response", "id": action.tool_call_id, "name": action.tool_name, "result": result}]}


def _response(group: list[Any]) -> dict[str, Any]:
    parts: list[dict[str, Any]] = []
    finish = None
    for action in group:
        if action.action_type == "thinking":
            parts.append({"type": "reasoning", "content": action.content or ""})
        elif action.action_type == "assistant_message":
            parts += _parts(action.content)
            finish = action.finish_reason or finish
        else:
            parts.append({"type": "tool_call", "id": action.tool_call_id, "name": action.tool_name, "arguments": _plain(action.args)})
    message: dict[str, Any] = {"role": "assistant", "parts": parts}
    if finish:
        message["finish_reason"] = finish
    return message


def _kvs(attrs: Mapping[str, Any]) -> list[dict[str, Any]]:
    return [{"key": k, "value": _any(v)} for k, v in attrs.items() if v is not None]


def _any(value: Any) -> dict[str, Any]:
    if isinstance(value, bool):
        return {"boolValue": value}
    if isinstance(value, int):
        return {"intValue": str(value)}
    if isinstance(value, float):
        return {"doubleValue": value}
    if isinstance(value, list):
        return {"arrayValue": {"values": [_any(v) for v in value]}}
    if isinstance(value, Mapping):
        return {"kvlistValue": {"values": _kvs(value)}}
    return {"stringValue": str(value)}
