"""A ``chat.completion.chunk`` stream → the completion it assembles into → a thread.

The stream is an SSE body (``data: {...}`` per chunk, ``data: [DONE]`` at the end) or its
chunks saved as a JSON array / JSON Lines. Every chunk is a record (checked against the
``openai`` package's ``ChatCompletionChunk``); the deltas are put together per choice as the
SDK's own ``ChatCompletionStreamState`` does (content, refusal, ``reasoning_content``, tool
calls by index, finish reason; usage from the chunk that carries it), and the assembled
completion is read like a response body."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from threadlab.core.model import Thread
from threadlab.formats.openai_chat.reading import ChatReader
from threadlab.formats.provider_read import read_events
from threadlab.formats.provider_sse import Event, events
from threadlab.formats.source import Source

CHUNK = "chat.completion.chunk"
_TOP = ("id", "created", "model", "system_fingerprint", "service_tier")


def is_chunk(value: Any) -> bool:
    return isinstance(value, Mapping) and value.get("object") == CHUNK


class ChunkAssembler:
    def __init__(self) -> None:
        self.top: dict[str, Any] = {}
        self.choices: dict[int, dict[str, Any]] = {}
        self.tools: dict[tuple[int, int], dict[str, Any]] = {}
        self.usage: Any = None

    def add(self, chunk: Mapping[str, Any]) -> None:
        for key in _TOP:
            if chunk.get(key) is not None:
                self.top.setdefault(key, chunk[key])
        if chunk.get("usage") is not None:
            self.usage = chunk["usage"]
        for choice in chunk.get("choices") or []:
            if isinstance(choice, Mapping):
                self._choice(choice)

    def _choice(self, choice: Mapping[str, Any]) -> None:
        index = choice.get("index") if isinstance(choice.get("index"), int) else 0
        slot = self.choices.setdefault(index, {"index": index, "message": {"role": "assistant", "content": None}, "finish_reason": None})
        message = slot["message"]
        delta = choice.get("delta") if isinstance(choice.get("delta"), Mapping) else {}
        for key in ("content", "refusal", "reasoning_content"):
            if isinstance(delta.get(key), str):
                message[key] = (message.get(key) or "") + delta[key]
        for call in delta.get("tool_calls") or []:
            if isinstance(call, Mapping):
                self._tool(index, call, message)
        if choice.get("finish_reason") is not None:
            slot["finish_reason"] = choice["finish_reason"]

    def _tool(self, index: int, call: Mapping[str, Any], message: dict[str, Any]) -> None:
        key = (index, call.get("index") if isinstance(call.get("index"), int) else len(message.get("tool_calls") or []))
        slot = self.tools.get(key)
        if slot is None:
            slot = self.tools[key] = {"id": None, "type": "function", "function": {"name": "", "arguments": ""}}
            message.setdefault("tool_calls", []).append(slot)
        if call.get("id"):
            slot["id"] = call["id"]
        fn = call.get("function") if isinstance(call.get("function"), Mapping) else {}
        for part in ("name", "arguments"):
            if isinstance(fn.get(part), str):
                slot["function"][part] += fn[part]

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
        got = reader.read_response(body, None, count=False, checked=False)
        reader.exchanges.append({"response": reader.response_rest(body), "got": got})
    return reader.build("sse" if saved is None else "saved-events", {"events": n})
