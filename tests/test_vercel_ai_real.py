"""AI SDK files from the wild (tests/fixtures/real/vercel_ai*/, with provenance in their READMEs)
and from the real npm package (tests/fixtures/vercel_ai*/, data/vercel_ai/): each reads by
auto-detection, and its tool calls, tool returns, user prompts and usage equal what this test
computes from the raw file with plain json, following the AI SDK's own rules, not threadlab's."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson
import pytest

import threadlab
from threadlab.core.derive import iter_text
from threadlab.core.model import ToolCall, ToolReturn

ROOT = Path(__file__).resolve().parents[1]
STREAMS = sorted((ROOT / "tests/fixtures/real/vercel_ai").glob("*.json")) + sorted((ROOT / "tests/fixtures/vercel_ai").glob("*.sse"))
STREAMS += sorted((ROOT / "data/vercel_ai").glob("*.sse"))
MESSAGES = sorted((ROOT / "tests/fixtures/real/vercel_ai_messages").glob("*.json")) + sorted((ROOT / "tests/fixtures/vercel_ai_messages").glob("*.json"))
MESSAGES += sorted((ROOT / "data/vercel_ai").glob("*.uimessages.json"))
REAL = [p for p in STREAMS + MESSAGES if "/real/" in str(p)]


def test_the_real_corpus_is_there() -> None:
    assert len(REAL) >= 5 and all((p.parent / "README.md").is_file() for p in REAL)
    for path in REAL:
        assert path.name in (path.parent / "README.md").read_text(), f"{path.name} has no provenance row"


# --- the raw files, read with plain json ------------------------------------------------------


def raw_chunks(path: Path) -> list[dict[str, Any]]:
    data = path.read_bytes()
    if data.lstrip()[:1] == b"[":
        return orjson.loads(data)
    lines = [line.removeprefix(b"data:").strip() for line in data.splitlines() if line.startswith(b"data:")]
    return [orjson.loads(line) for line in lines if line and line != b"[DONE]"]


def stream_facts(chunks: list[dict[str, Any]]) -> dict[str, Any]:
    """What useChat would show: each call's name and input (tool-input-available, else its
    deltas), each call's last outcome, the usage in message metadata."""
    names: dict[str, str] = {}
    inputs: dict[str, Any] = {}
    deltas: dict[str, str] = {}
    outcomes: dict[str, Any] = {}
    usage = [0, 0]
    for chunk in chunks:
        kind, call = chunk.get("type"), chunk.get("toolCallId")
        if kind in ("tool-input-start", "tool-input-available", "tool-input-error"):
            names.setdefault(call, chunk["toolName"])
        if kind == "tool-input-delta":
            deltas[call] = deltas.get(call, "") + chunk["inputTextDelta"]
        if kind in ("tool-input-available", "tool-input-error"):
            inputs[call] = chunk.get("input")
        if kind == "tool-output-available":
            outcomes[call] = chunk["output"]
        elif kind in ("tool-output-error", "tool-input-error"):
            outcomes[call] = chunk["errorText"]
        elif kind == "tool-output-denied":
            outcomes[call] = "denied"
        meta = chunk.get("messageMetadata") if isinstance(chunk.get("messageMetadata"), dict) else {}
        total = meta.get("totalUsage") or meta.get("usage") or {}
        usage[0] += total.get("inputTokens", 0)
        usage[1] += total.get("outputTokens", 0)
    for call, text in deltas.items():
        inputs.setdefault(call, orjson.loads(text))
    calls = {call: (name, inputs.get(call)) for call, name in names.items()}
    return {"calls": calls, "outcomes": outcomes, "prompts": [], "usage": usage}


def message_facts(value: Any) -> dict[str, Any]:
    """The same from UIMessages (v5+ tool parts, v4 tool invocations)."""
    messages = value["messages"] if isinstance(value, dict) else value
    calls: dict[str, Any] = {}
    outcomes: dict[str, Any] = {}
    prompts: list[str] = []
    usage = [0, 0]
    for message in messages:
        parts = message.get("parts") or []
        if message["role"] == "user":
            texts = [p["text"] for p in parts if p.get("type") == "text"]
            prompts.append("".join(texts) if texts else message.get("content", ""))
        invocations = [p["toolInvocation"] for p in parts if p.get("type") == "tool-invocation"] or message.get("toolInvocations") or []
        for inv in invocations:  # v4
            calls[inv["toolCallId"]] = (inv["toolName"], inv.get("args"))
            if inv["state"] == "result":
                outcomes[inv["toolCallId"]] = inv["result"]
        for part in parts:  # v5+
            kind = part.get("type", "")
            if kind == "dynamic-tool" or (kind.startswith("tool-") and kind != "tool-invocation"):
                calls[part["toolCallId"]] = (part.get("toolName") or kind.removeprefix("tool-"), part.get("input"))
                state = part["state"]
                if state == "output-available":
                    outcomes[part["toolCallId"]] = part["output"]
                elif state == "output-error":
                    outcomes[part["toolCallId"]] = part["errorText"]
                elif state == "output-denied":
                    outcomes[part["toolCallId"]] = "denied"
        meta = message.get("metadata") if isinstance(message.get("metadata"), dict) else {}
        total = meta.get("totalUsage") or meta.get("usage") or {}
        usage[0] += total.get("inputTokens", 0)
        usage[1] += total.get("outputTokens", 0)
    return {"calls": calls, "outcomes": outcomes, "prompts": prompts, "usage": usage}


# --- what threadlab read ------------------------------------------------------------------


def thread_facts(path: Path) -> dict[str, Any]:
    (thread,) = threadlab.read_all(path, strict=False)  # auto-detected
    calls = {a.tool_call_id: (a.tool_name, a.args) for a in thread.actions if isinstance(a, ToolCall)}
    outcomes = {a.tool_call_id: a.content for a in thread.actions if isinstance(a, ToolReturn)}
    prompts = ["".join(iter_text(a.content)) for a in thread.actions if a.action_type == "user_message"]
    usages = [a.usage for a in thread.actions if getattr(a, "usage", None) is not None]
    usage = [sum(u.input_tokens or 0 for u in usages), sum(u.output_tokens or 0 for u in usages)]
    assert thread.account.unconverted == 0 or "langgraph_stream" in path.name
    return {"calls": calls, "outcomes": outcomes, "prompts": prompts, "usage": usage}


@pytest.mark.parametrize("path", STREAMS, ids=lambda p: str(p.relative_to(ROOT)))
def test_streams_give_the_calls_returns_and_usage_of_the_raw_chunks(path: Path) -> None:
    assert threadlab.read_all(path, strict=False)[0].origin[1] == "vercel-ai-stream"
    assert thread_facts(path) == stream_facts(raw_chunks(path))


@pytest.mark.parametrize("path", MESSAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_messages_give_the_calls_returns_prompts_and_usage_of_the_raw_json(path: Path) -> None:
    assert threadlab.read_all(path, strict=False)[0].origin[1] == "vercel-ai-messages"
    assert thread_facts(path) == message_facts(orjson.loads(path.read_bytes()))


def test_real_variants_read_as_their_project_wrote_them() -> None:
    real = ROOT / "tests/fixtures/real/vercel_ai"
    approval = threadlab.read(real / "langchain_langgraph_hitl_request_1_chunks.json")
    (call,) = [a for a in approval.actions if isinstance(a, ToolCall)]
    vercel = call.metadata["vercel_ai"]
    assert call.args == {"filename": "report.pdf"} and vercel["input_from_deltas"] and vercel["dynamic"]
    assert vercel["approval"]["id"] == call.tool_call_id  # the LangChain adapter reuses the call id
    assert threadlab.pending_tool_calls(approval) == [call]
    broken = threadlab.read_all(real / "langchain_langgraph_stream_chunks.json", strict=False)[0]
    assert [p.rule for p in broken.problems].count("tool-call-match") == 4 and "truncated" in [p.rule for p in broken.problems]
    body = threadlab.read(ROOT / "tests/fixtures/real/vercel_ai_messages/pydantic_ai_test_run_submit_message.json")
    assert body.thread_id == "bvQXcnrJ4OA2iRKU"  # the chat id of the request body
    assert [a.metadata["vercel_ai"].get("state") for a in body.actions if a.action_type == "assistant_message"] == ["streaming"] * 3
