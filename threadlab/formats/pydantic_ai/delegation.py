"""Who wrote a sub-agent's prompt in a merged multi-agent thread (``from_pydantic_ai_runs``).

pydantic-ai delegates by calling another agent inside a tool (``await researcher.run(question,
usage=ctx.usage)`` in the delegating agent's tool function): the sub-agent's history then starts
with a ``user-prompt`` part the delegating agent wrote, not a person. The histories do not link
the two, so the prompt is told by time, as ``frames.delegations`` infers a delegation: a prompt
of one history made while another history's tool call is open (after the call, before its
return, or with no return yet) is that agent's. Its user_message gets ``author: agent``; a
prompt outside every other agent's open call stays the person's."""

from __future__ import annotations

from datetime import datetime

from threadlab.core.authors import AUTHOR_KEY
from threadlab.formats.pydantic_ai.deferred import Spec


def _open_calls(specs: list[Spec]) -> list[tuple[datetime, datetime | None]]:
    """(call time, return time or None) of each timed tool call of one history."""
    returns = {s.fields.get("tool_call_id"): s.timestamp for s in specs if s.action_type == "tool_return"}
    return [(s.timestamp, returns.get(s.fields.get("tool_call_id"))) for s in specs if s.action_type == "tool_call" and s.timestamp is not None]


def mark_delegated_prompts(histories: list[list[Spec]]) -> None:
    """Give each person-authored prompt made inside another history's open tool call ``author:
    agent`` (see the module's docstring)."""
    calls = [_open_calls(specs) for specs in histories]
    for own, specs in enumerate(histories):
        others = [span for other, spans in enumerate(calls) if other != own for span in spans]
        for spec in specs:
            when = spec.timestamp
            if spec.action_type != "user_message" or when is None or AUTHOR_KEY in (spec.fields.get("metadata") or {}):
                continue
            if any(start <= when and (end is None or when <= end) for start, end in others):
                spec.fields.setdefault("metadata", {})[AUTHOR_KEY] = "agent"
