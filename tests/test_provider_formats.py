"""The provider formats (OpenAI Chat Completions, OpenAI Responses, Anthropic Messages,
LangChain) on real files and on the real SDKs' output:

- tool calls, returns, user prompts and usage of every fixture and public file equal counts
  taken from the raw JSON here, without threadlab;
- every stream fixture, replayed to the real SDK by a local server, assembles in the SDK into
  what threadlab reads from the same bytes;
- the replay writers' output is accepted by the SDKs' own request types and sent by the real
  clients;
- the SDKs are not imported by ``import threadlab`` nor by detection."""

from __future__ import annotations

import json
import subprocess
import sys
import warnings
from itertools import pairwise
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import threadlab
from tests.conformance.fixtures import fixtures
from tests.provider_mock import MockProvider
from tests.provider_raw import ANTHROPIC_EVENTS, anthropic_messages, anthropic_usage, chunk_usage, responses_kinds, values
from threadlab.core.loss import WriteLoss
from threadlab.formats.common.reading import UnreadFilesWarning
from threadlab.formats.common.source import Source

ROOT = Path(__file__).resolve().parents[1]
MINE = ("openai-chat", "openai-responses", "anthropic-messages", "langchain")
FILES = [f for f in fixtures(origins=("fixture", "real")) if f.format in MINE]
SSE = [f for f in FILES if f.path.suffix == ".sse"]
# the raw counts of this module are checked on the hand-made fixtures; every real file's counts
# are checked by tests/wild (an independent counter, with the disagreements listed in one place)


def _langgraph_stream(f: Any) -> bool:
    """A LangGraph stream capture (``[mode, chunk]`` parts), not a message list: its counts are
    the framework counter's (tests/wild/rules_frameworks.py) and its writer writes a message list."""
    return f.format == "langchain" and any((t.metadata or {}).get("langchain", {}).get("container") == "stream"
                                           for t in threadlab.read_all(f.path, f.format, strict=False))


COUNTED = [f for f in FILES if f.origin == "fixture" and not _langgraph_stream(f)]
# real streams the SDK itself cannot assemble (nothing to compare threadlab with): file → why
SDK_REFUSES = {"vercel_ai_anthropic_compat_tool_call.sse": "Anthropic's OpenAI-compatible endpoint numbers its first tool call index 1: "
                                                           "the openai SDK's accumulator raises IndexError",
               "logfire_openrouter_reasoning_stream.sse": "OpenRouter's reasoning_details deltas are lists of objects without an index: "
                                                          "the openai SDK's accumulator raises RuntimeError"}


# --- counts from the raw files --------------------------------------------------------------


def _walk(value: Any) -> list[dict[str, Any]]:
    """Every JSON object inside ``value``."""
    out: list[dict[str, Any]] = []
    stack = [value]
    while stack:
        v = stack.pop()
        if isinstance(v, dict):
            out.append(v)
            stack.extend(v.values())
        elif isinstance(v, list):
            stack.extend(v)
    return out


def raw_counts(path: Path, fmt: str) -> dict[str, Any]:
    """Distinct tool calls and returns, distinct user prompts and usage totals of a file, by
    each API's own field names."""
    objs = [o for v in values(path) for o in _walk(v)]
    calls: set[str] = set()
    returns: set[str] = set()
    prompts: set[str] = set()
    usage_in = usage_out = 0
    if fmt == "openai-chat":
        for o in objs:
            for c in o.get("tool_calls") or []:
                if isinstance(c, dict) and c.get("id"):
                    calls.add(c["id"])
            if o.get("role") == "tool":
                returns.add(o["tool_call_id"])
            if o.get("role") == "user" and "tool_call_id" not in o:
                prompts.add(json.dumps(o, sort_keys=True))
        chunks = [o for o in objs if o.get("object") == "chat.completion.chunk"]
        usages = [u for u in map(chunk_usage, chunks) if u is not None][-1:]  # a stream's: the last (totals so far)
        usages += [o["usage"] for o in objs if o.get("object") == "chat.completion" and isinstance(o.get("usage"), dict)]
        usage_in, usage_out = sum(u["prompt_tokens"] for u in usages), sum(u["completion_tokens"] for u in usages)
    elif fmt == "anthropic-messages":
        for o in objs:
            if o.get("type") in ("tool_use", "server_tool_use", "mcp_tool_use") and o.get("id"):
                calls.add(o["id"])
            if o.get("type") == "tool_result" or str(o.get("type")).endswith("_tool_result"):
                returns.add(o["tool_use_id"])
            if o.get("role") == "user":
                content = o.get("content")
                texts = [content] if isinstance(content, str) else [b for b in content if b.get("type") != "tool_result"]
                if texts:
                    prompts.add(json.dumps(texts, sort_keys=True))
        events = [v for v in values(path) if isinstance(v, dict) and v.get("type") in ANTHROPIC_EVENTS]
        bodies = [o for o in objs if o.get("type") == "message" and o.get("role") == "assistant" and isinstance(o.get("usage"), dict)]
        usages = [m["usage"] for m in anthropic_messages(events)] if events else [b["usage"] for b in bodies]  # a stream's: each message's totals
        usage_in = sum(anthropic_usage(u)[0] for u in usages)
        usage_out = sum(anthropic_usage(u)[1] for u in usages)
    elif fmt == "openai-responses":
        responses = {}
        for o in objs:
            item = isinstance(o.get("type"), str) and not o["type"].startswith("response.") and ("id" in o or "call_id" in o)
            kinds = responses_kinds(o) if item else []  # an item (not a caller reference, a part ...)
            if "tool_call" in kinds:
                calls.add(o.get("call_id") or o["id"])
            if "tool_return" in kinds:
                returns.add(o.get("call_id") or o["id"])
            if o.get("role") == "user":
                prompts.add(json.dumps(o.get("content"), sort_keys=True))
            if o.get("object") == "response" and isinstance(o.get("usage"), dict):
                responses[o["id"]] = o["usage"]
        for v in values(path):
            if isinstance(v, dict) and isinstance(v.get("input"), str):
                prompts.add(json.dumps(v["input"]))
        usage_in = sum(u["input_tokens"] for u in responses.values())
        usage_out = sum(u["output_tokens"] for u in responses.values())
    else:  # langchain: the messages of a list, a state (also under "values") or JSON Lines
        found = values(path)
        if len(found) == 1 and isinstance(found[0], dict):
            state = found[0].get("values") or found[0]
            found = state["messages"]
        for m in found:
            data = m.get("data") or m.get("kwargs") or m
            kind = m["id"][-1] if m.get("lc") else m["type"]
            for c in data.get("tool_calls") or []:
                calls.add(c["id"])
            if kind in ("tool", "ToolMessage"):
                returns.add(data["tool_call_id"])
            if kind in ("human", "HumanMessage"):
                prompts.add(json.dumps(data.get("content"), sort_keys=True))
            if isinstance(data.get("usage_metadata"), dict):
                usage_in += data["usage_metadata"]["input_tokens"]
                usage_out += data["usage_metadata"]["output_tokens"]
    return {"calls": len(calls), "returns": len(returns), "prompts": len(prompts), "in": usage_in, "out": usage_out}


def threadlab_counts(path: Path) -> dict[str, Any]:
    frames = threadlab.load(path, progress=False)
    actions = frames.actions
    prompts = {json.dumps(t, sort_keys=True) for t in actions[actions.action_type == "user_message"].text}
    return {
        "calls": frames.tool_calls[frames.tool_calls.call_sequence.notna()].tool_call_id.nunique(),
        "returns": frames.tool_calls[frames.tool_calls.return_sequence.notna()].tool_call_id.nunique(),
        "prompts": len(prompts),
        "in": int(frames.usage.input_tokens.fillna(0).sum()),
        "out": int(frames.usage.output_tokens.fillna(0).sum()),
    }


NON_SSE = [f for f in COUNTED if f.path.suffix != ".sse"]


@pytest.mark.parametrize("fixture", NON_SSE, ids=lambda f: f.id)
def test_calls_returns_prompts_and_usage_equal_the_raw_file(fixture: Any) -> None:
    raw = raw_counts(fixture.path, fixture.format)
    assert raw["calls"] + raw["prompts"] + raw["out"] > 0
    assert threadlab_counts(fixture.path) == raw


@pytest.mark.parametrize("fixture", [f for f in COUNTED if f.path.suffix == ".sse"], ids=lambda f: f.id)
def test_streams_equal_the_raw_events(fixture: Any) -> None:
    """Streams, read as the format named (the AI SDK detector on main still claims SSE)."""
    (thread,) = threadlab.read_all(fixture.path, fixture.format, strict=False)
    raw = raw_counts(fixture.path, fixture.format)
    calls = {a.tool_call_id for a in thread.actions if a.action_type == "tool_call"}
    assert len(calls) == raw["calls"]
    usage = [getattr(a, "usage", None) for a in thread.actions]
    usage = [u if isinstance(u, dict) else u.model_dump() for u in usage if u is not None]
    assert sum(u.get("output_tokens") or 0 for u in usage) == raw["out"]
    assert sum(u.get("input_tokens") or 0 for u in usage) == raw["in"]


# --- the SDKs assemble the same streams ---------------------------------------------------------


def _sdk_final(fmt: str, body: bytes) -> dict[str, Any]:
    """What the real SDK makes of an SSE body served by a local server: text, tool calls
    (name, parsed input) and usage."""
    with MockProvider([body]) as mock:
        if fmt == "openai-chat":
            from openai import OpenAI

            client = OpenAI(base_url=mock.url + "/v1", api_key="k", max_retries=0)
            with client.chat.completions.stream(model="m", messages=[{"role": "user", "content": "x"}]) as stream:
                final = stream.get_final_completion()
            texts = [c.message.content or c.message.refusal or "" for c in final.choices]
            calls = [(t.function.name, json.loads(t.function.arguments)) for c in final.choices for t in c.message.tool_calls or []]
            usage = (final.usage.prompt_tokens, final.usage.completion_tokens) if final.usage else (0, 0)
        elif fmt == "anthropic-messages":
            from anthropic import Anthropic

            client = Anthropic(base_url=mock.url, api_key="k", max_retries=0)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", DeprecationWarning)
                with client.messages.stream(model="m", max_tokens=10, messages=[{"role": "user", "content": "x"}]) as stream:
                    final = stream.get_final_message()
            texts = ["".join(b.text for b in final.content if b.type == "text" and b.text.strip())]  # whitespace-only blocks are no message (issue 24 §1)
            calls = [(b.name, b.input) for b in final.content if b.type in ("tool_use", "server_tool_use", "mcp_tool_use")]
            u = final.usage
            usage = (u.input_tokens + (u.cache_read_input_tokens or 0) + (u.cache_creation_input_tokens or 0), u.output_tokens)
        else:
            from openai import OpenAI

            client = OpenAI(base_url=mock.url + "/v1", api_key="k", max_retries=0)
            with client.responses.stream(model="m", input="x") as stream:
                final = stream.get_final_response()
            texts = [final.output_text]
            calls = [(o.name, json.loads(o.arguments)) for o in final.output if o.type == "function_call"]
            usage = (final.usage.input_tokens, final.usage.output_tokens) if final.usage else (0, 0)
    return {"texts": [t for t in texts if t], "calls": calls, "usage": usage}


def _threadlab_final(fmt: str, path: Path) -> dict[str, Any]:
    (thread,) = threadlab.read_all(path, fmt, strict=False)
    texts = ["".join(p["text"] if isinstance(p, dict) else getattr(p, "text", "") for p in a.content) if isinstance(a.content, list) else a.content
             for a in thread.actions if a.action_type == "assistant_message"]
    calls = [(a.tool_name, a.args) for a in thread.actions if a.action_type == "tool_call"]
    usage = next((getattr(a, "usage", None) for a in thread.actions if getattr(a, "usage", None) is not None), None)
    usage = usage if isinstance(usage, dict) or usage is None else usage.model_dump()
    if fmt == "anthropic-messages":
        texts = ["".join(texts)]
    return {"texts": [t for t in texts if t], "calls": calls, "usage": (usage["input_tokens"], usage["output_tokens"]) if usage else (0, 0)}


# the SDK reads no usage from Groq's x_groq (threadlab does: tests/test_provider_streams.py)
REPLAYABLE = [f for f in SSE if "partial_json" not in f.path.name and "capture" not in f.path.name and "x_groq" not in f.path.name
              and f.path.name not in SDK_REFUSES]


@pytest.mark.parametrize("fixture", [f for f in SSE if f.path.name in SDK_REFUSES], ids=lambda f: f.id)
def test_the_streams_the_sdk_refuses_are_still_refused(fixture: Any) -> None:
    with pytest.raises((IndexError, RuntimeError)):
        _sdk_final(fixture.format, fixture.path.read_bytes())


@pytest.mark.parametrize("fixture", REPLAYABLE, ids=lambda f: f.id)
def test_the_sdk_assembles_each_stream_into_what_threadlab_reads(fixture: Any) -> None:
    assert _sdk_final(fixture.format, fixture.path.read_bytes()) == _threadlab_final(fixture.format, fixture.path)


# --- the replay writers' output is what the SDKs send -------------------------------------------


def _threads() -> list[Any]:
    out = []
    for f in fixtures(origins=("fixture", "data")):
        try:
            out.extend(threadlab.read_all(f.path, f.format or "auto", strict=False))
        except Exception:
            continue
    return out


@pytest.fixture(scope="module")
def every_thread() -> list[Any]:
    return _threads()


def test_to_openai_chat_is_accepted_by_the_sdk_for_every_agent_of_every_fixture(every_thread: list[Any]) -> None:
    from openai import OpenAI
    from openai.types.chat import ChatCompletionMessageParam
    from pydantic import TypeAdapter

    adapter = TypeAdapter(list[ChatCompletionMessageParam])
    checked = 0
    with MockProvider([{"id": "x", "object": "chat.completion", "created": 0, "model": "m", "choices": []}] * 2000) as mock:
        client = OpenAI(base_url=mock.url + "/v1", api_key="k", max_retries=0)
        for thread in every_thread:
            for agent in thread.agents or [None]:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore", WriteLoss)
                    messages = threadlab.to_openai_chat(thread, agent)
                adapter.validate_python(messages)
                _assert_tool_messages_follow_their_calls(messages)
                if checked < 40:  # the real client serialises and sends them
                    client.chat.completions.create(model="m", messages=messages)
                checked += 1
    assert checked > 20 and mock.requests and all("messages" in r for r in mock.requests)


def _assert_tool_messages_follow_their_calls(messages: list[dict[str, Any]]) -> None:
    open_calls: set[str] = set()
    for m in messages:
        if m["role"] == "tool":
            assert m["tool_call_id"] in open_calls, f"a tool message must answer a call of the assistant message before it: {m}"
            open_calls.discard(m["tool_call_id"])
        else:
            open_calls = {c["id"] for c in m.get("tool_calls") or []} if m["role"] == "assistant" else set()


def test_to_anthropic_messages_is_accepted_by_the_sdk_for_every_agent_of_every_fixture(every_thread: list[Any]) -> None:
    from anthropic.types.message_create_params import MessageCreateParamsNonStreaming
    from pydantic import TypeAdapter

    adapter = TypeAdapter(MessageCreateParamsNonStreaming)
    checked = 0
    for thread in every_thread:
        for agent in thread.agents or [None]:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", WriteLoss)
                params = threadlab.to_anthropic_messages(thread, agent)
            adapter.validate_python({"model": "claude-sonnet-4-5", "max_tokens": 1024, **params})
            roles = [m["role"] for m in params["messages"]]
            assert all(a != b for a, b in pairwise(roles)), "user and assistant alternate"
            for m in params["messages"]:
                kinds = [b.get("type") for b in m["content"]]
                assert kinds == sorted(kinds, key=lambda k: k != "tool_result"), "tool results come first in a user turn"
            checked += 1
    assert checked > 20


def test_a_multi_agent_thread_needs_an_agent_and_others_become_user_text() -> None:
    (team,) = threadlab.read_all(ROOT / "tests/fixtures/langchain/supervisor_messages_to_dict.json", strict=False)
    with pytest.raises(ValueError, match="pass agent="):
        threadlab.to_openai_chat(team)
    with pytest.warns(WriteLoss, match="other agents"):
        messages = threadlab.to_openai_chat(team, "writer", others="show")
    texts = [m["content"] for m in messages if m["role"] == "user"]
    assert any(t.startswith("{agent:researcher}: [tool call search(") for t in texts)
    assert [m.get("name") for m in messages if m["role"] == "assistant"] == ["writer"]
    with pytest.warns(WriteLoss):
        hidden = threadlab.to_openai_chat(team, "writer", others="hide")
    assert not any("[tool" in m["content"] for m in hidden if m["role"] == "user")


def test_writers_give_their_own_threads_back_exactly() -> None:
    for f in COUNTED:  # the real files' round trips: the conformance suite
        for thread in threadlab.read_all(f.path, f.format, strict=False):
            meta = (thread.metadata or {})
            key = f.format.replace("-", "_")
            container = (meta.get(key) or {}).get("container")
            if container in ("sse", "saved-events") or (meta.get(key) or {}).get("of"):
                continue
            with warnings.catch_warnings():
                warnings.simplefilter("error", WriteLoss)
                wire = threadlab.formats.get_format(f.format).from_thread(thread)
            if f.path.suffix == ".json" and container != "list":
                assert json.loads(wire) == json.loads(f.path.read_bytes()), f.id


# --- lenient: whatever the bytes --------------------------------------------------------------


@settings(max_examples=60, deadline=None)
@given(st.lists(st.one_of(st.none(), st.integers(), st.text(max_size=5), st.dictionaries(st.sampled_from(["role", "content", "tool_calls", "type", "name"]),
                st.one_of(st.none(), st.text(max_size=4), st.lists(st.dictionaries(st.sampled_from(["type", "text", "id", "input"]), st.text(max_size=3)), max_size=2)),
                max_size=4)), min_size=1, max_size=6))
def test_any_message_list_reads_without_crashing_and_every_record_is_counted(items: list[Any]) -> None:
    for fmt in ("openai-chat", "anthropic-messages", "openai-responses", "langchain"):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UnreadFilesWarning)  # a list no format reads: nothing, and no raise
            threads = threadlab.read_all(Source(json.dumps(items).encode(), name="x.json"), fmt, strict=False)
        assert all(t.account.records >= 1 for t in threads)


def test_the_sdks_are_not_imported_by_import_or_detection() -> None:
    files = [str(f.path) for f in FILES]
    code = (
        "import sys, threadlab\n"
        "from threadlab.formats import get_format\n"
        "from threadlab.formats.common.source import Source\n"
        f"for p in {files!r}:\n"
        "    [get_format(n).detect(Source(p)) for n in ('openai-chat', 'openai-responses', 'anthropic-messages', 'langchain')]\n"
        "print(sorted(m for m in ('openai', 'anthropic', 'langchain_core') if m in sys.modules))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT)
    assert out.stdout.strip() == "[]"
