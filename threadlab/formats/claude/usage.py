"""Claude usage → threadlab usage, counted once per API message.

Claude Code writes one line per content block and repeats the message's usage on each; the
stream-json lines carry a ``message_start`` snapshot (``output_tokens: 1``) that only a
``message_delta`` stream event or the transcript on disk makes final. So usage is collected per
``message.id`` first and given to exactly one action of that message."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from threadlab.core.problems import short
from threadlab.formats.claude.wire import Entry, is_blank
from threadlab.formats.common.counts import count_of, counts_of

_STOP_TO_FINISH = {
    "end_turn": "stop",
    "stop_sequence": "stop",
    "tool_use": "tool_call",
    "max_tokens": "length",
    "model_context_window_exceeded": "length",
    "refusal": "content_filter",
}


_INPUTS = ("input_tokens", "cache_read_input_tokens", "cache_creation_input_tokens")


def to_usage(raw: Mapping[str, Any] | None, problems: list[str] | None = None) -> dict[str, int] | None:
    """Anthropic usage (input excludes cache reads/writes) → threadlab usage (input counts every
    input token, cached ones included, as genai-prices expects). A figure missing is 0; one
    that is no count (``counts.count_of``: ``12.0`` is 12, ``1.5`` none) is a phrase in
    ``problems`` and leaves out what it is part of (a cache figure, the input and the total)."""
    if not isinstance(raw, Mapping):
        return None
    phrases = problems if problems is not None else []
    fresh, read, write, output = (raw.get(key) for key in (*_INPUTS, "output_tokens"))
    if _whole(fresh) and _whole(read) and _whole(write) and _whole(output):  # (nearly always: no count to check)
        fresh, read, write, output = fresh or 0, read or 0, write or 0, output or 0
        usage = {"input_tokens": fresh + read + write, "output_tokens": output, "total_tokens": fresh + read + write + output,
                 "cache_read_tokens": read, "cache_write_tokens": write}
        _thinking(raw, usage, phrases)
        return usage
    figures = {key: raw.get(key) for key in (*_INPUTS, "output_tokens")}
    found = counts_of(figures, phrases, "usage.")
    bad = {key for key, value in figures.items() if value is not None and key not in found}
    fresh, read, write, output = (found.get(key, 0) for key in figures)
    usage: dict[str, int] = {}
    if not bad & set(_INPUTS):
        usage["input_tokens"] = fresh + read + write
    if "output_tokens" not in bad:
        usage["output_tokens"] = output
    if not bad:
        usage["total_tokens"] = fresh + read + write + output
    if "cache_read_input_tokens" not in bad:
        usage["cache_read_tokens"] = read
    if "cache_creation_input_tokens" not in bad:
        usage["cache_write_tokens"] = write
    _thinking(raw, usage, phrases)
    return usage


def plain_usage(raw: Any) -> dict[str, int] | None:
    """``to_usage`` for usage of plain int figures and no thinking details (nearly every
    message); None for any other (``Converter._usage`` reads it then, with its problems)."""
    if type(raw) is not dict or raw.get("output_tokens_details") is not None:
        return None
    fresh, read = raw.get("input_tokens"), raw.get("cache_read_input_tokens")
    write, output = raw.get("cache_creation_input_tokens"), raw.get("output_tokens")
    if not ((fresh is None or type(fresh) is int) and (read is None or type(read) is int) and (write is None or type(write) is int)
            and (output is None or type(output) is int)):
        return None
    fresh, read, write, output = fresh or 0, read or 0, write or 0, output or 0
    return {"input_tokens": fresh + read + write, "output_tokens": output, "total_tokens": fresh + read + write + output,
            "cache_read_tokens": read, "cache_write_tokens": write}


def _whole(value: Any) -> bool:
    """An int (not a bool) or nothing: a figure ``counts_of`` would take as it is (missing: 0)."""
    return value is None or type(value) is int


def _thinking(raw: Mapping[str, Any], usage: dict[str, int], phrases: list[str]) -> None:
    details = raw.get("output_tokens_details")
    if isinstance(details, Mapping):
        thinking, why = count_of(details.get("thinking_tokens"))
        if thinking is not None:
            usage["thinking_tokens"] = thinking
        elif why is not None:
            phrases.append(f"usage.output_tokens_details.thinking_tokens: {why}; left out")


def add_usage(total: dict[str, int], raw: Mapping[str, Any] | None) -> None:
    for key, value in (to_usage(raw) or {}).items():
        total[key] = total.get(key, 0) + value


def finish_reason(stop_reason: Any) -> str | None:
    return _STOP_TO_FINISH.get(stop_reason) if isinstance(stop_reason, str) else None


@dataclass(slots=True)
class Response:
    """What is known about one API message across all its lines."""

    usage: dict[str, Any] | None = None
    line: int | None = None  # where the usage was last taken from
    final: bool = False
    stop_reason: str | None = None
    block_types: list[str] = field(default_factory=list)  # of its blocks but whitespace-only text
    blank: bool = False  # it has whitespace-only text blocks

    @property
    def holder(self) -> str:
        """The block type whose first action carries the usage: text if the message has any (a
        whitespace-only text block only when the message has nothing else: it is then its answer)."""
        if "text" in self.block_types:
            return "text"
        return self.block_types[0] if self.block_types else ("text" if self.blank else "")

    def add_blocks(self, content: Any) -> None:
        blocks = content if isinstance(content, list) else [{"type": "text", "text": content if isinstance(content, str) else "-"}]
        types = self.block_types
        for block in blocks:
            if type(block) is dict:  # (``is_blank`` written out: once per block of every assistant line)
                kind = block.get("type", "")
                if kind == "text":
                    text = block.get("text")
                    if isinstance(text, str) and not text.strip():
                        self.blank = True
                        continue
                types.append(kind)
            elif isinstance(block, Mapping):
                if is_blank(block):
                    self.blank = True
                else:
                    types.append(block.get("type", ""))


def line_response(message: Mapping[str, Any]) -> Response | None:
    """An assistant line without a message id: its own usage, counted once for the line (a file
    trimmed of its ids still costs what it says)."""
    usage = message.get("usage")
    if type(usage) is not dict and not isinstance(usage, Mapping):
        return None
    stop = message.get("stop_reason")
    response = Response(usage=dict(usage), final=isinstance(stop, str), stop_reason=stop if isinstance(stop, str) else None)
    response.add_blocks(message.get("content"))
    return response


Report = Callable[[int, str], None]  # (line, message): a schema problem


def collect_responses(entries: Iterable[Entry], report: Report | None = None) -> dict[str, Response]:
    """message.id → Response, from assistant lines and (stream-json) ``message_delta`` events."""
    responses: dict[str, Response] = {}
    started: dict[str | None, str] = {}  # parent_tool_use_id → id of the message being streamed
    for entry in entries:
        kind = entry.type
        if kind == "assistant":
            message = entry.raw.get("message")
            if type(message) is dict or isinstance(message, Mapping):  # (the cheap test first)
                take_message(responses, message, entry.line)
        elif kind == "stream_event":
            _apply_event(entry, responses, started, report)
    return responses


def take_message(responses: dict[str, Response], message: Mapping[str, Any], line: int) -> None:
    """What an assistant line's message (at ``line``) adds to its Response (none without an id)."""
    mid = message.get("id")
    if not isinstance(mid, str):
        return
    response = responses.get(mid)
    if response is None:  # (not ``setdefault``: a Response made for every line)
        response = responses[mid] = Response()
    usage = message.get("usage")
    if (type(usage) is dict or isinstance(usage, Mapping)) and not response.final:
        response.usage = usage  # (read, never changed: ``_apply_event`` makes a new dict)
        response.line = line
    stop = message.get("stop_reason")
    if isinstance(stop, str):
        response.stop_reason = stop
        response.final = True
    response.add_blocks(message.get("content"))


def _apply_event(entry: Entry, responses: dict[str, Response], started: dict[str | None, str], report: Report | None) -> None:
    """``message_delta`` carries the final output tokens and stop reason. The raw line names its
    message (``api_message_id``); the SDK's StreamEvent drops that, so the message of the last
    ``message_start`` in the same (sub)agent stream is meant."""
    raw = entry.raw
    event = raw.get("event")
    if not isinstance(event, Mapping):
        return
    stream = raw.get("parent_tool_use_id")
    if stream is not None and not isinstance(stream, str):
        if report is not None:
            report(entry.line, f"{entry.where()}: parent_tool_use_id is {short(stream)}, not a tool use id; the stream event is not matched to a message")
        return
    if event.get("type") == "message_start" and isinstance(event.get("message"), Mapping):
        mid = event["message"].get("id")
        if isinstance(mid, str):
            started[stream] = mid
        return
    if event.get("type") != "message_delta":
        return
    mid = raw.get("api_message_id") if isinstance(raw.get("api_message_id"), str) else started.get(stream)
    if mid is None:
        return
    response = responses.setdefault(mid, Response())
    usage = dict(response.usage or {})
    if isinstance(event.get("usage"), Mapping):
        usage.update({k: v for k, v in event["usage"].items() if v is not None})
    response.usage = usage
    response.line = entry.line
    delta = event.get("delta")
    if isinstance(delta, Mapping) and isinstance(delta.get("stop_reason"), str):
        response.stop_reason = delta["stop_reason"]
    response.final = True
