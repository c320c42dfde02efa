"""What a span means, by the attribute conventions its producer followed → ``spans.model.Span``.

- GenAI semantic conventions (``opentelemetry-semantic-conventions``' incubating ``gen_ai``
  names): ``gen_ai.operation.name`` = invoke_agent / chat / text_completion / generate_content /
  execute_tool / embeddings / retrieval ...; messages in the ≥ 1.37 attributes
  (``gen_ai.input.messages``, ``gen_ai.output.messages``, ``gen_ai.system_instructions``) or the
  ≤ 1.36 per-message events (``gen_ai.user.message`` ... ``gen_ai.choice``), as span events or as
  pydantic-ai's ``events`` attribute (its instrumentation version 1);
- OpenInference (``openinference-semantic-conventions``): ``openinference.span.kind`` = LLM /
  AGENT / TOOL / CHAIN / RETRIEVER ..., messages flattened in ``llm.input_messages.N.*``;
- pydantic-ai's own additions (Logfire shows them): the run's history on the agent span
  (``pydantic_ai.all_messages``, ``all_messages_events`` in version 1), tool arguments and
  results in ``tool_arguments`` / ``tool_response`` (version 1);
- the AI SDK's own ``ai.*`` attributes, named by ``ai.operationId`` (``ai_sdk.py``).

A span may follow several (OpenInference instrumentors can add ``gen_ai.*``, openinference-vercel
adds OpenInference to the AI SDK's spans): GenAI is read first, then OpenInference, then ``ai.*``."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from openinference.semconv.trace import OpenInferenceSpanKindValues, SpanAttributes, ToolCallAttributes
from opentelemetry.semconv._incubating.attributes import gen_ai_attributes as G

from threadlab.formats.common.counts import count_of
from threadlab.formats.common.spans.messages import (
    event_message,
    genai_message,
    message_list,
    openinference_message,
    texts,
    undot,
    unflatten,
)
from threadlab.formats.common.spans.model import (
    AGENT,
    FOREIGN,
    HANDOFF,
    MODEL,
    STRUCTURE,
    SYSTEM,
    TOOL,
    Msg,
    Part,
    Span,
    json_value,
)
from threadlab.formats.common.spans.repeats import Repeats
from threadlab.formats.otel import ai_sdk
from threadlab.formats.otel.wire import RawSpan

Ops = G.GenAiOperationNameValues
_MODEL_OPS = {Ops.CHAT.value, Ops.TEXT_COMPLETION.value, Ops.GENERATE_CONTENT.value}
_STRUCTURE_OPS = {Ops.INVOKE_WORKFLOW.value}
# the names compared on every span, as plain strings (an enum member's ``value`` is a Python call)
_INVOKE_AGENT, _EXECUTE_TOOL = Ops.INVOKE_AGENT.value, Ops.EXECUTE_TOOL.value
_KIND_AGENT, _KIND_LLM, _KIND_TOOL, _KIND_CHAIN = (k.value for k in (OpenInferenceSpanKindValues.AGENT, OpenInferenceSpanKindValues.LLM,
                                                                     OpenInferenceSpanKindValues.TOOL, OpenInferenceSpanKindValues.CHAIN))
OI = SpanAttributes
_EVENT_NAMES = ("gen_ai.system.message", "gen_ai.user.message", "gen_ai.assistant.message", "gen_ai.tool.message", "gen_ai.choice")
# pydantic-ai's own attribute names (no semantic-conventions package names them)
PAI_ALL_MESSAGES = "pydantic_ai.all_messages"
PAI_ALL_MESSAGES_EVENTS = "all_messages_events"
PAI_EVENTS = "events"
PAI_TOOL_ARGUMENTS = "tool_arguments"
PAI_TOOL_RESPONSE = "tool_response"
PAI_AGENT_NAME = "agent_name"
LOGFIRE_JSON_SCHEMA = "logfire.json_schema"
SYSTEM_INSTRUCTIONS_DOTTED = "gen_ai.system.instructions"  # written by some producers for gen_ai.system_instructions
_USAGE_KEYS = tuple((name, keys + dict(ai_sdk.USAGE_KEYS).get(name, ())) for name, keys in (  # the AI SDK's ai.usage.* last
    ("input", (G.GEN_AI_USAGE_INPUT_TOKENS, G.GEN_AI_USAGE_PROMPT_TOKENS, OI.LLM_TOKEN_COUNT_PROMPT)),
    ("output", (G.GEN_AI_USAGE_OUTPUT_TOKENS, G.GEN_AI_USAGE_COMPLETION_TOKENS, OI.LLM_TOKEN_COUNT_COMPLETION)),
    ("total", (OI.LLM_TOKEN_COUNT_TOTAL,)),
    ("cache_read", (G.GEN_AI_USAGE_CACHE_READ_INPUT_TOKENS, OI.LLM_TOKEN_COUNT_PROMPT_DETAILS_CACHE_READ)),
    ("cache_write", (G.GEN_AI_USAGE_CACHE_CREATION_INPUT_TOKENS, OI.LLM_TOKEN_COUNT_PROMPT_DETAILS_CACHE_WRITE)),
    ("reasoning", (G.GEN_AI_USAGE_REASONING_OUTPUT_TOKENS, OI.LLM_TOKEN_COUNT_COMPLETION_DETAILS_REASONING)),
))
_SYSTEM_KEEP = (G.GEN_AI_REQUEST_MODEL, G.GEN_AI_RETRIEVAL_QUERY_TEXT, OI.INPUT_VALUE, OI.OUTPUT_VALUE, G.GEN_AI_AGENT_NAME)


def interpret(raw: RawSpan, repeats: Repeats | None = None) -> Span:
    """The span's place in the conversation, with what it says (see the module doc). ``repeats``:
    the file's histories read so far (``spans.repeats``: the same values and messages, each
    repeated history parsed once)."""
    a = raw.attributes
    span = Span(raw.trace_id, raw.span_id, raw.parent_id, raw.name, raw.start, raw.end, raw.untimed, error=raw.error, line=raw.line)
    span.problems.extend(raw.problems)
    span.conversation_id = _str(a.get(G.GEN_AI_CONVERSATION_ID)) or _str(a.get(OI.SESSION_ID))
    span.agent_name = _str(a.get(G.GEN_AI_AGENT_NAME)) or _str(a.get(PAI_AGENT_NAME)) or _str(a.get(OI.AGENT_NAME))
    op = a.get(G.GEN_AI_OPERATION_NAME)
    op = op if isinstance(op, str) or op is None else str(op)  # a list or object there names no operation we know
    kind = a.get(OI.OPENINFERENCE_SPAN_KIND)
    kind = kind.upper() if isinstance(kind, str) else None
    if op == _INVOKE_AGENT or (op is None and raw.name == "agent run" and PAI_AGENT_NAME in a):
        _agent(span, raw, repeats)
    elif op in _MODEL_OPS or (op is None and _has_genai_messages(raw)):
        _genai_model(span, raw, repeats)
    elif op == _EXECUTE_TOOL:
        _tool(span, raw)
    elif op in _STRUCTURE_OPS:
        span.role = STRUCTURE
    elif isinstance(op, str):
        span.role, span.data = SYSTEM, {"kind": op, **_kept(a)}
    elif kind == _KIND_AGENT:
        _agent(span, raw, repeats)
        span.agent_name = span.agent_name or _str(a.get(OI.GRAPH_NODE_ID)) or raw.name
    elif kind == _KIND_LLM:
        _openinference_model(span, raw)
    elif kind == _KIND_TOOL:
        _openinference_tool(span, raw)
    elif kind == _KIND_CHAIN:
        span.role = STRUCTURE
    elif kind is not None:
        span.role, span.data = SYSTEM, {"kind": kind.lower(), **_kept(a)}
    elif ai_sdk.is_ai_sdk(a):
        ai_sdk.interpret(span, raw, _usage)
    elif raw.scope == "pydantic-ai" or raw.name.startswith("running tool"):
        span.role = STRUCTURE  # pydantic-ai's "running tools" wrapper
    else:
        span.role = FOREIGN
        span.data = {"span_id": raw.span_id, "attributes": dict(a)} if a else {"span_id": raw.span_id}
    return span


def _agent(span: Span, raw: RawSpan, repeats: Repeats | None = None) -> None:
    a = raw.attributes
    span.role = AGENT
    span.agent_name = span.agent_name or raw.name.removeprefix(_INVOKE_AGENT + " ") or None
    history = a.get(PAI_ALL_MESSAGES)
    if history is not None:
        span.history = _history(span, PAI_ALL_MESSAGES, history, repeats)
    elif a.get(PAI_ALL_MESSAGES_EVENTS) is not None:
        span.history = [m for _, m in _event_list(span, PAI_ALL_MESSAGES_EVENTS, json_value(a[PAI_ALL_MESSAGES_EVENTS]))]
    description = a.get(G.GEN_AI_AGENT_DESCRIPTION)
    if isinstance(description, str):
        span.data = {"description": description}


def _genai_model(span: Span, raw: RawSpan, repeats: Repeats | None = None) -> None:
    a = raw.attributes
    span.role = MODEL
    if G.GEN_AI_INPUT_MESSAGES in a or G.GEN_AI_OUTPUT_MESSAGES in a:
        span.inputs = _history(span, G.GEN_AI_INPUT_MESSAGES, a.get(G.GEN_AI_INPUT_MESSAGES), repeats)
        span.outputs = _messages(span, G.GEN_AI_OUTPUT_MESSAGES, json_value(a.get(G.GEN_AI_OUTPUT_MESSAGES)), genai_message)
    elif a.get(PAI_EVENTS) is not None:
        events = _event_list(span, PAI_EVENTS, json_value(a[PAI_EVENTS]))
        span.inputs = [m for name, m in events if name != "gen_ai.choice"]
        span.outputs = [m for name, m in events if name == "gen_ai.choice"]
    else:
        span.inputs, span.outputs = [], []
        for name, _, attrs in raw.events:
            if name in _EVENT_NAMES:
                body = _event_body(attrs)
                msg = event_message(name, body)
                if msg is None:
                    span.problems.append(("schema", f"event {name} holds no message"))
                elif name == "gen_ai.choice":
                    span.outputs.append(msg)
                else:
                    span.inputs.append(msg)
    span.system = texts(json_value(a.get(G.GEN_AI_SYSTEM_INSTRUCTIONS, a.get(SYSTEM_INSTRUCTIONS_DOTTED))))
    span.usage = _usage(a, span.problems)
    span.model = _str(a.get(G.GEN_AI_RESPONSE_MODEL)) or _str(a.get(G.GEN_AI_REQUEST_MODEL))
    span.provider = _str(a.get(G.GEN_AI_PROVIDER_NAME)) or _str(a.get(G.GEN_AI_SYSTEM))
    reasons = a.get(G.GEN_AI_RESPONSE_FINISH_REASONS)
    span.finish_reasons = [r for r in reasons if isinstance(r, str)] if isinstance(reasons, list) else None


def _openinference_model(span: Span, raw: RawSpan) -> None:
    a = raw.attributes
    span.role = MODEL
    span.inputs = [m for m in (openinference_message(i) for i in unflatten(a, OI.LLM_INPUT_MESSAGES) or []) if m is not None]
    span.outputs = [m for m in (openinference_message(i) for i in unflatten(a, OI.LLM_OUTPUT_MESSAGES) or []) if m is not None]
    if not span.inputs and not span.outputs:  # a completions call: prompts and choices
        span.inputs = [Msg("user", [Part("text", text=t)]) for t in _texts_at(a, OI.LLM_PROMPTS, "prompt", "text")]
        span.outputs = [Msg("assistant", [Part("text", text=t)]) for t in _texts_at(a, OI.LLM_CHOICES, "completion", "text")]
    output = a.get(OI.OUTPUT_VALUE)
    if not span.outputs and isinstance(output, str) and output and a.get(OI.OUTPUT_MIME_TYPE, "text/plain") == "text/plain":
        span.outputs = [Msg("assistant", [Part("text", text=output)])]  # only the output's text was recorded
    span.usage = _usage(a, span.problems)
    span.model = _str(a.get(OI.LLM_MODEL_NAME))
    span.provider = _str(a.get(OI.LLM_PROVIDER)) or _str(a.get(OI.LLM_SYSTEM))


def _tool(span: Span, raw: RawSpan) -> None:
    a = raw.attributes
    span.role = TOOL
    span.tool_name = _str(a.get(G.GEN_AI_TOOL_NAME)) or raw.name.removeprefix(_EXECUTE_TOOL + " ")
    span.call_id = _str(a.get(G.GEN_AI_TOOL_CALL_ID))
    span.args = a.get(G.GEN_AI_TOOL_CALL_ARGUMENTS, a.get(PAI_TOOL_ARGUMENTS))
    for key in (G.GEN_AI_TOOL_CALL_RESULT, PAI_TOOL_RESPONSE):
        if key in a:
            span.result, span.has_result = _typed(a, key), True
            break


def _openinference_tool(span: Span, raw: RawSpan) -> None:
    a = raw.attributes
    if raw.name.startswith("handoff to "):  # openinference-instrumentation-openai-agents' handoff span
        span.role = HANDOFF
        span.from_agent = _str(a.get(OI.INPUT_VALUE))
        span.to_agent = _str(a.get(OI.OUTPUT_VALUE)) or raw.name.removeprefix("handoff to ")
        return
    span.role = TOOL
    span.tool_name = _str(a.get(OI.TOOL_NAME)) or raw.name
    span.call_id = _str(a.get(ToolCallAttributes.TOOL_CALL_ID)) or _str(a.get(OI.TOOL_ID))
    span.args = a.get(OI.INPUT_VALUE)
    if OI.OUTPUT_VALUE in a:
        span.result, span.has_result = a[OI.OUTPUT_VALUE], True


def _texts_at(a: Mapping[str, Any], prefix: str, *path: str) -> list[str]:
    out = []
    for item in unflatten(a, prefix) or []:
        node = undot(item)
        for step in path:
            node = node.get(step) if isinstance(node, Mapping) else None
        if isinstance(node, str):
            out.append(node)
    return out


def _has_genai_messages(raw: RawSpan) -> bool:
    a = raw.attributes
    return G.GEN_AI_INPUT_MESSAGES in a or G.GEN_AI_OUTPUT_MESSAGES in a or any(n in _EVENT_NAMES for n, _, _ in raw.events)


def _event_body(attrs: Mapping[str, Any]) -> dict[str, Any]:
    """A span event's message: its attributes, or the JSON some producers put in one of them."""
    for key in ("gen_ai.event.content", "body", "event.body"):
        value = json_value(attrs.get(key))
        if isinstance(value, Mapping):
            return dict(value)
    return {k: json_value(v) if k in ("tool_calls", "message") else v for k, v in attrs.items()}


def _event_list(span: Span, key: str, value: Any) -> list[tuple[str, Msg]]:
    if not isinstance(value, list):
        span.problems.append(("schema", f"{key} is not a list of events"))
        return []
    out = []
    for event in value:
        name = event.get("event.name") if isinstance(event, Mapping) else None
        msg = event_message(name, event) if isinstance(name, str) and name in _EVENT_NAMES else None
        if msg is None:
            span.problems.append(("schema", f"{key} holds {str(event)[:60]!r}, not a GenAI message event"))
            continue
        out.append((name, msg))
    return out


def _messages(span: Span, key: str, value: Any, read: Any) -> list[Any]:
    return message_list(span.problems, key, value, read)


def _history(span: Span, key: str, value: Any, repeats: Repeats | None) -> list[Any]:
    """A GenAI message list that repeats the history: with ``repeats``, an element read before is
    the same message (the same ``LazyMsg``, parsed at most once)."""
    if repeats is None:
        return message_list(span.problems, key, json_value(value), genai_message)
    return message_list(span.problems, key, repeats.value(value), genai_message, repeats.known)


def _usage(a: Mapping[str, Any], problems: list[tuple[str, str]]) -> dict[str, int] | None:
    """The first attribute of each count's names that holds a count (``counts.count_of``: a
    float that is a whole number is one); one that holds something else is a ``usage`` problem."""
    counts: dict[str, int] = {}
    for name, keys in _USAGE_KEYS:
        for key in keys:
            value = a.get(key)
            if value is None:  # (most names are absent: no call for them)
                continue
            count, why = count_of(value)
            if why is not None:
                problems.append(("usage", f"{key}: {why}; left out"))
            if count is not None:
                counts[name] = count
                break
    return counts or None


def _typed(a: Mapping[str, Any], key: str) -> Any:
    """A value pydantic-ai JSON-encoded (its ``logfire.json_schema`` says object or array)."""
    value = a[key]
    schema = json_value(a.get(LOGFIRE_JSON_SCHEMA))
    prop = schema.get("properties", {}).get(key) if isinstance(schema, Mapping) else None
    if isinstance(value, str) and isinstance(prop, Mapping) and prop.get("type") in ("object", "array"):
        decoded = json_value(value)
        return decoded
    return value


def _kept(a: Mapping[str, Any]) -> dict[str, Any]:
    return {k: a[k] for k in _SYSTEM_KEEP if k in a}


def _str(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None
