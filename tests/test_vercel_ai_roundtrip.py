"""Both directions, real payloads, the registry and the CLI.

Round trips: a stream read, written back with ``to_ui_stream`` and read again is the same
thread; ``to_ui_messages`` output validates against pydantic-ai's ``UIMessage`` model. The real
payloads are the ../shared/examples files copied into tests/fixtures/vercel_ai and vercel_ai_messages (ai@6.0.326,
ai@7.0.173, pydantic-ai 2.68 VercelAIAdapter) and the bundled data/vercel_ai files."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import orjson
import pytest
from pydantic_ai.messages import ModelMessagesTypeAdapter, ModelRequest, UserPromptPart
from pydantic_ai.ui.vercel_ai.request_types import UIMessage

import threadlab
from tests.test_vercel_ai_support import FIXTURES, MESSAGE_FIXTURES, facts, foreign_thread
from threadlab import pending_tool_calls, validate
from threadlab.cli import main as cli
from threadlab.core.model import AssistantMessage, ToolCall, ToolReturn
from threadlab.formats import detect_format, format_spec, get_format
from threadlab.formats.common.source import Source
from threadlab.formats.vercel_ai import from_ui_messages, from_ui_stream, to_ui_messages, to_ui_stream

DATA = Path(__file__).parent.parent / "data" / "vercel_ai"
STREAMS = sorted([*FIXTURES.glob("*.sse"), *DATA.glob("*.sse")])
MESSAGES = sorted([*MESSAGE_FIXTURES.glob("*.json"), *DATA.glob("*.json")])
V5_MESSAGES = [p for p in MESSAGES if not p.name.startswith(("ai4_", "ai40_"))]  # v4 chats are written back as v4 (test_vercel_ai_v4)


def canonical(thread: threadlab.Thread) -> bytes:
    return threadlab.dumps(thread)


@pytest.mark.parametrize("path", STREAMS, ids=lambda p: p.name)
def test_stream_round_trip(path: Path) -> None:
    thread = from_ui_stream(path, thread_id="t")
    again = from_ui_stream("".join(to_ui_stream(thread)), thread_id="t")
    assert canonical(again) == canonical(thread)
    assert [p.rule for p in again.problems] == [p.rule for p in thread.problems]


@pytest.mark.parametrize("path", [*STREAMS, *V5_MESSAGES], ids=lambda p: p.name)
def test_to_ui_messages_validates_with_pydantic_ai(path: Path) -> None:
    thread = from_ui_stream(path) if path.suffix == ".sse" else from_ui_messages(path)
    messages = to_ui_messages(thread)
    assert messages, "no messages written"
    for message in messages:
        UIMessage.model_validate(message)  # pydantic-ai forbids unknown keys: a strict check
    back = from_ui_messages(orjson.loads(orjson.dumps(messages)))
    assert facts(back)["texts"] == facts(thread)["texts"]
    assert facts(back)["returns"] == facts(thread)["returns"]
    orphans = {p.message.split("toolCallId ")[1].split("'")[1] for p in thread.problems if p.rule == "tool-call-match"}
    # a UIMessage cannot hold an output without its call: an orphan comes back as a dynamic-tool call
    assert [c for c in facts(back)["calls"] if c[0] not in orphans] == facts(thread)["calls"]


@pytest.mark.parametrize("path", MESSAGES, ids=lambda p: p.name)
def test_ui_messages_round_trip(path: Path) -> None:
    thread = from_ui_messages(path, thread_id="t")
    assert canonical(from_ui_messages(to_ui_messages(thread), thread_id="t", title=thread.title)) == canonical(thread)


def test_ai6_persisted_message_with_every_part_type() -> None:
    thread = from_ui_messages(MESSAGE_FIXTURES / "ai6_onfinish_uimessages.json")  # the onFinish {messages: [...]} payload
    assert thread.problems == [] and validate(thread) == []
    assert [a.agent_name for a in thread.agents.values()] == ["WeatherAgent"]  # from the data-agent part
    assert thread.title == "Weather in Paris?"
    assistant = [a for a in thread.actions if a.action_type != "user_message"]
    assert assistant[0].timestamp == datetime(2025, 6, 1, 12, 0, tzinfo=UTC)  # createdAt: 1748779200000 ms
    usage = next(a.usage for a in thread.actions if getattr(a, "usage", None))
    assert (usage.input_tokens, usage.output_tokens, usage.cache_read_tokens, usage.thinking_tokens) == (100, 40, 20, 10)
    pending = pending_tool_calls(thread)
    assert [(c.tool_name, c.metadata["vercel_ai"]["approval"]["id"]) for c in pending] == [("delete_file", "aitxt-ESVOJ4pZYrFjtDRQscUyDu8W")]
    errors = [a for a in thread.actions if isinstance(a, ToolReturn) and a.status == "error"]
    assert [(e.tool_name, e.content) for e in errors] == [("broken_tool", "An error occurred.")]  # ai@6 masks tool errors
    media = [p for a in thread.actions if isinstance(a, AssistantMessage) and isinstance(a.content, list) for p in a.content]
    assert [(p.type, p.media_type) for p in media] == [("source-url", "text/uri-list"), ("source-document", "application/pdf"), ("file", "image/png")]


@pytest.mark.parametrize("version", ["ai6", "ai7"])
def test_multistep_dynamic_tool_stream(version: str) -> None:
    thread = from_ui_stream(FIXTURES / f"{version}_stream_multistep_dynamic.sse")
    assert thread.problems == []
    lookup = next(a for a in thread.actions if isinstance(a, ToolCall) and a.tool_name == "lookup")
    assert lookup.metadata["vercel_ai"]["dynamic"] is True
    assert [(r.tool_call_id, r.status) for r in thread.actions if isinstance(r, ToolReturn)] == [("call-b", "error"), ("call-a", "success")]
    assert next(a.usage.total_tokens for a in thread.actions if getattr(a, "usage", None)) == 133


@pytest.mark.parametrize("version", ["ai6", "ai7"])
def test_continuation_stream_alone_reports_unknown_calls(version: str) -> None:
    """The approval continuation answers calls made in the previous response: read alone, the
    outputs are kept and each is reported as answering a call this stream never made."""
    thread = from_ui_stream(FIXTURES / f"{version}_stream_approval_continuation.sse")
    rules = [(p.rule, p.line) for p in thread.problems]
    assert rules == [("tool-call-match", 3), ("tool-call-match", 5)]
    assert "call-3" in thread.problems[0].message and str(FIXTURES) in str(thread.problems[0])
    assert [r.tool_call_id for r in thread.actions if isinstance(r, ToolReturn)] == ["call-3", "call-4"]
    assert facts(thread)["texts"] == ["Deleted y, not x."]


def test_pydantic_ai_two_responses_deny_the_approval() -> None:
    turn1 = (FIXTURES / "pydantic_ai_vercel_sdk6_turn1.sse").read_text()
    turn2 = (FIXTURES / "pydantic_ai_vercel_sdk6_turn2_after_denial.sse").read_text()
    waiting = from_ui_stream(turn1)
    assert [c.tool_call_id for c in pending_tool_calls(waiting)] == ["call_d"]
    thread = from_ui_stream(turn1 + turn2)
    assert thread.problems == [] and pending_tool_calls(thread) == []
    denied = next(a for a in thread.actions if isinstance(a, ToolReturn) and a.tool_call_id == "call_d")
    assert denied.status == "error" and denied.metadata["vercel_ai"]["denied"] is True
    assert facts(thread)["texts"][-1] == "It is sunny."
    assert thread.actions[0].timestamp == datetime(2026, 11, 21, 22, 29, 33, 702827, tzinfo=UTC)


def test_foreign_thread_explodes_into_a_replayable_stream() -> None:
    thread = foreign_thread()
    chunks = [orjson.loads(line[6:]) for line in "".join(to_ui_stream(thread)).splitlines() if line.startswith("data: {")]
    types = [c["type"] for c in chunks]
    assert types[0] == "start" and types[-1] == "finish" and types.count("start-step") == 2
    assert ["text-start", "text-delta", "text-end"] == types[types.index("text-start") : types.index("text-start") + 3]
    back = from_ui_stream("".join(to_ui_stream(thread)))
    assert facts(back)["who"] == facts(thread)["who"]  # attribution travels as data-agent parts
    assert facts(back)["calls"] == facts(thread)["calls"] and facts(back)["texts"] == facts(thread)["texts"]
    assert [a.data for a in back.actions if a.action_type == "system.config_update"] == [{"changes": {"temperature": 0}}]
    total = sum(a.usage.total_tokens or a.usage.input_tokens + a.usage.output_tokens for a in back.actions if getattr(a, "usage", None))
    assert total == 38
    assert back.actions[0].timestamp == datetime(2026, 1, 1, 0, 0, 1, tzinfo=UTC)
    messages = to_ui_messages(thread)
    assert [m["role"] for m in messages] == ["user", "assistant"]
    for message in messages:
        UIMessage.model_validate(message)


def test_agent_attribution_is_configurable() -> None:
    messages = orjson.loads((DATA / "ai6_multistep.uimessages.json").read_bytes())
    messages[1]["metadata"]["speaker"] = "Forecaster"  # an app's own convention

    def speaker(kind: str, value: object) -> str | None:
        return value.get("speaker") if kind == "metadata" and isinstance(value, dict) else None

    thread = from_ui_messages(messages, agent_of=speaker)
    assert [a.agent_name for a in thread.agents.values()] == ["Forecaster"]
    assert {who for _, who in facts(thread)["who"]} == {"Forecaster"}
    named = from_ui_stream(DATA / "ai6_multistep.sse", agent_name="WeatherBot")
    assert [(k, a.agent_name, a.metadata) for k, a in named.agents.items()] == [("weatherbot", "WeatherBot", {"model_name": "mock-model-1"})]
    assert [a.agent_name for a in from_ui_stream(DATA / "ai6_multistep.sse").agents.values()] == ["ai-sdk"]  # named after the producer


def test_registry_detects_both_shapes_cheaply(tmp_path: Path) -> None:
    assert detect_format(Source(DATA / "ai6_multistep.sse")).NAME == "vercel-ai-stream"
    assert detect_format(Source(DATA / "ai6_multistep.uimessages.json")).NAME == "vercel-ai-messages"
    keep_alive = ": keep-alive\n\n" + (DATA / "ai6_multistep.sse").read_text()
    assert detect_format(Source(keep_alive)).NAME == "vercel-ai-stream"
    renamed = tmp_path / "chat.txt"
    renamed.write_bytes((DATA / "ai6_approval.sse").read_bytes())
    assert detect_format(Source(renamed)).NAME == "vercel-ai-stream"
    pai = ModelMessagesTypeAdapter.dump_json([ModelRequest(parts=[UserPromptPart(content="hi")])])
    assert detect_format(Source(pai)).NAME != "vercel-ai-messages"
    assert get_format("sse").NAME == get_format("vercel-ai").NAME == get_format(".sse".strip(".")).NAME == "vercel-ai-stream"
    assert format_spec("ui-messages").suffix == ".json" and format_spec("vercel-ai-stream").suffix == ".sse"
    thread = threadlab.read(DATA / "ai6_agents.sse")
    assert thread.origin[1] == "vercel-ai-stream"
    assert threadlab.from_ui_stream is from_ui_stream and threadlab.to_ui_messages is to_ui_messages


def test_cli_convert_both_ways(tmp_path: Path) -> None:
    out = tmp_path / "thread.json"
    assert cli(["convert", str(DATA / "ai6_approval.sse"), "-o", str(out)]) == 0
    thread = threadlab.read(out)
    assert facts(thread) == facts(from_ui_stream(DATA / "ai6_approval.sse"))
    sse = tmp_path / "replay.sse"
    assert cli(["convert", str(out), "--to", "vercel-ai-stream", "-o", str(sse)]) == 0
    assert sse.read_text().count("data: [DONE]") == 2
    assert canonical(from_ui_stream(sse, thread_id=thread.thread_id)) == canonical(thread)
    ui = tmp_path / "messages.json"
    assert cli(["convert", str(sse), "--to", "vercel-ai-messages", "-o", str(ui)]) == 0
    messages = orjson.loads(ui.read_bytes())
    assert [m["id"] for m in messages] == ["a1"]  # both responses fold into the one assistant message
    UIMessage.model_validate(messages[0])
