"""Public span files (tests/fixtures/real/otel): each reads with auto-detection, and its user
prompts, tool calls, tool returns and usage totals equal what this test counts in the raw JSON,
without threadlab: prompts are the distinct user texts of the LLM spans' inputs, tool calls the
calls in their outputs, returns the distinct tool messages of their inputs, usage the sum of
``llm.token_count.*`` over LLM spans. The AI SDK's own spans (``ai.operationId`` a provider call:
``ai.*.doGenerate`` / ``doStream``) the same way from its attributes (ai-sdk.dev, "Telemetry"):
``ai.prompt.messages``, ``ai.response.toolCalls``, ``gen_ai.usage.*``."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson
import pytest

import threadlab
from tests.wild.expected import listed_files

REAL = Path(__file__).parent / "fixtures" / "real" / "otel"


def _spans(path: Path) -> list[dict[str, Any]]:
    data = path.read_bytes()
    try:
        value = orjson.loads(data)
    except orjson.JSONDecodeError:
        return [orjson.loads(line) for line in data.splitlines() if line.strip()]
    return value if isinstance(value, list) else [value]


def _text(value: Any) -> str:
    """A tool result as text (a JSON value as its JSON), so results of both kinds sort together."""
    return value if isinstance(value, str) else orjson.dumps(value).decode()


def _raw_counts(path: Path) -> dict[str, Any]:
    prompts: set[str] = set()
    returns: set[str] = set()
    calls = 0
    usage = [0, 0]
    for span in _spans(path):
        attrs = span["attributes"]
        if str(attrs.get("ai.operationId", "")).endswith((".doGenerate", ".doStream")):
            for message in orjson.loads(attrs.get("ai.prompt.messages", "[]")):
                parts = message["content"] if isinstance(message["content"], list) else []
                if message["role"] == "user":
                    prompts.add("".join(p["text"] for p in parts if p["type"] == "text"))
                returns.update(_text(p["output"]["value"] if "output" in p else p["result"]) for p in parts if p["type"] == "tool-result")
            calls += len(orjson.loads(attrs.get("ai.response.toolCalls", "[]")))
            usage[0] += attrs.get("gen_ai.usage.input_tokens", 0)
            usage[1] += attrs.get("gen_ai.usage.output_tokens", 0)
            continue
        if attrs.get("openinference.span.kind") != "LLM":
            continue
        for item in attrs.get("llm.input_messages", []):
            if item.get("message.role") == "user":
                prompts.add(item["message.content"])
            if item.get("message.role") == "tool":
                returns.add(item["message.content"])
        for key, value in attrs.items():
            if key.startswith("llm.prompts.") and key.endswith(".prompt.text"):
                prompts.add(value)
        if "llm.input_messages" not in attrs and not any(k.startswith("llm.prompts.") for k in attrs) and attrs.get("input.mime_type") == "text/plain":
            prompts.add(attrs["input.value"])
        for item in attrs.get("llm.output_messages", []):
            calls += len(item.get("message.tool_calls", []))
        usage[0] += attrs.get("llm.token_count.prompt", 0)
        usage[1] += attrs.get("llm.token_count.completion", 0)
    return {"prompts": sorted(prompts), "calls": calls, "returns": sorted(returns), "usage": usage}


def _thread_counts(path: Path) -> dict[str, Any]:
    threads = threadlab.read_all(path, strict=False)
    assert {t.origin[1] for t in threads} == {"otel"}
    acts = [a for t in threads for a in t.actions]
    usage = [sum(a.usage.input_tokens or 0 for a in acts if getattr(a, "usage", None)),
             sum(a.usage.output_tokens or 0 for a in acts if getattr(a, "usage", None))]
    return {"prompts": sorted(a.content for a in acts if a.action_type == "user_message"),
            "calls": sum(a.action_type == "tool_call" for a in acts),
            "returns": sorted(_text(a.content) for a in acts if a.action_type == "tool_return"), "usage": usage}


@pytest.mark.parametrize("path", sorted(p for p in REAL.iterdir() if p.suffix in (".json", ".jsonl") and p.resolve() not in listed_files()), ids=lambda p: p.name)
def test_public_span_files_read_with_their_counts(path: Path) -> None:
    assert _thread_counts(path) == _raw_counts(path)
