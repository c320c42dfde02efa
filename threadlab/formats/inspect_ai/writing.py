"""A thread → an Inspect AI ``.json`` log holding it as one sample.

An eval log is a whole evaluation (spec, plan, results, many samples); a thread is one sample of
one. The writer gives the sample's conversation as inspect_ai messages (system, user, assistant
with its tool calls and reasoning, tool), its usage as ``model_usage`` per model, its scores,
target and metadata when the thread came from a log, and a header that ``read_eval_log``
accepts. It writes no events: what only events hold (times, spans, per-call usage, which agent
made each call) is named in a ``WriteLoss``; the agent of each assistant message is kept in its
``metadata["agent"]``, which threadlab reads back."""

from __future__ import annotations

from collections import Counter
from typing import Any

import orjson

from threadlab.core.loss import report_loss
from threadlab.core.model import BaseAction, Thread
from threadlab.formats.inspect_ai.messages import KEY

NAME = "inspect-ai"


def write_log(thread: Thread) -> bytes:
    meta = (thread.metadata or {}).get(KEY) or {}
    lost: Counter[str] = Counter()
    messages: list[dict[str, Any]] = []
    usage: dict[str, dict[str, int]] = {}
    current: dict[str, Any] | None = None
    for action in thread.actions:
        kind = action.action_type
        if kind in ("assistant_message", "thinking", "tool_call"):
            agent = thread.agent_name(getattr(action, "agent_id", None))
            model = (action.metadata or {}).get("model_name")
            if current is None or current["metadata"]["agent"] != agent or (kind != "tool_call" and current.get("tool_calls")):
                current = {"role": "assistant", "content": [], "source": "generate", "metadata": {"agent": agent}}
                if isinstance(model, str):
                    current["model"] = model
                messages.append(current)
            _assistant_part(current, action)
            _add_usage(usage, model, getattr(action, "usage", None))
            continue
        current = None
        kept = (action.metadata or {}).get(KEY) or {}  # the message's own fields the reader kept
        if kind == "user_message":
            messages.append({"role": "user", "content": _content(action.content), **kept})  # type: ignore[attr-defined]
        elif kind == "tool_return":
            if not isinstance(action.content, str | list | None):  # type: ignore[attr-defined]
                lost["tool results that are not text (written as JSON text)"] += 1
            msg: dict[str, Any] = {"role": "tool", "content": _content(action.content), "tool_call_id": action.tool_call_id, "function": action.tool_name}  # type: ignore[attr-defined]
            if action.status != "success":  # type: ignore[attr-defined]
                msg["error"] = {"type": "unknown", "message": str(action.content)}  # type: ignore[attr-defined]
            messages.append({**msg, **kept})
        elif kind == "system.message" and isinstance(getattr(action, "data", None), dict):
            messages.append({"role": "system", "content": _content(action.data.get("content")), **kept})  # type: ignore[attr-defined]
        elif not (action.metadata or {}).get(KEY, {}).get("derived"):
            lost[f"{kind} actions"] += 1
    for m in messages:
        if m["role"] == "assistant":
            m["content"] = _flatten(m["content"])
    synthetic = (thread.metadata or {}).get("synthetic_timestamps") == len(thread.actions)
    if thread.actions and not synthetic:
        lost["times (a log written from a thread has no events)"] += 1
    if any(getattr(a, "usage", None) is not None for a in thread.actions):
        lost["per-call usage (written as model_usage totals per model)"] += 1
    sample = {
        "id": meta.get("id", thread.thread_id),
        "epoch": meta.get("epoch", 1),
        "input": thread.title or next((m["content"] for m in messages if m["role"] == "user" and isinstance(m["content"], str)), ""),
        "target": meta.get("target", ""),
        "messages": messages,
        "output": {"model": meta.get("model", "threadlab"), "choices": []},
        "events": [],
    }
    for key in ("scores", "metadata", "model_usage", "role_usage", "error", "limit", "total_time", "working_time", "uuid"):
        if key in meta:
            sample[key] = meta[key]
    if usage and "model_usage" not in meta:
        sample["model_usage"] = usage
    header = {
        "version": 2,
        "status": "success",
        "eval": {
            "task": meta.get("task", "threadlab"),
            "task_id": meta.get("task_id", thread.thread_id),
            "run_id": meta.get("run_id", thread.thread_id),
            "created": meta.get("created") or _created(thread, lost),
            "model": meta.get("model", "threadlab"),
            "dataset": {"samples": 1},
            "config": {},
            "packages": {},
        },
        "plan": {"name": "plan", "steps": []},
        "samples": [sample],
    }
    report_loss(NAME, thread.thread_id, [f"{n} {what}" if n > 1 else what for what, n in sorted(lost.items())])
    return orjson.dumps(header, option=orjson.OPT_INDENT_2) + b"\n"


def _created(thread: Thread, lost: Counter[str]) -> str:
    """The eval's ``created`` (inspect_ai requires one): the thread's start, else its first
    action's time; a thread of neither gets the Unix epoch, and the loss says so."""
    moment = thread.created_at or (thread.actions[0].timestamp if thread.actions else None)
    if moment is None:
        lost["the eval's creation time (the thread has none; written as the Unix epoch, which inspect_ai requires a value for)"] += 1
        return "1970-01-01T00:00:00+00:00"
    return moment.isoformat()


def _assistant_part(message: dict[str, Any], action: BaseAction) -> None:
    if action.action_type == "thinking":
        part = {"type": "reasoning", "reasoning": action.content or ""}  # type: ignore[attr-defined]
        if action.signature:  # type: ignore[attr-defined]
            part["signature"] = action.signature  # type: ignore[attr-defined]
        message["content"].append(part)
    elif action.action_type == "assistant_message":
        content = action.content  # type: ignore[attr-defined]
        message["content"].extend([{"type": "text", "text": content}] if isinstance(content, str) else _content(content))
    else:
        message.setdefault("tool_calls", []).append({"id": action.tool_call_id, "function": action.tool_name, "arguments": action.args, "type": "function"})  # type: ignore[attr-defined]


def _flatten(parts: list[Any]) -> Any:
    """One text part (or none) is written as a plain string, as inspect_ai does."""
    if all(isinstance(p, dict) and p.get("type") == "text" for p in parts) and len(parts) <= 1:
        return parts[0]["text"] if parts else ""
    return parts


def _content(content: Any) -> Any:
    if isinstance(content, str) or content is None:
        return content or ""
    if isinstance(content, list):
        return [p.model_dump(exclude_none=True) if hasattr(p, "model_dump") else p for p in content]
    return orjson.dumps(content).decode()


def _add_usage(totals: dict[str, dict[str, int]], model: Any, usage: Any) -> None:
    if usage is None:
        return
    fields = usage if isinstance(usage, dict) else usage.model_dump(exclude_none=True)
    row = totals.setdefault(model if isinstance(model, str) else "unknown", {"input_tokens": 0, "output_tokens": 0, "total_tokens": 0})
    for key in ("input_tokens", "output_tokens", "total_tokens"):
        row[key] += fields.get(key) or 0
