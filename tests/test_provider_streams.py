"""Every provider stream whole (issue 24 §3), on public captures other projects committed
(``tests/fixtures/real/{anthropic_messages,openai_responses,openai_chat}``, provenance in their
READMEs):

- every message of a stream holding several (``message_start`` ... ``message_stop`` repeated; a
  ``response.created`` ... ``response.completed`` per request), each with its blocks (items) as
  the actions they are read as, its tool calls and returns, its thinking and its usage counted
  once (Anthropic's ``message_delta`` usage is a total: the final value, not a sum), equal the
  counts ``tests/provider_raw.py`` takes from the raw bytes without threadlab;
- each Anthropic message threadlab assembles equals what the ``anthropic`` SDK's own
  ``accumulate_event`` makes of the same events;
- every item type of the ``openai`` package's Responses unions, and every block type of the
  ``anthropic`` package's (beta) content blocks, is read or kept with a problem naming it;
- the Chat Completions streams of compatible vendors (DeepSeek, Groq, xAI, Alibaba) give their
  reasoning as thinking and their usage where the vendor puts it."""

from __future__ import annotations

import typing
import warnings
from pathlib import Path
from typing import Any

import pytest

import threadlab
from tests.provider_raw import COUNTERS, values
from threadlab.formats.common.source import Source

ROOT = Path(__file__).resolve().parents[1]
REAL = ROOT / "tests" / "fixtures" / "real"
FOLDERS = {"anthropic-messages": "anthropic_messages", "openai-responses": "openai_responses", "openai-chat": "openai_chat"}
KEYS = {"anthropic-messages": "anthropic_messages", "openai-responses": "openai_responses", "openai-chat": "openai_chat"}
# the public files of this issue (the older ones are checked by tests/test_provider_formats.py)
FILES = [
    ("anthropic-messages", "vercel_ai_programmatic_tool_calling.jsonl"),
    ("anthropic-messages", "vercel_ai_tool_search_three_messages.jsonl"),
    ("anthropic-messages", "vercel_ai_mcp_tool_use.jsonl"),
    ("anthropic-messages", "vercel_ai_message_delta_input_tokens.jsonl"),
    ("anthropic-messages", "vercel_ai_web_fetch_code_execution.jsonl"),
    ("anthropic-messages", "vercel_ai_advisor_tool_result.jsonl"),
    ("anthropic-messages", "vercel_ai_compaction_block.jsonl"),
    ("anthropic-messages", "anthropic_sdk_tool_use_stream.sse"),
    ("anthropic-messages", "pydantic_ai_redacted_thinking_stream.sse"),
    ("anthropic-messages", "pydantic_ai_container_upload_pair.json"),
    ("openai-responses", "vercel_ai_mcp_approval_request_stream.jsonl"),
    ("openai-responses", "vercel_ai_four_responses_stream.jsonl"),
    ("openai-responses", "vercel_ai_apply_patch_stream.jsonl"),
    ("openai-responses", "vercel_ai_shell_call_two_responses.jsonl"),
    ("openai-responses", "vercel_ai_mcp_call_after_approval.json"),
    ("openai-responses", "vercel_ai_code_interpreter.json"),
    ("openai-responses", "vercel_ai_program_call.json"),
    ("openai-responses", "vercel_ai_program_output.json"),
    ("openai-responses", "vercel_ai_tool_search.json"),
    ("openai-responses", "vercel_ai_local_shell_call.json"),
    ("openai-responses", "vercel_ai_image_generation.json"),
    ("openai-responses", "vercel_ai_web_search.json"),
    ("openai-responses", "vercel_ai_compaction_item.json"),
    ("openai-responses", "pydantic_ai_reasoning_call_stream.sse"),
    ("openai-chat", "vercel_ai_deepseek_reasoning_tool_call.jsonl"),
    ("openai-chat", "vercel_ai_groq_tool_call_whole_arguments.jsonl"),
    ("openai-chat", "vercel_ai_groq_reasoning_field.jsonl"),
    ("openai-chat", "pydantic_ai_groq_x_groq_usage.sse"),
    ("openai-chat", "vercel_ai_xai_reasoning_tool_call.jsonl"),
    ("openai-chat", "vercel_ai_alibaba_tool_call_empty_ids.jsonl"),
    ("openai-chat", "vercel_ai_alibaba_reasoning.jsonl"),
    ("openai-chat", "openai_python_tool_call_stream.sse"),
]


def _path(fmt: str, name: str) -> Path:
    return REAL / FOLDERS[fmt] / name


def _usage(action: Any) -> tuple[int, int] | None:
    usage = getattr(action, "usage", None)
    if usage is None:
        return None
    usage = usage if isinstance(usage, dict) else usage.model_dump()
    return usage.get("input_tokens") or 0, usage.get("output_tokens") or 0


def threadlab_counts(path: Path, fmt: str) -> dict[str, Any]:
    """The same counts from the thread threadlab reads (detected: each file is its format's)."""
    (thread,) = threadlab.read_all(path, strict=False)
    key = KEYS[fmt]
    exchanges = [e for e in thread.metadata[key]["exchanges"] if "got" in e]
    kinds, usage = [], []
    for exchange in exchanges:
        mine = [a for a in thread.actions if ((a.metadata or {}).get(key) or {}).get("m") in exchange["got"]]
        kinds.append([a.action_type for a in mine])
        found = [u for u in map(_usage, mine) if u is not None]
        assert len(found) <= 1, "a message's usage is on one action"
        usage.append(found[0] if found else (0, 0))
    of = [a.action_type for a in thread.actions]
    return {
        "messages": len(exchanges),
        "kinds": kinds,
        "calls": len({a.tool_call_id for a in thread.actions if a.action_type == "tool_call"}),
        "returns": len({a.tool_call_id for a in thread.actions if a.action_type == "tool_return"}),
        "thinking": of.count("thinking"),
        "usage": usage,
    }


@pytest.mark.parametrize(("fmt", "name"), FILES, ids=[n for _, n in FILES])
def test_every_message_of_a_stream_equals_the_raw_file(fmt: str, name: str) -> None:
    path = _path(fmt, name)
    assert threadlab_counts(path, fmt) == COUNTERS[fmt](path)


@pytest.mark.parametrize(("fmt", "name"), FILES, ids=[n for _, n in FILES])
def test_every_record_is_read_and_no_valid_record_is_called_invalid(fmt: str, name: str) -> None:
    """Nothing is dropped, and what the APIs send today is not reported as broken: the problems
    left are the ones each file has (a trimmed file's call answered in another file; the
    vendors' own values the SDKs' types refuse; event types newer than the installed SDK)."""
    (thread,) = threadlab.read_all(_path(fmt, name), strict=False)
    problems = sorted({p.rule for p in thread.problems})
    assert problems == EXPECTED_PROBLEMS.get(name, []), [str(p) for p in thread.problems]


EXPECTED_PROBLEMS = {
    "vercel_ai_compaction_block.jsonl": ["unknown-type"],  # the compaction block: kept, named
    "vercel_ai_program_output.json": ["tool-call-match"],  # its program call is in another response (another file)
    "vercel_ai_apply_patch_stream.jsonl": ["schema"],  # response.apply_patch_call_operation_diff.*: newer than the SDK
    "vercel_ai_deepseek_reasoning_tool_call.jsonl": [],
    "pydantic_ai_groq_x_groq_usage.sse": [],
}


def test_the_anthropic_sdk_assembles_every_message_as_threadlab_does() -> None:
    """Each message of a multi-message stream, put together by the SDK's own
    ``accumulate_event`` (its beta variant, which knows MCP and the newer blocks), has the
    blocks, tool inputs and usage threadlab reads."""
    from anthropic.lib.streaming._beta_messages import accumulate_event

    for name in ("vercel_ai_programmatic_tool_calling.jsonl", "vercel_ai_tool_search_three_messages.jsonl", "vercel_ai_mcp_tool_use.jsonl",
                 "vercel_ai_web_fetch_code_execution.jsonl", "vercel_ai_message_delta_input_tokens.jsonl"):
        path = _path("anthropic-messages", name)
        events = [v for v in values(path) if v.get("type") != "ping"]
        sdk: list[Any] = []
        bufs: dict[int, bytes] = {}
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            for event in events:
                if event["type"] == "message_start":
                    bufs = {}
                    sdk.append(None)
                sdk[-1] = accumulate_event(event=event, current_snapshot=sdk[-1], json_bufs=bufs, request_headers={})
        (thread,) = threadlab.read_all(path, strict=False)
        ours = thread.metadata["anthropic_messages"]["exchanges"]
        assert len(ours) == len(sdk), name
        for exchange, message in zip(ours, sdk, strict=True):
            actions = [a for a in thread.actions if a.metadata["anthropic_messages"]["m"] in exchange["got"]]
            calls = [(a.tool_name, a.args) for a in actions if a.action_type == "tool_call"]
            assert calls == [(b.name, b.input) for b in message.content if b.type.endswith("tool_use")], name
            texts = "".join(a.content for a in actions if a.action_type == "assistant_message" and isinstance(a.content, str))
            assert texts == "".join(b.text for b in message.content if b.type == "text"), name
            u = message.usage
            expected = (u.input_tokens + (u.cache_read_input_tokens or 0) + (u.cache_creation_input_tokens or 0), u.output_tokens)
            assert next(filter(None, map(_usage, actions))) == expected, name


# --- every type the SDKs declare -----------------------------------------------------------------


def _type_literals(union: Any) -> set[str]:
    """The ``type`` literal of every member of an SDK union (models and TypedDicts)."""
    out: set[str] = set()
    stack = [union]
    while stack:
        t = stack.pop()
        if typing.get_origin(t) in (typing.Union, typing.Annotated):
            stack.extend(typing.get_args(t)[:1] if typing.get_origin(t) is typing.Annotated else typing.get_args(t))
            continue
        fields = getattr(t, "model_fields", None)
        hint = fields["type"].annotation if fields is not None else typing.get_type_hints(t).get("type")
        args = list(typing.get_args(hint))
        while args:
            a = args.pop()
            if isinstance(a, str):
                out.add(a)
            else:
                args.extend(typing.get_args(a))
    return out


def test_every_responses_item_type_of_the_openai_package_is_read() -> None:
    """Each output and input item type the installed ``openai`` package declares is read as a
    core action or the ``system.<type>`` action of what the platform did, never left unknown
    (a new type in a later SDK makes this fail until it is mapped)."""
    from openai.types.responses import ResponseInputItemParam, ResponseOutputItem

    kinds = _type_literals(ResponseOutputItem) | _type_literals(ResponseInputItemParam)
    assert {"mcp_list_tools", "mcp_approval_request", "code_interpreter_call", "compaction", "program"} <= kinds
    unread = {}
    for kind in sorted(kinds):
        item = {"type": kind, "id": f"{kind}_1", "call_id": "call_1"} if kind != "message" else {"type": "message", "role": "user", "content": "hi"}
        source = Source(orjson_dumps({"model": "m", "input": [{"type": "function_call", "call_id": "call_1", "name": "f", "arguments": "{}"}, item]}), name="x.json")
        (thread,) = threadlab.read_all(source, "openai-responses", strict=False)
        if thread.account.unconverted or any(a.action_type.startswith("system.unknown") for a in thread.actions):
            unread[kind] = [str(p) for p in thread.problems]
    assert unread == {}


def test_every_anthropic_block_type_is_read_or_kept_naming_its_type() -> None:
    from anthropic.types.beta import BetaContentBlock

    kept = {"compaction", "fallback", "mcp_tool_listing", "container_upload"}
    for kind in sorted(_type_literals(BetaContentBlock)):
        block = {"type": kind, "id": "toolu_1", "tool_use_id": "toolu_1", "name": "t", "input": {}, "text": "x", "thinking": "x", "content": {}}
        body = {"type": "message", "role": "assistant", "model": "claude", "content": [block]}
        (thread,) = threadlab.read_all(Source(orjson_dumps(body), name="x.json"), "anthropic-messages", strict=False)
        if kind in kept:
            assert any(kind in p.message and p.rule == "unknown-type" for p in thread.problems), kind
        else:
            assert not any(a.action_type.startswith("system.unknown") for a in thread.actions), kind


def orjson_dumps(value: Any) -> bytes:
    import orjson

    return orjson.dumps(value)


# --- the vendors' quirks, on their own recorded streams --------------------------------------------


@pytest.mark.parametrize(("name", "thinking", "usage"), [
    ("vercel_ai_groq_reasoning_field.jsonl", True, (17, 1107)),  # Groq's ``reasoning``; usage also in x_groq
    ("pydantic_ai_groq_x_groq_usage.sse", False, (21, 988)),  # usage only in x_groq (the <think> text is content)
    ("vercel_ai_deepseek_reasoning_tool_call.jsonl", True, (339, 83)),
    ("vercel_ai_alibaba_reasoning.jsonl", True, (24, 1355)),
    ("vercel_ai_xai_reasoning_tool_call.jsonl", True, (291, 26)),
])
def test_compatible_vendors_give_their_reasoning_and_usage(name: str, thinking: bool, usage: tuple[int, int]) -> None:
    (thread,) = threadlab.read_all(_path("openai-chat", name), strict=False)
    assert any(a.action_type == "thinking" and a.content for a in thread.actions) is thinking
    assert [u for u in map(_usage, thread.actions) if u is not None] == [usage]


def test_deepseek_cache_hits_are_cache_reads() -> None:
    (thread,) = threadlab.read_all(_path("openai-chat", "vercel_ai_deepseek_reasoning_tool_call.jsonl"), strict=False)
    (usage,) = [a.usage for a in thread.actions if getattr(a, "usage", None) is not None]
    assert (usage["cache_read_tokens"] if isinstance(usage, dict) else usage.cache_read_tokens) == 320


# --- tool call deltas as the compatible servers send them (shapes from their bug reports) ---------


def _chunks(*deltas: dict[str, Any]) -> bytes:
    import orjson

    lines = [b"data: " + orjson.dumps({"id": "c", "object": "chat.completion.chunk", "model": "m", "choices": [{"index": 0, "delta": d}]}) for d in deltas]
    return b"\n\n".join([*lines, b"data: [DONE]"]) + b"\n\n"


@pytest.mark.parametrize(("deltas", "expected"), [
    # no ``index`` at all (Ollama, ollama/ollama#7881; Gemini's OpenAI endpoint; grok2api#239): two calls told apart by id
    ([{"tool_calls": [{"id": "a", "type": "function", "function": {"name": "f", "arguments": '{"x": '}}]},
      {"tool_calls": [{"function": {"arguments": "1}"}}]},
      {"tool_calls": [{"id": "b", "type": "function", "function": {"name": "g", "arguments": "{}"}}]}],
     [("a", "f", {"x": 1}), ("b", "g", {})]),
    # the id and the name sent again on every delta
    ([{"tool_calls": [{"index": 0, "id": "a", "function": {"name": "f", "arguments": '{"x"'}}]},
      {"tool_calls": [{"index": 0, "id": "a", "function": {"name": "f", "arguments": ": 1}"}}]}],
     [("a", "f", {"x": 1})]),
    # parallel calls all under index 0, each with its own id; continuations with an empty id (Qwen)
    ([{"tool_calls": [{"index": 0, "id": "a", "function": {"name": "f", "arguments": ""}}]},
      {"tool_calls": [{"index": 0, "id": "", "function": {"arguments": "{}"}}]},
      {"tool_calls": [{"index": 0, "id": "b", "function": {"name": "g", "arguments": "{}"}}]}],
     [("a", "f", {}), ("b", "g", {})]),
])
def test_tool_call_deltas_of_compatible_servers(deltas: list[dict[str, Any]], expected: list[tuple[str, str, Any]]) -> None:
    (thread,) = threadlab.read_all(Source(_chunks(*deltas), name="s.sse"), "openai-chat", strict=False)
    assert [(a.tool_call_id, a.tool_name, a.args) for a in thread.actions if a.action_type == "tool_call"] == expected
    assert not thread.problems


def test_an_anthropic_stream_with_values_of_the_wrong_type_costs_only_those_values() -> None:
    import orjson

    events = [
        {"type": "message_start", "message": {"id": "m1", "type": "message", "role": "assistant", "content": [], "usage": {"input_tokens": 5}}},
        {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}},
        {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": 7}},
        {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "ok"}},
        {"type": "content_block_delta", "index": 0, "delta": "text"},
        {"type": "content_block_start", "index": 1, "content_block": {"type": "tool_use", "id": "t", "name": "f", "input": {}}},
        {"type": "content_block_delta", "index": 1, "delta": {"type": "input_json_delta", "partial_json": ["x"]}},
        {"type": "content_block_delta", "index": "1", "delta": {"type": "input_json_delta", "partial_json": "{}"}},
        {"type": "message_delta", "delta": [], "usage": "many"},
        {"type": "message_stop"},
    ]
    body = b"".join(b"event: " + e["type"].encode() + b"\ndata: " + orjson.dumps(e) + b"\n\n" for e in events)
    (thread,) = threadlab.read_all(Source(body, name="s.sse"), "anthropic-messages", strict=False)
    assert [a.content for a in thread.actions if a.action_type == "assistant_message"] == ["ok"]
    assert [a.tool_name for a in thread.actions if a.action_type == "tool_call"] == ["f"]
    assert thread.account.records == len(events)
    messages = " ".join(p.message for p in thread.problems)
    assert "delta.text is 7, not text" in messages and "delta.partial_json is ['x'], not text" in messages
    assert "no delta object" in messages and "usage that is no object" in messages and "index is '1', not a block's index" in messages
