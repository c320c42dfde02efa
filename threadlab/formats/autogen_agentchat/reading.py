"""AutoGen AgentChat messages and saved states → threads (see ``wire.py`` for the shapes).

AgentChat messages (a ``TaskResult``, a list, a team manager's ``message_thread``), one record
each: a ``TextMessage`` / ``MultiModalMessage`` / ``StructuredMessage`` / ``ToolCallSummaryMessage``
/ ``StopMessage`` from ``user`` is a ``user_message``, from an agent its ``assistant_message``;
``ToolCallRequestEvent`` its ``tool_call``s, ``ToolCallExecutionEvent`` the ``tool_return``s
(``is_error`` → status ``error``), ``ThoughtEvent`` ``thinking``, ``HandoffMessage`` a
``system.handoff`` {``from_agent_id``, ``to_agent_id``, ``tool_call_id``: the call of the
transfer tool (``transfer_to_<target>``) just answered} (its text in the data); the other events
are ``system.<type>`` actions with the message as data. ``models_usage`` is the usage of the
message's first action, ``created_at`` its time.

An agent's ``llm_context`` (``AssistantAgentState``), one record a message: ``SystemMessage`` →
``system.prompt``; ``UserMessage`` → ``user_message`` (from another agent's ``source``: that
agent's words, ``author: agent``); ``AssistantMessage`` → ``thinking`` (``thought``), its text or
its calls; ``FunctionExecutionResultMessage`` → returns. A context holds no times: its actions
get synthetic ones.

A team state is read from its manager's ``message_thread`` (the team's conversation); each
agent's ``llm_context`` and ``message_buffer`` are the same conversation again as that agent saw
it (counted as records repeating it) and are kept whole in the thread's ``metadata.autogen``. A
team state with no manager thread gives one thread per agent context."""

from __future__ import annotations

from typing import Any

from threadlab.core.builder import ThreadBuilder
from threadlab.core.model import Thread, Usage
from threadlab.core.problems import short
from threadlab.formats.autogen_agentchat.wire import CHAT_TYPES, KEY, LLM_TYPES, USER
from threadlab.formats.common.arguments import parsed_arguments
from threadlab.formats.common.counts import counts_as

_TEXT_TYPES = frozenset({"TextMessage", "MultiModalMessage", "StructuredMessage", "ToolCallSummaryMessage", "StopMessage"})
_USAGE = {"prompt_tokens": "input_tokens", "completion_tokens": "output_tokens"}


class Reader:
    def __init__(self, b: ThreadBuilder) -> None:
        self.b = b
        self.title = ""
        self.names: dict[str, str] = {}
        self.answered: dict[str, str] = {}  # tool name -> the call id of its latest result (a handoff names its transfer call)

    def agent(self, source: Any) -> str | None:
        return self.b.agent(source) if isinstance(source, str) and source and source != USER else None

    def user(self, content: Any, source: Any, when: Any, meta: dict[str, Any]) -> None:
        if isinstance(source, str) and source not in (USER, ""):  # another agent's words, given as the user's
            meta = {**meta, "author": "agent", "agent_name": source}
        elif not self.title and isinstance(content, str) and content.strip():
            self.title = content.strip().splitlines()[0][:80]
        self.b.add("user_message", timestamp=when, content=content if isinstance(content, (str, list)) else short(content), metadata=meta)

    def calls(self, calls: list[Any], agent: str | None, when: Any, meta: dict[str, Any], usage: Usage | None) -> None:
        for k, call in enumerate(calls):
            c = call if type(call) is dict else {}
            call_id = c.get("id") if isinstance(c.get("id"), str) else ""
            name = c.get("name") if isinstance(c.get("name"), str) else ""
            self.names[call_id] = name
            action = self.b.add("tool_call", timestamp=when, agent_id=agent, tool_name=name, tool_call_id=call_id, args=parsed_arguments(c.get("arguments"), objects_only=True),
                                metadata=meta if k == 0 else None)
            if k == 0 and usage is not None:
                action.usage = usage.model_dump(exclude_none=True)  # type: ignore[attr-defined]  # a turn of calls only: its first call holds the figures

    def returns(self, results: list[Any], when: Any, meta: dict[str, Any]) -> None:
        for k, result in enumerate(results):
            r = result if type(result) is dict else {}
            call_id = r.get("call_id") if isinstance(r.get("call_id"), str) else ""
            name = r.get("name") if isinstance(r.get("name"), str) else self.names.get(call_id, "")
            self.answered[name] = call_id
            self.b.add("tool_return", timestamp=when, tool_call_id=call_id, tool_name=name, status="error" if r.get("is_error") is True else "success",
                       content=r.get("content"), metadata=meta if k == 0 else None)

    def usage(self, figures: Any) -> Usage | None:
        if type(figures) is not dict:
            return None
        problems: list[str] = []
        found = counts_as({k: (ours, figures.get(k)) for k, ours in _USAGE.items()}, problems, "models_usage.")
        for phrase in problems:
            self.b.problem("usage", phrase)
        return Usage(**found) if found else None

    # --- AgentChat messages -----------------------------------------------------------------
    def chat(self, messages: list[Any]) -> None:
        for index, m in enumerate(messages, 1):
            if type(m) is not dict or m.get("type") not in CHAT_TYPES:
                self.b.kept("unknown-type", f"message {index} is no AgentChat message ({short(m)}); kept as system.unknown_message")
                self.b.add("system.unknown_message", data=m, metadata={KEY: {"index": index}})
                continue
            self.chat_message(m, index)
            self.b.took()

    def chat_message(self, m: dict[str, Any], index: int) -> None:
        kind, source, content, when = m["type"], m.get("source"), m.get("content"), m.get("created_at")
        meta: dict[str, Any] = {KEY: {"index": index, **{k: v for k, v in m.items() if k != "content"}}}
        agent, usage = self.agent(source), self.usage(m.get("models_usage"))
        if kind in _TEXT_TYPES and agent is None:
            self.user(content, source, when, meta)
        elif kind in _TEXT_TYPES:
            self.b.add("assistant_message", timestamp=when, agent_id=agent, content=content if isinstance(content, (str, list)) else short(content), usage=usage, metadata=meta)
        elif kind == "ToolCallRequestEvent" and isinstance(content, list):
            self.calls(content, agent, when, meta, usage)
        elif kind == "ToolCallExecutionEvent" and isinstance(content, list):
            self.returns(content, when, meta)
        elif kind == "ThoughtEvent" and isinstance(content, str):
            self.b.add("thinking", timestamp=when, agent_id=agent, content=content, provider_name="autogen", metadata=meta)
        elif kind == "HandoffMessage":
            to = self.agent(m.get("target"))
            call_id = self.answered.pop(f"transfer_to_{m.get('target')}", None)  # the Handoff tool's default name
            data = {"from_agent_id": agent, "to_agent_id": to, "text": content, **({"tool_call_id": call_id} if call_id else {})}
            self.b.add("system.handoff", timestamp=when, data=data, metadata=meta)
        else:
            self.b.add(f"system.{kind}", timestamp=when, data=m, metadata={KEY: {"index": index}})

    # --- an agent's LLM context -------------------------------------------------------------
    def context(self, messages: list[Any], owner: str | None) -> None:
        for index, m in enumerate(messages, 1):
            if type(m) is not dict or m.get("type") not in LLM_TYPES:
                self.b.kept("unknown-type", f"llm_context message {index} is no autogen-core LLM message ({short(m)}); kept as system.unknown_message")
                self.b.add("system.unknown_message", data=m, metadata={KEY: {"index": index}})
                continue
            self.llm_message(m, index, owner)
            self.b.took()

    def llm_message(self, m: dict[str, Any], index: int, owner: str | None) -> None:
        kind, content = m["type"], m.get("content")
        meta: dict[str, Any] = {KEY: {"index": index, **{k: v for k, v in m.items() if k != "content"}}}
        if kind == "SystemMessage":
            self.b.add("system.prompt", data=content, metadata=meta)
        elif kind == "UserMessage":
            self.user(content, m.get("source"), None, meta)
        elif kind == "FunctionExecutionResultMessage":
            self.returns(content if isinstance(content, list) else [], None, meta)
        else:
            agent = self.agent(m.get("source")) or (self.b.agent(owner) if owner else None)
            if isinstance(m.get("thought"), str) and m["thought"]:
                self.b.add("thinking", agent_id=agent, content=m["thought"], provider_name="autogen")
            if isinstance(content, list):
                self.calls(content, agent, None, meta, None)
            else:
                self.b.add("assistant_message", agent_id=agent, content=content if isinstance(content, str) else short(content), metadata=meta)


def read_chat(b: ThreadBuilder, messages: list[Any], head: dict[str, Any] | None) -> Thread:
    reader = Reader(b)
    reader.chat(messages)
    if not messages:
        b.took()
    b.title = reader.title
    if head:
        b.metadata[KEY] = head
    return b.build()


def read_context(b: ThreadBuilder, messages: list[Any], owner: str | None, head: dict[str, Any] | None) -> Thread:
    reader = Reader(b)
    reader.context(messages, owner)
    b.title = reader.title
    if head:
        b.metadata[KEY] = head
    return b.build()
