"""OpenAI Responses input/output items → actions, through the mapping Codex CLI and Agents SDK
sessions share (``formats/common/responses/items.py``).

A record is an item (of a request's ``input`` or a response's ``output``); a request's
``instructions`` (a non-empty string) and a plain-string ``input`` are one record each, read as
a ``system.message`` (role ``instructions``) and a user message. What the API records of its own doing (MCP tool listings and approval requests
and responses, tool set changes, compaction items) becomes ``system.<item type>`` actions
holding the item. A response's usage goes on its first message (else its first action), its
model on every action it produced. An assistant message item of whitespace-only text beside
the response's other items is no assistant message (issue 24 §1): it is kept whole on the
response's first action (``riders``) and written back in its place. Items are
checked against the ``openai`` package's ``ResponseInputItemParam``, responses against
``Response``.

A logged conversation's later request that repeats the run so far under other ``instructions``
continues the thread (``providers.history``): its instructions are a ``system.config_update``
``{agent_id, changes: {instructions}}``. Which agent acts: a Responses request names none (the
OpenAI Agents SDK sends each agent's instructions, never its name), so the thread's agent is
``assistant`` until a handoff's output names another: an Agents SDK handoff is a
``transfer_to_<agent>`` call answered ``{"assistant": "<agent name>"}``
(``responses.agents_sdk.handoff_target``), after which the reader adds a ``system.handoff`` (made by
the reader, written back as no item) and the model items are the named agent's (its id a slug
of the name); its instructions, sent with the next request, are that agent's configuration. A
change of instructions with no handoff before it is the same agent's configuration changing."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from threadlab.core.model import BaseAction, Usage
from threadlab.formats.common.counts import counts_as
from threadlab.formats.common.providers.kinds import RESPONSES, list_kind, request_kind, response_kind
from threadlab.formats.common.providers.reading import RIDERS, MessageReader, blank_text, put_usage
from threadlab.formats.common.providers.sdk_types import check
from threadlab.formats.common.responses.agents_sdk import DERIVED, handoff_target
from threadlab.formats.common.responses.items import ItemReader, action_item

KEY = "openai_responses"
AGENT = "assistant"
PROVIDER = "openai"
INSTRUCTIONS = "instructions"
_STRING_INPUT = "\x00string"  # request_rest's mark: ``input`` was a plain string


class ResponsesCodec:
    def __init__(self, default: str = "chat") -> None:
        self.default = default

    def is_request(self, body: Mapping[str, Any]) -> bool:
        return request_kind(body, self.default) == RESPONSES

    def is_response(self, body: Mapping[str, Any]) -> bool:
        return response_kind(body) == RESPONSES

    def is_message_list(self, value: list[Any]) -> bool:
        return list_kind(value, default=self.default) == RESPONSES

    def request_messages(self, body: Mapping[str, Any]) -> list[Any]:
        items = body.get("input")
        out: list[Any] = [{"type": INSTRUCTIONS, "content": body[INSTRUCTIONS]}] if body.get(INSTRUCTIONS) else []
        if isinstance(items, str):
            return [*out, {"role": "user", "content": items}]
        return [*out, *(items if isinstance(items, list) else [])]

    def response_messages(self, body: Mapping[str, Any]) -> list[Any]:
        return output_of(body)

    @staticmethod
    def is_config(message: Any) -> bool:
        """The request's ``instructions`` (read as its first message): configuration, not history."""
        return isinstance(message, Mapping) and message.get("type") == INSTRUCTIONS


def _blank_answer(item: Any) -> bool:
    """An assistant message item of whitespace-only text (or none)."""
    return isinstance(item, Mapping) and item.get("type", "message") == "message" and item.get("role") == "assistant" and blank_text(item.get("content"))


def output_of(body: Mapping[str, Any]) -> list[Any]:
    """A response's ``output`` items; none when it is no list (the SDK type check names that
    value, with its line)."""
    output = body.get("output")
    return list(output) if isinstance(output, list) else []


def responses_usage(usage: Any, problems: list[str] | None = None) -> Usage | None:
    """A response's usage; a figure that is no count (``counts.count_of``) is left out, with a
    phrase in ``problems``."""
    if not isinstance(usage, Mapping):
        return None
    inp = usage.get("input_tokens_details") if isinstance(usage.get("input_tokens_details"), Mapping) else {}
    out = usage.get("output_tokens_details") if isinstance(usage.get("output_tokens_details"), Mapping) else {}
    fields = counts_as({
        "input_tokens": ("input_tokens", usage.get("input_tokens")),
        "output_tokens": ("output_tokens", usage.get("output_tokens")),
        "total_tokens": ("total_tokens", usage.get("total_tokens")),
        "input_tokens_details.cached_tokens": ("cache_read_tokens", inp.get("cached_tokens")),
        "output_tokens_details.reasoning_tokens": ("thinking_tokens", out.get("reasoning_tokens")),
    }, problems if problems is not None else [])
    return Usage(**fields) if fields else None


class ResponsesReader(MessageReader):
    KEY = KEY
    codec = ResponsesCodec(default=RESPONSES)

    def __init__(self, thread_id: str, source: str) -> None:
        super().__init__(thread_id, source)
        self.items = ItemReader(self.b, KEY, platform=True)
        self.speaker = AGENT  # who the model items are, until a handoff names another agent

    @staticmethod
    def continues(request: Mapping[str, Any] | None, last_response: Mapping[str, Any] | None) -> bool:
        """A request naming the previous response (``previous_response_id``) continues it
        without repeating its items."""
        return bool(request and last_response and request.get("previous_response_id") and request.get("previous_response_id") == last_response.get("id"))

    def read_message(self, message: Any, index: int, line: int | None, *, response: Mapping[str, Any] | None = None) -> list[BaseAction]:
        b = self.b
        where = f"item {index + 1}" + (f" (line {line})" if line is not None else "")
        if not isinstance(message, Mapping):
            b.kept("schema", f"{where} is a JSON {type(message).__name__}, not an item; kept as system.unknown_item", line=line)
            return [b.add("system.unknown_item", data=message)]
        if message.get("type") == INSTRUCTIONS:
            b.took()
            if index:  # a later request's new instructions: the agent's configuration changed
                return [b.add("system.config_update", data={"agent_id": b.agent(self.speaker), "changes": {INSTRUCTIONS: message.get("content")}})]
            return [b.add("system.message", data={"role": INSTRUCTIONS, "content": message.get("content")})]
        if response is None:
            reason = check("openai.responses.item", message)
            if reason:
                b.problem("schema", f"{where} is not a ResponseInputItemParam ({reason}); read as it is", line=line)
        model = response.get("model") if response is not None and isinstance(response.get("model"), str) else None
        meta = {"model_name": model, "provider_name": PROVIDER} if model and message.get("role") != "user" else None
        actions = self.items.add(message, agent_id=b.agent(self.speaker), meta=meta)
        if actions is None:
            b.kept("unknown-type", f"{where} of type {message.get('type')!r} is not one threadlab maps; kept as system.unknown_item", line=line)
            return [b.add("system.unknown_item", data=dict(message))]
        b.took()
        for action in actions:
            self._handoff(action)
        return actions

    def _handoff(self, action: BaseAction) -> None:
        """After the output of an Agents SDK handoff (a ``transfer_to_<agent>`` call whose output
        names the agent), a ``system.handoff`` (made by the reader: written back as no item), and
        the model items from then on are the named agent's."""
        if action.action_type != "tool_return":
            return
        target = handoff_target(getattr(action, "tool_name", None), getattr(action, "content", None))
        if target is None:
            return
        data = {"from_agent_id": self.b.agent(self.speaker), "to_agent_id": self.b.agent(target), "tool_call_id": getattr(action, "tool_call_id", None)}
        self.b.add("system.handoff", data=data, metadata={KEY: {DERIVED: "handoff"}})
        self.speaker = target

    def read_response(self, body: Mapping[str, Any], line: int | None, *, count: bool = True, checked: bool = True) -> list[int]:
        if checked:
            reason = check("openai.responses.response", body)
            if reason:
                self.b.problem("schema", f"the response {body.get('id', '')} is not a Response ({reason}); read as it is", line=line)
        start = len(self.b.actions)
        output = output_of(body)
        blank = {n for n, item in enumerate(output) if _blank_answer(item)}
        if len(blank) == len(output):
            blank = set()  # a response of whitespace only: that is its answer
        got: list[int] = []
        riders: dict[str, Any] = {}
        for n, item in enumerate(output):
            if n in blank:  # no message of its own: kept whole on the response's first action
                got.append(len(self.history))
                riders[str(len(self.history))] = item
                self.history.append(item)
                if count:
                    self.b.took()
                continue
            got.append(self.add_message(item, line, response=body, count=count))
        if riders:
            self.tag(self.b.actions[start], {RIDERS: riders})
        phrases: list[str] = []
        put_usage(self.b.actions[start:], responses_usage(body.get("usage"), phrases))
        self.usage_problems(body, line, phrases)
        return got

    def request_rest(self, body: Mapping[str, Any]) -> dict[str, Any]:
        rest = {k: v for k, v in body.items() if k != "input" and not (k == INSTRUCTIONS and v)}
        if isinstance(body.get("input"), str):
            rest["input"] = _STRING_INPUT
        return rest

    def response_rest(self, body: Mapping[str, Any]) -> Any:
        return {k: v for k, v in body.items() if k != "output"}

    def default_message(self, actions: list[BaseAction]) -> Any:
        return default_item(actions)


def default_item(actions: list[BaseAction]) -> Any:
    first = actions[0]
    if first.action_type == "system.message" and isinstance(first.data, Mapping) and first.data.get("role") == INSTRUCTIONS:  # type: ignore[attr-defined]
        return {"type": INSTRUCTIONS, "content": first.data.get("content")}  # type: ignore[attr-defined]
    if first.action_type == "system.config_update" and isinstance(first.data, Mapping) and isinstance(first.data.get("changes"), Mapping):  # type: ignore[attr-defined]
        return {"type": INSTRUCTIONS, "content": first.data["changes"].get(INSTRUCTIONS)}  # type: ignore[attr-defined]
    if first.action_type.startswith("system.unknown"):
        return first.data  # type: ignore[attr-defined]
    return action_item(first, KEY, memo=False)


def request_body(rest: Any, messages: list[Any]) -> Any:
    body = dict(rest)
    if messages and isinstance(messages[0], Mapping) and messages[0].get("type") == INSTRUCTIONS:
        body[INSTRUCTIONS] = messages[0].get("content")
        messages = messages[1:]
    if body.get("input") == _STRING_INPUT:
        body["input"] = messages[0].get("content") if messages and isinstance(messages[0], Mapping) else ""
    else:
        body["input"] = messages
    return body


def response_body(rest: Any, messages: list[Any]) -> Any:
    return {**rest, "output": messages}
