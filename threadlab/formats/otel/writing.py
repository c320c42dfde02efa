"""Thread → OTLP JSON (``resourceSpans``) in the GenAI conventions' newer attributes.

The spans are laid out by ``spans/layout.py``: an ``invoke_agent`` span per agent run (a
delegated agent's under the ``execute_tool`` span of the call that started it), a ``chat`` span
per model response (``gen_ai.input.messages``: the run's history so far;
``gen_ai.output.messages``: the response), an ``execute_tool`` span per answered tool call, and
for a handoff the ``handoff to <agent>`` span OpenInference's Agents SDK instrumentor writes.
Ids are hex and times unix-nano strings, as OTLP/JSON says; ``spans/verify.py`` then reads the
output back and names what did not survive."""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from datetime import datetime
from typing import Any

import orjson
from openinference.semconv.trace import SpanAttributes as OI
from opentelemetry.semconv._incubating.attributes import gen_ai_attributes as G

from threadlab.core.model import Thread
from threadlab.formats.common.spans.layout import HandoffStep, Layout, ModelStep, Run, ToolStep, nanos, plain


def to_otlp(thread: Thread) -> dict[str, Any]:
    """The thread as one OTLP JSON document (``TracesData``)."""
    meta = (thread.metadata or {}).get("otel")
    meta = meta if isinstance(meta, Mapping) else {}
    trace_ids = meta.get("trace_ids")
    trace_id = trace_ids[0] if isinstance(trace_ids, list) and trace_ids else hashlib.sha256(thread.thread_id.encode()).hexdigest()[:32]
    resource = meta.get("resource") if isinstance(meta.get("resource"), Mapping) else {"service.name": "threadlab"}
    conversation = meta.get("conversation_id") if isinstance(meta.get("conversation_id"), str) else None
    spans: list[dict[str, Any]] = []
    for run in Layout(thread).runs:
        spans += _run(run, trace_id, conversation, thread.title if not spans and run.parent is None else None)
    return {"resourceSpans": [{"resource": {"attributes": _kvs(resource)}, "scopeSpans": [{"scope": {"name": "threadlab"}, "spans": spans}]}]}


def _span(trace_id: str, span_id: str, parent: str | None, name: str, start: datetime, end: datetime, attrs: Mapping[str, Any],
          error: str | None = None) -> dict[str, Any]:
    body: dict[str, Any] = {"traceId": trace_id, "spanId": span_id, "name": name, "kind": 1, "startTimeUnixNano": str(nanos(start)),
                            "endTimeUnixNano": str(nanos(end)), "attributes": _kvs(attrs), "status": {"code": 2, "message": error} if error else {}}
    if parent:
        body["parentSpanId"] = parent
    return body


def _run(run: Run, trace_id: str, conversation: str | None, title: str | None) -> list[dict[str, Any]]:
    """The run's spans; the first root span is named by the thread's title (which a reader
    takes from the root span's name)."""
    base = {G.GEN_AI_OPERATION_NAME: G.GenAiOperationNameValues.INVOKE_AGENT.value, G.GEN_AI_AGENT_NAME: run.name}
    if conversation:
        base[G.GEN_AI_CONVERSATION_ID] = conversation
    out = [_span(trace_id, run.span_id, run.parent, title or f"invoke_agent {run.name}", run.start, run.end, base)]
    for step in run.steps:
        if isinstance(step, ModelStep):
            out.append(_model(step, run, trace_id))
        elif isinstance(step, ToolStep):
            call, ret = step.call, step.ret
            result = ret.content if isinstance(ret.content, str) else orjson.dumps(plain(ret.content)).decode()
            attrs = {G.GEN_AI_OPERATION_NAME: G.GenAiOperationNameValues.EXECUTE_TOOL.value, G.GEN_AI_TOOL_NAME: call.tool_name,
                     G.GEN_AI_TOOL_CALL_ID: call.tool_call_id, G.GEN_AI_TOOL_CALL_ARGUMENTS: orjson.dumps(plain(call.args)).decode(),
                     G.GEN_AI_TOOL_CALL_RESULT: result}
            out.append(_span(trace_id, step.span_id, run.span_id, f"execute_tool {call.tool_name}", call.timestamp, ret.timestamp, attrs,
                             error=ret.status if ret.status != "success" else None))
        elif isinstance(step, HandoffStep):
            attrs = {OI.OPENINFERENCE_SPAN_KIND: "TOOL", OI.INPUT_VALUE: step.from_name, OI.OUTPUT_VALUE: step.to_name}
            out.append(_span(trace_id, step.span_id, run.span_id, f"handoff to {step.to_name}", step.at, step.at, attrs))
    return out


def _model(step: ModelStep, run: Run, trace_id: str) -> dict[str, Any]:
    attrs: dict[str, Any] = {
        G.GEN_AI_OPERATION_NAME: G.GenAiOperationNameValues.CHAT.value,
        G.GEN_AI_AGENT_NAME: run.name,
        G.GEN_AI_INPUT_MESSAGES: orjson.dumps(step.history).decode(),
        G.GEN_AI_OUTPUT_MESSAGES: orjson.dumps([step.output]).decode(),
    }
    if run.system:
        attrs[G.GEN_AI_SYSTEM_INSTRUCTIONS] = orjson.dumps([{"type": "text", "content": s} for s in run.system]).decode()
    if step.model:
        attrs[G.GEN_AI_RESPONSE_MODEL] = step.model
    if step.provider:
        attrs[G.GEN_AI_PROVIDER_NAME] = step.provider
    if step.usage is not None:
        u = step.usage
        for key, value in ((G.GEN_AI_USAGE_INPUT_TOKENS, u.input_tokens), (G.GEN_AI_USAGE_OUTPUT_TOKENS, u.output_tokens),
                           (G.GEN_AI_USAGE_CACHE_READ_INPUT_TOKENS, u.cache_read_tokens),
                           (G.GEN_AI_USAGE_CACHE_CREATION_INPUT_TOKENS, u.cache_write_tokens),
                           (G.GEN_AI_USAGE_REASONING_OUTPUT_TOKENS, u.thinking_tokens)):
            if value is not None:
                attrs[key] = value
    return _span(trace_id, step.span_id, run.span_id, f"chat {step.model or run.name}", step.start, step.end, attrs)


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
