"""AutoGen AgentChat conversations → threads: an agent's saved state (``agent.save_state()``), a
team's (``team.save_state()``), and the messages of a run (a ``TaskResult`` dump, or a list of
AgentChat messages). See ``wire.py`` for the shapes and ``reading.py`` for the threads. A reader
only: a saved state is the framework's own (it is loaded back with ``load_state``), and
threadlab's threads are converted to other formats."""

from __future__ import annotations

from typing import Any

from threadlab.core.builder import ThreadBuilder
from threadlab.core.model import Thread
from threadlab.formats.autogen_agentchat.reading import read_chat, read_context
from threadlab.formats.autogen_agentchat.wire import (
    EARLY_CONTEXT,
    KEY,
    context_messages,
    is_agent_state,
    is_message_list,
    is_task_result,
    is_team_state,
)
from threadlab.formats.common.json_lines import HEAD, refusal
from threadlab.formats.common.source import Source

NAME = "autogen-agentchat"
_MARKS = (b'"AssistantAgentState"', b'"TeamState"', b'"stop_reason"', b'"models_usage"')


def detect(source: Source) -> bool:
    if source.is_dir or source.is_object:
        return False
    head = source.head(HEAD)
    if head.lstrip()[:1] not in (b"{", b"[") or not any(m in head for m in _MARKS):
        return False
    value = source.try_json()
    return is_agent_state(value) or is_team_state(value) or is_task_result(value) or is_message_list(value)


def _team(source: Source, value: dict[str, Any]) -> list[Thread]:
    """The manager's ``message_thread``; the agents' contexts and buffers repeat it."""
    states: dict[str, Any] = value["agent_states"]
    thread = next((s["message_thread"] for s in states.values() if type(s) is dict and isinstance(s.get("message_thread"), list) and s["message_thread"]), None)
    inner = {name: s.get("agent_state") if type(s) is dict and "agent_state" in s else s for name, s in states.items()}
    if thread is not None:
        b = ThreadBuilder(None, source=source.name)
        repeats = sum(len(context_messages(s) or []) for s in inner.values())
        repeats += sum(len(s["message_buffer"]) for s in states.values() if type(s) is dict and isinstance(s.get("message_buffer"), list))
        if repeats:
            b.took(repeats)
        return [read_chat(b, thread, value)]
    threads = [read_context(ThreadBuilder(None, source=source.name), context_messages(s) or [], name, {**value, "agent": name})
               for name, s in inner.items() if context_messages(s) is not None]
    if not threads:
        b = ThreadBuilder(None, source=source.name)
        b.took()
        threads = [read_chat(b, [], value)]
    return threads


def to_threads(source: Source) -> list[Thread]:
    if not detect(source):
        raise refusal(source, f"is not an AutoGen AgentChat state or run (no AssistantAgentState, TeamState, TaskResult or message list: {source.describe()})")
    value = source.try_json()
    if is_team_state(value):
        return _team(source, value)
    b = ThreadBuilder(None, source=source.name)
    if is_agent_state(value):
        messages = context_messages(value) or []
        if not messages:
            b.took()
        return [read_context(b, messages, None, {k: v for k, v in value.items() if k not in ("llm_context", EARLY_CONTEXT)})]
    if isinstance(value, list):
        return [read_chat(b, value, None)]
    return [read_chat(b, value["messages"], {k: v for k, v in value.items() if k != "messages"})]


def from_thread(thread: Thread) -> bytes:
    raise ValueError(f"threadlab does not write AutoGen AgentChat states (thread {thread.thread_id}; a saved state is the framework's own, loaded back with load_state): convert to another format, e.g. --to atif")


__all__ = ["KEY", "NAME", "detect", "from_thread", "to_threads"]
