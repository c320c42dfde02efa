"""The shape of Google ADK sessions (``google-adk``, ``google.adk.sessions.Session`` and
``google.adk.events.Event``, pydantic models with camelCase aliases).

A **session** is one JSON object: ``id``, ``app_name`` / ``appName``, ``user_id`` / ``userId``,
``state``, ``events``, ``last_update_time`` / ``lastUpdateTime``. The same model is written two
ways: by field name (``session.model_dump_json()``; ``adk run --save_session`` before 1.x's alias
switch) and by alias (what ``adk api_server`` / ``adk web`` return, and ``adk run --save_session``
of 2.x: ``model_dump_json(by_alias=True, exclude_none=True)``). Sessions of ADK's first releases
(late 2024, committed as test fixtures) hold ``context`` for the state and ``options`` in each
event. ``POST /run`` returns a JSON array of the events of one invocation (no session around it).

An **event** is the model's ``LlmResponse`` (``content`` {``role``, ``parts``}, ``usage_metadata``,
``model_version``, ``finish_reason``, ``error_code`` / ``error_message``, ``partial``, ...) plus
``author`` ("user" or the agent's name), ``invocation_id``, ``id``, ``timestamp`` (seconds),
``branch`` (1.x: ``root.sub`` for a sub-agent's events) or ``node_info.path`` (2.x), and ``actions``
(``state_delta``, ``artifact_delta``, ``transfer_to_agent``, ``escalate``, ``requested_auth_configs``,
...). A part is a google-genai ``Part``: ``text`` (with ``thought: true`` the model's thinking),
``function_call`` {``id``, ``name``, ``args``}, ``function_response`` {``id``, ``name``,
``response``}, or media and code parts. ``usage_metadata`` is Gemini's: ``prompt_token_count``
(cached ones inside), ``candidates_token_count`` (thoughts not inside), ``thoughts_token_count``,
``cached_content_token_count``, ``total_token_count``.

Every key is read under its field name first, then its alias (``get``)."""

from __future__ import annotations

from typing import Any

KEY = "google_adk"
USER = "user"
TRANSFER_TOOL = "transfer_to_agent"
# usage_metadata → Usage (gemini-cli's reading of the same API figures)
USAGE = {"prompt_token_count": "input_tokens", "candidates_token_count": "output_tokens", "total_token_count": "total_tokens",
         "thoughts_token_count": "thinking_tokens", "cached_content_token_count": "cache_read_tokens"}
EVENT_MARKS = ("author",)
SESSION_ID_KEYS = ("app_name", "appName", "context")


def camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(w[:1].upper() + w[1:] for w in rest)


def get(obj: Any, name: str) -> Any:
    """``obj[name]`` under the field name, else under its camelCase alias (None when neither)."""
    if type(obj) is not dict:
        return None
    if name in obj:
        return obj[name]
    return obj.get(camel(name))


def is_event(value: Any) -> bool:
    """An ADK event: an ``author`` text and an invocation id (under either name)."""
    return type(value) is dict and isinstance(value.get("author"), str) and ("invocation_id" in value or "invocationId" in value)


def is_session(value: Any) -> bool:
    """A saved session: ``id`` and a list of ``events``, with the app name (or a first release's
    ``context``), or whose first event is an ADK event."""
    if type(value) is not dict or not isinstance(value.get("events"), list) or "id" not in value:
        return False
    events = value["events"]
    return (any(k in value for k in SESSION_ID_KEYS) and ("state" in value or "context" in value or "userId" in value or "user_id" in value)) or (bool(events) and is_event(events[0]))


def is_event_list(value: Any) -> bool:
    """``POST /run``'s answer: a non-empty JSON array of events."""
    return isinstance(value, list) and bool(value) and all(is_event(v) for v in value[:3])
