"""``agent.write_memory_to_messages()`` dumped (``ChatMessage.dict()`` objects) → one thread.

The messages are what the model is sent next, made from the memory steps
(``ActionStep.to_messages``): ``system`` → ``system.prompt``; ``user`` → ``user_message`` (a task
is ``"New task:\\n<task>"``; the user messages smolagents writes itself, ``"Now proceed and carry
out this plan."`` after a plan and observation images, are ``author: harness``, ``harness:
meta``); ``assistant`` → ``assistant_message``; ``tool-call`` → its calls (the text is
``"Calling tools:\\n"`` and the calls' Python repr, read with ``ast.literal_eval``) as
``tool_call``s; ``tool-response`` → the ``tool_return`` of the oldest call not yet answered
(``"Observation:\\n..."``), or the error of the call it names (``"Call id: <id>\\nError:..."``):
status ``error``, content the error text; when that call already had its observation, that
return becomes the error one and keeps the observation under ``metadata.smolagents.observations``
(one step, one return, as the steps dump reads). Records: a message."""

from __future__ import annotations

import re
from typing import Any

from threadlab.core.authors import harness_metadata
from threadlab.core.builder import ThreadBuilder
from threadlab.core.model import Thread
from threadlab.core.problems import short
from threadlab.formats.smolagents.reading import AGENT, KEY, usage_of
from threadlab.formats.smolagents.wire import MANAGED_TASK, call_parts, called_tools, is_message, text_of

_ERROR = re.compile(r"(?:Call id: (?P<id>[^\n]*)\n)?Error:\n", re.DOTALL)


class MessagesReader:
    def __init__(self, name: str) -> None:
        self.b = ThreadBuilder(None, source=name)
        self.agent = self.b.agent(AGENT, agent_id="main")
        self.pending: list[tuple[str, str]] = []
        self.returned: dict[str, Any] = {}
        self.title = ""
        self.after_model = False

    def read(self, messages: list[Any]) -> Thread:
        for index, m in enumerate(messages, 1):
            text = text_of(m.get("content")) if is_message(m) else None
            if text is None and not (is_message(m) and m.get("content") is None):
                self.b.kept("unknown-type", f"message {index} is no smolagents ChatMessage of text ({short(m)}); kept as system.unknown_message")
                self.b.add("system.unknown_message", data=m, metadata={KEY: {"index": index}})
                continue
            meta = {KEY: {"index": index, **{k: v for k, v in m.items() if k not in ("role", "content") and v is not None}}}
            if getattr(self, m["role"].replace("-", "_"))(text or "", meta, m, index) is not False:
                self.b.took()
        self.b.title = self.title
        return self.b.build()

    def system(self, text: str, meta: dict[str, Any], m: dict[str, Any], index: int) -> None:
        self.b.add("system.prompt", data=text, metadata=meta)

    def user(self, text: str, meta: dict[str, Any], m: dict[str, Any], index: int) -> None:
        if text.startswith("New task:\n" + MANAGED_TASK):
            meta.update(harness_metadata("task_prompt"))
        elif text.startswith("New task:\n"):
            if not self.title:
                self.title = text.removeprefix("New task:\n").strip().splitlines()[0][:80] if text.strip() != "New task:" else ""
        elif self.after_model:
            meta.update(harness_metadata("meta"))
        self.after_model = False
        self.b.add("user_message", content=text, metadata=meta)

    def assistant(self, text: str, meta: dict[str, Any], m: dict[str, Any], index: int) -> None:
        self.after_model = True
        self.b.add("assistant_message", agent_id=self.agent, content=text, usage=usage_of(self.b, m.get("token_usage"), f"message {index} token_usage."), metadata=meta)

    def tool_call(self, text: str, meta: dict[str, Any], m: dict[str, Any], index: int) -> bool:
        calls = called_tools(text)
        parts = [call_parts(c) for c in calls or []]
        if not calls or None in parts:
            self.b.kept("unknown-type", f"message {index} (tool-call) names no calls that read ({short(text)}); kept as system.tool_call_text")
            self.b.add("system.tool_call_text", data=text, metadata=meta)
            return False
        self.after_model = True
        meta[KEY]["derived"] = True
        for k, (call_id, name, args) in enumerate(p for p in parts if p is not None):
            call_id = call_id or f"smol-{index}-{k}"
            self.pending.append((call_id, name))
            self.b.add("tool_call", agent_id=self.agent, tool_name=name, tool_call_id=call_id, args=args, metadata=meta if not k else {KEY: {"index": index}})
        return True

    def tool_response(self, text: str, meta: dict[str, Any], m: dict[str, Any], index: int) -> None:
        error = _ERROR.match(text)
        if error is not None:
            call_id = error.group("id")
            earlier = self.returned.get(call_id) if call_id else None
            if earlier is not None:  # the step's observation came first: that return is the error one
                earlier.metadata.setdefault(KEY, {})["observations"] = earlier.content
                earlier.metadata[KEY]["error_index"] = index
                earlier.content, earlier.status = text, "error"
                return
            call_id, name = self.take(call_id)
            self.answer(call_id, name, text, "error", meta)
            return
        call_id, name = self.take(None)
        self.answer(call_id, name, text, "success", meta)

    def take(self, call_id: str | None) -> tuple[str, str]:
        for k, (pending_id, name) in enumerate(self.pending):
            if call_id is None or pending_id == call_id:
                del self.pending[k]
                return pending_id, name
        return call_id or "", ""

    def answer(self, call_id: str, name: str, text: str, status: str, meta: dict[str, Any]) -> None:
        self.after_model = False
        added = self.b.add("tool_return", tool_call_id=call_id, tool_name=name, status=status, content=text, metadata=meta)
        if call_id:
            self.returned[call_id] = added


def read_messages(name: str, messages: list[Any]) -> Thread:
    return MessagesReader(name).read(messages)
