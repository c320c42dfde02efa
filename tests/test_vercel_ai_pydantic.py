"""pydantic-ai's own Vercel AI adapter (VercelAIAdapter, sdk_version 5 and 6) runs FunctionModel
agents; the SSE it writes must read into the same text, tool calls and returns as the
pydantic-ai history of that very run."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from typing import Any

import pytest
from pydantic_ai import Agent, DeferredToolRequests, ModelRetry
from pydantic_ai.messages import ModelMessage, ModelRequest, ModelResponse, TextPart, ThinkingPart, ToolCallPart, ToolReturnPart
from pydantic_ai.models.function import AgentInfo, DeltaThinkingPart, DeltaToolCall, FunctionModel
from pydantic_ai.ui.vercel_ai import VercelAIAdapter

from threadlab import pending_tool_calls, validate
from threadlab.core.model import AssistantMessage, Thinking, ToolCall, ToolReturn
from threadlab.formats.vercel_ai import from_ui_stream


async def _model(messages: list[ModelMessage], info: AgentInfo) -> AsyncIterator[Any]:
    """Step 1: think, say something, call tools (input streamed in pieces); step 2: answer."""
    if not any(isinstance(m, ModelResponse) for m in messages):
        yield {0: DeltaThinkingPart(content="Need the weather.")}
        yield "Checking "
        yield "the weather."
        yield {1: DeltaToolCall(name="get_weather", json_args='{"city": ', tool_call_id="call_w")}
        yield {1: DeltaToolCall(json_args='"Paris"}')}
        yield {2: DeltaToolCall(name="flaky", json_args="{}", tool_call_id="call_f")}
        if "delete_file" in {t.name for t in info.function_tools}:
            yield {3: DeltaToolCall(name="delete_file", json_args='{"path": "/tmp/x"}', tool_call_id="call_d")}
    else:
        yield "It is sunny in Paris."


def _agent(with_approval: bool) -> Agent[None, Any]:
    agent: Agent[None, Any] = Agent(FunctionModel(stream_function=_model), output_type=[str, DeferredToolRequests])

    @agent.tool_plain
    def get_weather(city: str) -> dict[str, Any]:
        return {"city": city, "tempC": 21}

    @agent.tool_plain
    def flaky() -> str:
        raise ModelRetry("sensor offline, try later")

    if with_approval:

        @agent.tool_plain(requires_approval=True)
        def delete_file(path: str) -> str:
            return f"deleted {path}"

    return agent


def run_adapter(sdk_version: int, with_approval: bool) -> tuple[str, list[ModelMessage]]:
    body = {"trigger": "submit-message", "id": "chat-1", "messages": [{"id": "u1", "role": "user", "parts": [{"type": "text", "text": "Weather?"}]}]}
    adapter = VercelAIAdapter(agent=_agent(with_approval), run_input=VercelAIAdapter.build_run_input(json.dumps(body).encode()), sdk_version=sdk_version)
    history: list[ModelMessage] = []

    async def on_complete(result: Any) -> None:
        history.extend(result.all_messages())

    async def collect() -> str:
        return "".join([chunk async for chunk in adapter.encode_stream(adapter.run_stream(on_complete=on_complete))])

    return asyncio.run(collect()), history


def _history_facts(history: list[ModelMessage]) -> dict[str, Any]:
    responses = [m for m in history if isinstance(m, ModelResponse)]
    parts = [p for r in responses for p in r.parts]
    returns = [p for m in history if isinstance(m, ModelRequest) for p in m.parts if isinstance(p, ToolReturnPart)]
    return {
        "texts": [p.content for p in parts if isinstance(p, TextPart)],
        "thinking": [p.content for p in parts if isinstance(p, ThinkingPart)],
        "calls": [(p.tool_call_id, p.tool_name, p.args_as_dict()) for p in parts if isinstance(p, ToolCallPart)],
        "returns": {p.tool_call_id: (p.tool_name, p.model_response_str() if p.outcome == "retried" else p.content) for p in returns},
    }


def _thread_facts(thread: Any) -> dict[str, Any]:
    return {
        "texts": [a.content for a in thread.actions if isinstance(a, AssistantMessage)],
        "thinking": [a.content for a in thread.actions if isinstance(a, Thinking)],
        "calls": [(a.tool_call_id, a.tool_name, a.args) for a in thread.actions if isinstance(a, ToolCall)],
        "returns": {a.tool_call_id: (a.tool_name, a.content) for a in thread.actions if isinstance(a, ToolReturn)},
    }


@pytest.mark.parametrize("sdk_version", [5, 6])
def test_adapter_stream_matches_the_run_history(sdk_version: int) -> None:
    sse, history = run_adapter(sdk_version, with_approval=False)
    thread = from_ui_stream(sse)
    assert thread.problems == [] and validate(thread) == []
    expected, got = _history_facts(history), _thread_facts(thread)
    assert got["texts"] == expected["texts"] == ["Checking the weather.", "It is sunny in Paris."]
    assert got["thinking"] == expected["thinking"]
    assert got["calls"] == expected["calls"]
    assert got["returns"]["call_w"] == expected["returns"]["call_w"] == ("get_weather", {"city": "Paris", "tempC": 21})
    flaky = next(a for a in thread.actions if isinstance(a, ToolReturn) and a.tool_call_id == "call_f")
    assert flaky.status == "error" and "sensor offline" in flaky.content  # ModelRetry → tool-output-error
    assert [a.agent_id for a in thread.actions if isinstance(a, AssistantMessage)] == ["pydantic_ai", "pydantic_ai"]
    # the one timestamp the adapter sends (once per run) is one of the run's model responses'
    assert thread.actions[0].timestamp in {m.timestamp for m in history if isinstance(m, ModelResponse)}
    assert thread.metadata["synthetic_timestamps"] == len(thread.actions) - 1


@pytest.mark.parametrize("sdk_version", [5, 6])
def test_adapter_deferred_approval_leaves_the_call_pending(sdk_version: int) -> None:
    sse, history = run_adapter(sdk_version, with_approval=True)
    thread = from_ui_stream(sse)
    assert thread.problems == [] and validate(thread) == []
    assert _thread_facts(thread)["calls"] == _history_facts(history)["calls"]
    pending = pending_tool_calls(thread)
    assert [c.tool_call_id for c in pending] == ["call_d"]
    approval = pending[0].metadata["vercel_ai"].get("approval")
    # sdk 6 sends tool-approval-request (approvalId == toolCallId); sdk 5 has no approvals
    assert approval == ({"id": "call_d"} if sdk_version == 6 else None)
