"""The shapes of an OpenHands run, both generations.

**V0** (``openhands-ai`` up to 0.x, ``openhands/events/serialization/event.py`` ``event_to_dict``):
an event is ``{id, timestamp, source (user | agent | environment), message, ...}`` with either
``action`` (``message``, ``system``, ``run``, ``run_ipython``, ``read``, ``write``, ``edit``,
``browse``, ``browse_interactive``, ``think``, ``finish``, ``reject``, ``delegate``, ``recall``,
``change_agent_state``, ``condensation``, ``mcp``, ...) and its ``args``, or ``observation``
(``run``, ``read``, ``edit``, ``error``, ``agent_state_changed``, ``recall``, ``null``,
``delegate``, ...) with ``content``, ``extras`` and ``cause`` (the id of the action it answers).
An action the model called as a tool carries ``tool_call_metadata`` (``function_name``,
``tool_call_id``, ``model_response`` with its ``usage``), and newer ones ``llm_metrics``
(``accumulated_cost``, ``accumulated_token_usage``). The files: a JSON array of events
(``--save-trajectory-path``, the runtime tests' ``tests/runtime/trajs/*.json``), an evaluation
``output.jsonl`` row (``instance_id``, ``history``: the events, ``metrics``, ...), and the session
file store ``sessions/<sid>/events/<n>.json`` (one event a file).

**V1** (``openhands-sdk``, software-agent-sdk): an event is ``{id, timestamp, source, kind, ...}``
with ``kind`` one of ``SystemPromptEvent``, ``MessageEvent`` (``llm_message``), ``ActionEvent``
(``thought``, ``reasoning_content``, ``thinking_blocks``, ``action``, ``tool_name``,
``tool_call_id``, ``tool_call``, ``llm_response_id``), ``ObservationEvent`` (``observation``,
``action_id``, ``tool_call_id``), ``AgentErrorEvent``, ``UserRejectObservation``, ``Condensation``,
``CondensationRequest``, ``CondensationSummaryEvent``, ``ConversationStateUpdateEvent``,
``PauseEvent``, ``ConversationErrorEvent``. A conversation is a folder ``<id>/`` of
``base_state.json`` (agent, LLM config, ``stats.usage_to_metrics``: per-response ``token_usages``
by ``response_id``, ``accumulated_cost``) and ``events/event-<n>-<uuid>.json``, one event a file."""

from __future__ import annotations

import os
import re
from typing import Any

V1_KINDS = frozenset({
    "SystemPromptEvent", "MessageEvent", "ActionEvent", "ObservationEvent", "AgentErrorEvent", "UserRejectObservation",
    "Condensation", "CondensationRequest", "CondensationSummaryEvent", "ConversationStateUpdateEvent", "PauseEvent",
    "ConversationErrorEvent", "TokenEvent", "LLMCompletionLogEvent", "HookExecutionEvent", "StreamingDeltaEvent",
})
SOURCES = frozenset({"user", "agent", "environment", "hook"})
V1_EVENT_FILE = re.compile(r"event-(\d+)-[0-9a-fA-F-]+\.json\Z")
V0_EVENT_FILE = re.compile(r"(\d+)\.json\Z")
BASE_STATE = "base_state.json"
EVENTS = "events"


def is_v0_event(value: Any) -> bool:
    return type(value) is dict and value.get("source") in SOURCES and (isinstance(value.get("action"), str) or isinstance(value.get("observation"), str)) and "id" in value


def is_v1_event(value: Any) -> bool:
    return type(value) is dict and value.get("kind") in V1_KINDS and isinstance(value.get("id"), str) and "source" in value


def is_event(value: Any) -> bool:
    return is_v0_event(value) or is_v1_event(value)


def is_event_list(value: Any) -> bool:
    """A JSON array whose first events (up to three) are OpenHands events of one generation."""
    if type(value) is not list or not value:
        return False
    head = value[:3]
    return all(is_v0_event(e) for e in head) or all(is_v1_event(e) for e in head)


def is_eval_row(value: Any) -> bool:
    """An evaluation ``output.jsonl`` row: ``instance_id`` beside a ``history`` of events."""
    return type(value) is dict and "instance_id" in value and is_event_list(value.get("history"))


def is_base_state(value: Any) -> bool:
    """A V1 conversation's ``base_state.json``: its id, agent and stats."""
    return type(value) is dict and isinstance(value.get("id"), str) and type(value.get("agent")) is dict and "stats" in value and "execution_status" in value


def event_files(folder: str) -> list[tuple[int, str]]:
    """The event files of an ``events/`` folder in their order: ``(n, name)``, V1's
    ``event-<n>-<uuid>.json`` or V0's ``<n>.json`` (whichever the folder holds more of)."""
    try:
        names = os.listdir(folder)
    except OSError:
        return []
    v1 = [(int(m.group(1)), n) for n in names if (m := V1_EVENT_FILE.match(n))]
    v0 = [(int(m.group(1)), n) for n in names if (m := V0_EVENT_FILE.match(n))]
    return sorted(v1 if len(v1) >= len(v0) else v0)


def text_of(content: Any) -> str:
    """The text of a V1 content list (``[{type: text, text}, ...]``) or a plain string."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(p["text"] for p in content if type(p) is dict and p.get("type") == "text" and isinstance(p.get("text"), str))
    return ""
