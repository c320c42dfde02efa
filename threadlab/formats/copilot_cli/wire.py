"""The GitHub Copilot CLI's session files, as the program writes them.

Since 0.0.3xx each session is a folder ``~/.copilot/session-state/<session id>/`` whose
``events.jsonl`` is the session's event log: one JSON object a line, the envelope
``{"type", "data", "id", "timestamp", "parentId"}`` of every session event the Copilot SDK
describes (``session-events.schema.json`` of ``github/copilot-sdk``: ``session.start``,
``user.message``, ``system.message``, ``assistant.message`` with its ``toolRequests``,
``assistant.reasoning``, ``tool.execution_start`` / ``_complete``, ``session.usage_record`` (and
``assistant.usage`` before it), ``subagent.*``, ``hook.*``, ``session.shutdown`` ...). Events a
subagent writes carry its id in the envelope's ``agentId`` (1.0.x; ``subagent.started`` names
it) and, for its tools and answers, its launching call in ``data.parentToolCallId``. Beside it the folder holds
``workspace.yaml``, ``checkpoints/``, ``rewind-file-snapshots/`` and lock files (no
conversation).

Earlier releases wrote one JSON object per session, ``~/.copilot/history-session-state/
session_<id>_<time>.json``: ``sessionId``, ``startTime``, ``chatMessages`` (OpenAI Chat
Completions messages) and a ``timeline`` of what the terminal showed."""

from __future__ import annotations

from typing import Any

ENVELOPE = frozenset({"type", "data", "id", "timestamp", "parentId"})
START = "session.start"

# events that are the session's structure, already given by another event, or its bookkeeping:
# no action of their own (each is kept on the next action, so a written session gives them back)
QUIET = frozenset({
    "assistant.turn_start", "assistant.turn_end", "tool.execution_start", "tool.execution_progress",
    "tool.execution_partial_result", "assistant.message_delta", "assistant.reasoning_delta",
    "assistant.streaming_delta", "session.usage_record", "assistant.usage", "session.usage_checkpoint",
    "session.idle", "pending_messages.modified", "tool.user_requested", "session.title_changed",
})

# events that are a system.* action of their own (data kept as it came)
SYSTEM = {
    "session.resume": "system.session_resumed",
    "session.info": "system.info",
    "session.warning": "system.warning",
    "session.error": "system.error",
    "session.model_change": "system.model_change",
    "session.mode_changed": "system.mode_change",
    "session.plan_changed": "system.plan_change",
    "session.truncation": "system.truncation",
    "session.compaction_start": "system.compaction_start",
    "session.compaction_complete": "system.compaction",
    "session.handoff": "system.handoff",
    "session.snapshot_rewind": "system.rewind",
    "session.auto_mode_resolved": "system.auto_mode",
    "session.task_complete": "system.task_complete",
    "session.shutdown": "system.session_end",
    "session.context_changed": "system.context_change",
    "session.workspace_file_changed": "system.workspace_file_change",
    "session.skills_loaded": "system.skills_loaded",
    "system.notification": "system.notification",
    "hook.start": "system.hook_start",
    "hook.end": "system.hook_end",
    "subagent.selected": "system.subagent_selected",
    "subagent.configured": "system.subagent_configured",
    "subagent.completed": "system.subagent_completed",
    "subagent.failed": "system.subagent_failed",
    "skill.invoked": "system.skill_invoked",
    "abort": "system.abort",
}

# usage figures in the CLI's names → ThreadProtocol's (``inputTokens`` counts cached tokens too)
TOKENS = {"inputTokens": "input_tokens", "outputTokens": "output_tokens", "cacheReadTokens": "cache_read_tokens", "cacheWriteTokens": "cache_write_tokens", "reasoningTokens": "thinking_tokens"}


def is_event(value: Any) -> bool:
    """An event line: a ``type`` string and a ``data`` object (the envelope's ``id`` and
    ``timestamp`` may be missing in hand-made files)."""
    return type(value) is dict and isinstance(value.get("type"), str) and type(value.get("data")) is dict


def is_start(value: Any) -> bool:
    """A ``session.start`` event (``producer`` ``copilot-agent``, or a ``copilotVersion``)."""
    if not is_event(value) or value["type"] != START:
        return False
    data = value["data"]
    return data.get("producer") == "copilot-agent" or "copilotVersion" in data


def is_legacy(value: Any) -> bool:
    """A session of the single-file generation: ``sessionId`` and a ``chatMessages`` list."""
    return type(value) is dict and isinstance(value.get("sessionId"), str) and isinstance(value.get("chatMessages"), list)


def usage_of(event: dict[str, Any]) -> dict[str, Any] | None:
    """The figures of a usage event: ``session.usage_record``'s ``data.usage``, or
    ``assistant.usage``'s ``data`` itself."""
    data = event["data"]
    figures = data.get("usage") if event["type"] == "session.usage_record" else data
    return figures if type(figures) is dict else None


def shutdown_totals(data: dict[str, Any]) -> dict[str, int] | None:
    """A ``session.shutdown``'s ``modelMetrics`` (model → ``{"usage": {...}}``) summed over the
    models, in ThreadProtocol's names (reasoning tokens are in the output tokens: not added)."""
    metrics = data.get("modelMetrics")
    total: dict[str, int] = {}
    for model in metrics.values() if type(metrics) is dict else []:
        usage = model.get("usage") if type(model) is dict else None
        for theirs, ours in TOKENS.items():
            value = usage.get(theirs) if type(usage) is dict else None
            if ours != "thinking_tokens" and type(value) is int:
                total[ours] = total.get(ours, 0) + value
    return total or None
