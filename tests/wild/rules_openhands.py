"""OpenHands runs, counted from the raw bytes with orjson only, from OpenHands' own source: V0's
``openhands/events/serialization`` (``event_to_dict``: ``action`` / ``observation``, ``args``,
``cause``, ``tool_call_metadata.model_response``) and ``frontend/src/types/core/base.ts``; V1's
``openhands/sdk/event`` (``kind``) and ``ConversationState`` (``base_state.json``'s ``stats``).

V0 (a JSON array of events, an evaluation row's ``history``, JSON Lines of rows):
- human prompt: a ``message`` action from ``user``; harness turn: a ``message`` from
  ``environment``, the agent-state actions and observations (``change_agent_state``,
  ``agent_state_changed``), ``recall`` actions and observations answering no call,
  ``condensation`` actions, ``error`` observations answering no call;
- assistant text: an agent ``message`` with text, and the ``thought`` (the response's text) of any
  other agent action but ``think`` (whose ``thought`` is what the model passed the think tool);
- tool call: every other action (``run``, ``edit``, ``read``, ``finish`` the model called as a
  tool ...), but a ``finish`` without ``tool_call_metadata`` (no call); return: an observation
  whose ``cause`` is such a call; error: an ``error`` or ``user_rejected`` observation, an exit
  code other than 0 and -1 (-1: still running), ``success`` false;
- tokens: each ``model_response``'s ``usage`` once (by response id): ``prompt_tokens``,
  ``completion_tokens``, ``cache_read_input_tokens`` (else ``prompt_tokens_details.cached_tokens``),
  ``cache_creation_input_tokens``; the last ``llm_metrics.accumulated_token_usage`` instead when an
  event holds one.

V1 (``base_state.json`` and ``events/event-*.json`` beside it; or an array of events):
- human prompt: a user ``MessageEvent`` from ``user``; harness turn: a user ``MessageEvent`` from
  elsewhere, ``Condensation*``, ``ConversationStateUpdateEvent``, ``ConversationErrorEvent``,
  ``HookExecutionEvent``;
- assistant text: an assistant ``MessageEvent`` with text, an ``ActionEvent``'s ``thought`` text;
- tool call: an ``ActionEvent``; return: ``ObservationEvent`` (error: ``is_error``),
  ``AgentErrorEvent`` and ``UserRejectObservation`` (errors);
- tokens: ``stats.usage_to_metrics.*.accumulated_token_usage`` (``prompt_tokens``,
  ``completion_tokens``, ``cache_read_tokens``, ``cache_write_tokens``)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import orjson

from tests.wild.count import Counts, blank

_V1_FILE = re.compile(r"event-(\d+)-[0-9a-fA-F-]+\.json\Z")
_V0_FILE = re.compile(r"(\d+)\.json\Z")
_NOT_CALLS = {"message", "system", "change_agent_state", "recall", "condensation", "condensation_request"}
_HARNESS_V1 = {"Condensation", "CondensationRequest", "CondensationSummaryEvent", "ConversationStateUpdateEvent", "ConversationErrorEvent", "HookExecutionEvent"}


def _add(c: Counts, name: str, n: int = 1) -> None:
    setattr(c, name, (getattr(c, name) or 0) + n)


def _text(content: Any) -> str:
    if isinstance(content, str):
        return content
    return "".join(p.get("text") or "" for p in content if isinstance(p, dict) and p.get("type") == "text") if isinstance(content, list) else ""


def _v0(c: Counts, events: list[Any]) -> None:
    calls: set[Any] = set()
    responses: set[Any] = set()
    metrics = None
    for e in events:
        if not isinstance(e, dict):
            continue
        metrics = e["llm_metrics"] if isinstance(e.get("llm_metrics"), dict) else metrics
        tcm = e.get("tool_call_metadata") if isinstance(e.get("tool_call_metadata"), dict) else None
        response = tcm.get("model_response") if tcm and isinstance(tcm.get("model_response"), dict) else None
        if response is not None and response.get("id") not in responses:
            responses.add(response.get("id"))
            u = response.get("usage") if isinstance(response.get("usage"), dict) else {}
            details = u.get("prompt_tokens_details") if isinstance(u.get("prompt_tokens_details"), dict) else {}
            c.add_tokens(u.get("prompt_tokens"), u.get("completion_tokens"), u.get("cache_read_input_tokens", details.get("cached_tokens")), u.get("cache_creation_input_tokens"))
        args = e.get("args") if isinstance(e.get("args"), dict) else {}
        action, observation, source = e.get("action"), e.get("observation"), e.get("source")
        if isinstance(action, str):
            if action == "message":
                text = args.get("content")
                if source == "user":
                    _add(c, "human_prompts")
                elif source == "environment":
                    _add(c, "harness_turns")
                elif isinstance(text, str) and not blank(text):
                    _add(c, "assistant_texts")
            elif action in ("change_agent_state", "recall", "condensation", "condensation_request"):
                _add(c, "harness_turns")
            elif action not in _NOT_CALLS and not (action == "finish" and tcm is None):
                _add(c, "tool_calls")
                calls.add(e.get("id"))
            if action not in ("message", "think") and source == "agent" and isinstance(args.get("thought"), str) and not blank(args["thought"]) and action not in _NOT_CALLS:
                _add(c, "assistant_texts")
        elif isinstance(observation, str):
            if e.get("cause") in calls:
                calls.discard(e.get("cause"))
                _add(c, "tool_returns")
                meta = (e.get("extras") or {}).get("metadata") if isinstance(e.get("extras"), dict) else None
                code = meta.get("exit_code") if isinstance(meta, dict) else None
                if observation in ("error", "user_rejected") or (isinstance(code, int) and code not in (0, -1)) or e.get("success") is False:
                    _add(c, "tool_errors")
            elif observation in ("agent_state_changed", "recall", "error"):
                _add(c, "harness_turns")
    if metrics is not None:
        used = metrics.get("accumulated_token_usage") if isinstance(metrics.get("accumulated_token_usage"), dict) else {}
        c.input_tokens = c.output_tokens = c.cache_read_tokens = c.cache_write_tokens = None
        c.add_tokens(used.get("prompt_tokens"), used.get("completion_tokens"), used.get("cache_read_tokens"), used.get("cache_write_tokens"))


def _v1(c: Counts, events: list[Any], state: dict[str, Any] | None) -> None:
    for e in events:
        kind = e.get("kind") if isinstance(e, dict) else None
        if kind == "MessageEvent":
            m = e.get("llm_message") if isinstance(e.get("llm_message"), dict) else {}
            if m.get("role") == "assistant":
                _add(c, "assistant_texts", not blank(_text(m.get("content"))))
            else:
                _add(c, "human_prompts" if e.get("source") == "user" else "harness_turns")
        elif kind == "ActionEvent":
            _add(c, "tool_calls")
            _add(c, "assistant_texts", not blank(_text(e.get("thought"))))
        elif kind == "ObservationEvent":
            _add(c, "tool_returns")
            _add(c, "tool_errors", (e.get("observation") or {}).get("is_error") is True)
        elif kind in ("AgentErrorEvent", "UserRejectObservation"):
            _add(c, "tool_returns")
            _add(c, "tool_errors")
        elif kind in _HARNESS_V1:
            _add(c, "harness_turns")
    stats = (state or {}).get("stats") if isinstance((state or {}).get("stats"), dict) else {}
    for m in (stats.get("usage_to_metrics") or {}).values():
        used = m.get("accumulated_token_usage") if isinstance(m, dict) and isinstance(m.get("accumulated_token_usage"), dict) else {}
        c.add_tokens(used.get("prompt_tokens"), used.get("completion_tokens"), used.get("cache_read_tokens"), used.get("cache_write_tokens"))


def event_paths(folder: Path) -> list[Path]:
    """An ``events/`` folder's event files in order (V1 ``event-<n>-<uuid>.json``, V0 ``<n>.json``)."""
    v1 = sorted((int(m.group(1)), p) for p in folder.iterdir() if (m := _V1_FILE.match(p.name)))
    v0 = sorted((int(m.group(1)), p) for p in folder.iterdir() if (m := _V0_FILE.match(p.name)))
    return [p for _, p in (v1 if len(v1) >= len(v0) else v0)]


def openhands(path: Path) -> Counts:
    c = Counts()
    try:
        value = orjson.loads(path.read_bytes())
    except orjson.JSONDecodeError:  # JSON Lines of evaluation rows
        for line in path.read_bytes().splitlines():
            if line.strip():
                _v0(c, orjson.loads(line)["history"])
        return c
    if isinstance(value, dict) and "execution_status" in value and (path.parent / "events").is_dir():
        _v1(c, [orjson.loads(p.read_bytes()) for p in event_paths(path.parent / "events")], value)
        return c
    if isinstance(value, dict) and isinstance(value.get("history"), list):
        value = value["history"]
    events = value if isinstance(value, list) else [value]
    if any(isinstance(e, dict) and "kind" in e for e in events[:3]):
        _v1(c, events, None)
    else:
        _v0(c, events)
    return c
