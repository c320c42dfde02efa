"""What ATIF has no field for, carried in its ``extra`` objects and taken back on reading: actions
ATIF has no place for (a ``system.config_update``, a handoff, another format's ``system.*``
events) as a ``system`` step whose ``extra`` carries the action; a return's status and structured
value; arguments that are no object."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import orjson
from pydantic import ValidationError

from threadlab.core.builder import EPOCH, ThreadBuilder
from threadlab.core.canonical import model_to_dict
from threadlab.core.model import action_class
from threadlab.formats.atif.wire import CARRIED, STATUS, VALUE, WRAPPED

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


def status_and_value(kept: dict[str, Any], content: Any) -> tuple[str, Any]:
    """A result's status (``extra.is_error``; ``threadlab_status`` for a validation error) and its
    value (a structured value threadlab wrote as JSON text, from ``extra.threadlab_content``);
    the keys that only say so are taken out of the kept ``extra``."""
    extra = kept.get("extra")
    if not isinstance(extra, Mapping):
        return "success", content
    status = "error" if extra.get("is_error") is True else "success"
    left = dict(extra)
    if status == "error" and extra.get(STATUS) == "validation_error":
        status = "validation_error"
        del left[STATUS]
    if VALUE in extra and isinstance(content, str) and orjson.dumps(extra[VALUE], default=str).decode() == content:
        content = extra[VALUE]
        del left[VALUE]
    if left != extra:
        if left:
            kept["extra"] = left
        else:
            del kept["extra"]
    return status, content


def unwrapped(arguments: Any, kept: dict[str, Any]) -> Any:
    """A call's arguments; ``{"value": x}`` with ``extra.threadlab_wrapped`` is ``x`` (arguments
    that were no object, written by threadlab)."""
    extra = kept.get("extra")
    if not (isinstance(extra, Mapping) and extra.get(WRAPPED) is True and isinstance(arguments, Mapping) and set(arguments) == {"value"}):
        return arguments
    left = {k: v for k, v in extra.items() if k != WRAPPED}
    if left:
        kept["extra"] = left
    else:
        del kept["extra"]
    return arguments["value"]
