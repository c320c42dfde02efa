"""The AI SDK's own span attributes (``ai.*``, its ``experimental_telemetry``) → ``spans.model.Span``.

The AI SDK (``ai`` on npm) names its spans by ``ai.operationId`` and writes its own attributes
beside a few ``gen_ai.*`` ones (ai-sdk.dev, "Telemetry": "Collected data", "Span details"):

- a provider call (``ai.generateText.doGenerate``, ``ai.streamText.doStream``, and the
  ``generateObject`` / ``streamObject`` ones) holds what was sent, ``ai.prompt.messages`` (JSON of
  the SDK's language-model prompt: ``{role: system, content: str}``, user / assistant / tool
  messages of ``text``, ``file``, ``reasoning``, ``tool-call`` and ``tool-result`` parts), and what
  came back: ``ai.response.text``, ``ai.response.toolCalls`` (JSON), ``ai.response.object``,
  ``ai.response.finishReason`` (``ai.result.*`` and ``ai.finishReason`` before AI SDK 4), with
  ``ai.usage.*`` token counts (``promptTokens`` / ``completionTokens`` up to 4,
  ``inputTokens`` / ``outputTokens`` ... since 5);
- a tool run (``ai.toolCall``): ``ai.toolCall.name``, ``.id``, ``.args`` (``.input`` in newer
  versions), ``.result`` (``.output``);
- the call around them (``ai.generateText``, ``ai.streamText`` ...) repeats its steps' prompt,
  text and summed usage: a structure span, so nothing is counted twice; embeddings are system
  spans.

Tool-call arguments stay as the SDK wrote them (a JSON string in ``ai.response.toolCalls``' items
up to 4, an object since 5): ``spans/assemble`` keeps what it is given."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from threadlab.formats.common.spans.messages import bare_part
from threadlab.formats.common.spans.model import MODEL, STRUCTURE, SYSTEM, TOOL, Msg, Part, Span, json_value
from threadlab.formats.otel.wire import RawSpan

OPERATION = "ai.operationId"
_CALLS = ("doGenerate", "doStream")
_MEDIA = ("file", "image")
# token counts: (threadlab's name, the SDK's names, newest first); gen_ai.* ones are read first
USAGE_KEYS = (
    ("input", ("ai.usage.inputTokens", "ai.usage.promptTokens")),
    ("output", ("ai.usage.outputTokens", "ai.usage.completionTokens")),
    ("total", ("ai.usage.totalTokens",)),
    ("cache_read", ("ai.usage.cachedInputTokens",)),
    ("reasoning", ("ai.usage.reasoningTokens",)),
)


def is_ai_sdk(attributes: Mapping[str, Any]) -> bool:
    return isinstance(attributes.get(OPERATION), str) and attributes[OPERATION].startswith("ai.")


def interpret(span: Span, raw: RawSpan, usage: Any) -> None:
    """Fill ``span`` from the AI SDK's attributes; ``usage(attributes, problems)`` reads token
    counts (``conventions._usage``, which knows these names too)."""
    a = raw.attributes
    op = a[OPERATION]
    if op == "ai.toolCall":
        _tool(span, a)
    elif op.rsplit(".", 1)[-1] in _CALLS:
        _model(span, a, usage)
    elif op.startswith(("ai.embed", "ai.rerank")) or op.rsplit(".", 1)[-1].startswith("do"):
        span.role, span.data = SYSTEM, {"kind": op, **({"model": a["ai.model.id"]} if isinstance(a.get("ai.model.id"), str) else {})}
    else:
        span.role = STRUCTURE  # ai.generateText, ai.streamText ...: its provider calls say it all


def _model(span: Span, a: Mapping[str, Any], usage: Any) -> None:
    span.role = MODEL
    prompt = json_value(a.get("ai.prompt.messages"))
    span.inputs = []
    if prompt is not None and not isinstance(prompt, list):
        span.problems.append(("schema", "ai.prompt.messages is not a list of messages"))
    for item in prompt if isinstance(prompt, list) else []:
        msg = prompt_message(item)
        if msg is None:
            span.problems.append(("schema", f"ai.prompt.messages holds {str(item)[:60]!r}, not a message"))
        elif msg.role == "system":
            span.system += [p.text for p in msg.parts if p.text]
        else:
            span.inputs.append(msg)
    finish = _first_str(a, "ai.response.finishReason", "ai.finishReason")
    parts = []
    text = _first_str(a, "ai.response.text", "ai.result.text")
    obj = _first_str(a, "ai.response.object", "ai.result.object")
    if text or obj:
        parts.append(Part("text", text=text or obj))
    calls = json_value(a.get("ai.response.toolCalls", a.get("ai.result.toolCalls")))
    if calls is not None and not isinstance(calls, list):
        span.problems.append(("schema", "ai.response.toolCalls is not a list of tool calls"))
    parts += [_part(c) for c in calls if isinstance(c, Mapping)] if isinstance(calls, list) else []
    span.outputs = [Msg("assistant", parts, finish)] if parts or finish else []
    span.usage = usage(a, span.problems)
    span.model = _first_str(a, "gen_ai.response.model", "ai.response.model", "ai.model.id", "gen_ai.request.model")
    span.provider = _first_str(a, "ai.model.provider", "gen_ai.system")
    span.finish_reasons = [finish] if finish else None


def _tool(span: Span, a: Mapping[str, Any]) -> None:
    span.role = TOOL
    span.tool_name = _first_str(a, "ai.toolCall.name")
    span.call_id = _first_str(a, "ai.toolCall.id")
    span.args = json_value(next((a[k] for k in ("ai.toolCall.args", "ai.toolCall.input") if k in a), None))
    for key in ("ai.toolCall.result", "ai.toolCall.output"):
        if key in a:
            span.result, span.has_result = json_value(a[key]), True
            break


def prompt_message(value: Any) -> Msg | None:
    """One message of the AI SDK's language-model prompt (``ai.prompt.messages``)."""
    if not isinstance(value, Mapping) or not isinstance(value.get("role"), str):
        return None
    content = value.get("content")
    if isinstance(content, str):
        return Msg(value["role"], [Part("text", text=content)] if content else [])
    if not isinstance(content, list):
        return None
    return Msg(value["role"], [_part(p) for p in content])


def _part(part: Any) -> Part:
    if not isinstance(part, Mapping):
        return bare_part(part)
    kind = part.get("type")
    if kind == "text" and isinstance(part.get("text"), str):
        return Part("text", text=part["text"])
    if kind == "reasoning":
        return Part("reasoning", text=part.get("text") if isinstance(part.get("text"), str) else "")
    if kind == "tool-call" or (kind is None and "toolCallId" in part and "toolName" in part):
        return Part("tool_call", id=_str(part.get("toolCallId")), name=_str(part.get("toolName")), args=part.get("input", part.get("args")))
    if kind == "tool-result":
        return Part("tool_result", id=_str(part.get("toolCallId")), name=_str(part.get("toolName")), result=_output(part))
    if kind in _MEDIA:
        return Part("media", raw=dict(part))
    return Part("other", raw=dict(part))


def _output(part: Mapping[str, Any]) -> Any:
    """A tool result's value: ``output: {type: text | json | error-text | error-json | content,
    value}`` since AI SDK 5, ``result`` before."""
    output = part.get("output")
    if isinstance(output, Mapping) and "value" in output:
        return output["value"]
    return output if "output" in part else part.get("result")


def _first_str(a: Mapping[str, Any], *keys: str) -> str | None:
    return next((a[k] for k in keys if isinstance(a.get(k), str) and a[k]), None)


def _str(value: Any) -> str | None:
    return value if isinstance(value, str) else None if value is None else str(value)
