"""Codex CLI rollout lines as they are on disk (no official spec; read from the rollouts of
Codex releases from mid 2025 to 2026, see tests/fixtures/real/codex/README.md).

Two generations of ``~/.codex/sessions/.../rollout-*.jsonl``:

- **envelope** (Codex ≥ 0.3x, autumn 2025 on): every line ``{"timestamp", "type", "payload"}``
  with ``type`` one of ``session_meta``, ``turn_context``, ``response_item`` (a Responses-API
  item), ``event_msg`` (UI events: ``user_message``, ``agent_message``, ``token_count`` ...) and
  ``compacted``; late 2026 releases (0.169) add an ``ordinal`` and sometimes a ``metadata``
  beside them, and the line types ``world_state`` (the settings and environment the model was
  shown) and ``token_usage_record`` (one model response's usage, with its ``response_id``,
  beside the ``token_count`` event that repeats it), and ``item_completed`` events that repeat
  each item for the UI;
- **bare** (mid 2025): a first line ``{"id", "timestamp", "instructions", "git"?}``, then
  ``{"record_type": "state"}`` markers and bare Responses items without timestamps.

Token counts (``event_msg`` / ``token_count``) are cumulative (``total_token_usage``) with the
last response's share beside it (``last_token_usage``); the same event is often written twice.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, ValidationError, field_validator

from threadlab.formats.common.counts import count_of

LINE_TYPES = ("session_meta", "turn_context", "response_item", "event_msg", "compacted", "world_state", "token_usage_record")
MODEL_OUTPUTS = ("assistant_message", "thinking", "tool_call")


class _Wire(BaseModel):
    model_config = ConfigDict(extra="allow")


class TokenUsage(_Wire):
    """One ``token_count`` figure set (input includes the cached part; output the reasoning)."""

    input_tokens: int = 0
    cached_input_tokens: int = 0
    cache_write_input_tokens: int = 0
    output_tokens: int = 0
    reasoning_output_tokens: int = 0
    total_tokens: int = 0

    @field_validator("*", mode="before")
    @classmethod
    def _count(cls, value: Any) -> Any:
        """A count as ``counts.count_of`` reads one (``12.0`` is 12; ``true``, ``1.5``, a float
        beyond 2**53 none), not as pydantic's lax integers would."""
        count, why = count_of(value)
        if why is not None:
            raise ValueError(why)
        return count if count is not None else value

    def fields(self) -> dict[str, int]:
        out = {"input_tokens": self.input_tokens, "output_tokens": self.output_tokens, "total_tokens": self.total_tokens}
        if self.cached_input_tokens:
            out["cache_read_tokens"] = self.cached_input_tokens
        if self.cache_write_input_tokens:
            out["cache_write_tokens"] = self.cache_write_input_tokens
        if self.reasoning_output_tokens:
            out["thinking_tokens"] = self.reasoning_output_tokens
        return out


class TokenCountInfo(_Wire):
    total_token_usage: TokenUsage | None = None
    last_token_usage: TokenUsage | None = None
    model_context_window: int | None = None


def token_info(payload: Any) -> TokenCountInfo | str | None:
    """The figures of a ``token_count`` payload: None when it has none (``info: null``, a
    rate-limits-only event), a string saying what is wrong when they cannot be read. Early
    releases put the figures on the payload itself (no ``info``): read as the last response's."""
    if not isinstance(payload, dict):
        return "payload is not an object"
    try:
        if "info" in payload:
            return None if payload["info"] is None else TokenCountInfo.model_validate(payload["info"])
        if "input_tokens" in payload:
            return TokenCountInfo(last_token_usage=TokenUsage.model_validate(payload))
    except ValidationError as exc:
        error = exc.errors()[0]
        return f"token figures do not read ({'.'.join(str(p) for p in error['loc'])}: {error['msg']})"
    return None


def is_envelope(obj: Any) -> bool:
    return isinstance(obj, dict) and isinstance(obj.get("type"), str) and "payload" in obj


def is_bare_header(obj: Any) -> bool:
    """The first line of a bare-generation rollout: the session's id and start time, no type."""
    return isinstance(obj, dict) and "type" not in obj and isinstance(obj.get("id"), str) and "timestamp" in obj and ("instructions" in obj or "git" in obj or "cwd" in obj or len(obj) == 2)


def is_state_marker(obj: Any) -> bool:
    return isinstance(obj, dict) and obj.get("record_type") == "state"
