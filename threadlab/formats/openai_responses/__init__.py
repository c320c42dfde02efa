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
from threadlab.formats.provider_read import StreamFormat
from threadlab.formats.source import Source

NAME = "openai-responses"
_FORMAT = StreamFormat(ResponsesCodec(), ResponsesReader, read_stream, is_event, b'"response.', (b'"input"', b'"output"', b'"type"'), "an OpenAI Responses item list, request or response")


def detect(source: Source) -> bool:
    return _FORMAT.detect(source)


def to_threads(source: Source) -> list[Thread]:
    return _FORMAT.to_threads(source)


def from_thread(thread: Thread) -> bytes:
    """The container the thread was read from; other threads as a JSON array of input items."""
    return write_responses(thread)


__all__ = ["KEY", "NAME", "detect", "from_thread", "to_threads"]
