"""The four reader/writer classes the wild corpus (``tests/wild``) found in the provider formats,
each on the public files that showed it (``tests/fixtures/real/``, provenance in their READMEs)
and on the other shapes of the same class; the counts compared are taken from the raw JSON here
(orjson and ``tests/provider_raw.py``, no threadlab):

1. whitespace-only text blocks (a web-search answer's ``" "`` / ``"\\n\\n"`` between its cited
   sentences) are no assistant messages, in a stream, a response and a message list alike (and
   an empty answer item beside a Responses response's other items, whitespace beside a Chat
   message's calls), and are written back in place;
2. an OpenAI Agents SDK handoff does not split a logged run: the request after it repeats the
   run under the new agent's instructions (a ``system.config_update``; the agent named by the
   handoff's output);
3. a client that re-serializes call arguments and drops item ids when it sends the history back
   (simonw/llm) still continues its conversation;
4. the provider writers map media parts to their own parts (a Responses ``input_file`` is an RC2
   media part) and leave any other format's part out with a ``WriteLoss`` naming it."""

from __future__ import annotations

import warnings
from pathlib import Path
from typing import Any

import orjson
import pytest

import threadlab
from tests.provider_raw import anthropic_messages, values
from threadlab.core.loss import WriteLoss
from threadlab.core.model import MediaPart, Thread
from threadlab.formats import Source, get_format

REAL = Path(__file__).parent / "fixtures" / "real"
WEB_SEARCH = REAL / "anthropic_messages" / "llm_anthropic_web_search_stream.sse"
PROVIDERS = ("openai-chat", "openai-responses", "anthropic-messages")


def read(source: Any, fmt: str = "auto") -> list[Thread]:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return threadlab.read_all(source, fmt, strict=False)


def written(thread: Thread, fmt: str) -> tuple[bytes, list[str]]:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        wire = get_format(fmt).from_thread(thread)
    return wire, [lost for w in caught if isinstance(w.message, WriteLoss) for lost in w.message.lost]


def kinds(thread: Thread) -> list[str]:
    return [a.action_type for a in thread.actions]


# --- 1. whitespace-only text blocks -----------------------------------------------------------


def _raw_message() -> dict[str, Any]:
    """The web-search stream's one message as the raw events assemble it (text deltas joined)."""
    (message,) = anthropic_messages([v for v in values(WEB_SEARCH) if isinstance(v, dict)])
    return message


def test_whitespace_blocks_of_a_web_search_stream_are_no_assistant_messages() -> None:
    """Before: 10 assistant messages, 3 of them ``" "`` / ``"\\n\\n"``; now the 7 cited sentences,
    every block accounted for, and the blank blocks written back in their places."""
    blocks = _raw_message()["blocks"]
    texts = [b["text"] for b in blocks if b["type"] == "text"]
    assert len(texts) == 10 and sum(1 for t in texts if not t.strip()) == 3
    (thread,) = read(WEB_SEARCH)
    said = [a.content for a in thread.actions if a.action_type == "assistant_message"]
    assert said == [t for t in texts if t.strip()]
    assert thread.account.kept == thread.account.failed == 0
    wire, _ = written(thread, "anthropic-messages")
    back = orjson.loads(wire)["content"]  # a stream is written as the Message it assembles into
    assert [b["text"] for b in back if b["type"] == "text"] == texts


def _assistant_blocks() -> list[Any]:
    return [b for b in _raw_message()["blocks"] if b["type"] in ("text", "server_tool_use", "web_search_tool_result")]


@pytest.mark.parametrize("shape", ["response", "list", "request"])
def test_whitespace_blocks_are_no_assistant_messages_in_bodies_and_lists(shape: str, tmp_path: Path) -> None:
    """The same message as a response body, in a message list and in a request: the same 7
    messages, and the file given back as it was."""
    blocks = _assistant_blocks()
    message = {"role": "assistant", "content": blocks}
    value: Any = {
        "response": {"id": "msg_1", "type": "message", "role": "assistant", "model": "claude-sonnet-4-5", "content": blocks, "stop_reason": "end_turn",
                     "usage": {"input_tokens": 1, "output_tokens": 2}},
        "list": [{"role": "user", "content": "weather?"}, message],
        "request": {"model": "claude-sonnet-4-5", "max_tokens": 10, "messages": [{"role": "user", "content": "weather?"}, message, {"role": "user", "content": "thanks"}]},
    }[shape]
    path = tmp_path / f"{shape}.json"
    path.write_bytes(orjson.dumps(value))
    (thread,) = read(path, "anthropic-messages")
    assert sum(1 for k in kinds(thread) if k == "assistant_message") == sum(1 for b in blocks if b["type"] == "text" and b["text"].strip()) == 7
    wire, losses = written(thread, "anthropic-messages")
    assert losses == [] and orjson.loads(wire) == value


def test_a_whitespace_message_alone_is_its_answer(tmp_path: Path) -> None:
    """A message of whitespace only has nothing beside it: it stays the answer."""
    path = tmp_path / "blank.json"
    path.write_bytes(orjson.dumps([{"role": "user", "content": "hi"}, {"role": "assistant", "content": [{"type": "text", "text": "\n\n"}]}]))
    (thread,) = read(path, "anthropic-messages")
    assert kinds(thread) == ["user_message", "assistant_message"]


def test_an_empty_answer_item_beside_a_responses_output_is_no_message() -> None:
    """The AI SDK's image-generation response ends in a message item whose ``output_text`` is
    ``""``: before, an assistant message with no text; now none, and the item written back."""
    path = REAL / "openai_responses" / "vercel_ai_image_generation.json"
    raw = orjson.loads(path.read_bytes())
    assert [i["type"] for i in raw["output"]] == ["reasoning", "image_generation_call", "reasoning", "message"]
    assert raw["output"][-1]["content"][0]["text"] == ""
    (thread,) = read(path)
    assert "assistant_message" not in kinds(thread)
    usage = next(a.usage for a in thread.actions if getattr(a, "usage", None) is not None)
    assert (usage.input_tokens, usage.output_tokens) == (raw["usage"]["input_tokens"], raw["usage"]["output_tokens"])
    wire, losses = written(thread, "openai-responses")
    assert losses == [] and orjson.loads(wire) == raw


def test_whitespace_beside_a_chat_messages_calls_is_no_message(tmp_path: Path) -> None:
    value = [{"role": "user", "content": "weather?"},
             {"role": "assistant", "content": "\n\n", "tool_calls": [{"id": "call_1", "type": "function", "function": {"name": "weather", "arguments": "{}"}}]},
             {"role": "tool", "tool_call_id": "call_1", "content": "sunny"}]
    path = tmp_path / "chat.json"
    path.write_bytes(orjson.dumps(value))
    (thread,) = read(path, "openai-chat")
    assert kinds(thread) == ["user_message", "tool_call", "tool_return"]
    wire, losses = written(thread, "openai-chat")
    assert losses == [] and orjson.loads(wire) == value


# --- 2. a handoff in a logged run ---------------------------------------------------------------


def _exchanges(path: Path) -> list[dict[str, Any]]:
    return orjson.loads(path.read_bytes())


@pytest.mark.parametrize(("name", "agents"), [("logfire_agents_sdk_exchanges.json", ["assistant", "agent2"]),
                                              ("langsmith_agents_handoff_exchanges.json", ["assistant", "Handoff Agent"])])
def test_a_handoff_continues_the_logged_run(name: str, agents: list[str]) -> None:
    """The Agents SDK's request after a handoff repeats the run with the new agent's
    ``instructions``: before, two threads (the prompt and calls counted twice); now one, the
    handoff (to the agent its output names) and the new instructions as a config update."""
    path = REAL / "openai_responses" / name
    exchanges = _exchanges(path)
    first, second = (e["request"] for e in exchanges)
    assert first.get("instructions") != second["instructions"]
    calls = {i["call_id"] for e in exchanges for i in [*e["request"]["input"], *e["response"]["output"]] if i.get("type") == "function_call"}
    (thread,) = read(path)
    assert sum(1 for k in kinds(thread) if k == "user_message") == 1
    assert {a.tool_call_id for a in thread.actions if a.action_type == "tool_call"} == calls and kinds(thread).count("tool_call") == len(calls)
    assert [thread.agent_name(a) for a in thread.agents] == agents
    handoff = next(a for a in thread.actions if a.action_type == "system.handoff")
    update = next(a for a in thread.actions if a.action_type == "system.config_update")
    new_agent = handoff.data["to_agent_id"]
    assert update.data == {"agent_id": new_agent, "changes": {"instructions": second["instructions"]}}
    answer = next(a for a in thread.actions if a.action_type == "assistant_message")
    assert answer.agent_id == new_agent and kinds(thread).index("system.config_update") < kinds(thread).index("assistant_message")
    wire, losses = written(thread, "openai-responses")
    assert losses == [] and orjson.loads(wire) == exchanges


def test_a_changed_anthropic_system_prompt_continues_the_run(tmp_path: Path) -> None:
    """The same rule for the Anthropic ``system`` parameter: a config update, one thread."""
    user, answer = {"role": "user", "content": "hi"}, {"id": "msg_1", "type": "message", "role": "assistant", "content": [{"type": "text", "text": "hello"}]}
    value = [{"request": {"model": "claude-x", "max_tokens": 5, "system": "be brief", "messages": [user]}, "response": answer},
             {"request": {"model": "claude-x", "max_tokens": 5, "system": "be precise", "messages": [user, {"role": "assistant", "content": answer["content"]}, user]}}]
    path = tmp_path / "log.json"
    path.write_bytes(orjson.dumps(value))
    (thread,) = read(path, "anthropic-messages")
    assert kinds(thread) == ["system.message", "user_message", "assistant_message", "user_message", "system.config_update"]
    wire, losses = written(thread, "anthropic-messages")
    assert losses == [] and orjson.loads(wire) == value


# --- 3. re-serialized call arguments -------------------------------------------------------------


@pytest.mark.parametrize("path", [REAL / "openai_responses" / "llm_tool_use_exchanges.json", REAL / "openai_responses" / "llm_interleaved_reasoning_exchanges.json",
                                  REAL / "openai_chat" / "llm_tool_chain_of_two_calls.json"], ids=lambda p: p.name)
def test_a_history_sent_back_re_serialized_is_one_thread(path: Path) -> None:
    """simonw/llm sends each call back with ``json.dumps`` spacing and without the item's id and
    status: before, every request a thread of its own; now one thread, each call once, and the
    requests written back byte for byte (the copies kept as they came)."""
    exchanges = _exchanges(path)
    sent = [m for e in exchanges[1:] for m in e["request"].get("input") or e["request"].get("messages")]
    arguments = [m.get("arguments") or c["function"]["arguments"] for m in sent for c in (m.get("tool_calls") or [m]) if "arguments" in m or m.get("tool_calls")]
    assert any(" " in a for a in arguments)  # the copies are re-spaced
    outputs = [o for e in exchanges for o in (e["response"].get("output") or [c["message"] for c in e["response"].get("choices", [])])]
    call_ids = {i["call_id"] for i in outputs if i.get("type") == "function_call"} | {c["id"] for m in outputs for c in m.get("tool_calls") or []}
    (thread,) = read(path)
    assert sum(1 for k in kinds(thread) if k == "user_message") == 1
    assert sorted(a.tool_call_id for a in thread.actions if a.action_type == "tool_call") == sorted(call_ids)
    fmt = "openai-chat" if "openai_chat" in str(path) else "openai-responses"
    wire, losses = written(thread, fmt)
    assert losses == [] and orjson.loads(wire) == exchanges


def test_the_copy_rule() -> None:
    """What makes a copy the same message: values, not spelling; never another call."""
    from threadlab.formats.common.providers.history import same

    call = {"type": "function_call", "id": "fc_1", "status": "completed", "call_id": "call_1", "name": "f", "arguments": '{"a":1,"b":[2]}'}
    copy = {"type": "function_call", "call_id": "call_1", "name": "f", "arguments": '{"b": [2], "a": 1}'}
    assert same(call, copy)
    assert not same(call, {**copy, "call_id": "call_2"})
    assert not same(call, {**copy, "arguments": '{"a": 2, "b": [2]}'})
    assert not same(call, {**copy, "id": "fc_2"})  # an id both copies give must agree
    assert same({"role": "assistant", "content": None, "refusal": None, "tool_calls": [{"id": "c", "function": {"arguments": '{"x":1}'}}]},
                {"role": "assistant", "tool_calls": [{"id": "c", "function": {"arguments": '{"x": 1}'}}]})


# --- 4. parts a writer has no part for ------------------------------------------------------------


def test_a_responses_input_file_is_a_media_part_every_provider_writer_maps() -> None:
    """crewAI's request sends a PDF as an ``input_file`` data URL: before, an unknown part the
    Chat and Anthropic writers copied through (their own readers then read no message list);
    now a media part, written as Chat's ``file`` part and Anthropic's ``document`` block."""
    path = REAL / "openai_responses" / "crewai_pdf_responses_exchange.json"
    part = orjson.loads(path.read_bytes())[0]["request"]["input"][0]["content"][1]
    media_type, data = part["file_data"].removeprefix("data:").split(";base64,")
    thread = read(path)[0]
    prompt = next(a for a in thread.actions if a.action_type == "user_message")
    media = prompt.content[1]
    assert isinstance(media, MediaPart)
    assert (media.content_type, media.media_type, media.media_category, media.data, media.identifier) == ("binary", media_type, "document", data, part["filename"])
    chat, _ = written(thread, "openai-chat")
    sent = [p for m in orjson.loads(chat) if m["role"] == "user" for p in m["content"]]
    assert sent[1] == {"type": "file", "file": {"file_data": part["file_data"], "filename": part["filename"]}}
    anthropic, losses = written(thread, "anthropic-messages")
    blocks = [b for m in orjson.loads(anthropic)["messages"] if m["role"] == "user" for b in m["content"]]
    assert blocks[1] == {"type": "document", "source": {"type": "base64", "media_type": media_type, "data": data}}
    assert "file names of media parts (an image or document block names no file)" in losses
    for fmt, wire, want in (("openai-chat", chat, media), ("anthropic-messages", anthropic, media.model_copy(update={"identifier": None}))):
        (back,) = read(Source(wire, name=f"back.{fmt}"), fmt)
        assert next(a for a in back.actions if a.action_type == "user_message").content[1] == want


def _foreign_thread() -> Thread:
    """A prompt with a part of another format (a LangChain-style ``source`` part) and an image."""
    value = {"thread_id": "t", "version": "1.0.0", "agents": {"a": {"agent_name": "a"}}, "actions": [
        {"action_type": "user_message", "sequence": 0, "timestamp": "2026-01-01T00:00:00Z",
         "content": [{"type": "text", "text": "look"}, {"type": "some_other_format_part", "x": 1}, {"type": "image", "image_url": "https://example.com/a.png"}]},
        {"action_type": "assistant_message", "sequence": 1, "timestamp": "2026-01-01T00:00:01Z", "agent_id": "a", "content": "ok"}]}
    (thread,) = read(Source(orjson.dumps(value), name="t.json"), "threadprotocol")
    return thread


@pytest.mark.parametrize("fmt", PROVIDERS)
def test_a_writer_leaves_a_foreign_part_out_and_names_it(fmt: str) -> None:
    wire, losses = written(_foreign_thread(), fmt)
    assert b"some_other_format_part" not in wire
    assert "some_other_format_part content parts" in " ".join(losses)
    (back,) = read(Source(wire, name=f"back.{fmt}"), fmt)
    prompt = next(a for a in back.actions if a.action_type == "user_message")
    assert [getattr(p, "type", None) for p in prompt.content] == ["text", "image"]
