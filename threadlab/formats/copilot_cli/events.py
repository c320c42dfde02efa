"""Every session event type the Copilot CLI 1.0.102 declares (``schemas/session-events.schema.json``
of the npm package, the schema ``github/copilot-sdk`` generates its types from), ephemeral ones
too (the CLI leaves those out of ``events.jsonl``, but a capture of the SDK's stream holds them).
An event of one of these types that ``wire.py`` maps to nothing of its own is a ``system.*``
action named after it (``session.todos_changed`` → ``system.session_todos_changed``); a type not
listed is unknown (an ``unknown-type`` problem)."""

from __future__ import annotations

EVENT_TYPES = frozenset({
    "abort", "agent.interrupted", "assistant.fusion_phase_activity", "assistant.fusion_phase_completed",
    "assistant.fusion_phase_failed", "assistant.fusion_phase_started", "assistant.idle", "assistant.intent",
    "assistant.message", "assistant.message_delta", "assistant.message_start", "assistant.reasoning",
    "assistant.reasoning_delta", "assistant.server_tool_progress", "assistant.streaming_delta",
    "assistant.tool_call_delta", "assistant.turn_end", "assistant.turn_retry", "assistant.turn_start",
    "assistant.usage", "auto_mode_switch.completed", "auto_mode_switch.requested", "capabilities.changed",
    "command.completed", "command.execute", "command.queued", "commands.changed", "elicitation.completed",
    "elicitation.requested", "exit_plan_mode.completed", "exit_plan_mode.requested", "external_tool.completed",
    "external_tool.requested", "hook.end", "hook.progress", "hook.start", "human_response.recorded",
    "mcp.headers_refresh_completed", "mcp.headers_refresh_required", "mcp.oauth_completed",
    "mcp.oauth_recovery_completed", "mcp.oauth_required", "mcp.prompts.list_changed", "mcp.resources.list_changed",
    "mcp.tools.list_changed", "mcp_app.tool_call_complete", "model.call_failure", "model.call_final_result",
    "model.call_finished", "model.call_start", "pending_messages.modified", "permission.assentDetected",
    "permission.carriedForward", "permission.completed", "permission.contextualAuthorization",
    "permission.messageAuthorization", "permission.messageAuthorizationDegraded", "permission.messageAuthorizationRead",
    "permission.requested", "prompt_cache_break", "sampling.completed", "sampling.requested", "sandbox.decision",
    "session.auto_mode_resolved", "session.auto_tier_recommendation", "session.auto_tier_switch_failed",
    "session.autopilot_objective_changed", "session.autopilot_stopped", "session.background_tasks_changed",
    "session.binary_asset", "session.canvas.closed", "session.canvas.opened", "session.canvas.recorded",
    "session.canvas.registry_changed", "session.canvas.removed", "session.canvas.unavailable",
    "session.compaction_complete", "session.compaction_start", "session.completion_receipt", "session.context_changed",
    "session.context_cleared", "session.custom_agents_updated", "session.custom_notification", "session.error",
    "session.extensions.attachments_pushed", "session.extensions_loaded", "session.fusion_change_checkpoint",
    "session.fusion_commit_started", "session.fusion_completed", "session.fusion_handoff", "session.fusion_resolved",
    "session.fusion_route_failed", "session.fusion_route_started", "session.handoff", "session.idle",
    "session.indexed_search", "session.info", "session.managed_plugin_progress", "session.managed_settings_enforced",
    "session.managed_settings_resolved", "session.mcp_server_needs_reconnect", "session.mcp_server_removed",
    "session.mcp_server_status_changed", "session.mcp_server_tools_loaded", "session.mcp_servers_loaded",
    "session.memory_changed", "session.mode_changed", "session.mode_notice_delivered", "session.model_change",
    "session.model_deselected", "session.permission_recovery", "session.permissions_changed", "session.plan_changed",
    "session.quota_observation", "session.remote_steerable_changed", "session.request_body_compression_disabled",
    "session.resume", "session.schedule_cancelled", "session.schedule_created", "session.schedule_rearmed",
    "session.session_limits_changed", "session.shutdown", "session.skills_loaded", "session.snapshot_rewind",
    "session.start", "session.task_complete", "session.title_changed", "session.todos_changed", "session.tools_updated",
    "session.truncation", "session.usage_checkpoint", "session.usage_info", "session.usage_record", "session.warning",
    "session.workspace_file_changed", "session_limits_exhausted.completed", "session_limits_exhausted.requested",
    "skill.context_delivered", "skill.context_delivered_ref", "skill.invoked", "skill.invoked_ref",
    "subagent.completed", "subagent.configured", "subagent.deselected", "subagent.failed", "subagent.selected",
    "subagent.started", "system.message", "system.notification", "tool.execution_complete",
    "tool.execution_partial_result", "tool.execution_progress", "tool.execution_start", "tool.shell_output",
    "tool.user_requested", "tool_search.activated", "ui.ephemeral_query", "user.message", "user_input.completed",
    "user_input.requested", "workflow.run_settled", "workflow.run_started", "workflow.run_updated"
})
