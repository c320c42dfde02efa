"""Anthropic Messages: message lists, requests, responses and their streams → threads (and a
thread back, or one agent's view of it as the parameters a request takes).

Read: a bare ``messages`` list (with ``tool_use`` / ``tool_result`` / ``thinking`` blocks: a
plain-text list is read as OpenAI Chat Completions, which it equally is, unless this format is
named), a request body (``{"model", "max_tokens", "system", "messages", ...}``), a ``Message``
response, a request + response pair (or recorded HTTP exchanges), a JSON array or JSON Lines of
those (a conversation logged request by request is one thread: see ``providers.wire``), and a
stream (an SSE body of ``message_start`` ... ``message_stop``, or its events saved as JSON). A
record is a content block (or a message whose content is a string), or a stream event."""

from __future__ import annotations

from threadlab.core.finite import refuses_non_finite
from threadlab.core.model import Thread
from threadlab.formats.anthropic_messages.codec import KEY, AnthropicCodec
from threadlab.formats.anthropic_messages.reading import AnthropicReader
from threadlab.formats.anthropic_messages.stream import is_event, read_stream
from threadlab.formats.anthropic_messages.writing import to_anthropic_messages, write_anthropic
from threadlab.formats.common.providers.reading import StreamFormat
from threadlab.formats.common.source import Source

NAME = "anthropic-messages"
_FORMAT = StreamFormat(AnthropicCodec(), AnthropicReader, read_stream, is_event, b'"message_start"', (b'"role"', b'"messages"', b'"content"'), "an Anthropic Messages message list, request or response")


def detect(source: Source) -> bool:
    return _FORMAT.detect(source)


def to_threads(source: Source) -> list[Thread]:
    return _FORMAT.to_threads(source)


@refuses_non_finite
def from_thread(thread: Thread, agent: str | None = None) -> bytes:
    """The container the thread was read from; for other threads (or with ``agent``), the
    ``{"system", "messages"}`` parameters of one agent's view (see ``writing.py``)."""
    return write_anthropic(thread, agent)


__all__ = ["KEY", "NAME", "detect", "from_thread", "to_anthropic_messages", "to_threads"]
