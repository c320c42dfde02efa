"""An OpenAI Responses stream → the response it ends with → a thread.

The stream is an SSE body (``event: response.created`` / ``data: {...}`` ...) or its events
saved as a JSON array / JSON Lines. Every event is a record (checked against the ``openai``
package's ``ResponseStreamEvent``). The last event carrying the response
(``response.completed``, ``.incomplete``, ``.failed``) gives the response; when it holds no
output (a cut stream), the items of the ``response.output_item.done`` events are its output."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from threadlab.core.model import Thread
from threadlab.formats.openai_responses.reading import ResponsesReader
from threadlab.formats.provider_read import read_events
from threadlab.formats.provider_sse import Event, events
from threadlab.formats.source import Source


def is_event(value: Any) -> bool:
    return isinstance(value, Mapping) and isinstance(value.get("type"), str) and value["type"].startswith("response.")


class ResponseAssembler:
    def __init__(self) -> None:
        self.response: dict[str, Any] | None = None
        self.done: dict[int, Any] = {}
        self.added: dict[int, Any] = {}

    def add(self, event: Mapping[str, Any]) -> None:
        if isinstance(event.get("response"), Mapping):
            self.response = dict(event["response"])
        index = event.get("output_index")
        if isinstance(index, int) and isinstance(event.get("item"), Mapping):
            (self.done if event["type"] == "response.output_item.done" else self.added)[index] = event["item"]

    def assembled(self) -> tuple[dict[str, Any] | None, int]:
        """The response and how many started items never finished."""
        if self.response is None and not self.done:
            return None, 0
        body = self.response or {"object": "response", "output": []}
        if not body.get("output") and self.done:
            body = {**body, "output": [self.done[i] for i in sorted(self.done)]}
        return body, len(set(self.added) - set(self.done))


def read_stream(source: Source, saved: list[Event] | None = None) -> Thread:
    stem = Path(source.name).stem if source.name and not source.name.startswith("<") else "stream"
    reader = ResponsesReader(stem, source.name)
    assembler = ResponseAssembler()
    n = read_events(reader, saved if saved is not None else events(source), known=is_event, check_name="openai.responses.event", add=assembler.add, what="Responses stream event")
    body, unfinished = assembler.assembled()
    if unfinished:
        reader.b.problem("truncated", f"the stream ends before {unfinished} output item(s) were done; their deltas are in the events only")
    if body is not None:
        got = reader.read_response(body, None, count=False, checked=False)
        reader.exchanges.append({"response": reader.response_rest(body), "got": got})
    return reader.build("sse" if saved is None else "saved-events", {"events": n})
