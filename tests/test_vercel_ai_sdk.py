"""The real npm `ai` package (v6, and v7 as `ai7`) streams a mock model through
toUIMessageStream; its own readUIMessageStream builds the UIMessage from that SSE. threadlab's
thread from the SSE and its thread from the UIMessage must agree."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import orjson
import pytest

from tests.test_vercel_ai_support import SCENARIOS, facts, foreign_thread, replay_in_ai_sdk, run_ai_sdk
from threadlab import pending_tool_calls, validate
from threadlab.core.model import AssistantMessage, ToolReturn
from threadlab.formats.vercel_ai import from_ui_messages, from_ui_stream, to_ui_messages, to_ui_stream

SDKS = ("ai", "ai7")
T0 = datetime(2026, 1, 5, 10, 0, tzinfo=UTC)


@pytest.fixture(scope="module")
def generated(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("ai_sdk")
    for sdk in SDKS:
        run_ai_sdk(out, sdk)
    return out


def _prefix(sdk: str) -> str:
    return "ai6" if sdk == "ai" else sdk


def read_both(generated: Path, sdk: str, scenario: str):
    stem = generated / f"{_prefix(sdk)}_{scenario}"
    return from_ui_stream(stem.with_suffix(".sse")), from_ui_messages(stem.with_suffix(".uimessages.json"))


@pytest.mark.parametrize("sdk", SDKS)
@pytest.mark.parametrize("scenario", SCENARIOS)
def test_stream_and_uimessage_agree(generated: Path, sdk: str, scenario: str) -> None:
    from_sse, from_ui = read_both(generated, sdk, scenario)
    assert from_sse.problems == [] and from_ui.problems == []
    assert validate(from_sse) == [] and validate(from_ui) == []
    assert facts(from_sse) == facts(from_ui)
    assert from_ui.actions[0].action_type == "user_message"  # the UIMessage[] also holds the request


@pytest.mark.parametrize("sdk", SDKS)
def test_multistep_tools_reasoning_usage_and_time(generated: Path, sdk: str) -> None:
    thread, _ = read_both(generated, sdk, "multistep")
    kinds = [a.action_type for a in thread.actions]
    assert kinds == ["thinking", "assistant_message", "tool_call", "tool_call", "tool_return", "tool_return", "assistant_message"]
    thinking = thread.actions[0]
    assert (thinking.content, thinking.signature, thinking.provider_name) == ("User wants weather; call the tool.", "sig-abc", "anthropic")
    assert thread.actions[2].args == {"city": "Paris"}  # streamed as two input deltas
    broken, weather = thread.actions[4], thread.actions[5]  # outputs arrive in completion order
    assert (broken.tool_name, broken.status, broken.content) == ("broken_tool", "error", "ERR: sensor offline")
    assert (weather.status, weather.content) == ("success", {"city": "Paris", "tempC": 21, "sky": "sunny"})
    final = thread.actions[-1]
    assert isinstance(final, AssistantMessage) and final.content == "It is sunny in Paris, 21°C."
    assert final.finish_reason == "stop"
    usage = final.usage.model_dump(exclude_none=True)
    assert usage == {"input_tokens": 260, "output_tokens": 52, "total_tokens": 312, "thinking_tokens": 10, "cache_read_tokens": 20, "cache_write_tokens": 0}
    assert sum(1 for a in thread.actions if getattr(a, "usage", None)) == 1  # counted once per response
    assert thread.actions[0].timestamp == T0  # createdAt in the start chunk's messageMetadata
    assert thread.metadata["synthetic_timestamps"] == len(thread.actions) - 1
    assert thread.actions[0].metadata["model_name"] == "mock-model-1"
    assert [a.metadata["vercel_ai"]["step"] for a in thread.actions] == [1, 1, 1, 1, 1, 1, 2]


@pytest.mark.parametrize("sdk", SDKS)
def test_approval_pending_then_denied_and_approved(generated: Path, sdk: str) -> None:
    sse = (generated / f"{_prefix(sdk)}_approval.sse").read_text()
    first_response = sse[: sse.index("data: [DONE]") + len("data: [DONE]\n\n")]
    waiting = from_ui_stream(first_response)
    assert waiting.problems == []
    pending = pending_tool_calls(waiting)
    assert [c.tool_call_id for c in pending] == ["call-3", "call-4"]
    assert all(c.metadata["vercel_ai"]["approval"]["id"].startswith("aitxt-") for c in pending)

    thread = from_ui_stream(sse)
    assert pending_tool_calls(thread) == []
    resolved = {a.data["tool_call_id"]: a.data["resolution"] for a in thread.actions if a.action_type == "system.tool_resolved"}
    assert resolved == {"call-3": "denied", "call-4": "approved"}
    returns = {a.tool_call_id: (a.status, a.content) for a in thread.actions if isinstance(a, ToolReturn)}
    assert returns == {"call-3": ("error", "denied"), "call-4": ("success", {"deleted": "/tmp/y"})}
    second = [a for a in thread.actions if a.timestamp >= datetime(2026, 1, 5, 10, 1, tzinfo=UTC)]
    assert second[0].action_type == "system.tool_resolved"  # the continuation response's own createdAt
    # the persisted UIMessage keeps the user's reason, which only the request carried
    _, from_ui = read_both(generated, sdk, "approval")
    denial = next(a for a in from_ui.actions if a.action_type == "system.tool_resolved" and a.data["resolution"] == "denied")
    assert denial.data["denial_reason"] == "not allowed"


@pytest.mark.parametrize("sdk", SDKS)
def test_continuation_read_with_its_request_messages(generated: Path, sdk: str) -> None:
    """A server logs the request body and the response: together they are the whole chat."""
    request = generated / f"{_prefix(sdk)}_approval.request.json"
    response = generated / f"{_prefix(sdk)}_approval.response2.sse"
    alone = from_ui_stream(response)
    assert sorted(p.rule for p in alone.problems) == ["tool-call-match", "tool-call-match"]  # calls made in an earlier response
    thread = from_ui_stream(response, messages=request)
    assert thread.problems == [] and validate(thread) == []
    assert thread.thread_id == "chat-1"  # the request body's chat id
    assert thread.actions[0].action_type == "user_message" and thread.actions[0].content == "delete /tmp/x and /tmp/y"
    full = from_ui_stream(generated / f"{_prefix(sdk)}_approval.sse")
    assert facts(thread)["calls"] == facts(full)["calls"] and facts(thread)["returns"] == facts(full)["returns"]
    denial = next(a.data for a in thread.actions if a.action_type == "system.tool_resolved" and a.data["resolution"] == "denied")
    assert denial["denial_reason"] == "not allowed"  # from the request; the response only says denied
    assert sum(1 for a in thread.actions if a.action_type == "system.tool_resolved") == 2


@pytest.mark.parametrize("sdk", SDKS)
def test_agents_from_data_parts_media_and_transient_data(generated: Path, sdk: str) -> None:
    thread, from_ui = read_both(generated, sdk, "agents")
    assert sorted(a.agent_name for a in thread.agents.values()) == ["Planner", "Researcher"]
    who = facts(thread)["who"]
    assert who[:2] == [("thinking", "Planner"), ("assistant_message", "Planner")]
    assert {name for _, name in who[2:]} == {"Researcher"}
    status = [a for a in thread.actions if a.action_type == "system.status"]
    assert len(status) == 1 and status[0].metadata["vercel_ai"]["transient"] is True
    assert not any(a.action_type == "system.status" for a in from_ui.actions)  # transient: never stored
    progress = [a for a in thread.actions if a.action_type == "system.progress"]
    assert [p.data for p in progress] == [{"done": 2, "total": 2}]  # same type+id replaces the data
    media = [part for content in facts(thread)["media"] for part in content]
    kinds = [(p.type, p.content_type, p.media_category) for p in media]
    assert kinds == [("source-url", "url", "document"), ("source-document", "url", "document"), ("file", "binary", "image")]
    assert media[0].url == "https://example.com/eiffel" and media[2].data == "iVBORw0KGgo="
    researcher_usage = [a.usage for a in thread.actions if getattr(a, "usage", None)]
    assert [u.total_tokens for u in researcher_usage] == [135]


@pytest.mark.parametrize("sdk", SDKS)
def test_invalid_tool_input_is_one_error_return(generated: Path, sdk: str) -> None:
    thread, _ = read_both(generated, sdk, "input_error")
    returns = [a for a in thread.actions if isinstance(a, ToolReturn)]
    assert len(returns) == 1  # ai@6 repeats the input error as an output error: still one return
    assert returns[0].status == "error" and "Invalid input for tool get_weather" in returns[0].content
    assert thread.actions[0].args == {"town": 7}
    assert returns[0].metadata["vercel_ai"]["input_error"] is True


@pytest.mark.parametrize("sdk", SDKS)
def test_stream_error_is_kept_as_system_action(generated: Path, sdk: str) -> None:
    thread, from_ui = read_both(generated, sdk, "stream_error")
    errors = [a for a in thread.actions if a.action_type == "system.error"]
    assert [e.data for e in errors] == [{"error_text": "ERR: upstream overloaded"}]
    assert thread.actions[0].metadata["vercel_ai"]["finish_reason"] == "error"
    assert not any(a.action_type == "system.error" for a in from_ui.actions)  # the UIMessage drops it


def test_v6_and_v7_give_the_same_threads(generated: Path) -> None:
    for scenario in ("multistep", "agents"):
        v6, _ = read_both(generated, "ai", scenario)
        v7, _ = read_both(generated, "ai7", scenario)
        assert facts(v6) == facts(v7)


@pytest.mark.parametrize("sdk", SDKS)
def test_written_stream_and_messages_are_accepted_by_the_ai_sdk(generated: Path, sdk: str, tmp_path: Path) -> None:
    """to_ui_stream output goes through the SDK's transport parsing (uiMessageChunkSchema) and
    readUIMessageStream; to_ui_messages output through safeValidateUIMessages."""
    compared = ("texts", "media", "thinking", "calls", "returns", "data", "who")
    threads, pairs = [], []
    for scenario in (*SCENARIOS, "foreign"):
        thread = foreign_thread() if scenario == "foreign" else from_ui_stream(generated / f"{_prefix(sdk)}_{scenario}.sse")
        sse, messages = tmp_path / f"{scenario}.sse", tmp_path / f"{scenario}.json"
        sse.write_text("".join(to_ui_stream(thread)))
        messages.write_bytes(orjson.dumps(to_ui_messages(thread)))
        threads.append(thread)
        pairs.append((sse, messages))
    for scenario, thread, result in zip((*SCENARIOS, "foreign"), threads, replay_in_ai_sdk(pairs, sdk), strict=True):
        assert result["chunkErrors"] == [] and result["valid"] is True, (scenario, result)
        replayed = facts(from_ui_messages(result["messages"]))
        expected = facts(thread)
        keys = [k for k in compared if not (scenario == "foreign" and k == "data")]  # data-agent parts carry its agents
        assert {k: replayed[k] for k in keys} == {k: expected[k] for k in keys}, scenario
