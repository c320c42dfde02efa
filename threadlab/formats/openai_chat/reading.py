"""OpenAI Chat Completions messages → actions.

One message is one record. ``system`` / ``developer`` messages become ``system.message``
actions (what the model was told); ``user`` a user message; ``assistant`` its
``reasoning_content`` (DeepSeek, Qwen, Moonshot, xAI) or ``reasoning`` (Groq, OpenRouter, vLLM)
or ``thinking`` content parts (Mistral) as thinking, its text (or refusal) as an assistant message (none for
whitespace-only text beside its reasoning or calls, issue 24 §1: the memo keeps the text) and each of its ``tool_calls`` (or a
legacy ``function_call``) as a tool call; ``tool`` (or a legacy ``function``) message the return of the call it names. An
assistant message's ``name`` says which agent spoke (multi-agent apps set it); without one the
agent is ``assistant``. A response's ``usage`` goes on its first choice's message, its
``model`` on every action it produced. Each message is checked against the ``openai``
package's ``ChatCompletionMessageParam`` (a response against ``ChatCompletion``)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from threadlab.core.model import BaseAction, Usage
from threadlab.formats.common.arguments import parsed_arguments
from threadlab.formats.common.counts import counts_as
from threadlab.formats.common.providers.parts import read_chat_part
from threadlab.formats.common.providers.reading import MessageReader, blank_text, put_usage
from threadlab.formats.common.providers.sdk_types import check
from threadlab.formats.openai_chat.codec import AGENT, KEY, PROVIDER, ChatCodec, choices_of, default_message

# where compatible servers put the model's reasoning: DeepSeek, Qwen, Moonshot, xAI; Groq, OpenRouter, vLLM
_REASONING = ("reasoning_content", "reasoning")
FINISH = {"stop": "stop", "tool_calls": "tool_call", "function_call": "tool_call", "length": "length", "content_filter": "content_filter"}


def _thinking_parts(content: Any) -> tuple[list[str], Any]:
    """Mistral's reasoning models answer with content parts of type ``thinking`` (its
    ``ThinkChunk``: ``{"type": "thinking", "thinking": [text chunks]}``) before the text: their
    texts, and the content without them."""
    if not isinstance(content, list):
        return [], content
    thoughts, rest = [], []
    for part in content:
        inner = part.get("thinking") if isinstance(part, Mapping) and part.get("type") == "thinking" else None
        if isinstance(inner, str) or (isinstance(inner, list) and all(isinstance(p, Mapping) and isinstance(p.get("text"), str) for p in inner)):
            thoughts.append(inner if isinstance(inner, str) else "".join(p["text"] for p in inner))
        else:
            rest.append(part)
    return thoughts, rest if thoughts else content


def decode_content(content: Any) -> Any:
    """Chat content → ThreadProtocol content: a string stays, text parts become text parts,
    ``image_url`` parts image parts, ``file`` and ``input_audio`` parts with their data media
    parts (``providers.parts``), other parts stay as they came."""
    if isinstance(content, str):
        return content
    if not isinstance(content, list):
        return ""
    parts: list[Any] = []
    for part in content:
        kind = part.get("type") if isinstance(part, Mapping) else None
        if kind == "text" and isinstance(part.get("text"), str):
            parts.append({"type": "text", "text": part["text"]})
        elif kind == "image_url" and isinstance(part.get("image_url"), Mapping) and isinstance(part["image_url"].get("url"), str):
            parts.append({"type": "image", "image_url": part["image_url"]["url"]})
        elif isinstance(part, Mapping):
            parts.append(read_chat_part(part) or dict(part))  # a file or audio with its data: a media part
        else:
            parts.append({"type": "unknown", "value": part})
    return parts


def usage_of(body: Mapping[str, Any]) -> Any:
    """A response's (or a chunk's) usage where the vendor puts it: ``usage`` (OpenAI, DeepSeek,
    xAI ...), ``x_groq.usage`` (Groq), a choice's ``usage`` (Moonshot's streams)."""
    if isinstance(body.get("usage"), Mapping):
        return body["usage"]
    groq = body.get("x_groq")
    if isinstance(groq, Mapping) and isinstance(groq.get("usage"), Mapping):
        return groq["usage"]
    for choice in choices_of(body):
        if isinstance(choice, Mapping) and isinstance(choice.get("usage"), Mapping):
            return choice["usage"]
    return None


def chat_usage(usage: Any, problems: list[str] | None = None) -> Usage | None:
    """A completion's usage; a figure that is no count (``counts.count_of``) is left out, with a
    phrase in ``problems``."""
    if not isinstance(usage, Mapping):
        return None
    prompt = usage.get("prompt_tokens_details") if isinstance(usage.get("prompt_tokens_details"), Mapping) else {}
    completion = usage.get("completion_tokens_details") if isinstance(usage.get("completion_tokens_details"), Mapping) else {}
    # DeepSeek also names its cache hits ``prompt_cache_hit_tokens``
    cached = "prompt_tokens_details.cached_tokens" if "cached_tokens" in prompt else "prompt_cache_hit_tokens"
    fields = counts_as({
        "prompt_tokens": ("input_tokens", usage.get("prompt_tokens")),
        "completion_tokens": ("output_tokens", usage.get("completion_tokens")),
        "total_tokens": ("total_tokens", usage.get("total_tokens")),
        cached: ("cache_read_tokens", prompt.get("cached_tokens", usage.get("prompt_cache_hit_tokens"))),
        "completion_tokens_details.reasoning_tokens": ("thinking_tokens", completion.get("reasoning_tokens")),
    }, problems if problems is not None else [])
    return Usage(**fields) if fields else None


class ChatReader(MessageReader):
    KEY = KEY
    codec = ChatCodec()

    def __init__(self, thread_id: str, source: str) -> None:
        super().__init__(thread_id, source)
        self.legacy: dict[str, list[str]] = {}  # function name -> open legacy function_call ids

    # --- one message ------------------------------------------------------------------------
    def read_message(self, message: Any, index: int, line: int | None, *, response: Mapping[str, Any] | None = None) -> list[BaseAction]:
        b = self.b
        where = f"message {index + 1}" + (f" (line {line})" if line is not None else "")
        if not isinstance(message, Mapping):
            b.kept("schema", f"{where} is a JSON {type(message).__name__}, not a message; kept as system.unknown_message", line=line)
            return [b.add("system.unknown_message", data=message)]
        if response is None:
            reason = check("openai.chat.message", message)
            if reason:
                b.problem("schema", f"{where} is not a ChatCompletionMessageParam ({reason}); read as it is", line=line)
        role = message.get("role")
        if role in ("system", "developer"):
            actions = [b.add("system.message", data={"role": role, "content": message.get("content")})]
        elif role == "user":
            actions = [b.add("user_message", content=decode_content(message.get("content")))]
        elif role == "assistant":
            actions = self._assistant(message, index, line, response)
        elif role in ("tool", "function"):
            actions = [self._return(message, role, where, line)]
        else:
            b.kept("unknown-type", f"{where} has role {role!r}, which Chat Completions does not define; kept as system.unknown_message", line=line)
            return [b.add("system.unknown_message", data=dict(message))]
        b.took()
        return actions

    def _assistant(self, message: Mapping[str, Any], index: int, line: int | None, response: Mapping[str, Any] | None) -> list[BaseAction]:
        b = self.b
        name = message.get("name") if isinstance(message.get("name"), str) and message.get("name") else AGENT
        agent = b.agent(name)
        model = response.get("model") if response is not None and isinstance(response.get("model"), str) else None
        meta = {"model_name": model, "provider_name": PROVIDER} if model else None
        actions: list[BaseAction] = []
        reasoning = next((message[k] for k in _REASONING if isinstance(message.get(k), str) and message[k]), None)
        thoughts, content = _thinking_parts(message.get("content"))
        for thought in [reasoning, *thoughts] if reasoning is not None else thoughts:
            actions.append(b.add("thinking", agent_id=agent, content=thought, provider_name=PROVIDER, metadata=_copy(meta)))
        calls = message.get("tool_calls") if isinstance(message.get("tool_calls"), list) else []
        legacy = message.get("function_call") if isinstance(message.get("function_call"), Mapping) else None
        text = decode_content(content) if content is not None else message.get("refusal") if isinstance(message.get("refusal"), str) else ""
        if not blank_text(text) or not (calls or legacy or actions):  # whitespace beside reasoning or calls is no message (the memo keeps it)
            actions.append(b.add("assistant_message", agent_id=agent, content=text, metadata=_copy(meta)))
        for n, call in enumerate(calls):
            actions.append(self._call(call, agent, f"{index}_{n}", line, meta))
        if legacy is not None:
            call_id = f"function_call_{index}"
            fname = legacy.get("name") if isinstance(legacy.get("name"), str) else "function"
            self.legacy.setdefault(fname, []).append(call_id)
            self.calls[call_id] = fname
            actions.append(b.add("tool_call", agent_id=agent, tool_name=fname, tool_call_id=call_id, args=parsed_arguments(legacy.get("arguments")), metadata=_copy(meta)))
        return actions

    def _call(self, call: Any, agent: str, fallback: str, line: int | None, meta: dict[str, Any] | None) -> BaseAction:
        fn = call.get("function") if isinstance(call, Mapping) else None
        fn = fn if isinstance(fn, Mapping) else {}
        call_id = call.get("id") if isinstance(call, Mapping) and isinstance(call.get("id"), str) else None
        name = fn.get("name") if isinstance(fn.get("name"), str) else None
        if call_id is None or name is None:
            self.b.problem("schema", f"a tool call lacks its id or function name: {str(call)[:120]}", line=line)
        call_id = call_id or f"call_{fallback}"
        name = name or "unknown"
        self.calls[call_id] = name
        return self.b.add("tool_call", agent_id=agent, tool_name=name, tool_call_id=call_id, args=parsed_arguments(fn.get("arguments")), metadata=_copy(meta))

    def _return(self, message: Mapping[str, Any], role: str, where: str, line: int | None) -> BaseAction:
        if role == "function":
            name = message.get("name") if isinstance(message.get("name"), str) else "function"
            open_ids = self.legacy.get(name) or []
            call_id = open_ids.pop(0) if open_ids else f"function_{name}"
        else:
            call_id = message.get("tool_call_id") if isinstance(message.get("tool_call_id"), str) else ""
            name = self.calls.get(call_id)
        if call_id not in self.calls:
            self.b.problem("tool-call-match", f"{where} answers tool call {call_id!r}, which no earlier message made", line=line)
        name = self.calls.get(call_id) or name or "unknown"
        return self.b.add("tool_return", tool_call_id=call_id, tool_name=name, content=decode_content(message.get("content")))

    # --- a response -------------------------------------------------------------------------
    def read_response(self, body: Mapping[str, Any], line: int | None, *, count: bool = True, checked: bool = True) -> list[int]:
        if checked:
            reason = check("openai.chat.completion", body)
            if reason:
                self.b.problem("schema", f"the response {body.get('id', '')} is not a ChatCompletion ({reason}); read as it is", line=line)
        got: list[int] = []
        choices = choices_of(body)
        for n, choice in enumerate(choices):
            message = choice.get("message") if isinstance(choice, Mapping) else None
            if not isinstance(message, Mapping):
                if count:
                    self.b.failed("schema", f"choice {n} of the response has no message; skipped", line=line)
                continue
            start = len(self.b.actions)
            got.append(self.add_message(message, line, response=body, count=count))
            mine = self.b.actions[start:]
            if n == 0:
                phrases: list[str] = []
                put_usage(mine, chat_usage(usage_of(body), phrases))
                self.usage_problems(body, line, phrases)
            finish = FINISH.get(choice.get("finish_reason")) if isinstance(choice.get("finish_reason"), str) else None
            for action in mine:
                if action.action_type == "assistant_message" and finish:
                    action.finish_reason = finish  # type: ignore[attr-defined]
                if n and len(choices) > 1:
                    self.tag(action, {"choice": n})
        return got

    def request_rest(self, body: Mapping[str, Any]) -> dict[str, Any]:
        return {k: v for k, v in body.items() if k != "messages"}

    def response_rest(self, body: Mapping[str, Any]) -> Any:
        rest = dict(body)
        if isinstance(body.get("choices"), list):
            rest["choices"] = [{k: v for k, v in c.items() if k != "message"} if isinstance(c, Mapping) and isinstance(c.get("message"), Mapping) else c for c in body["choices"]]
        return rest

    def default_message(self, actions: list[BaseAction]) -> Any:
        return default_message(actions, self.b.agents)


def _copy(meta: dict[str, Any] | None) -> dict[str, Any] | None:
    return dict(meta) if meta else None
