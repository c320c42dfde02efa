"""OpenAI Responses: input/output item lists, requests, responses and their streams → threads
(and a thread back).

Read: a bare list of input items (``function_call``, ``reasoning``, messages with
``input_text`` parts ...: a plain ``{"role", "content"}`` text list is read as Chat
Completions unless this format is named), a request body (``{"model", "input",
"instructions", ...}``; ``input`` may be a string), a ``response`` object, a request + response
pair (or recorded HTTP exchanges), a JSON array or JSON Lines of those (requests that repeat the
history, or name the previous response by ``previous_response_id``, continue one thread), and a
stream (an SSE body of ``response.*`` events, or its events saved as JSON). JSON Lines of bare
items are Agents SDK sessions (``openai-agents-session``); lists tagged with agency-swarm's
``agent`` / ``callerAgent`` are agency-swarm's. A record is an item, or a stream event."""

from __future__ import annotations

from threadlab.core.model import Thread
from threadlab.formats.openai_responses.reading import KEY, ResponsesCodec, ResponsesReader
from threadlab.formats.openai_responses.stream import is_event, read_stream
from threadlab.formats.openai_responses.writing import write_responses
from threadlab.formats.provider_read import head_is_saved_events, read_threads, saved_events
from threadlab.formats.provider_sse import Event, first_event_value, is_sse
from threadlab.formats.provider_wire import container_of, sniff
from threadlab.formats.source import Source

NAME = "openai-responses"
_CODEC = ResponsesCodec()
_MARKERS = (b'"input"', b'"output"', b'"type"')


def detect(source: Source) -> bool:
    if source.is_dir:
        return False
    if source.is_object:
        value = source.obj
        return container_of(value, _CODEC) is not None or (isinstance(value, list) and bool(value) and is_event(value[0]))
    head = source.head(65536)
    if is_sse(head):
        return is_event(first_event_value(head))
    if b'"response.' in head[:4096] and head_is_saved_events(source, is_event):
        return True
    return sniff(source, _CODEC, _MARKERS)


def to_threads(source: Source) -> list[Thread]:
    if not source.is_object and is_sse(source.head(4096)):
        return [read_stream(source)]
    if source.is_object and isinstance(source.obj, list) and source.obj and is_event(source.obj[0]):
        return [read_stream(source, [Event(i + 1, None, "", 1, value=v) for i, v in enumerate(source.obj)])]
    if not source.is_object and b'"response.' in source.head(4096):
        saved = saved_events(source, is_event)
        if saved is not None:
            return [read_stream(source, saved)]
    return read_threads(source, ResponsesReader, "an OpenAI Responses item list, request or response")


def from_thread(thread: Thread) -> bytes:
    """The container the thread was read from; other threads as a JSON array of input items."""
    return write_responses(thread)


__all__ = ["KEY", "NAME", "detect", "from_thread", "to_threads"]
