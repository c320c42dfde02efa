"""An OpenAI Responses stream → the responses it holds → a thread.

The stream is an SSE body (``event: response.created`` / ``data: {...}`` ...) or its events
saved as a JSON array / JSON Lines, and may hold several responses one after another (a
capture of an agent run: ``response.created`` ... ``response.completed`` per request). Every
event is a record (checked against the ``openai`` package's ``ResponseStreamEvent``, by its
type). For each response, the last event carrying it (``response.completed``, ``.incomplete``,
``.failed``) gives the response; when it holds no output (a cut stream), the items of its
``response.output_item.done`` events are its output. Every response is read like a response
body: its items, and its usage once."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from threadlab.core.model import Thread
from threadlab.formats.common.providers.reading import read_events
from threadlab.formats.common.providers.sse import Event, events
from threadlab.formats.common.source import Source
from threadlab.formats.openai_responses.reading import ResponsesReader

_ENDS = frozenset({"response.completed", "response.incomplete", "response.failed"})


def is_event(value: Any) -> bool:
    return isinstance(value, Mapping) and isinstance(value.get("type"), str) and value["type"].startswith("response.")


class _Response:
    def __init__(self, line: int) -> None:
        self.line = line
        self.body: dict[str, Any] | None = None
        self.done: dict[int, Any] = {}
        self.added: dict[int, Any] = {}
        self.ended = False  # a response.completed / .incomplete / .failed came
        self.created = False  # its response.created came


class ResponseAssembler:
    """The responses of a stream, one after another: an agent run's capture streams one per
    request. A ``response.created`` after the current one's, or any event after the current
    one ended, starts the next (not a change of id: some servers give every event its own)."""

    def __init__(self) -> None:
        self.responses: list[_Response] = []

    def add(self, event: Mapping[str, Any], line: int = 0) -> None:
        current = self.responses[-1] if self.responses else None
        response = event.get("response")
        if isinstance(response, Mapping):
            created = event.get("type") == "response.created"
            if current is None or current.ended or (created and current.created):
                current = _Response(line)
                self.responses.append(current)
            current.body = dict(response)
            current.created = current.created or created
            current.ended = event.get("type") in _ENDS
            return
        if current is None or current.ended:  # an item before any response event
            current = _Response(line)
            self.responses.append(current)
        index = event.get("output_index")
        if isinstance(index, int) and isinstance(event.get("item"), Mapping):
            (current.done if event["type"] == "response.output_item.done" else current.added)[index] = event["item"]

    def assembled(self) -> list[tuple[dict[str, Any], int, int]]:
        """Each response, the line it started on and how many of its started items never
        finished. A response whose final event holds no output (a cut stream, or a server that
        leaves it out) is given the items of its ``response.output_item.done`` events."""
        out = []
        for r in self.responses:
            if r.body is None and not r.done:
                continue
            body = r.body or {"object": "response", "output": []}
            if not body.get("output") and r.done:
                body = {**body, "output": [r.done[i] for i in sorted(r.done)]}
            out.append((body, r.line, len(set(r.added) - set(r.done))))
        return out


def read_stream(source: Source, saved: list[Event] | None = None) -> Thread:
    stem = Path(source.name).stem if source.name and not source.name.startswith("<") else "stream"
    reader = ResponsesReader(stem, source.name)
    assembler = ResponseAssembler()
    n = read_events(reader, saved if saved is not None else events(source), known=is_event, check_name="openai.responses.event", add=assembler.add, what="Responses stream event")
    for body, line, unfinished in assembler.assembled():
        if unfinished:
            reader.b.problem("truncated", f"the response starting at line {line} ends before {unfinished} output item(s) were done; their deltas are in the events only", line=line)
        got = reader.read_response(body, line, count=False, checked=False)
        reader.exchanges.append({"response": reader.response_rest(body), "got": got})
    return reader.build("sse" if saved is None else "saved-events", {"events": n})
