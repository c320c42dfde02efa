"""Thread → the Agents SDK's trace objects (``trace.export()``, ``span.export()``), laid out by
``spans/layout.py``: an agent span per agent run, a generation span per model response (Chat
Completions messages, the system instructions first, as the SDK's chat-completions model writes
them), a function span per answered tool call, a handoff span per handoff."""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from datetime import datetime
from typing import Any

import orjson

from threadlab.core.model import Thread
from threadlab.core.timefmt import format_timestamp
from threadlab.formats.common.spans.layout import HandoffStep, Layout, ModelStep, ToolStep, plain

KEY = "openai_agents_trace"


def to_trace_records(thread: Thread) -> list[dict[str, Any]]:
    meta = (thread.metadata or {}).get(KEY)
    traces = meta.get("traces") if isinstance(meta, Mapping) else None
    head = dict(traces[0]) if isinstance(traces, list) and traces and isinstance(traces[0], Mapping) else {}
    trace_id = head.get("id") or "trace_" + hashlib.sha256(thread.thread_id.encode()).hexdigest()[:32]
    record: dict[str, Any] = {"object": "trace", "id": trace_id, "workflow_name": head.get("workflow_name", thread.title or "Agent workflow"),
                              "group_id": head.get("group_id", thread.thread_id), "metadata": head.get("metadata")}
    out = [record]
    for run in Layout(thread).runs:
        agent = thread.agents.get(run.agent_id)
        info = (agent.metadata or {}) if agent else {}
        data = {"type": "agent", "name": run.name, "handoffs": info.get("handoffs", []), "tools": info.get("tools", []),
                "output_type": info.get("output_type", "str")}
        out.append(_span(trace_id, run.span_id, run.parent, run.start, run.end, data))
        for step in run.steps:
            if isinstance(step, ModelStep):
                messages = [{"role": "system", "content": s} for s in run.system] + [_chat(m) for m in step.history]
                u = step.usage
                usage = None if u is None else {"input_tokens": u.input_tokens, "output_tokens": u.output_tokens, "total_tokens": u.total_tokens,
                                                "input_tokens_details": {"cached_tokens": u.cache_read_tokens or 0},
                                                "output_tokens_details": {"reasoning_tokens": u.thinking_tokens or 0}}
                data = {"type": "generation", "input": messages, "output": [_chat(step.output)], "model": step.model, "model_config": {},
                        "usage": usage}
                out.append(_span(trace_id, step.span_id, run.span_id, step.start, step.end, data))
            elif isinstance(step, ToolStep):
                call, ret = step.call, step.ret
                output = ret.content if isinstance(ret.content, str) else orjson.dumps(plain(ret.content)).decode()
                data = {"type": "function", "name": call.tool_name, "input": orjson.dumps(plain(call.args)).decode(), "output": output,
                        "mcp_data": None}
                error = {"message": ret.status, "data": None} if ret.status != "success" else None
                out.append(_span(trace_id, step.span_id, run.span_id, call.timestamp, ret.timestamp, data, error))
            elif isinstance(step, HandoffStep):
                data = {"type": "handoff", "from_agent": step.from_name, "to_agent": step.to_name}
                out.append(_span(trace_id, step.span_id, run.span_id, step.at, step.at, data))
    return out


def _span(trace_id: str, span_id: str, parent: str | None, start: datetime, end: datetime, data: dict[str, Any],
          error: dict[str, Any] | None = None) -> dict[str, Any]:
    return {"object": "trace.span", "id": "span_" + span_id + span_id[:8], "trace_id": trace_id,
            "parent_id": ("span_" + parent + parent[:8]) if parent else None, "started_at": _iso(start), "ended_at": _iso(end),
            "span_data": data, "error": error}


def _iso(moment: datetime) -> str:
    return format_timestamp(moment).replace("Z", "+00:00")


def _chat(message: Mapping[str, Any]) -> dict[str, Any]:
    """A GenAI-shaped message (``{role, parts}``) as a Chat Completions message."""
    parts = message.get("parts") or []
    texts = [p.get("content", "") for p in parts if p.get("type") == "text"]
    results = [p for p in parts if p.get("type") == "tool_call_response"]
    if results:
        r = results[0]
        content = r.get("result")
        return {"role": "tool", "tool_call_id": r.get("id"), "content": content if isinstance(content, str) else orjson.dumps(content).decode()}
    out: dict[str, Any] = {"role": message.get("role"), "content": "".join(texts) if texts else None}
    others = [p for p in parts if p.get("type") not in ("text", "tool_call", "tool_call_response", "reasoning")]
    if others:
        out["content"] = [{"type": "text", "text": t} for t in texts] + others
    reasoning = [p.get("content") or "" for p in parts if p.get("type") == "reasoning"]
    if reasoning:
        out["reasoning_content"] = "".join(reasoning)
    calls = [p for p in parts if p.get("type") == "tool_call"]
    if calls:
        out["tool_calls"] = [{"id": c.get("id"), "type": "function",
                              "function": {"name": c.get("name"), "arguments": orjson.dumps(c.get("arguments")).decode()}} for c in calls]
    return out
