"""A thread → a Qwen Code session file: each action back into the record it came from
(``metadata.qwen.record``: the envelope; the actions after it without one are the record's
further parts). Any other thread's actions become records of their own. The output is read
back and compared with the thread; every difference is named in a ``WriteLoss``."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime
from typing import Any

import orjson

from threadlab.core.loss import nothing_to_write, report_loss
from threadlab.core.model import BaseAction, Thread
from threadlab.formats.common.counts import figures_of
from threadlab.formats.common.losses import thread_losses
from threadlab.formats.common.source import Source
from threadlab.formats.qwen_code.reading import KEY, read_session

NAME = "qwen-code"
_TOKENS = {"input_tokens": "promptTokenCount", "output_tokens": "candidatesTokenCount", "total_tokens": "totalTokenCount", "thinking_tokens": "thoughtsTokenCount", "cache_read_tokens": "cachedContentTokenCount"}
_KIND = {"user_message": "user", "thinking": "assistant", "assistant_message": "assistant", "tool_call": "assistant", "tool_return": "tool_result"}


def qwen_time(moment: datetime) -> str:
    moment = moment.astimezone(UTC)
    return moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{moment.microsecond // 1000:03d}Z"


def _part(a: BaseAction, own: dict[str, Any]) -> Any:
    kind = a.action_type
    if kind == "thinking":
        return {"text": a.content, "thought": True, **(own.get("rest") or {})}  # type: ignore[attr-defined]
    if kind == "assistant_message":
        content = a.content  # type: ignore[attr-defined]
        return {"text": content if isinstance(content, str) else "".join(getattr(p, "text", "") or "" for p in content)}
    if kind == "tool_call":
        return {"functionCall": {"id": a.tool_call_id, "name": a.tool_name, "args": a.args}}  # type: ignore[attr-defined]
    if kind == "tool_return":
        content = a.content  # type: ignore[attr-defined]
        return {"functionResponse": {"id": a.tool_call_id, "name": a.tool_name, "response": {"output": content} if isinstance(content, str) else content}}  # type: ignore[attr-defined]
    return a.data  # type: ignore[attr-defined]


def _user_parts(a: BaseAction) -> list[Any]:
    content = a.content  # type: ignore[attr-defined]
    if isinstance(content, str):
        return [{"text": content}]
    parts = [p if isinstance(p, dict) else p.model_dump(exclude_none=True) for p in content]
    return [p.get("part") if p.get("type") == "qwen_part" else {"text": p.get("text", "")} for p in parts]


def write_session(thread: Thread) -> bytes:
    if not thread.actions:
        raise nothing_to_write(NAME, thread)
    records: list[dict[str, Any]] = []
    lost: list[str] = []
    current: dict[str, Any] | None = None
    last_uuid: str | None = None
    for a in thread.actions:
        own = (a.metadata or {}).get(KEY)
        own = own if type(own) is dict else {}
        if a.action_type == "system.unknown_record":
            records.append(a.data)  # type: ignore[attr-defined]
            current = None
            continue
        kind = own.get("empty") or _KIND.get(a.action_type) or ("system" if a.action_type.startswith("system.") and "record" in own else None)
        if kind is None and not (current is not None and "part" in own and hasattr(a, "data")):  # (an unknown part continues its record)
            lost.append(f"a {a.action_type} action (a session file has no place for it)")
            continue
        if "record" in own or current is None or (kind is not None and kind != current["type"]) or a.action_type == "user_message":
            envelope = dict(own.get("record") or {})
            extra = envelope.pop("message_extra", None)
            made = f"threadlab-{a.sequence}"
            current = {"uuid": envelope.pop("uuid", None) or str(uuid.uuid5(uuid.NAMESPACE_URL, thread.thread_id + made)), "parentUuid": envelope.pop("parentUuid", last_uuid)}
            current.update({"sessionId": thread.thread_id, "timestamp": qwen_time(a.timestamp), "type": kind or "system"})
            current.update(envelope)
            if current["type"] == "system":
                current["systemPayload"] = a.data  # type: ignore[attr-defined]
                records.append(current)
                last_uuid, current = current["uuid"], None
                continue
            current["message"] = {**(extra or {"role": "user" if kind != "assistant" else "model"}), "parts": []}
            if own.get("empty"):
                current["message"]["parts"] = a.data  # type: ignore[attr-defined]
                records.append(current)
                last_uuid, current = current["uuid"], None
                continue
            records.append(current)
            last_uuid = current["uuid"]
        parts = current["message"]["parts"]
        if a.action_type == "user_message":
            parts.extend(_user_parts(a))
        else:
            parts.append(_part(a, own))
        meta = a.metadata or {}
        if isinstance(meta.get("model_name"), str):
            current["model"] = meta["model_name"]
        figures = figures_of(a, _TOKENS)
        if figures:
            current["usageMetadata"] = figures
    if not records:
        raise nothing_to_write(NAME, thread)
    out = b"".join(orjson.dumps(r) + b"\n" for r in records)
    again = read_session(Source(out, name=thread.origin[0] or "written.jsonl"))
    lost.extend(p for p in thread_losses(thread, again) if p not in lost)
    report_loss(NAME, thread.thread_id, lost)
    return out
