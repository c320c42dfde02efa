"""OpenAI Responses: the API's own containers — requests, responses and their streams → threads
(and a thread back).

Read: a request body (``{"model", "input", "instructions", ...}``; ``input`` may be a string), a
``response`` object, a request + response pair (or recorded HTTP exchanges), a JSON array or
JSON Lines of those (requests that repeat the history, or name the previous response by
``previous_response_id``, continue one thread), and a stream (an SSE body of ``response.*``
events, or its events saved as JSON). A record is an item (of a request's ``input`` or a
response's ``output``), or a stream event.

Detection claims exactly those containers. A bare list of items, with no envelope (an Agents SDK
``get_items()`` / ``to_input_list()`` dump, JSON Lines of session items) is the Agents SDK's
(``openai-agents-session``), lists tagged with agency-swarm's ``agent`` / ``callerAgent`` are
agency-swarm's; a bare item list is still read when this format is named (the writer gives any
other thread as one: the ``input`` a ``client.responses.create`` call takes)."""

from __future__ import annotations

from threadlab.core.finite import refuses_non_finite
from threadlab.core.model import Thread
from threadlab.formats.common.providers.reading import StreamFormat
from threadlab.formats.common.source import Source
from threadlab.formats.openai_responses.reading import KEY, ResponsesCodec, ResponsesReader
from threadlab.formats.openai_responses.stream import is_event, read_stream
from threadlab.formats.openai_responses.writing import write_responses

NAME = "openai-responses"
_FORMAT = StreamFormat(ResponsesCodec(), ResponsesReader, read_stream, is_event, b'"response.', (b'"input"', b'"output"', b'"type"'), "an OpenAI Responses item list, request or response")


def detect(source: Source) -> bool:
    return _FORMAT.detect(source) and not _bare_items(source)


def _bare_items(source: Source) -> bool:
    """A list of items with no request, response or stream around it."""
    value = source.obj if source.is_object else source.try_json() if source.head(65536).lstrip()[:1] == b"[" else None
    return isinstance(value, list) and bool(value) and _FORMAT.codec.is_message_list(value)


def to_threads(source: Source) -> list[Thread]:
    return _FORMAT.to_threads(source)


@refuses_non_finite
def from_thread(thread: Thread) -> bytes:
    """The container the thread was read from; other threads as a JSON array of input items."""
    return write_responses(thread)


__all__ = ["KEY", "NAME", "detect", "from_thread", "to_threads"]
