"""OpenAI Chat Completions: message lists, requests, responses and their streams → threads (and
a thread back, or one agent's view of it as the ``messages`` a request takes).

Read: a bare ``messages`` list, a request body (``{"model", "messages", ...}``; the fine-tuning
JSON Lines are lines of these), a ``chat.completion`` response, a request + response pair (or
recorded HTTP exchanges, OpenAI Batch lines), a JSON array or JSON Lines of those (a
conversation logged request by request is one thread: see ``provider_wire``), and a
``chat.completion.chunk`` stream (an SSE body, or the chunks saved as JSON). A record is a
message (of a request, or a response's choice), or a stream event. Plain ``{"role",
"content"}`` text lists fit Anthropic's and the Responses API's too; they are read here
(``provider_kinds``)."""

from __future__ import annotations

from threadlab.core.model import Thread
from threadlab.formats.openai_chat.codec import KEY, ChatCodec
from threadlab.formats.openai_chat.reading import ChatReader
from threadlab.formats.openai_chat.stream import is_chunk, read_stream
from threadlab.formats.openai_chat.writing import to_openai_chat, write_chat
from threadlab.formats.provider_read import head_is_saved_events, read_threads, saved_events
from threadlab.formats.provider_sse import Event, first_event_value, is_sse
from threadlab.formats.provider_wire import container_of, sniff
from threadlab.formats.source import Source

NAME = "openai-chat"
_CODEC = ChatCodec()
_MARKERS = (b'"role"', b'"choices"', b'"messages"')


def detect(source: Source) -> bool:
    if source.is_dir:
        return False
    if source.is_object:
        value = source.obj
        return container_of(value, _CODEC) is not None or (isinstance(value, list) and bool(value) and is_chunk(value[0]))
    head = source.head(65536)
    if is_sse(head):
        return is_chunk(first_event_value(head))
    if b'"chat.completion.chunk"' in head[:4096]:
        return head_is_saved_events(source, is_chunk)
    return sniff(source, _CODEC, _MARKERS)


def to_threads(source: Source) -> list[Thread]:
    if not source.is_object and is_sse(source.head(4096)):
        return [read_stream(source)]
    if source.is_object and isinstance(source.obj, list) and source.obj and is_chunk(source.obj[0]):
        return [read_stream(source, [Event(i + 1, None, "", 1, value=v) for i, v in enumerate(source.obj)])]
    if not source.is_object and b'"chat.completion.chunk"' in source.head(4096):
        saved = saved_events(source, is_chunk)
        if saved is not None:
            return [read_stream(source, saved)]
    return read_threads(source, ChatReader, "an OpenAI Chat Completions message list, request or response")


def from_thread(thread: Thread, agent: str | None = None) -> bytes:
    """The container the thread was read from; for other threads (or with ``agent``), the
    ``messages`` list of one agent's view (see ``writing.py``)."""
    return write_chat(thread, agent)


__all__ = ["KEY", "NAME", "detect", "from_thread", "to_openai_chat", "to_threads"]
