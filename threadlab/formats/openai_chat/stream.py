"""A ``chat.completion.chunk`` stream → the completion it assembles into → a thread.

The stream is an SSE body (``data: {...}`` per chunk, ``data: [DONE]`` at the end) or its
chunks saved as a JSON array / JSON Lines. Every chunk is a record (checked against the
``openai`` package's ``ChatCompletionChunk``); the deltas are put together per choice as the
SDK's own ``ChatCompletionStreamState`` does (content, refusal, the vendors' reasoning
(``reasoning_content``, ``reasoning``), tool calls by index, finish reason; usage from the chunk
that carries it, where the vendor puts it), and the assembled completion is read like a
response body. Chunks with no choices (OpenAI's usage chunk) and ``[DONE]`` are records too."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from threadlab.core.model import Thread
from threadlab.formats.common.providers.reading import read_events
from threadlab.formats.common.providers.sse import Event, events
from threadlab.formats.common.source import Source
from threadlab.formats.openai_chat.codec import choices_of
from threadlab.formats.openai_chat.reading import ChatReader, usage_of

CHUNK = "chat.completion.chunk"
_TOP = ("id", "created", "model", "system_fingerprint", "service_tier")
# the text fields a delta appends to: OpenAI's, and the reasoning of DeepSeek, Qwen, Moonshot,
# xAI (``reasoning_content``) and of Groq, OpenRouter, vLLM (``reasoning``)
_TEXT = ("content", "refusal", "reasoning_content", "reasoning")


def is_chunk(value: Any) -> bool:
    """A ``chat.completion.chunk``, or a compatible vendor's chunk that leaves ``object`` out or
    empty (Moonshot's; Azure's first chunk, of prompt filter results and no choices): an ``id``
    and choices that are all deltas."""
    if not isinstance(value, Mapping):
        return False
    if value.get("object") == CHUNK:
        return True
    choices = value.get("choices")
    if value.get("object") not in (None, "") or "id" not in value or not isinstance(choices, list):
        return False
    return all(isinstance(c, Mapping) and isinstance(c.get("delta"), Mapping) for c in choices) and (bool(choices) or "prompt_filter_results" in value)


class ChunkAssembler:
    def __init__(self) -> None:
        self.top: dict[str, Any] = {}
        self.choices: dict[int, dict[str, Any]] = {}
        self.tools: dict[tuple[int, int], dict[str, Any]] = {}
        self.usage: Any = None
        self.usage_line: int | None = None  # the chunk the usage came from

    def add(self, chunk: Mapping[str, Any], line: int = 0) -> None:
        for key in _TOP:
            if chunk.get(key) is not None:
                self.top.setdefault(key, chunk[key])
        usage = usage_of(chunk)
        if usage is not None:  # the vendors send totals so far: the last one is the stream's
            self.usage, self.usage_line = usage, line or None
        for choice in choices_of(chunk):
            if isinstance(choice, Mapping):
                self._choice(choice)

    def _choice(self, choice: Mapping[str, Any]) -> None:
        index = choice.get("index") if isinstance(choice.get("index"), int) else 0
        slot = self.choices.setdefault(index, {"index": index, "message": {"role": "assistant", "content": None}, "finish_reason": None})
        message = slot["message"]
        delta = choice.get("delta") if isinstance(choice.get("delta"), Mapping) else {}
        for key in _TEXT:
            if isinstance(delta.get(key), str):
                message[key] = (message.get(key) or "") + delta[key]
        calls = delta.get("tool_calls")
        for call in calls if isinstance(calls, list) else ():  # (another value: the chunk's type check names it)
            if isinstance(call, Mapping):
                self._tool(index, call, message)
        if choice.get("finish_reason") is not None:
            slot["finish_reason"] = choice["finish_reason"]

    def _tool(self, index: int, call: Mapping[str, Any], message: dict[str, Any]) -> None:
        """One tool call delta, with the vendors' ways of sending them: by ``index`` (OpenAI),
        without one (matched by id, else the last call), a new id under an index already
        used (a second call), the id and name repeated on every delta, the arguments whole."""
        calls: list[dict[str, Any]] = message.setdefault("tool_calls", [])
        position = call.get("index") if isinstance(call.get("index"), int) and not isinstance(call.get("index"), bool) else None
        call_id = call.get("id") if isinstance(call.get("id"), str) and call.get("id") else None
        if position is not None:
            slot = self.tools.get((index, position))
            if slot is not None and call_id and slot["id"] and call_id != slot["id"]:
                slot = None  # a new call under an index already used
        elif call_id is not None:
            slot = next((c for c in calls if c["id"] == call_id), None)
        else:
            slot = calls[-1] if calls else None
        if slot is None:
            slot = {"id": None, "type": "function", "function": {"name": "", "arguments": ""}}
            calls.append(slot)
            if position is not None:
                self.tools[(index, position)] = slot
        if call_id:
            slot["id"] = call_id
        fn = call.get("function") if isinstance(call.get("function"), Mapping) else {}
        name = fn.get("name")
        if isinstance(name, str) and name != slot["function"]["name"]:  # a name sent again on every delta is one name
            slot["function"]["name"] += name
        if isinstance(fn.get("arguments"), str):
            slot["function"]["arguments"] += fn["arguments"]

    def completion(self) -> dict[str, Any]:
        body = {"id": self.top.get("id"), "object": "chat.completion", **{k: v for k, v in self.top.items() if k != "id"}}
        body["choices"] = [self.choices[i] for i in sorted(self.choices)]
        if self.usage is not None:
            body["usage"] = self.usage
        return body


def read_stream(source: Source, saved: list[Event] | None = None) -> Thread:
    """One thread from an SSE body (or from ``saved``: the chunks saved as JSON)."""
    stem = Path(source.name).stem if source.name and not source.name.startswith("<") else "stream"
    reader = ChatReader(stem, source.name)
    assembler = ChunkAssembler()
    n = read_events(reader, saved if saved is not None else events(source), known=is_chunk, check_name="openai.chat.chunk", add=assembler.add, what=CHUNK)
    if assembler.choices or assembler.top:
        body = assembler.completion()
        got = reader.read_response(body, assembler.usage_line, count=False, checked=False)  # (what it names: the usage's chunk)
        reader.exchanges.append({"response": reader.response_rest(body), "got": got})
    return reader.build("sse" if saved is None else "saved-events", {"events": n})
