"""The provider APIs' own shapes (request bodies, response bodies, stream events) and the item
lists built on them: OpenAI Chat Completions (``messages``, ``choices``, ``chat.completion.chunk``
deltas keyed by choice ``index`` and tool call ``index``), OpenAI Responses (``input`` /
``output`` items, ``response.*`` events whose ``response.completed`` holds the final output),
Anthropic Messages (``content`` blocks; a stream is ``message_start`` … ``message_stop``,
repeated when the API sends several messages), the OpenAI Agents SDK's session items and traces,
agency-swarm's tagged items. A stream is assembled by ``tests/provider_raw.py`` (one reading of
each API's stream for the provider tests and the corpus). A log repeating a conversation in each request counts each message
once (by its content)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import orjson

from tests import provider_raw
from tests.wild.count import Counts, blank, texts_of, whole_or_lines
from tests.wild.rules_agents import responses_item


def documents(path: Path) -> list[Any]:
    """A file's documents: SSE ``data:`` payloads, a JSON array's elements, an object, or lines."""
    data = path.read_bytes().removeprefix(b"\xef\xbb\xbf")
    if data.lstrip()[:5] in (b"data:", b"event") or data.lstrip()[:1] == b":":
        out = []
        for line in data.splitlines():
            if line.startswith(b"data:") and line[5:].strip() and line[5:].strip() != b"[DONE]":
                try:
                    out.append(orjson.loads(line[5:]))
                except orjson.JSONDecodeError:
                    out.append(None)
        return out
    return whole_or_lines(path)


def bodies(doc: Any) -> list[Any]:
    """The request and response bodies of a logged document (the document itself, HTTP
    envelopes ``request`` / ``response`` with or without ``body``, or a nock recording's
    ``{scope, method, path, body, status, response}``: the request body is ``body``)."""
    if not isinstance(doc, dict):
        return []
    if {"scope", "method", "body", "response"} <= doc.keys():
        return [doc["body"], doc["response"]]
    out = []
    for key in ("request", "response"):
        part = doc.get(key)
        if isinstance(part, dict):
            out.append(part.get("body") if isinstance(part.get("body"), dict) else part)
    return out or [doc]


class Seen:
    """Items already counted, by id (a log's requests repeat the items so far)."""

    def __init__(self) -> None:
        self.keys: set[bytes] = set()

    def first(self, *key: Any) -> bool:
        k = orjson.dumps(key, option=orjson.OPT_SORT_KEYS)
        if k in self.keys:
            return False
        self.keys.add(k)
        return True


class Conversation:
    """The conversation so far of a log of requests and responses: a request that repeats it
    (the usual stateless client) adds only its new messages; one that does not starts anew."""

    def __init__(self) -> None:
        self.keys: list[bytes] = []

    def new(self, messages: list[Any], key: Any) -> list[Any]:
        keys = [orjson.dumps(key(m), option=orjson.OPT_SORT_KEYS) for m in messages]
        if keys[: len(self.keys)] == self.keys:
            fresh = messages[len(self.keys):]
        else:
            fresh = messages
        self.keys = keys
        return fresh

    def answer(self, message: Any, key: Any) -> None:
        self.keys.append(orjson.dumps(key(message), option=orjson.OPT_SORT_KEYS))


def _requests(docs: list[Any], conv: Conversation, key: Any) -> Iterator[tuple[dict[str, Any], list[Any]]]:
    """Each request or response body of a log, with the messages of its request the conversation
    so far does not already hold."""
    for doc in docs:
        for body in bodies(doc):
            if isinstance(body, dict):
                yield body, conv.new(list(body.get("messages") or []), key) if "messages" in body else []


# --- OpenAI Chat Completions ----------------------------------------------------------------


def _chat_key(m: Any) -> Any:
    if not isinstance(m, dict):
        return m
    return m.get("role"), "".join(texts_of(m.get("content"))), [t.get("id") for t in m.get("tool_calls") or [] if isinstance(t, dict)], m.get("tool_call_id")


def _chat_message(m: Any, c: Counts) -> None:
    if not isinstance(m, dict):
        return
    role, text, calls, _ = _chat_key(m)
    if role == "user" and not blank(text):
        c.human_prompts += 1
    elif role == "assistant":
        c.assistant_texts += not blank(text) or not blank(m.get("refusal"))
        c.tool_calls += len(calls)
    elif role in ("tool", "function"):
        c.tool_returns += 1


def _chat_usage(u: Any, c: Counts) -> None:
    if isinstance(u, dict):
        details = u.get("prompt_tokens_details") if isinstance(u.get("prompt_tokens_details"), dict) else {}
        c.add_tokens(u.get("prompt_tokens"), u.get("completion_tokens"), details.get("cached_tokens"))


def openai_chat(path: Path) -> Counts:
    c, conv = Counts(), Conversation()
    docs = documents(path)
    chunks = [d for d in docs if isinstance(d, dict) and (d.get("object") == "chat.completion.chunk" or ("choices" in d and any(isinstance(ch, dict) and "delta" in ch for ch in d["choices"] or [])))]
    if chunks:
        text: dict[Any, str] = {}
        calls: set[tuple[Any, Any]] = set()
        usage = None
        for chunk in chunks:
            usage = provider_raw.chunk_usage(chunk) or usage
            for ch in chunk.get("choices") or []:
                delta = ch.get("delta") if isinstance(ch, dict) else None
                if not isinstance(delta, dict):
                    continue
                for key in ("content", "refusal"):
                    if isinstance(delta.get(key), str):
                        text[ch.get("index")] = text.get(ch.get("index"), "") + delta[key]
                for t in delta.get("tool_calls") or []:
                    calls.add((ch.get("index"), t.get("index") if isinstance(t, dict) else None))
        c.assistant_texts = sum(not blank(t) for t in text.values())
        c.tool_calls = len(calls)
        _chat_usage(usage, c)
        return c
    if docs and isinstance(docs[0], dict) and "role" in docs[0]:  # a bare message list
        docs = [{"messages": docs}]
    for body, fresh in _requests(docs, conv, _chat_key):
        for m in fresh:
            _chat_message(m, c)
        for ch in body.get("choices") or []:
            message = ch.get("message") if isinstance(ch, dict) else None
            _chat_message(message, c)
            conv.answer(message, _chat_key)
        if "choices" in body:
            _chat_usage(body.get("usage"), c)
    return c


# --- OpenAI Responses -----------------------------------------------------------------------


def _responses_usage(u: Any, c: Counts) -> None:
    if isinstance(u, dict):
        details = u.get("input_tokens_details") if isinstance(u.get("input_tokens_details"), dict) else {}
        c.add_tokens(u.get("input_tokens"), u.get("output_tokens"), details.get("cached_tokens"))


def _items(items: Any, c: Counts, seen: Seen) -> None:
    for item in items or []:
        if isinstance(item, dict) and seen.first(item.get("type"), item.get("id") or item.get("call_id") or item):
            responses_item(item, c)


def _input_items(value: Any) -> list[Any]:
    """A request's ``input``: a string is one user message."""
    return [{"type": "message", "role": "user", "content": value}] if isinstance(value, str) else list(value or [])


def _responses_key(item: Any) -> Any:
    """An item as a later request repeats it: a message by role and text (a client may drop its
    ``id`` and ``status``), a call or output by its ``call_id``, anything else by its ``id``."""
    if not isinstance(item, dict):
        return item
    kind = item.get("type", "message" if "role" in item else None)
    if kind == "message":
        return kind, item.get("role"), "".join(texts_of(item.get("content")))
    return kind, item.get("call_id") or item.get("id") or item


def openai_responses(path: Path) -> Counts:
    c, seen = Counts(), Seen()
    docs = documents(path)
    events = [d for d in docs if isinstance(d, dict) and str(d.get("type", "")).startswith("response.")]
    if events:
        for response in provider_raw.responses_of_stream(events):
            _items(response["output"], c, seen)
            _responses_usage(response["usage"], c)
        return c
    if docs and isinstance(docs[0], dict) and "object" not in docs[0] and not {"input", "request", "response"} & docs[0].keys():
        docs = [{"input": docs}]  # a bare item list
    # a log of requests: as for Chat Completions, a request that repeats the conversation so far
    # (its input, then the answers) adds only its new items; one that does not (a new
    # conversation, or one continuing a stored response by ``previous_response_id``, whose input
    # holds only new items) counts all of its own
    conv = Conversation()
    for doc in docs:
        for body in bodies(doc):
            if not isinstance(body, dict):
                continue
            if "input" in body:
                for item in conv.new(_input_items(body["input"]), _responses_key):
                    responses_item(item, c)
            if body.get("object") == "response":
                for item in body.get("output") or []:
                    responses_item(item, c)
                    conv.answer(item, _responses_key)
                _responses_usage(body.get("usage"), c)
    return c


# --- Anthropic Messages ---------------------------------------------------------------------

ANTHROPIC_CALLS = ("tool_use", "server_tool_use", "mcp_tool_use")


def _anthropic_blocks(role: Any, content: Any, c: Counts) -> None:
    if isinstance(content, str):
        content = [{"type": "text", "text": content}]
    texts = []
    for b in content if isinstance(content, list) else []:
        if not isinstance(b, dict):
            continue
        kind = b.get("type")
        if kind == "text":
            texts.append(b.get("text"))
        elif kind in ANTHROPIC_CALLS:
            c.tool_calls += 1
        elif kind == "tool_result" or str(kind).endswith("_tool_result"):
            c.tool_returns += 1
            c.tool_errors += b.get("is_error") is True
    if role == "user":
        c.human_prompts += any(not blank(t) for t in texts)
    else:
        c.assistant_texts += sum(not blank(t) for t in texts)


def _anthropic_key(m: Any) -> Any:
    """A message as a request repeats it: its role and content blocks' texts and ids."""
    if not isinstance(m, dict):
        return m
    content = m.get("content")
    blocks = [{"type": "text", "text": content}] if isinstance(content, str) else content if isinstance(content, list) else []
    return m.get("role"), [(b.get("type"), b.get("text"), b.get("id"), b.get("tool_use_id")) for b in blocks if isinstance(b, dict)]


def _anthropic_usage(u: Any, c: Counts) -> None:
    if isinstance(u, dict):
        read, write = u.get("cache_read_input_tokens") or 0, u.get("cache_creation_input_tokens") or 0
        c.add_tokens((u.get("input_tokens") or 0) + read + write, u.get("output_tokens"), read, write)


def anthropic_messages(path: Path) -> Counts:
    c, conv = Counts(), Conversation()
    docs = documents(path)
    events = [d for d in docs if isinstance(d, dict) and d.get("type") in provider_raw.ANTHROPIC_EVENTS]
    if events:
        for message in provider_raw.anthropic_messages(events):
            _anthropic_blocks("assistant", message["blocks"], c)
            _anthropic_usage(message["usage"], c)
        return c
    if docs and isinstance(docs[0], dict) and "role" in docs[0] and "type" not in docs[0]:
        docs = [{"messages": docs}]
    for body, fresh in _requests(docs, conv, _anthropic_key):
        for m in fresh:
            if isinstance(m, dict):
                _anthropic_blocks(m.get("role"), m.get("content"), c)
        if body.get("type") == "message":
            _anthropic_blocks("assistant", body.get("content"), c)
            _anthropic_usage(body.get("usage"), c)
            conv.answer(body, _anthropic_key)
    return c


# --- item lists: OpenAI Agents SDK sessions, agency-swarm -------------------------------------


def _item_list(path: Path) -> list[Any]:
    items = whole_or_lines(path)
    if len(items) == 1 and isinstance(items[0], dict):
        for key in ("new_messages", "chat_history", "messages", "items"):
            if isinstance(items[0].get(key), list):
                return items[0][key]
    return items


def item_list(path: Path) -> Counts:
    """Responses input items, as ``session.get_items()`` / ``to_input_list()`` give them."""
    if path.read_bytes()[:16] == b"SQLite format 3\x00":
        return Counts(None, None, None, None, None, None)
    c = Counts()
    for item in _item_list(path):
        responses_item(item, c)
    return c


def agency_swarm(path: Path) -> Counts:
    """agency-swarm saves the same items, each tagged with its ``agent`` and ``callerAgent``
    (``MessageFormatter.add_agency_metadata``): a user-role message whose ``callerAgent`` names an
    agent is that agent's ``send_message`` to the recipient, no person's prompt (nor the
    harness's), so it is left out of both."""
    c = Counts()
    for item in _item_list(path):
        caller = item.get("callerAgent") if isinstance(item, dict) else None
        if not (item.get("role") == "user" and isinstance(caller, str) and caller):
            responses_item(item, c)
    return c


def openai_agents_trace(path: Path) -> Counts:
    """Function spans are a tool's call and return (an ``error`` makes it an error); generation
    and response spans' usage are the tokens."""
    c = Counts(human_prompts=None, harness_turns=None, assistant_texts=None)
    for span in whole_or_lines(path):
        data = span.get("span_data") if isinstance(span, dict) else None
        if not isinstance(data, dict):
            continue
        if data.get("type") == "function":
            c.tool_calls += 1
            c.tool_returns += 1
            c.tool_errors += span.get("error") is not None
        elif data.get("type") == "generation" and isinstance(data.get("usage"), dict):
            c.add_tokens(data["usage"].get("input_tokens"), data["usage"].get("output_tokens"))
    return c
