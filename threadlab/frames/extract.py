"""Extract frame rows from thread JSON objects, straight into column lists.

Works on the JSON object (as parsed from disk, or ``Thread.to_dict()``), never on one pydantic
object per action: this is the loaders' hot path. Values are left raw (timestamps as text);
``table.py`` turns each column into its declared dtype in one vectorised step."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import orjson

from threadlab.core.problems import Problem
from threadlab.frames.columns import TABLES
from threadlab.frames.pricing import cost_usd

Columns = dict[str, list[Any]]

_ROLE = {
    "user_message": "user",
    "assistant_message": "agent",
    "thinking": "agent",
    "tool_call": "agent",
    "tool_return": "tool",
}
_TOKEN_KEYS = (
    "input_tokens",
    "output_tokens",
    "thinking_tokens",
    "cache_read_tokens",
    "cache_write_tokens",
    "total_tokens",
)


def empty_columns(table: str) -> Columns:
    return {c.name: [] for c in TABLES[table]}


def new_batch() -> dict[str, Columns]:
    return {name: empty_columns(name) for name in TABLES}


def to_text(value: Any) -> str | None:
    """Content as one string: text parts joined; anything structured as compact JSON."""
    if value is None:
        return None
    if isinstance(value, str):
        return value
    if isinstance(value, list) and all(isinstance(p, Mapping) for p in value):
        texts = [p.get("text") for p in value if isinstance(p.get("text"), str)]
        if texts and len(texts) == len(value):
            return "\n".join(texts)
        pieces = []
        for part in value:
            text = part.get("text")
            if isinstance(text, str):
                pieces.append(text)
            else:
                label = part.get("media_category") or part.get("type") or "part"
                ref = part.get("url") or part.get("image_url") or part.get("identifier") or ""
                pieces.append(f"[{label}{': ' + ref if ref else ''}]")
        return "\n".join(pieces)
    try:
        return orjson.dumps(value, option=orjson.OPT_NON_STR_KEYS).decode()
    except TypeError:
        return str(value)


def count_media(action: Mapping[str, Any]) -> int:
    content = action.get("content")
    n = 0
    if isinstance(content, list):
        n += sum(1 for p in content if isinstance(p, Mapping) and p.get("type") != "text")
    attachments = action.get("attachments")
    if isinstance(attachments, list):
        n += len(attachments)
    return n


def _int(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def extract_thread(
    doc: Mapping[str, Any],
    batch: dict[str, Columns],
    *,
    source: str | None,
    format: str | None,
    problems: list[Problem] = (),  # type: ignore[assignment]
) -> None:
    """Append the rows of one thread to every table of ``batch``."""
    thread_id = doc.get("thread_id")
    agents = doc.get("agents") if isinstance(doc.get("agents"), Mapping) else {}
    names = {k: (v.get("agent_name") if isinstance(v, Mapping) else None) or k for k, v in agents.items()}
    agent_model = {
        k: (v.get("metadata") or {}).get("model_name") for k, v in agents.items() if isinstance(v, Mapping) and isinstance(v.get("metadata"), Mapping)
    }
    actions = [a for a in (doc.get("actions") or []) if isinstance(a, Mapping)]

    # tool pairs first: tool_call rows carry their pair's status, returns their caller
    calls: dict[str, Mapping[str, Any]] = {}
    returns: dict[str, Mapping[str, Any]] = {}
    orphans: list[Mapping[str, Any]] = []
    for action in actions:
        kind = action.get("action_type")
        if kind == "tool_call":
            calls[str(action.get("tool_call_id"))] = action
        elif kind == "tool_return":
            key = str(action.get("tool_call_id"))
            if key in calls and key not in returns:
                returns[key] = action
            else:
                orphans.append(action)

    a = batch["actions"]
    u = batch["usage"]
    totals = dict.fromkeys(_TOKEN_KEYS, 0)
    seen_tokens = dict.fromkeys(_TOKEN_KEYS, False)
    cost_total = 0.0
    has_cost = False
    n_messages = n_calls = n_errors = 0
    for action in actions:
        kind = action.get("action_type")
        kind_s = kind if isinstance(kind, str) else None
        meta = action.get("metadata") if isinstance(action.get("metadata"), Mapping) else {}
        agent_id = action.get("agent_id")
        status = None
        tool_call_id = action.get("tool_call_id")
        if kind_s == "tool_return":
            call = calls.get(str(tool_call_id))
            agent_id = call.get("agent_id") if call is not None else None
            status = action.get("status")
            text = to_text(action.get("content"))
            if status in ("error", "validation_error"):
                n_errors += 1
        elif kind_s == "tool_call":
            n_calls += 1
            ret = returns.get(str(tool_call_id))
            status = "pending" if ret is None else ret.get("status")
            text = to_text(action.get("args"))
        elif kind_s is not None and kind_s.startswith("system."):
            text = to_text(action.get("data"))
        else:
            text = to_text(action.get("content"))
            if kind_s in ("user_message", "assistant_message"):
                n_messages += 1
        role = _ROLE.get(kind_s or "", "system" if kind_s and kind_s.startswith("system.") else "other")
        usage = action.get("usage") if isinstance(action.get("usage"), Mapping) else None
        tokens = dict.fromkeys(_TOKEN_KEYS)
        if usage is not None:
            for key in _TOKEN_KEYS:
                tokens[key] = _int(usage.get(key))
            if tokens["total_tokens"] is None and (tokens["input_tokens"] is not None or tokens["output_tokens"] is not None):
                tokens["total_tokens"] = (tokens["input_tokens"] or 0) + (tokens["output_tokens"] or 0)
        model = meta.get("model_name") or agent_model.get(agent_id)
        agent_name = names.get(agent_id, agent_id) if agent_id is not None else None
        a["source"].append(source)
        a["thread_id"].append(thread_id)
        a["sequence"].append(_int(action.get("sequence")))
        a["timestamp"].append(action.get("timestamp"))
        a["action_type"].append(kind_s)
        a["role"].append(role)
        a["agent_id"].append(agent_id)
        a["agent_name"].append(agent_name)
        a["tool_name"].append(action.get("tool_name"))
        a["tool_call_id"].append(tool_call_id)
        a["status"].append(status)
        a["text"].append(text)
        a["n_chars"].append(len(text) if text is not None else None)
        for key in _TOKEN_KEYS:
            a[key].append(tokens[key])
        a["finish_reason"].append(action.get("finish_reason"))
        a["model_name"].append(model)
        a["n_media"].append(count_media(action))
        if usage is not None:
            provider = meta.get("provider_name") or (action.get("provider_name") if kind_s == "thinking" else None)
            cost = cost_usd(model, provider, tokens)
            u["source"].append(source)
            u["thread_id"].append(thread_id)
            u["sequence"].append(_int(action.get("sequence")))
            u["timestamp"].append(action.get("timestamp"))
            u["action_type"].append(kind_s)
            u["agent_id"].append(agent_id)
            u["agent_name"].append(agent_name)
            u["model_name"].append(model)
            u["provider_name"].append(provider)
            for key in _TOKEN_KEYS:
                u[key].append(tokens[key])
                if tokens[key] is not None:
                    totals[key] += tokens[key]
                    seen_tokens[key] = True
            u["cost_usd"].append(cost)
            if cost is not None:
                cost_total += cost
                has_cost = True

    t = batch["tool_calls"]
    pairs = [(call, returns.get(key)) for key, call in calls.items()] + [(None, ret) for ret in orphans]
    for call, ret in pairs:
        agent_id = call.get("agent_id") if call is not None else None
        either = call if call is not None else ret
        t["source"].append(source)
        t["thread_id"].append(thread_id)
        t["tool_call_id"].append(either.get("tool_call_id"))  # type: ignore[union-attr]
        t["agent_id"].append(agent_id)
        t["agent_name"].append(names.get(agent_id, agent_id) if agent_id is not None else None)
        t["tool_name"].append(either.get("tool_name"))  # type: ignore[union-attr]
        t["call_sequence"].append(_int(call.get("sequence")) if call is not None else None)
        t["return_sequence"].append(_int(ret.get("sequence")) if ret is not None else None)
        t["call_time"].append(call.get("timestamp") if call is not None else None)
        t["return_time"].append(ret.get("timestamp") if ret is not None else None)
        t["latency_s"].append(None)  # computed vectorised in table.py
        t["status"].append("orphan_return" if call is None else ("pending" if ret is None else ret.get("status")))
        t["args"].append(to_text(call.get("args")) if call is not None else None)
        t["result"].append(to_text(ret.get("content")) if ret is not None else None)

    times = [x.get("timestamp") for x in actions if x.get("timestamp") is not None]
    h = batch["threads"]
    h["source"].append(source)
    h["format"].append(format)
    h["thread_id"].append(thread_id)
    h["parent_thread_id"].append(doc.get("parent_thread_id"))
    h["title"].append(doc.get("title"))
    h["created_at"].append(doc.get("created_at"))
    h["updated_at"].append(doc.get("updated_at"))
    h["first_action_at"].append(times[0] if times else None)
    h["last_action_at"].append(times[-1] if times else None)
    h["duration_s"].append(None)  # computed vectorised in table.py
    h["n_agents"].append(len(agents))
    h["agents"].append(", ".join(str(n) for n in names.values()))
    h["n_actions"].append(len(actions))
    h["n_messages"].append(n_messages)
    h["n_tool_calls"].append(n_calls)
    h["n_tool_errors"].append(n_errors)
    h["n_pending"].append(sum(1 for key in calls if key not in returns))
    h["n_problems"].append(len(problems))
    for key in _TOKEN_KEYS:
        h[key].append(totals[key] if seen_tokens[key] else None)
    h["cost_usd"].append(cost_total if has_cost else None)
    add_problems(batch, problems, source=source)


def add_problems(batch: dict[str, Columns], problems: Any, *, source: str | None) -> None:
    p = batch["problems"]
    for problem in problems:
        p["source"].append(problem.source or source)
        p["thread_id"].append(problem.thread_id)
        p["sequence"].append(problem.sequence)
        p["line"].append(problem.line)
        p["rule"].append(problem.rule)
        p["message"].append(problem.message)


def merge_batches(batches: list[dict[str, Columns]]) -> dict[str, Columns]:
    """Concatenate batches column by column (keeps input order)."""
    out = new_batch()
    for batch in batches:
        for table, columns in batch.items():
            for name, values in columns.items():
                out[table][name].extend(values)
    return out
