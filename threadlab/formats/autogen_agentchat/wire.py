"""The shape of AutoGen AgentChat's saved conversations (``autogen-agentchat`` 0.4 and later).

- **Agent state**: ``await agent.save_state()`` of an ``AssistantAgent``, ``{"type":
  "AssistantAgentState", "version", "llm_context": {"messages": [...]}}``: autogen-core's
  ``LLMMessage``s, each with its ``type``: ``SystemMessage`` {``content``}, ``UserMessage``
  {``content`` (text or a list with images), ``source``}, ``AssistantMessage`` {``content``: text or
  a list of ``FunctionCall`` {``id``, ``name``, ``arguments`` (JSON text)}, ``thought``, ``source``},
  ``FunctionExecutionResultMessage`` {``content``: a list of ``FunctionExecutionResult``
  {``content``, ``name``, ``call_id``, ``is_error``}}. No times, no usage. The 0.4.0 development
  releases of December 2024 (state saving came in autogen#4436, the model context in #4681) wrote
  the same messages as a plain list, ``"llm_messages": [...]`` (AutoGen's own state tutorial still
  shows that output): read as the same context.
- **Team state**: ``await team.save_state()``, ``{"type": "TeamState", "agent_states": {name:
  ...}}``: each participant's ``ChatAgentContainerState`` {``agent_state`` (the agent's own state),
  ``message_buffer``} and the group chat manager's state (``RoundRobinManagerState``,
  ``SelectorManagerState``, ``SwarmManagerState``, ``MagenticOneOrchestratorState`` ...) holding
  ``message_thread``: the team's conversation as AgentChat messages.
- **Messages**: a ``TaskResult`` (``{"messages": [...], "stop_reason"}``: what ``run()`` returns,
  dumped with ``model_dump``) or a list of them. Each AgentChat message has ``type``, ``source`` (the
  agent's name, or ``user``), ``id``, ``created_at``, ``models_usage`` {``prompt_tokens``,
  ``completion_tokens``}, ``metadata``: ``TextMessage``, ``MultiModalMessage``, ``StopMessage``,
  ``ToolCallSummaryMessage``, ``HandoffMessage`` (``target``, ``context``), ``StructuredMessage``;
  the events ``ToolCallRequestEvent`` (``content``: ``FunctionCall``s), ``ToolCallExecutionEvent``
  (``content``: ``FunctionExecutionResult``s), ``ThoughtEvent``, ``MemoryQueryEvent``,
  ``UserInputRequestedEvent``, ``ModelClientStreamingChunkEvent``, ``CodeGenerationEvent``,
  ``CodeExecutionEvent``, ``SelectSpeakerEvent``, ``SelectorEvent``."""

from __future__ import annotations

from typing import Any

KEY = "autogen"
USER = "user"
AGENT_STATE = "AssistantAgentState"
TEAM_STATE = "TeamState"
EARLY_CONTEXT = "llm_messages"  # the 0.4.0 previews' name of the agent's context, a plain list
LLM_TYPES = frozenset({"SystemMessage", "UserMessage", "AssistantMessage", "FunctionExecutionResultMessage"})
CHAT_TYPES = frozenset({"TextMessage", "MultiModalMessage", "StopMessage", "ToolCallSummaryMessage", "HandoffMessage", "StructuredMessage",
                        "ToolCallRequestEvent", "ToolCallExecutionEvent", "ThoughtEvent", "MemoryQueryEvent", "UserInputRequestedEvent",
                        "ModelClientStreamingChunkEvent", "CodeGenerationEvent", "CodeExecutionEvent", "SelectSpeakerEvent", "SelectorEvent"})


def context_messages(state: Any) -> list[Any] | None:
    """An agent state's LLM messages: ``llm_context.messages``, or the earlier ``llm_messages``."""
    if type(state) is not dict:
        return None
    context = state.get("llm_context")
    messages = context.get("messages") if type(context) is dict else state.get(EARLY_CONTEXT)
    return messages if isinstance(messages, list) else None


def is_agent_state(value: Any) -> bool:
    return type(value) is dict and value.get("type") == AGENT_STATE and (type(value.get("llm_context")) is dict or isinstance(value.get(EARLY_CONTEXT), list))


def is_team_state(value: Any) -> bool:
    return type(value) is dict and value.get("type") == TEAM_STATE and type(value.get("agent_states")) is dict


def is_chat_message(value: Any) -> bool:
    return type(value) is dict and value.get("type") in CHAT_TYPES and "source" in value


def is_task_result(value: Any) -> bool:
    """A ``TaskResult`` dump: ``messages`` of AgentChat messages (the first names its type), and
    ``stop_reason``."""
    if type(value) is not dict or not isinstance(value.get("messages"), list) or "stop_reason" not in value:
        return False
    return not value["messages"] or is_chat_message(value["messages"][0])


def is_message_list(value: Any) -> bool:
    return isinstance(value, list) and bool(value) and all(is_chat_message(v) for v in value[:3])

