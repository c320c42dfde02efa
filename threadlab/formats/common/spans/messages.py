"""Chat messages as span producers write them → ``Msg``.

Three shapes cover what we read:

- GenAI semantic conventions ≥ 1.37: ``{role, parts: [{type: text|tool_call|tool_call_response|
  reasoning|blob|uri|file, ...}], finish_reason?}`` (``gen_ai.input.messages``,
  ``gen_ai.output.messages``; pydantic-ai's ``pydantic_ai.all_messages``);
- Chat Completions style: ``{role, content: str | [{type: text, text}], tool_calls: [{id,
  function: {name, arguments}}], tool_call_id}``: the bodies of the GenAI events of semconv ≤
  1.36 (``gen_ai.user.message``, ``gen_ai.choice`` ...), OpenInference's ``llm.input_messages``
  once unflattened, and the Agents SDK's generation spans;
- OpenInference's flattened attributes (``llm.input_messages.0.message.role`` ...), rebuilt
  into the Chat Completions shape by ``unflatten``;
- Responses-API items (``message``, ``reasoning``, ``function_call`` and the other calls and
  their ``*_output`` items): the Agents SDK's response spans where a processor writes the
  ``response`` and ``input`` the SDK keeps on them. One item is one message.

A value that is not a message is returned as ``None`` (the caller says what it was)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import orjson

from threadlab.formats.common.responses.items import call_args, call_id_of, output_text
from threadlab.formats.common.spans.model import LazyMsg, Msg, Part

_MEDIA = ("blob", "uri", "file", "image", "image_url", "input_image", "audio", "input_audio", "video", "document")


def message_list(problems: list[tuple[str, str]], key: str, value: Any, read: Callable[[Any], Msg | None],
                 known: dict[int, LazyMsg] | None = None) -> list[Any]:
    """A list of wire messages: each object with a role parsed only when needed (``LazyMsg``:
    every model call repeats the history), anything else read now or named in ``problems``.
    ``known``: the ``LazyMsg`` of each wire object already met (by identity: ``spans.repeats``
    hands the same objects again for a repeated history; each kept alive by its message), all
    read by the same ``read``."""
    if value is None:
        return []
    if not isinstance(value, list):
        problems.append(("schema", f"{key} is not a list of messages"))
        return []
    out: list[Any] = []
    for item in value:
        lazy = known.get(id(item)) if known is not None else None  # (ids of live objects are unique)
        if lazy is not None:  # an object met before: a dict with a role
            out.append(lazy)
            continue
        if isinstance(item, dict) and isinstance(item.get("role"), str):
            lazy = LazyMsg(item, read)
            if known is not None:
                known[id(item)] = lazy
            out.append(lazy)
            continue
        msg = read(item)
        if msg is None:
            problems.append(("schema", f"{key} holds {str(item)[:60]!r}, not a message"))
        else:
            out.append(msg)
    return out


def genai_message(value: Any) -> Msg | None:
    """One message of the newer GenAI conventions (or, failing that, Chat Completions style)."""
    if type(value) is not dict and not isinstance(value, Mapping):
        return None
    parts = value.get("parts")
    if not isinstance(parts, list):
        return chat_message(value)
    role = value.get("role") if isinstance(value.get("role"), str) else "user"
    finish = value.get("finish_reason") if isinstance(value.get("finish_reason"), str) else None
    return Msg(role, [genai_part(p) for p in parts], finish)


def bare_part(value: Any) -> Part:
    """A part that is no object: a string is its text, anything else is kept as it came."""
    return Part("text", text=value) if isinstance(value, str) else Part("other", raw=value)


def genai_part(part: Any) -> Part:
    if type(part) is dict and part.get("type") == "text":  # most parts: a text (no ABC check, one lookup of its type)
        text = part.get("content")
        if type(text) is str:
            return Part("text", text=text)
    if not isinstance(part, Mapping):
        return bare_part(part)
    kind = part.get("type")
    if kind == "text" and isinstance(part.get("content"), str):
        return Part("text", text=part["content"])
    if kind in ("reasoning", "thinking") and isinstance(part.get("content"), str | type(None)):
        return Part("reasoning", text=part.get("content") or "", raw=_rest(part, ("type", "content")))
    if kind == "tool_call":
        return Part("tool_call", id=_str(part.get("id")), name=_str(part.get("name")), args=part.get("arguments"))
    if kind == "tool_call_response":
        result = part.get("response", part.get("result"))
        return Part("tool_result", id=_str(part.get("id")), name=_str(part.get("name")), result=result)
    if kind in _MEDIA:
        return Part("media", raw=dict(part))
    return Part("other", raw=dict(part))


def chat_message(value: Any) -> Msg | None:
    """A Chat Completions style message (or a GenAI ≤ 1.36 event body)."""
    if not isinstance(value, Mapping):
        return None
    role = value.get("role") if isinstance(value.get("role"), str) else None
    parts: list[Part] = []
    content = value.get("content")
    tool_call_id = value.get("tool_call_id", value.get("id") if role == "tool" else None)
    if role == "tool" or (tool_call_id is not None and role in (None, "tool", "function")):
        return Msg("tool", [Part("tool_result", id=_str(tool_call_id), name=_str(value.get("name")), result=content)])
    if isinstance(content, str):
        if content:
            parts.append(Part("text", text=content))
    elif isinstance(content, list):
        parts += [_content_part(c) for c in content]
    elif content is not None:
        parts.append(Part("other", raw=content))
    for key in ("reasoning_content", "reasoning"):
        if isinstance(value.get(key), str) and value[key]:
            parts.insert(0, Part("reasoning", text=value[key]))
    calls = value.get("tool_calls")
    if isinstance(calls, list):
        parts += [_chat_tool_call(c) for c in calls]
    elif isinstance(value.get("function_call"), Mapping):
        call = value["function_call"]
        parts.append(Part("tool_call", name=_str(call.get("name")), args=call.get("arguments")))
    if role is None:
        if not parts:
            return None
        role = "assistant" if any(p.kind == "tool_call" for p in parts) else "user"
    finish = value.get("finish_reason") if isinstance(value.get("finish_reason"), str) else None
    return Msg(role, parts, finish)


def responses_item(value: Any) -> Msg | None:
    """One Responses-API item as a message: the model's call ids (``call_id``) are the calls'
    and the outputs' ids, as the session items and the Responses log of the same run key them.
    An item of another kind (a hosted tool's call, which holds its own result) is kept as an
    ``other`` part of an assistant message."""
    if not isinstance(value, Mapping):
        return None
    kind = value.get("type", "message" if "role" in value else None)
    if kind == "message":
        return chat_message(value)
    if kind == "reasoning":
        summary = value.get("summary") if isinstance(value.get("summary"), list) else []
        texts = [p["text"] for p in summary if isinstance(p, Mapping) and isinstance(p.get("text"), str)]
        return Msg("assistant", [Part("reasoning", text="\n\n".join(texts))])
    call_id = call_id_of(value)
    if isinstance(kind, str) and call_id is not None:
        if kind.endswith(("_call_output", "_call_result")):
            return Msg("tool", [Part("tool_result", id=call_id, name=_str(value.get("name")), result=output_text(value.get("output")))])
        if kind.endswith("_call"):
            name = value["name"] if isinstance(value.get("name"), str) else kind.removesuffix("_call")
            return Msg("assistant", [Part("tool_call", id=call_id, name=name, args=call_args(value))])
    return Msg("assistant", [Part("other", raw=dict(value))])


def _chat_tool_call(call: Any) -> Part:
    if not isinstance(call, Mapping):
        return Part("other", raw=call)
    function = call.get("function") if isinstance(call.get("function"), Mapping) else call
    return Part("tool_call", id=_str(call.get("id")), name=_str(function.get("name")), args=function.get("arguments"))


def _content_part(part: Any) -> Part:
    if isinstance(part, str):
        return Part("text", text=part)
    if not isinstance(part, Mapping):
        return Part("other", raw=part)
    kind = part.get("type")
    text = part.get("text")
    if kind in ("text", "input_text", "output_text") and isinstance(text, str):
        return Part("text", text=text)
    if kind is None and isinstance(text, str):
        return Part("text", text=text)
    if kind in ("reasoning", "thinking"):
        return Part("reasoning", text=_str(part.get("thinking") or part.get("text") or part.get("content")) or "")
    if kind in _MEDIA:
        return Part("media", raw=dict(part))
    return Part("other", raw=dict(part))


def event_message(name: str, body: Mapping[str, Any]) -> Msg | None:
    """A GenAI ≤ 1.36 event (``gen_ai.system.message``, ``gen_ai.user.message``,
    ``gen_ai.assistant.message``, ``gen_ai.tool.message``, ``gen_ai.choice``) as a message."""
    if name == "gen_ai.choice":
        message = body.get("message")
        msg = chat_message({"role": "assistant", **message}) if isinstance(message, Mapping) else None
        if msg is not None and isinstance(body.get("finish_reason"), str):
            msg.finish_reason = body["finish_reason"]
        return msg
    role = name.removeprefix("gen_ai.").removesuffix(".message")
    content = body.get("content")
    if isinstance(content, str) and content[:1] in ("[", "{") and role != "tool":
        try:  # some producers JSON-encode a list of parts into the event attribute
            decoded = orjson.loads(content)
        except orjson.JSONDecodeError:
            decoded = None
        if isinstance(decoded, list):
            body = {**body, "content": decoded}
    return chat_message({**body, "role": body.get("role") if isinstance(body.get("role"), str) else role})


def unflatten(attributes: Mapping[str, Any], prefix: str) -> list[Any] | None:
    """OpenInference's flattened lists (``prefix.0.message.role`` ...) as a list of nested
    objects (``[{"message": {"role": ...}}]``); a list stored whole under ``prefix`` (Phoenix's
    nested export) is returned as it is."""
    whole = attributes.get(prefix)
    if isinstance(whole, list):
        return whole
    head = prefix + "."
    items: dict[int, dict[str, Any]] = {}
    for key, value in attributes.items():
        if not key.startswith(head):
            continue
        index, _, rest = key[len(head) :].partition(".")
        if not index.isdigit() or not rest:
            continue
        _put(items.setdefault(int(index), {}), rest.split("."), value)
    if not items:
        return None
    return [_lists(items[i]) for i in sorted(items)]


def _put(target: dict[str, Any], path: list[str], value: Any) -> None:
    for step in path[:-1]:
        nxt = target.get(step)
        if not isinstance(nxt, dict):
            nxt = target[step] = {}
        target = nxt
    target[path[-1]] = value


def _lists(node: Any) -> Any:
    """Objects whose keys are all indices become lists (in index order)."""
    if not isinstance(node, dict):
        return node
    if node and all(k.isdigit() for k in node):
        return [_lists(node[k]) for k in sorted(node, key=int)]
    return {k: _lists(v) for k, v in node.items()}


def undot(value: Any) -> Any:
    """Objects with dotted keys (``{"message.role": ...}``, as Phoenix and the OpenInference
    spec's examples write list items) as nested objects."""
    if isinstance(value, list):
        return [undot(v) for v in value]
    if not isinstance(value, Mapping):
        return value
    out: dict[str, Any] = {}
    for key, item in value.items():
        _put(out, str(key).split("."), undot(item))
    return out


def openinference_message(item: Any) -> Msg | None:
    """One unflattened OpenInference message (``{"message": {"role", "content", "contents",
    "tool_calls": [{"tool_call": {"id", "function": {"name", "arguments"}}}], "tool_call_id"}}``)."""
    item = undot(item)
    message = item.get("message") if isinstance(item, Mapping) and isinstance(item.get("message"), Mapping) else item
    if not isinstance(message, Mapping):
        return None
    value: dict[str, Any] = {k: v for k, v in message.items() if k not in ("contents", "tool_calls")}
    contents = message.get("contents")
    if isinstance(contents, list) and "content" not in message:
        value["content"] = [c.get("message_content", c) if isinstance(c, Mapping) else c for c in contents]
    calls = message.get("tool_calls")
    if isinstance(calls, list):
        value["tool_calls"] = [c.get("tool_call", c) if isinstance(c, Mapping) else c for c in calls if c is not None]
    return chat_message(value)


def texts(value: Any) -> list[str]:
    """System instructions as texts: a string, or a list of parts (``{type: text, content}``)."""
    if isinstance(value, str):
        return [value] if value else []
    if isinstance(value, list):
        out = []
        for part in value:
            if isinstance(part, str):
                out.append(part)
            elif isinstance(part, Mapping) and isinstance(part.get("content", part.get("text")), str):
                out.append(part.get("content", part.get("text")))
        return out
    return []


def _str(value: Any) -> str | None:
    return value if isinstance(value, str) else None if value is None else str(value)


def _rest(part: Mapping[str, Any], drop: tuple[str, ...]) -> dict[str, Any] | None:
    rest = {k: v for k, v in part.items() if k not in drop}
    return rest or None
