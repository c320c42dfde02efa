"""OpenAI Chat Completions: message lists, requests, responses and their streams → threads (and
a thread back, or one agent's view of it as the ``messages`` a request takes).

Read: a bare ``messages`` list, a request body (``{"model", "messages", ...}``; the fine-tuning
JSON Lines are lines of these), a ``chat.completion`` response, a request + response pair (or
recorded HTTP exchanges, OpenAI Batch lines), a JSON array or JSON Lines of those (a
conversation logged request by request is one thread: see ``providers.wire``), and a
``chat.completion.chunk`` stream (an SSE body, or the chunks saved as JSON). A record is a
message (of a request, or a response's choice), or a stream event. Plain ``{"role",
"content"}`` text lists fit Anthropic's and the Responses API's too; they are read here
(``providers.kinds``)."""

from __future__ import annotations

from threadlab.core.finite import refuses_non_finite
from threadlab.core.model import Thread
from threadlab.formats.common.providers.reading import StreamFormat
from threadlab.formats.common.source import Source
from threadlab.formats.openai_chat.codec import KEY, ChatCodec
from threadlab.formats.openai_chat.reading import ChatReader
from threadlab.formats.openai_chat.stream import is_chunk as is_event
from threadlab.formats.openai_chat.stream import read_stream
from threadlab.formats.openai_chat.writing import to_openai_chat, write_chat

NAME = "openai-chat"
_FORMAT = StreamFormat(ChatCodec(), ChatReader, read_stream, is_event, (b'"chat.completion.chunk"', b'"delta"'), (b'"role"', b'"choices"', b'"messages"'), "an OpenAI Chat Completions message list, request or response")


def detect(source: Source) -> bool:
    return _FORMAT.detect(source)


def to_threads(source: Source) -> list[Thread]:
    return _FORMAT.to_threads(source)


@refuses_non_finite
def from_thread(thread: Thread, agent: str | None = None) -> bytes:
    """The container the thread was read from; for other threads (or with ``agent``), the
    ``messages`` list of one agent's view (see ``writing.py``)."""
    return write_chat(thread, agent)


__all__ = ["KEY", "NAME", "detect", "from_thread", "to_openai_chat", "to_threads"]
