"""Counts taken from a provider file's raw bytes by each API's own rules, without threadlab (the
standard library and orjson only): the messages (responses, completions) a stream or body holds,
and per message its blocks (items, choices) by type, its tool calls and returns, its thinking and
its usage. ``tests/test_provider_streams.py`` holds threadlab's reading to these."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson

ANTHROPIC_EVENTS = {"message_start", "content_block_start", "content_block_delta", "content_block_stop", "message_delta", "message_stop", "ping"}
# the Responses API's hosted tools: their call item holds the result
HOSTED = {"web_search_call", "file_search_call", "image_generation_call", "code_interpreter_call", "mcp_call"}
# what the Responses API records of its own doing (threadlab: system.<type>)
PLATFORM = {"mcp_list_tools", "mcp_approval_request", "mcp_approval_response", "additional_tools", "compaction", "compaction_trigger",
            "configuration_update"}


def values(path: Path) -> list[Any]:
    """The JSON values of a file: an SSE body's ``data:`` lines (``[DONE]`` left out), a JSON
    document (an array gives its elements), or JSON Lines."""
    data = path.read_bytes()
    if data.lstrip().startswith((b"data:", b"event:")):
        return [orjson.loads(line[5:]) for line in data.splitlines() if line.startswith(b"data:") and line[5:].strip() not in (b"[DONE]", b"")]
    try:
        value = orjson.loads(data)
    except orjson.JSONDecodeError:
        return [orjson.loads(line) for line in data.splitlines() if line.strip()]
    return value if isinstance(value, list) else [value]


# --- Anthropic Messages ---------------------------------------------------------------------


def anthropic_messages(evs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The messages of a stream: ``message_start`` begins one (its content included; the same
    message_start sent twice in a row is one), ``content_block_start`` adds a block (a copy: a
    ``text_delta`` to its ``index`` adds to its text), the usage of ``message_delta`` replaces
    the counts it gives (they are totals). A stream that begins without ``message_start`` (a cut
    capture) is one message."""
    out: list[dict[str, Any]] = []
    current: dict[str, Any] | None = None
    for e in evs:
        kind = e.get("type")
        if kind == "message_start" or current is None:
            message = e.get("message") if kind == "message_start" and isinstance(e.get("message"), dict) else {}
            if current is not None and not current["touched"]:
                if message.get("id") == current["id"]:
                    continue
                if current["id"] is None:  # only pings so far
                    out.pop()
            current = {"id": message.get("id"), "blocks": list(message.get("content") or []), "usage": dict(message.get("usage") or {}),
                       "touched": False, "at": {}}
            out.append(current)
        if kind == "content_block_start" and isinstance(e.get("content_block"), dict):
            block = dict(e["content_block"])
            current["blocks"].append(block)
            current["at"][e.get("index")] = block
            current["touched"] = True
        elif kind == "message_delta":
            current["usage"].update({k: v for k, v in (e.get("usage") or {}).items() if v is not None})
            current["touched"] = True
        elif kind == "content_block_delta":
            delta, block = e.get("delta"), current["at"].get(e.get("index"))
            if isinstance(delta, dict) and isinstance(delta.get("text"), str) and block is not None:
                block["text"] = (block.get("text") or "") + delta["text"]
            current["touched"] = True
    return out


def anthropic_kind(block: dict[str, Any]) -> str:
    """The action a response block is read as (the API's block types)."""
    kind = block.get("type")
    if kind == "text":
        return "assistant_message"
    if kind in ("thinking", "redacted_thinking"):
        return "thinking"
    if kind in ("tool_use", "server_tool_use", "mcp_tool_use"):
        return "tool_call"
    if str(kind).endswith("_tool_result"):
        return "tool_return"
    return "system.unknown_block"


def blank(text: Any) -> bool:
    """Whitespace-only text (issue 24 §1: beside a message's other blocks it is no message)."""
    return isinstance(text, str) and not text.strip()


def anthropic_kinds(blocks: list[dict[str, Any]]) -> list[str]:
    """The actions a message's blocks are read as: a whitespace-only text block beside other
    blocks is none."""
    kept = [b for b in blocks if not (b.get("type") == "text" and blank(b.get("text")))] or blocks
    return [anthropic_kind(b) for b in kept] or ["assistant_message"]


def anthropic_usage(usage: dict[str, Any]) -> tuple[int, int]:
    """(input, output): the input counts the cache reads and writes."""
    inp = sum(usage.get(k) or 0 for k in ("input_tokens", "cache_read_input_tokens", "cache_creation_input_tokens"))
    return inp, usage.get("output_tokens") or 0


def anthropic_counts(path: Path) -> dict[str, Any]:
    """A stream's messages, or the responses of a file of bodies (a ``Message``, alone or as a
    pair's ``response``)."""
    found = values(path)
    evs = [v for v in found if isinstance(v, dict) and v.get("type") in ANTHROPIC_EVENTS]
    bodies = [v.get("response", v) for v in found if isinstance(v, dict)]
    messages = anthropic_messages(evs) if evs else [
        {"blocks": b["content"], "usage": b.get("usage") or {}} for b in bodies if isinstance(b, dict) and b.get("type") == "message"]
    blocks = [b for m in messages for b in m["blocks"]]
    return {
        "messages": len(messages),
        "kinds": [anthropic_kinds(m["blocks"]) for m in messages],
        "calls": len({b["id"] for b in blocks if anthropic_kind(b) == "tool_call"}),
        "returns": len({b["tool_use_id"] for b in blocks if anthropic_kind(b) == "tool_return"}),
        "thinking": sum(1 for b in blocks if anthropic_kind(b) == "thinking"),
        "usage": [anthropic_usage(m["usage"]) for m in messages],
    }


# --- OpenAI Responses -----------------------------------------------------------------------


def responses_of_stream(evs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The responses of a stream: a ``response.created`` after an earlier one, or any event
    after a response ended, begins the next; a response's output is its final event's, else the
    items of its ``response.output_item.done`` events."""
    out: list[dict[str, Any]] = []
    current: dict[str, Any] | None = None
    for e in evs:
        kind = e["type"]
        if "response" in e:
            if current is None or current["ended"] or (kind == "response.created" and current["created"]):
                current = {"body": None, "done": {}, "ended": False, "created": False}
                out.append(current)
            current["body"] = e["response"]
            current["created"] = current["created"] or kind == "response.created"
            current["ended"] = kind in ("response.completed", "response.incomplete", "response.failed")
        elif kind == "response.output_item.done":
            if current is None:  # a capture cut before its response.created
                current = {"body": {}, "done": {}, "ended": False, "created": False}
                out.append(current)
            current["done"][e.get("output_index", len(current["done"]))] = e.get("item")
    return [{"output": (r["body"] or {}).get("output") or [r["done"][i] for i in sorted(r["done"])], "usage": (r["body"] or {}).get("usage")} for r in out]


def responses_kinds(item: dict[str, Any]) -> list[str]:
    """The actions an output item is read as."""
    kind = item.get("type")
    if kind == "message":
        return ["assistant_message" if item.get("role") == "assistant" else "user_message"]
    if kind == "reasoning":
        return ["thinking"]
    if kind in PLATFORM:
        return [f"system.{kind}"]
    if kind in HOSTED or (str(kind).endswith("_call") and item.get("call_id") is None and kind != "tool_search_call"):
        return ["tool_call", "tool_return"]
    if str(kind).endswith("_call") or kind == "program":
        return ["tool_call"]
    if str(kind).endswith("_output"):
        return ["tool_return"]
    return ["system.unknown_item"]


def blank_answer(item: dict[str, Any]) -> bool:
    """An assistant message item whose parts hold whitespace-only text (or none)."""
    parts = item.get("content")
    return (item.get("type") == "message" and item.get("role") == "assistant" and isinstance(parts, list)
            and all(isinstance(p, dict) and p.get("type") == "output_text" and blank(p.get("text")) for p in parts))


def responses_output_kinds(output: list[dict[str, Any]]) -> list[str]:
    """The actions a response's items are read as: a whitespace-only answer beside other items is none."""
    kept = [i for i in output if not blank_answer(i)] or output
    return [k for i in kept for k in responses_kinds(i)]


def responses_counts(path: Path) -> dict[str, Any]:
    vals = values(path)
    if vals and str(vals[0].get("type", "")).startswith("response."):
        responses = responses_of_stream(vals)
    else:
        responses = [{"output": v.get("output") or [], "usage": v.get("usage")} for v in vals if v.get("object") == "response"]
    items = [i for r in responses for i in r["output"]]
    calls = {i.get("call_id") or i["id"] for i in items if "tool_call" in responses_kinds(i)}
    returns = {i["call_id"] for i in items if responses_kinds(i) == ["tool_return"] and i.get("call_id")}
    returns |= {i.get("call_id") or i["id"] for i in items if responses_kinds(i) == ["tool_call", "tool_return"]}
    return {
        "messages": len(responses),
        "kinds": [responses_output_kinds(r["output"]) for r in responses],
        "calls": len(calls),
        "returns": len(returns) + sum(1 for i in items if responses_kinds(i) == ["tool_return"] and not i.get("call_id")),
        "thinking": sum(1 for i in items if i.get("type") == "reasoning"),
        "usage": [(r["usage"]["input_tokens"], r["usage"]["output_tokens"]) if r.get("usage") else (0, 0) for r in responses],
    }


# --- OpenAI Chat Completions (and the compatible vendors) -------------------------------------


def chunk_usage(chunk: dict[str, Any]) -> Any:
    """Where the vendors put a chunk's usage: ``usage``, ``x_groq.usage``, a choice's ``usage``."""
    if isinstance(chunk.get("usage"), dict):
        return chunk["usage"]
    if isinstance((chunk.get("x_groq") or {}).get("usage"), dict):
        return chunk["x_groq"]["usage"]
    return next((c["usage"] for c in chunk.get("choices") or [] if isinstance(c.get("usage"), dict)), None)


def chat_counts(path: Path) -> dict[str, Any]:
    chunks = [v for v in values(path) if isinstance(v, dict) and v.get("object") == "chat.completion.chunk"]
    ids: set[str] = set()
    reasoning = text = False
    usage = None
    for chunk in chunks:
        usage = chunk_usage(chunk) or usage
        for choice in chunk.get("choices") or []:
            delta = choice.get("delta") or {}
            ids |= {c["id"] for c in delta.get("tool_calls") or [] if c.get("id")}
            reasoning = reasoning or any(isinstance(delta.get(k), str) and delta[k] for k in ("reasoning_content", "reasoning"))
            text = text or bool(isinstance(delta.get("content"), str) and delta["content"])
    kinds = ["thinking"] * reasoning + ["assistant_message"] * (text or not ids) + ["tool_call"] * len(ids)
    return {
        "messages": 1,
        "kinds": [kinds],
        "calls": len(ids),
        "returns": 0,
        "thinking": int(reasoning),
        "usage": [(usage["prompt_tokens"], usage["completion_tokens"]) if usage else (0, 0)],
    }


COUNTERS = {"anthropic-messages": anthropic_counts, "openai-responses": responses_counts, "openai-chat": chat_counts}
