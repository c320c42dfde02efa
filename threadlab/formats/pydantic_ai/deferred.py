"""Deferred tools (human approval, external execution) in a thread.

pydantic-ai records no "deferred" marker: a run that stopped on approval-required or external
tools simply ends in tool calls with no returns (``threadlab.pending_tool_calls`` lists them), and
the resumed run adds the returns (``outcome: "denied"`` for a denial). When the resolution is
known - a denied return, or the ``DeferredToolResults`` the run was resumed with - a
``system.tool_resolved`` action says so, right before the return it explains."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING, Any

from threadlab.formats.pydantic_ai import _parts as P

if TYPE_CHECKING:  # pydantic-ai is imported only when there are resolutions to apply
    from pydantic_ai import DeferredToolResults


@dataclass
class Spec:
    """One action to add, before merging and numbering."""

    action_type: str
    timestamp: datetime | None
    fields: dict[str, Any]
    part_stamp: str | None = None  # the part's own timestamp, when the part carries one
    order: float = 0.0
    extra: dict[str, Any] = field(default_factory=dict)
    records: int = 0  # input records this action accounts for (converted, or kept when ``kept``)
    kept: tuple[str, str] | None = None  # (rule, message): the action keeps a record it did not understand
    problems: list[tuple[str, str]] = field(default_factory=list)  # (rule, message) about its message
    line: int | None = None  # the JSON Lines line of its message

    @property
    def pai(self) -> dict[str, Any]:
        return self.fields.setdefault("metadata", {}).setdefault(P.KEY, {})


def mark_denials(found: list[Spec], agent_id: str) -> None:
    """A denied tool return is preceded by ``system.tool_resolved`` (resolution denied)."""
    for spec in found:
        rest = (spec.pai.get("rest") or [{}])[0]
        if spec.action_type == "tool_return" and rest.get("outcome") == "denied":
            spec.extra["resolved"] = _resolved(spec.fields["tool_call_id"], spec.fields["tool_name"], "denied", agent_id,
                                               message=spec.fields.get("content"))


def _resolved(call_id: str, tool_name: str, resolution: str, agent_id: str | None, **more: Any) -> dict[str, Any]:
    data = {"tool_call_id": call_id, "tool_name": tool_name, "resolution": resolution}
    if agent_id:
        data["agent_id"] = agent_id
    data.update({k: v for k, v in more.items() if v is not None})
    return data


def apply_resolutions(specs: list[Spec], results: DeferredToolResults, agent_id: str, *, next_message: int) -> list[Spec]:
    """Mark the resolution of deferred calls: before the call's return when the history has it,
    else (the run stopped there) as new tool_returns at the end."""
    calls = {s.fields["tool_call_id"]: s for s in specs if s.action_type == "tool_call"}
    returned = {s.fields["tool_call_id"]: s for s in specs if s.action_type == "tool_return"}
    tail: list[Spec] = []
    position = 0
    for call_id, outcome in _resolutions(results):
        call = calls.get(call_id)
        tool_name = call.fields["tool_name"] if call is not None else "unknown"
        resolution, more, ret = outcome
        data = _resolved(call_id, tool_name, resolution, agent_id if call is not None else None,
                         answered_by=results.answered_by.get(call_id), metadata=results.metadata.get(call_id), **more)
        if call_id in returned:
            returned[call_id].extra["resolved"] = data
            continue
        marker = Spec("system.tool_resolved", None, {"data": data})
        tail.append(marker)
        if ret is None:
            continue
        status, content, rest = ret
        spec = Spec("tool_return", None, {"tool_call_id": call_id, "tool_name": tool_name, "status": status, "content": content})
        spec.pai.update({"message": next_message, "parts": [position], **({"rest": [rest]} if rest else {})})
        if position == 0:
            spec.pai["envelope"] = {"kind": "request"}
        position += 1
        tail.append(spec)
    return specs + tail


def _resolutions(results: DeferredToolResults) -> Iterable[tuple[str, tuple[str, dict[str, Any], Any]]]:
    from pydantic_ai import ToolApproved, ToolDenied
    from pydantic_ai.exceptions import ModelRetry, ToolFailed
    from pydantic_ai.messages import ToolReturn

    for call_id, approval in results.approvals.items():
        if approval is True or isinstance(approval, ToolApproved):
            override = approval.override_args if isinstance(approval, ToolApproved) else None
            yield call_id, ("approved", {"override_args": override}, None)
        else:
            message = approval.message if isinstance(approval, ToolDenied) else ToolDenied().message
            yield call_id, ("denied", {"message": message}, ("error", message, {"outcome": "denied"}))
    for call_id, value in results.calls.items():
        if isinstance(value, ToolFailed):
            ret = ("error", value.message, {"outcome": "failed"})
        elif isinstance(value, ModelRetry):
            ret = ("error", value.message, {"outcome": "retried", "retry": {"cause": "model_retry", "attempt": None, "max_retries": None}})
        elif isinstance(value, ToolReturn):
            ret = ("success", value.return_value, {})
        else:
            ret = ("success", value, {})
        yield call_id, ("executed_externally", {}, ret)
