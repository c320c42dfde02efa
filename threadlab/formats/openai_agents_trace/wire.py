"""The OpenAI Agents SDK's tracing objects, as a ``TracingProcessor`` writes them
(``Trace.export()``, ``Span.export()`` of ``agents.tracing``), → ``spans.model.Span``.

``{"object": "trace", id, workflow_name, group_id, metadata}`` and ``{"object": "trace.span",
id, trace_id, parent_id, started_at, ended_at, span_data: {type, ...}, error}``; ``span_data``
types: agent, generation, response, function, handoff, guardrail, custom (the SDK's task and
turn spans are custom spans with ``data.sdk_span_type``), mcp_tools, transcription, speech.
Generation spans hold Chat Completions messages; response spans (the default Responses-API
model) hold only the response id and usage in ``span.export()``, and the Responses items of the
call where a processor also writes the ``response`` and ``input`` the SDK keeps on the span."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, Literal, TypedDict

from threadlab.formats.common.counts import counts_of
from threadlab.formats.common.spans.messages import chat_message, message_list, responses_item, texts
from threadlab.formats.common.spans.model import AGENT, FOREIGN, HANDOFF, MODEL, STRUCTURE, SYSTEM, TOOL, Msg, Part, Span
from threadlab.formats.common.spans.times import span_times


class TraceRecord(TypedDict, total=False):
    object: Literal["trace"]
    id: str
    workflow_name: str
    group_id: str | None
    metadata: dict[str, Any] | None


class SpanRecord(TypedDict, total=False):
    object: Literal["trace.span"]
    id: str
    trace_id: str
    parent_id: str | None
    started_at: str | None
    ended_at: str | None
    span_data: dict[str, Any]
    error: dict[str, Any] | None


SPAN_TYPES = ("agent", "generation", "response", "function", "handoff", "guardrail", "custom", "mcp_tools", "transcription", "speech",
              "speech_group")


def is_trace(item: Any) -> bool:
    return isinstance(item, Mapping) and item.get("object") == "trace" and isinstance(item.get("id"), str)


def is_span(item: Any) -> bool:
    return isinstance(item, Mapping) and isinstance(item.get("span_data"), Mapping) and isinstance(item.get("trace_id"), str) \
        and item.get("object", "trace.span") == "trace.span"


def trace_span(record: Mapping[str, Any], line: int | None) -> Span:
    """A trace record as the root of its spans (its group id names the conversation)."""
    span = Span(record["id"], record["id"], None, str(record.get("workflow_name") or ""), 0, 0, True, role=STRUCTURE, line=line)  # (a trace has no times)
    span.conversation_id = record.get("group_id") if isinstance(record.get("group_id"), str) else None
    span.title = span.name
    span.thread_meta = {k: record[k] for k in ("id", "workflow_name", "group_id", "metadata") if record.get(k) is not None}
    return span


def sdk_span(record: Mapping[str, Any], line: int | None) -> Span:
    data = record["span_data"]
    problems: list[tuple[str, str]] = []
    start, end, untimed = span_times(record.get("started_at"), record.get("ended_at"), ("started_at", "ended_at"), problems)
    parent = record.get("parent_id") if isinstance(record.get("parent_id"), str) else record["trace_id"]
    span = Span(record["trace_id"], str(record.get("id") or record.get("span_id")), parent, str(data.get("name") or data.get("type")),
                start, end, untimed, line=line, problems=problems)
    error = record.get("error")
    if isinstance(error, Mapping):
        span.error = str(error.get("message") or "error")
    kind = data.get("type")
    if kind == "agent":
        span.role, span.agent_name = AGENT, _str(data.get("name"))
        span.data = {k: data[k] for k in ("tools", "handoffs", "output_type") if data.get(k) is not None} or None
    elif kind == "generation":
        span.role = MODEL
        span.inputs = _messages(span, "input", data.get("input"))
        span.outputs = [_assistant(m) for m in _messages(span, "output", data.get("output"))]
        span.model = _str(data.get("model"))
        span.usage = _usage(data.get("usage"), span.problems)
    elif kind == "response":
        _response(span, data)
    elif kind == "function":
        span.role, span.tool_name, span.args = TOOL, _str(data.get("name")), data.get("input")
        span.result, span.has_result = data.get("output"), data.get("output") is not None
    elif kind == "handoff":
        span.role, span.from_agent, span.to_agent = HANDOFF, _str(data.get("from_agent")), _str(data.get("to_agent"))
    elif kind == "custom" and isinstance(data.get("data"), Mapping) and data["data"].get("sdk_span_type") in ("task", "turn"):
        span.role = STRUCTURE
    elif kind in SPAN_TYPES:
        span.role, span.data = SYSTEM, {"kind": "mcp_list_tools" if kind == "mcp_tools" else kind,
                                        **{k: v for k, v in data.items() if k != "type"}}
    else:
        span.role, span.data = FOREIGN, {"span_data": dict(data)}
    return span


def _response(span: Span, data: Mapping[str, Any]) -> None:
    """A response span: ``span.export()`` keeps only the response id and usage; a processor that
    writes the ``response`` (or its ``output``) and the ``input`` the SDK keeps on the span gives
    the model call's items, whose ``call_id`` keys the calls and their outputs."""
    response = data.get("response") if isinstance(data.get("response"), Mapping) else {}
    span.role = MODEL
    span.usage = _usage(data.get("usage"), span.problems) or _usage(response.get("usage"), span.problems)
    span.model = _str(data.get("model")) or _str(response.get("model"))
    span.system = texts(response.get("instructions"))
    if data.get("input") is not None:
        span.inputs = _messages(span, "input", data["input"], responses_item)
    output = response.get("output") if "output" in response else data.get("output")
    if output is not None:
        key = "response.output" if "output" in response else "output"
        span.outputs = [_assistant(m) for m in message_list(span.problems, f"span_data.{key}", output, responses_item)]
    response_id = data.get("response_id") or response.get("id")
    span.data = {"response_id": response_id} if response_id else None


def _assistant(msg: Any) -> Any:
    """An output message is the model's (some producers leave its role out)."""
    if isinstance(msg, Msg) and msg.role == "user":
        msg.role = "assistant"
    return msg


def _messages(span: Span, key: str, value: Any, read: Callable[[Any], Msg | None] = chat_message) -> list[Any]:
    if isinstance(value, str):  # a bare prompt
        return [Msg("user", [Part("text", text=value)])] if value else []
    return message_list(span.problems, f"span_data.{key}", value, read)


_COUNTS = {"input_tokens": "input", "output_tokens": "output", "total_tokens": "total",
           "input_tokens_details.cached_tokens": "cache_read", "output_tokens_details.reasoning_tokens": "reasoning"}


def _usage(value: Any, problems: list[tuple[str, str]]) -> dict[str, int] | None:
    """The span's token counts (``counts.count_of``: a float that is a whole number is one); a
    field that holds something else is a ``usage`` problem."""
    if not isinstance(value, Mapping):
        return None
    inputs, outputs = value.get("input_tokens_details"), value.get("output_tokens_details")
    figures = {"input_tokens": value.get("input_tokens"), "output_tokens": value.get("output_tokens"), "total_tokens": value.get("total_tokens"),
               "input_tokens_details.cached_tokens": inputs.get("cached_tokens") if isinstance(inputs, Mapping) else None,
               "output_tokens_details.reasoning_tokens": outputs.get("reasoning_tokens") if isinstance(outputs, Mapping) else None}
    phrases: list[str] = []
    found = counts_of(figures, phrases, "usage.")
    problems.extend(("usage", p) for p in phrases)
    counts = {name: found[key] for key, name in _COUNTS.items() if key in found and (found[key] or name in ("input", "output", "total"))}
    return counts or None


def _str(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None
