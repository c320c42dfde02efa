"""Actions ATIF has no place for (a ``system.config_update``, a handoff, another format's
``system.*`` events): written as a ``system`` step whose ``extra`` carries the action, and read
back as that action, so a thread of any format keeps them through ATIF."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import orjson
from pydantic import ValidationError

from threadlab.core.builder import EPOCH, ThreadBuilder
from threadlab.core.canonical import model_to_dict
from threadlab.core.model import action_class
from threadlab.formats.atif.wire import CARRIED

_PLAIN_STEP = frozenset({"step_id", "timestamp", "source", "message", "extra"})


def carried_step(action: Any) -> dict[str, Any]:
    """A ``system`` step holding ``action`` (its time is the step's)."""
    data = {k: v for k, v in model_to_dict(action).items() if k not in ("sequence", "timestamp")}
    summary = f"{action.action_type}: {orjson.dumps(getattr(action, 'data', None), default=str).decode()[:200]}"
    return {"source": "system", "message": summary, "extra": {CARRIED: data}}


def restorable(step: Mapping[str, Any], rest: Mapping[str, Any]) -> bool:
    """A step ``carried_step`` wrote, with nothing of its own beside the carried action."""
    extra = step.get("extra")
    return (
        isinstance(extra, Mapping)
        and set(extra) == {CARRIED}
        and isinstance(extra[CARRIED], Mapping)
        and isinstance(extra[CARRIED].get("action_type"), str)
        and set(step) <= _PLAIN_STEP
        and "timestamp" in step
        and set(rest) == {"extra"}
    )


def restore(builder: ThreadBuilder, carried: Mapping[str, Any], when: Any, label: str) -> None:
    """The carried action back as it was; a damaged one is kept as ``system.unknown_part``."""
    fields = {k: v for k, v in carried.items() if k not in ("sequence", "timestamp", "action_type")}
    kind = str(carried["action_type"])
    try:  # checked first: the builder would keep a broken one as an invalid action
        action_class(kind).model_validate({**fields, "action_type": kind, "timestamp": EPOCH, "sequence": 1})
    except (ValidationError, ValueError, TypeError) as exc:
        builder.kept("schema", f"{label}: extra.{CARRIED} holds no valid action ({str(exc).splitlines()[0]}); kept as system.unknown_part")
        builder.add("system.unknown_part", timestamp=when, data={"carried": dict(carried)})
        return
    agent = fields.get("agent_id")
    if isinstance(agent, str) and agent not in builder.agents:
        builder.agent(agent, agent_id=agent)
    builder.add(kind, timestamp=when, **fields)
    builder.took()
