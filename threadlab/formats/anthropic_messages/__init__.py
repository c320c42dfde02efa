"""Anthropic Messages: message lists, requests, responses and their streams → threads (and a
thread back, or one agent's view of it as the parameters a request takes).

Read: a bare ``messages`` list (with ``tool_use`` / ``tool_result`` / ``thinking`` blocks: a
plain-text list is read as OpenAI Chat Completions, which it equally is, unless this format is
named), a request body (``{"model", "max_tokens", "system", "messages", ...}``), a ``Message``
response, a request + response pair (or recorded HTTP exchanges), a JSON array or JSON Lines of
those (a conversation logged request by request is one thread: see ``provider_wire``), and a
stream (an SSE body of ``message_start`` ... ``message_stop``, or its events saved as JSON). A
record is a content block (or a message whose content is a string), or a stream event."""

from __future__ import annotations

from threadlab.core.model import Thread
from threadlab.formats.anthropic_messages.codec import KEY, AnthropicCodec
from threadlab.formats.anthropic_messages.reading import AnthropicReader
from threadlab.formats.anthropic_messages.stream import is_event, read_stream
from threadlab.formats.anthropic_messages.writing import to_anthropic_messages, write_anthropic
from threadlab.formats.provider_read import head_is_saved_events, read_threads, saved_events
from threadlab.formats.provider_sse import Event, first_event_value, is_sse
from threadlab.formats.provider_wire import container_of, sniff
from threadlab.formats.source import Source

NAME = "anthropic-messages"
_CODEC = AnthropicCodec()
_MARKERS = (b'"role"', b'"messages"', b'"content"')


def detect(source: Source) -> bool:
    if source.is_dir:
        return False
    if source.is_object:
        value = source.obj
        return container_of(value, _CODEC) is not None or (isinstance(value, list) and bool(value) and is_event(value[0]))
    head = source.head(65536)
    if is_sse(head):
        return is_event(first_event_value(head))
    if b'"message_start"' in head[:4096]:
        return head_is_saved_events(source, is_event)
    return sniff(source, _CODEC, _MARKERS)


def to_threads(source: Source) -> list[Thread]:
    if not source.is_object and is_sse(source.head(4096)):
        return [read_stream(source)]
    if source.is_object and isinstance(source.obj, list) and source.obj and is_event(source.obj[0]):
        return [read_stream(source, [Event(i + 1, None, "", 1, value=v) for i, v in enumerate(source.obj)])]
    if not source.is_object and b'"message_start"' in source.head(4096):
        saved = saved_events(source, is_event)
        if saved is not None:
            return [read_stream(source, saved)]
    return read_threads(source, AnthropicReader, "an Anthropic Messages message list, request or response")


def from_thread(thread: Thread, agent: str | None = None) -> bytes:
    """The container the thread was read from; for other threads (or with ``agent``), the
    ``{"system", "messages"}`` parameters of one agent's view (see ``writing.py``)."""
    return write_anthropic(thread, agent)


__all__ = ["KEY", "NAME", "detect", "from_thread", "to_anthropic_messages", "to_threads"]
