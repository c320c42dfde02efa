"""What a Claude Code transcript cannot hold of a thread not read from Claude, counted while
writing and named in the writer's ``WriteLoss`` warning (a thread read from Claude comes back
whole: it lost nothing)."""

from __future__ import annotations

from collections import Counter

from threadlab.core.model import BaseAction, SystemAction, Thread
from threadlab.formats.claude.blocks import wire_usage
from threadlab.formats.claude.usage import to_usage

# action metadata a transcript line carries (model, provider) or the reader derives (links)
_CARRIED = frozenset({"model_name", "provider_name", "parent_tool_call_id", "to_agent_id"})
_USAGE_KEYS = ("input_tokens", "output_tokens", "total_tokens", "cache_read_tokens", "cache_write_tokens")


class Losses:
    def __init__(self, thread: Thread, from_claude: bool) -> None:
        self.counts: Counter[str] = Counter()
        self.from_claude = from_claude
        self.calls = {getattr(a, "tool_call_id", None) for a in thread.actions if a.action_type == "tool_call"}
        sessions = ((thread.metadata or {}).get("claude") or {}).get("sessions_in_file")
        if from_claude and isinstance(sessions, int) and sessions > 1:  # read alone, a session takes its id and shared fields from its own lines
            self.counts[f"the file's other {sessions - 1} session(s) (each thread is written alone)"] += 1
        if from_claude:
            return
        if thread.metadata:
            self.counts[f"thread metadata ({', '.join(sorted(thread.metadata))})"] += 1
        if thread.parent_thread_id:
            self.counts["the parent thread id"] += 1
        backwards = sum(1 for a, b in zip(thread.actions, thread.actions[1:], strict=False) if b.timestamp < a.timestamp)
        if backwards:
            self.counts["the order of actions whose timestamps go backwards (a transcript is read in time order)"] += backwards
        acting = {a.agent for a in thread.actions} | {(a.metadata or {}).get("to_agent_id") for a in thread.actions}
        for agent_id, agent in thread.agents.items():
            if set(agent.metadata or {}) - {"model_name", "parent_tool_call_id"}:
                self.counts["agent metadata"] += 1
            if agent_id not in acting:
                self.counts["agents with no action"] += 1
            if agent.config_ref:
                self.counts["agent config refs"] += 1

    def foreign(self, action: BaseAction) -> None:
        meta = action.metadata or {}
        if set(meta) - _CARRIED:
            self.counts["action metadata"] += 1
        if action.action_id:
            self.counts["action ids"] += 1
        kind = action.action_type
        content = getattr(action, "content", None)
        if kind == "assistant_message" and isinstance(content, list) and any(getattr(p, "type", None) != "text" for p in content):
            self.counts["non-text parts of assistant messages"] += 1
        if kind == "user_message" and getattr(action, "attachments", None):
            self.counts["user message attachments"] += 1
        if kind == "tool_return" and getattr(action, "tool_call_id", None) not in self.calls:
            self.counts["tool names of returns that answer no call"] += 1
        if kind == "tool_return" and getattr(action, "status", None) == "validation_error":
            self.counts["tool return status validation_error (written as is_error)"] += 1
        if kind == "thinking" and getattr(action, "thinking_id", None):
            self.counts["thinking ids"] += 1
        usage = getattr(action, "usage", None)
        if usage is not None:
            given = {k: getattr(usage, k, None) for k in (*_USAGE_KEYS, "thinking_tokens")}
            back = to_usage(wire_usage(usage)) or {}
            if any(v is not None and back.get(k) != v for k, v in given.items()):
                self.counts["usage figures Anthropic usage cannot hold (totals, thinking tokens)"] += 1

    def count(self, what: str) -> None:
        self.counts[what] += 1

    def system(self, action: SystemAction) -> None:
        self.counts[f"{action.action_type} actions (read back as Claude system entries)"] += 1

    def phrases(self) -> list[str]:
        return [f"{n} {what}" if n > 1 else what for what, n in sorted(self.counts.items())]

