"""AutoGen AgentChat saved states and run messages, counted from the raw bytes with orjson only,
from ``autogen_agentchat/messages.py``, ``autogen_agentchat/state/_states.py`` and autogen-core's
``LLMMessage`` types:

- human prompt: a text-bearing AgentChat message (``TextMessage``, ``MultiModalMessage``,
  ``StructuredMessage``, ``ToolCallSummaryMessage``, ``StopMessage``) whose ``source`` is ``user``;
  in an ``llm_context`` (or the 0.4.0 previews' ``llm_messages``), a ``UserMessage`` whose ``source`` is ``user`` (one from another agent's
  ``source`` is that agent's words: neither a prompt nor a harness turn);
- assistant text: such a message from any other source with something but whitespace; an
  ``AssistantMessage`` whose ``content`` is text;
- tool call: each ``FunctionCall`` of a ``ToolCallRequestEvent`` or an ``AssistantMessage``;
- return: each ``FunctionExecutionResult`` of a ``ToolCallExecutionEvent`` or a
  ``FunctionExecutionResultMessage``; error: one with ``is_error: true``;
- tokens: each message's ``models_usage`` (``prompt_tokens``, ``completion_tokens``).

A team state's conversation is its manager's ``message_thread``; the agents' contexts repeat it
as each saw it and are not counted again."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson

from tests.wild.count import Counts, blank

_TEXT = {"TextMessage", "MultiModalMessage", "StructuredMessage", "ToolCallSummaryMessage", "StopMessage"}


def _calls(c: Counts, calls: Any) -> None:
    c.tool_calls = (c.tool_calls or 0) + (len(calls) if isinstance(calls, list) else 0)


def _returns(c: Counts, results: Any) -> None:
    for r in results if isinstance(results, list) else []:
        c.tool_returns = (c.tool_returns or 0) + 1
        if isinstance(r, dict) and r.get("is_error") is True:
            c.tool_errors = (c.tool_errors or 0) + 1


def _chat(c: Counts, messages: list[Any]) -> None:
    for m in messages:
        kind = m.get("type") if isinstance(m, dict) else None
        if kind in _TEXT:
            if m.get("source") == "user":
                c.human_prompts = (c.human_prompts or 0) + 1
            elif not blank(m.get("content")):
                c.assistant_texts = (c.assistant_texts or 0) + 1
        elif kind == "ToolCallRequestEvent":
            _calls(c, m.get("content"))
        elif kind == "ToolCallExecutionEvent":
            _returns(c, m.get("content"))
        usage = m.get("models_usage") if isinstance(m, dict) else None
        if isinstance(usage, dict):
            c.add_tokens(usage.get("prompt_tokens"), usage.get("completion_tokens"))


def _context(c: Counts, messages: list[Any]) -> None:
    for m in messages:
        kind = m.get("type") if isinstance(m, dict) else None
        if kind == "UserMessage" and m.get("source") == "user":
            c.human_prompts = (c.human_prompts or 0) + 1
        elif kind == "AssistantMessage":
            if isinstance(m.get("content"), list):
                _calls(c, m["content"])
            elif not blank(m.get("content")):
                c.assistant_texts = (c.assistant_texts or 0) + 1
        elif kind == "FunctionExecutionResultMessage":
            _returns(c, m.get("content"))


def _llm(state: dict[str, Any]) -> list[Any]:
    """An agent state's messages: ``llm_context.messages``, or the 0.4.0 previews' ``llm_messages`` list."""
    context = state.get("llm_context")
    return (context.get("messages") if isinstance(context, dict) else state.get("llm_messages")) or []


def autogen_agentchat(path: Path) -> Counts:
    value = orjson.loads(path.read_bytes())
    c = Counts()
    if isinstance(value, list):
        _chat(c, value)
    elif value.get("type") == "AssistantAgentState":
        _context(c, _llm(value))
    elif value.get("type") == "TeamState":
        states = [s for s in value["agent_states"].values() if isinstance(s, dict)]
        thread = next((s["message_thread"] for s in states if s.get("message_thread")), None)
        if thread is not None:
            _chat(c, thread)
        else:
            for s in states:
                _context(c, _llm(s.get("agent_state", s)))
    else:
        _chat(c, value["messages"])
    return c
