"""AI SDK v4 Message[] (npm `ai` 4.3 as `ai4`, 4.0 as `ai40`, driven by tests/js/generate_v4.mjs):
what useChat held (callChatApi) and what a route saved (appendResponseMessages) read as real tool
calls and returns, with each invocation's state, and written back as the same v4 chat."""

from __future__ import annotations

import shutil
import subprocess
import warnings
from pathlib import Path
from typing import Any

import orjson
import pytest

import threadlab
from tests.test_vercel_ai_support import JS, facts, node_modules
from threadlab import pending_tool_calls, validate
from threadlab.core.loss import WriteLoss
from threadlab.core.model import Thinking, ToolCall, ToolReturn
from threadlab.formats import detect_format, get_format
from threadlab.formats.common.source import Source
from threadlab.formats.vercel_ai import from_ui_messages, to_ui_messages

SDKS = ("ai4", "ai40")


@pytest.fixture(scope="module")
def generated(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("ai_sdk_v4")
    node_modules()
    node = shutil.which("node")
    assert node, "node is needed to drive the AI SDK"
    for sdk in SDKS:
        subprocess.run([node, str(JS / "generate_v4.mjs"), str(out), sdk], cwd=JS, check=True, timeout=120, capture_output=True)
    return out


def raw_tools(messages: list[dict[str, Any]]) -> tuple[list[tuple[str, str, Any]], dict[str, Any]]:
    """(calls, results) straight from the JSON: each invocation once (parts first, else
    toolInvocations), results of the invocations in state ``result``."""
    calls: list[tuple[str, str, Any]] = []
    results: dict[str, Any] = {}
    for message in messages:
        parts = message.get("parts") or []
        invocations = [p["toolInvocation"] for p in parts if p.get("type") == "tool-invocation"] or message.get("toolInvocations") or []
        for inv in invocations:
            calls.append((inv["toolCallId"], inv["toolName"], inv.get("args")))
            if inv["state"] == "result":
                results[inv["toolCallId"]] = inv["result"]
    return calls, results


def files(generated: Path) -> list[Path]:
    found = sorted(generated.glob("*.json"))
    assert len(found) == 12  # ai4: 8 files (the multistep chat also as persisted without ids); ai40: its multistep and client_tool_waiting, both ways
    return found


def test_every_v4_file_reads_as_real_tool_calls_and_returns(generated: Path) -> None:
    for path in files(generated):
        assert detect_format(Source(path)).NAME == "vercel-ai-messages", path.name
        thread = threadlab.read(path)  # strict: no problem at all
        assert validate(thread) == []
        assert not [a for a in thread.actions if a.action_type.startswith("system.unknown")], path.name
        raw = orjson.loads(path.read_bytes())
        calls, results = raw_tools(raw)
        assert [(c.tool_call_id, c.tool_name, c.args) for c in thread.actions if isinstance(c, ToolCall)] == calls, path.name
        assert {r.tool_call_id: r.content for r in thread.actions if isinstance(r, ToolReturn)} == results, path.name
        assert all(r.status == "success" for r in thread.actions if isinstance(r, ToolReturn))
        prompts = [m["content"] for m in raw if m["role"] == "user"]
        assert [a.content for a in thread.actions if a.action_type == "user_message"] == prompts
        records = sum(len(m["parts"]) if m.get("parts") else 1 for m in raw)
        assert (thread.account.records, thread.account.unconverted) == (records, 0)


@pytest.mark.parametrize("sdk", SDKS)
def test_client_and_server_copies_agree(generated: Path, sdk: str) -> None:
    """What useChat held and what the route saved are one conversation (the server copy has no
    sources: they are not in the response messages)."""
    for scenario in ("multistep", "client_tool_waiting"):
        client = facts(threadlab.read(generated / f"{sdk}_{scenario}.client.json"))
        server = facts(threadlab.read(generated / f"{sdk}_{scenario}.server.json"))
        for key in ("calls", "returns", "texts", "thinking"):
            assert client[key] == server[key], (scenario, key)


def test_a_chat_persisted_without_ids_is_the_chat_usechat_held(generated: Path) -> None:
    """``{role, content, parts}`` with no ``id`` (as apps that keep only those columns save a
    v4 chat) is detected as AI SDK messages and reads as the same conversation."""
    path = generated / "ai4_multistep.persisted.json"
    assert not any("id" in m for m in orjson.loads(path.read_bytes()))
    assert detect_format(Source(path)).NAME == "vercel-ai-messages"
    persisted, held = facts(threadlab.read(path)), facts(threadlab.read(generated / "ai4_multistep.client.json"))
    for key in ("calls", "returns", "texts", "thinking"):
        assert persisted[key] == held[key], key


@pytest.mark.parametrize("parts", [
    [{"text": "hi"}],  # Gemini-style parts, no type
    [{"type": "tool-result", "toolCallId": "c1", "result": "42"}],  # another tool's part type
    [{"type": "reasoning", "encryptedText": "opaque"}],  # a v4 type without its field
    [{"type": "text", "text": "hi"}, {"type": "ui-component", "name": "generate-image"}],
    [],
])
def test_id_less_messages_with_other_parts_are_not_claimed(parts: list[Any]) -> None:
    messages = [{"role": "user", "content": "hi", "parts": [{"type": "text", "text": "hi"}]}, {"role": "assistant", "content": "", "parts": parts}]
    source = Source(orjson.dumps(messages), name="chat.json")
    assert not get_format("vercel-ai-messages").detect(source)


def test_states_partial_call_call_and_result(generated: Path) -> None:
    waiting = threadlab.read(generated / "ai4_client_tool_waiting.client.json")
    assert [c.tool_call_id for c in pending_tool_calls(waiting)] == ["call-9"]  # state "call": the client's turn
    answered = threadlab.read(generated / "ai4_client_tool.client.json")
    assert pending_tool_calls(answered) == []
    (ret,) = [a for a in answered.actions if isinstance(a, ToolReturn)]
    assert (ret.tool_name, ret.content) == ("ask_confirmation", "yes")
    partial = threadlab.read(generated / "ai4_truncated.client.json")
    (call,) = [a for a in partial.actions if isinstance(a, ToolCall)]
    assert call.metadata["vercel_ai"]["input_incomplete"] is True and pending_tool_calls(partial) == [call]


def test_reasoning_signature_steps_and_time(generated: Path) -> None:
    thread = threadlab.read(generated / "ai4_multistep.client.json")
    (thinking,) = [a for a in thread.actions if isinstance(a, Thinking)]
    assert (thinking.content, thinking.signature) == ("User wants weather; call the tool.", "sig-abc")
    steps = [(a.action_type, a.metadata["vercel_ai"]["step"]) for a in thread.actions if a.action_type != "user_message"]
    assert steps == [("thinking", 1), ("assistant_message", 1), ("tool_call", 1), ("tool_return", 1), ("assistant_message", 2), ("assistant_message", 2)]
    assert thread.actions[0].timestamp.isoformat() == "2026-01-05T10:00:00+00:00"  # the user message's createdAt
    source = thread.actions[5].content[0]
    assert (source.type, source.url, source.identifier) == ("source-url", "https://weather.example/paris", "src-1")


def test_v4_chats_write_back_as_v4_exactly(generated: Path) -> None:
    for path in files(generated):
        thread = threadlab.read(path)
        with warnings.catch_warnings():
            warnings.simplefilter("error", WriteLoss)
            wire = get_format("vercel-ai-messages").from_thread(thread)
            written = to_ui_messages(thread)
        again = threadlab.read(Source(wire, name=str(path)))
        assert again.to_dict() == thread.to_dict(), path.name
        assert orjson.loads(orjson.dumps(written)) == orjson.loads(path.read_bytes()), path.name  # the very JSON


def test_other_threads_are_written_as_v5(generated: Path) -> None:
    """Only messages read from v4 data are written as v4; a v5 reader (pydantic-ai's models) takes
    the rest."""
    thread = threadlab.read(generated / "ai4_multistep.client.json")
    thread.actions = [a.model_copy(update={"metadata": None}) for a in thread.actions]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", WriteLoss)
        messages = to_ui_messages(thread)
    assert all("content" not in m and "toolInvocations" not in m for m in messages)
    assert [p["type"] for p in messages[1]["parts"]][:4] == ["step-start", "reasoning", "text", "tool-get_weather"]
    again = from_ui_messages(messages)
    assert facts(again)["calls"] == facts(thread)["calls"] and facts(again)["returns"] == facts(thread)["returns"]
