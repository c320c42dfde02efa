"""The AI SDK's own telemetry (``ai.*`` attributes, ai-sdk.dev "Telemetry") in the JavaScript SDK's
``ReadableSpan`` JSON (``spanContext``, ``[seconds, nanoseconds]`` times): what openinference-vercel's
fixtures keep (tests/fixtures/real/otel/openinference_vercel_v6_*) and what the real ``ai`` package
gives for a tool-calling ``generateText`` (tests/fixtures/otel/ai_sdk_v6_generate_text_tool_call.json,
made by tests/js/ai_sdk_telemetry.mjs). Before, neither was detected: no format read the file.
The counts here are taken from the raw JSON without threadlab."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson
import pytest

import threadlab as tl
from threadlab.formats import detect_format
from threadlab.formats.common.source import Source

FIXTURES = Path(__file__).resolve().parent / "fixtures"
TOOL_RUN = FIXTURES / "otel" / "ai_sdk_v6_generate_text_tool_call.json"
CAPTURED = sorted((FIXTURES / "real" / "otel").glob("openinference_vercel_v6_*.json"))


def _spans(path: Path) -> list[dict[str, Any]]:
    return orjson.loads(path.read_bytes())


@pytest.mark.parametrize("path", [TOOL_RUN, *CAPTURED], ids=lambda p: p.name)
def test_ai_sdk_spans_are_read_as_otel_with_the_sdks_usage(path: Path) -> None:
    assert detect_format(Source(path)).NAME == "otel"
    calls = [s["attributes"] for s in _spans(path) if s["attributes"]["ai.operationId"].endswith((".doGenerate", ".doStream"))]
    acts = [a for t in tl.read_all(path) for a in t.actions]
    replies = [a for a in acts if a.action_type == "assistant_message" and a.usage]  # each provider call's answer (not a history's)
    assert [a.content for a in replies] == [c["ai.response.text"] for c in calls]
    assert [(a.usage.input_tokens, a.usage.output_tokens) for a in replies] == [
        (c["ai.usage.inputTokens"] if "ai.usage.inputTokens" in c else c["ai.usage.promptTokens"],
         c["ai.usage.outputTokens"] if "ai.usage.outputTokens" in c else c["ai.usage.completionTokens"]) for c in calls]
    first = min(s["startTime"][0] * 10**9 + s["startTime"][1] for s in _spans(path))
    assert int(acts[0].timestamp.timestamp()) == first // 10**9  # HrTime [s, ns], not the epoch


def test_a_tool_call_span_gives_the_call_and_its_return() -> None:
    spans = {s["attributes"]["ai.operationId"]: s["attributes"] for s in _spans(TOOL_RUN)}
    tool = spans["ai.toolCall"]
    (thread,) = tl.read_all(TOOL_RUN)
    assert len({s["spanContext"]["traceId"] for s in _spans(TOOL_RUN)}) == 1
    (call,) = [a for a in thread.actions if a.action_type == "tool_call"]
    (ret,) = [a for a in thread.actions if a.action_type == "tool_return"]
    assert (call.tool_call_id, call.tool_name, call.args) == (tool["ai.toolCall.id"], tool["ai.toolCall.name"], orjson.loads(tool["ai.toolCall.args"]))
    assert (ret.tool_call_id, ret.content) == (tool["ai.toolCall.id"], orjson.loads(tool["ai.toolCall.result"]))
    # the call around the steps (ai.generateText) repeats their text and summed usage: counted once
    outer = spans["ai.generateText"]
    assert sum(a.usage.input_tokens for a in thread.actions if getattr(a, "usage", None)) == outer["ai.usage.inputTokens"]
    assert [a.action_type for a in thread.actions] == ["user_message", "assistant_message", "tool_call", "tool_return", "assistant_message"]
