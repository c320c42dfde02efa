"""OpenAI Agents SDK traces: the SDK's own tracing spans, as a ``TracingProcessor`` writes them.

The SDK traces every run (agent, generation, response, function, handoff, guardrail, custom,
mcp_tools spans under a trace with a workflow name and group id); a processor registered with
``agents.add_trace_processor`` / ``set_trace_processors`` that writes ``trace.export()`` and
``span.export()`` as JSON Lines is how they reach disk (the hosted dashboard has no export).
Not OpenTelemetry (``otel`` reads what OpenInference's instrumentor makes of the same run).

One thread per trace (or per ``group_id``); agent spans are agents, function spans tool calls
and returns, an agent run under a function span a delegation (``system.agent_join``), a handoff
span a ``system.handoff``. Generation spans give the messages (Chat Completions), each once;
response spans (the default Responses-API model) give the Responses items where the processor
wrote the ``response`` (or its ``output``) and ``input`` the SDK keeps on them, else only their
usage, as ``system.model_call`` actions. Calls and returns are keyed by the model's call ids
(``call_...``), found in those messages and items and matched to the function spans by name and
arguments, so they pair with the same run's session items and Responses log; a function span no
model message names (``span.export()`` of a Responses model holds no call id anywhere) keeps
its own span id as the call's id.

A record is a JSON Lines line (a trace or a span object, or a line that is neither). The
writer writes the same JSON Lines: a trace line, then agent, generation, function and handoff
spans, and names what reading it back would not give again."""

from __future__ import annotations

import orjson

from threadlab.core.finite import refuses_non_finite
from threadlab.core.model import Thread
from threadlab.formats.common.json_lines import head_values, past_cut_first
from threadlab.formats.common.source import Source
from threadlab.formats.common.spans.verify import written_and_checked
from threadlab.formats.openai_agents_trace.reading import read_threads
from threadlab.formats.openai_agents_trace.wire import is_span, is_trace
from threadlab.formats.openai_agents_trace.writing import to_trace_records

NAME = "openai-agents-trace"


def detect(source: Source) -> bool:
    if source.is_dir:
        return False
    if source.is_object:
        items = source.obj if isinstance(source.obj, list) else [source.obj]
        return bool(items) and any(is_span(i) for i in items[:50]) and all(is_span(i) or is_trace(i) for i in items[:50])
    head = source.head(8192)
    if b'"span_data"' not in head and b'"trace.span"' not in head and b'"object": "trace"' not in head and b'"object":"trace"' not in head:
        return False
    # the first line that is JSON (one too deep, or torn, costs only itself)
    item = next((v for v in head_values(source, 5) if v is not None), None) if past_cut_first(head).lstrip()[:1] == b"{" else None
    if item is None:
        value = source.try_json()
        item = value[0] if isinstance(value, list) and value else None
    return is_span(item) or is_trace(item)


def to_threads(source: Source) -> list[Thread]:
    return read_threads(source)


@refuses_non_finite
def from_thread(thread: Thread) -> bytes:
    """The thread as the JSON Lines a tracing processor writes; a ``WriteLoss`` names what
    reading it back would not give again."""
    return written_and_checked(NAME, thread, _lines, to_threads)


def _lines(thread: Thread) -> bytes:
    return b"".join(orjson.dumps(record) + b"\n" for record in to_trace_records(thread))


__all__ = ["NAME", "detect", "from_thread", "to_threads", "to_trace_records"]
