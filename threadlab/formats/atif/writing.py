"""Thread → ATIF trajectory (the inverse of ``reading``).

The actions are laid out trajectory by trajectory: the thread's first agent that acts and that no
``system.agent_join`` brought in is the root trajectory's; each agent another one joined is an
embedded subagent trajectory (v1.7 ``subagent_trajectories``, ``trajectory_id`` = its agent id),
referenced from the result of the call that started it. Within a trajectory a step is a user
message, a system message, or one agent turn: its reasoning, its message, its tool calls and the
results of those calls; a second message, a thinking after the message, a call after results or
a second usage starts the next turn. Other ``system.*`` actions are ``system`` steps that carry
the action in ``extra`` (``carry.py``). A thread read from ATIF is laid out from what its actions
kept (``metadata["atif"]``), so it is written back as it came."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from threadlab.core.loss import nothing_to_write
from threadlab.core.model import Thread
from threadlab.formats.atif.carry import carried_step
from threadlab.formats.atif.wire import (
    AGENT,
    JOIN,
    META,
    STATUS,
    VALUE,
    WRAPPED,
    WRITE_VERSION,
    content_out,
    metrics_of,
    render_time,
)

ROOT = ""  # the root trajectory's key
_ORDER = ("schema_version", "session_id", "trajectory_id", "agent", "steps", "notes", "final_metrics", "continued_trajectory_ref", "extra", "subagent_trajectories")
_STEP_ORDER = ("step_id", "timestamp", "source", "model_name", "reasoning_effort", "message", "reasoning_content", "tool_calls",
               "observation", "metrics", "is_copied_context", "llm_call_count", "extra")


@dataclass
class _Step:
    source: str
    when: datetime | None
    rest: dict[str, Any] = field(default_factory=dict)
    absent: list[str] = field(default_factory=list)
    model: str | None = None
    usage: dict[str, Any] = field(default_factory=dict)
    message: Any = None
    has_message: bool = False
    reasoning: str | None = None
    calls: list[Any] = field(default_factory=list)
    call_ids: set[str] = field(default_factory=set)
    results: list[Any] = field(default_factory=list)
    joined: dict[str | None, dict[str, Any]] = field(default_factory=dict)  # call id (None: no call) → its ref result awaiting content
    ready: dict[str, Any] | None = None  # a whole step (a carried action)
    agent: dict[str, str] | None = None  # the step's agent where it is not its trajectory's

    def dict(self, number: int) -> dict[str, Any]:
        if self.ready is not None:
            out: dict[str, Any] = {"step_id": number, **({"timestamp": render_time(self.when)} if self.when else {}), **self.ready}
        else:
            out = {"step_id": number, "source": self.source, "message": self.message if self.has_message else ""}
            if self.when is not None:
                out["timestamp"] = render_time(self.when)
            if self.model is not None:
                out["model_name"] = self.model
            if self.reasoning is not None:
                out["reasoning_content"] = self.reasoning
            if self.calls:
                out["tool_calls"] = self.calls
            if self.results:
                out["observation"] = {"results": self.results}
            metrics = {**metrics_of(self.usage), **(self.rest.get("metrics") or {})}
            if metrics or "metrics" in self.rest:
                out["metrics"] = metrics
            out.update({k: v for k, v in self.rest.items() if k != "metrics"})
            if self.agent is not None:
                out["extra"] = {**(out.get("extra") or {}), AGENT: self.agent}
            for key in self.absent:
                out.pop(key, None)
        return {**{k: out[k] for k in _STEP_ORDER if k in out}, **{k: v for k, v in out.items() if k not in _STEP_ORDER}}

    def free_for(self, kind: str, usage: Any, agent: dict[str, str] | None) -> bool:
        """Whether an agent action of ``kind`` still belongs to this turn."""
        if self.source != "agent" or self.ready is not None or (usage and self.usage) or agent != self.agent:
            return False
        if kind == "thinking":
            return self.reasoning is None and not self.has_message and not self.calls and not self.results
        if kind == "assistant_message":
            return not self.has_message and not self.calls and not self.results
        return not self.results  # tool_call


@dataclass
class _Trajectory:
    key: str
    agent_id: str | None
    steps: list[_Step] = field(default_factory=list)
    calls: dict[str, _Step] = field(default_factory=dict)

    @property
    def current(self) -> _Step | None:
        return self.steps[-1] if self.steps else None


def _usage(action: Any) -> dict[str, Any]:
    usage = getattr(action, "usage", None)
    if usage is None:
        return {}
    return dict(usage) if isinstance(usage, Mapping) else usage.model_dump(exclude_none=True)


def _own(action: Any) -> dict[str, Any]:
    own = (action.metadata or {}).get(META)
    return dict(own) if isinstance(own, Mapping) else {}


class Layout:
    """The thread's actions put into trajectories and steps."""

    def __init__(self, thread: Thread) -> None:
        self.thread = thread
        self.from_atif = isinstance((thread.metadata or {}).get(META), Mapping)
        self.root_agent = self._root_agent()
        self.trajectories: dict[str, _Trajectory] = {ROOT: _Trajectory(ROOT, self.root_agent)}
        self.of_agent: dict[str, str] = {}
        self.call_owner: dict[str, str] = {}
        self.context = ROOT
        for action in thread.actions:
            self.place(action)

    def _root_agent(self) -> str | None:
        joined = {a.data.get("agent_id") for a in self.thread.actions if a.action_type == "system.agent_join" and isinstance(getattr(a, "data", None), Mapping)}
        acting = [a.agent_id for a in self.thread.actions if isinstance(getattr(a, "agent_id", None), str)]
        return next((agent for agent in acting if agent not in joined), None) or next(iter(self.thread.agents), None)

    def owner(self, action: Any) -> str:
        own = _own(action)
        if "in" in own:
            return own["in"] or ROOT
        kind, data = action.action_type, getattr(action, "data", None)
        agent = getattr(action, "agent_id", None)
        if isinstance(agent, str):
            return self.of_agent.get(agent, ROOT)
        if kind == "tool_return":
            return self.call_owner.get(action.tool_call_id, self.context)
        if kind == "system.agent_join" and isinstance(data, Mapping):
            return self.of_agent.get(data.get("invited_by"), ROOT)  # type: ignore[arg-type]
        return ROOT if self.from_atif else self.context

    def place(self, action: Any) -> None:
        key = self.owner(action)
        trajectory = self.trajectories.setdefault(key, _Trajectory(key, key or self.root_agent))
        self.context = key
        own = _own(action)
        if "step" in own:
            source = "user" if action.action_type == "user_message" else "system" if action.action_type == "system.message" else "agent"
            trajectory.steps.append(_Step(source, action.timestamp, dict(own["step"]), list(own.get("step_absent") or [])))
            step: _Step | None = trajectory.current
        else:
            step = None
        getattr(self, "_" + action.action_type.replace(".", "_"), self._carried)(trajectory, action, step, own)

    def _new(self, trajectory: _Trajectory, source: str, action: Any) -> _Step:
        trajectory.steps.append(_Step(source, action.timestamp))
        return trajectory.steps[-1]

    def _tag(self, trajectory: _Trajectory, action: Any) -> dict[str, str] | None:
        """The agent of an action that is not its trajectory's (a handoff's, an agent no
        agent_join brought in), for ``extra.threadlab_agent``; None for a thread from ATIF."""
        agent = getattr(action, "agent_id", None)
        if self.from_atif or not isinstance(agent, str) or agent == trajectory.agent_id:
            return None
        config = self.thread.agents.get(agent)
        return {"agent_id": agent, "agent_name": config.agent_name if config else agent}

    def _turn(self, trajectory: _Trajectory, action: Any, step: _Step | None) -> _Step:
        tag = self._tag(trajectory, action)
        if step is None:
            current = trajectory.current
            fits = current is not None and current.free_for(action.action_type, _usage(action), tag)
            step = current if fits else self._new(trajectory, "agent", action)  # type: ignore[assignment]
            step.agent = tag
        step.usage = step.usage or _usage(action)
        if step.model is None and isinstance((action.metadata or {}).get("model_name"), str):
            step.model = action.metadata["model_name"]
        return step

    def _user_message(self, trajectory: _Trajectory, action: Any, step: _Step | None, own: dict[str, Any]) -> None:
        step = step or self._new(trajectory, "user", action)
        step.message, step.has_message = content_out(action.content), True

    def _system_message(self, trajectory: _Trajectory, action: Any, step: _Step | None, own: dict[str, Any]) -> None:
        step = step or self._new(trajectory, "system", action)
        content = action.data.get("content") if isinstance(action.data, Mapping) else action.data
        step.message, step.has_message = content_out(content), True

    def _thinking(self, trajectory: _Trajectory, action: Any, step: _Step | None, own: dict[str, Any]) -> None:
        self._turn(trajectory, action, step).reasoning = action.content or ""

    def _assistant_message(self, trajectory: _Trajectory, action: Any, step: _Step | None, own: dict[str, Any]) -> None:
        step = self._turn(trajectory, action, step)
        step.message, step.has_message = content_out(action.content), True

    def _tool_call(self, trajectory: _Trajectory, action: Any, step: _Step | None, own: dict[str, Any]) -> None:
        step = self._turn(trajectory, action, step)
        call = {"tool_call_id": action.tool_call_id, "function_name": action.tool_name, "arguments": action.args}
        call.update({k: v for k, v in own.items() if k not in ("in", "step", "step_absent", "absent")})
        if not self.from_atif and not isinstance(action.args, Mapping):  # ATIF arguments are an object
            call["arguments"] = {"value": action.args}
            call["extra"] = {**(call.get("extra") or {}), WRAPPED: True}
        for key in own.get("absent") or []:
            call.pop(key, None)
        step.calls.append(call)
        step.call_ids.add(action.tool_call_id)
        trajectory.calls[action.tool_call_id] = step
        self.call_owner[action.tool_call_id] = trajectory.key

    def _target(self, trajectory: _Trajectory, step: _Step | None, call_id: str | None) -> _Step | None:
        """The step a result goes in: the step this action started, else the current one where it
        holds the call (or the thread came from ATIF, which says where), else the call's step."""
        if step is not None:
            return step
        current = trajectory.current
        if current is not None and (call_id is None or call_id in current.call_ids or self.from_atif):
            return current
        return trajectory.calls.get(call_id) if call_id is not None else None

    def _result(self, step: _Step, call_id: str | None, content: Any, own: dict[str, Any], merge: bool, status: str = "success") -> None:
        kept = {k: v for k, v in own.items() if k not in ("in", "step", "step_absent", "absent", "joined")}
        waiting = step.joined.pop(call_id, None) if merge else None
        result = waiting if waiting is not None else ({"source_call_id": call_id} if call_id is not None else {})
        result["content"] = content_out(content)
        result.update(kept)
        extra = dict(result.get("extra") or {})
        if status != "success" and not self.from_atif:
            extra["is_error"] = True
            if status != "error":
                extra[STATUS] = status
        if content is not None and not isinstance(content, str | list) and not self.from_atif:
            extra[VALUE] = content
        if extra:
            result["extra"] = extra
        for key in own.get("absent") or []:
            result.pop(key, None)
        if waiting is None:
            step.results.append(result)

    def _tool_return(self, trajectory: _Trajectory, action: Any, step: _Step | None, own: dict[str, Any]) -> None:
        target = self._target(trajectory, step, action.tool_call_id)
        if target is None:
            self._carried(trajectory, action, step, own)
            return
        self._result(target, action.tool_call_id, action.content, own, merge=bool(own.get("joined")) or not self.from_atif, status=action.status)

    def _system_observation(self, trajectory: _Trajectory, action: Any, step: _Step | None, own: dict[str, Any]) -> None:
        data = action.data if isinstance(action.data, Mapping) else {}
        target = self._target(trajectory, step, None) or self._new(trajectory, "agent", action)
        call_id = data.get("source_call_id")
        self._result(target, None, data.get("content"), own, merge=bool(own.get("joined")))
        if call_id is not None:
            target.results[-1] = {"source_call_id": call_id, **target.results[-1]}

    def _system_unknown_part(self, trajectory: _Trajectory, action: Any, step: _Step | None, own: dict[str, Any]) -> None:
        data = action.data if isinstance(action.data, Mapping) else {}
        if set(data) not in ({"tool_call"}, {"result"}):
            self._carried(trajectory, action, step, own)
            return
        target = step or trajectory.current or self._new(trajectory, "agent", action)
        (target.calls if "tool_call" in data else target.results).append(data.get("tool_call", data.get("result")))

    def _system_agent_join(self, trajectory: _Trajectory, action: Any, step: _Step | None, own: dict[str, Any]) -> None:
        data = action.data if isinstance(action.data, Mapping) else {}
        child = data.get("agent_id")
        if not isinstance(child, str):
            self._carried(trajectory, action, step, own)
            return
        self.of_agent[child] = child
        self.trajectories.setdefault(child, _Trajectory(child, child))
        self.context = child
        if data.get("unreferenced"):
            return
        call_id = data.get("tool_call_id") if isinstance(data.get("tool_call_id"), str) else None
        target = self._target(trajectory, step, call_id) or self._new(trajectory, "agent", action)
        # another format's delegation: its data rides in the ref's extra, and comes back as it was
        ref = data["ref"] if "ref" in data else {"trajectory_id": child, "extra": {JOIN: dict(data)}}
        waiting = target.joined.get(call_id)
        if waiting is not None and "content" not in waiting:
            waiting["subagent_trajectory_ref"].append(ref)
            return
        if call_id is not None and call_id not in target.call_ids and not self.from_atif:
            call_id = None  # a call of another trajectory: the ref's extra keeps its id
        result: dict[str, Any] = {"source_call_id": call_id} if call_id is not None else {}
        result["subagent_trajectory_ref"] = [ref]
        result.update(own.get("result") or {})
        target.results.append(result)
        target.joined[call_id] = result

    def _carried(self, trajectory: _Trajectory, action: Any, step: _Step | None, own: dict[str, Any]) -> None:
        new = self._new(trajectory, "system", action)
        new.ready = carried_step(action)

    # --- the document -----------------------------------------------------------------------
    def document(self) -> dict[str, Any]:
        root = self.trajectories[ROOT]
        if not any(t.steps for t in self.trajectories.values()):
            raise nothing_to_write("atif", self.thread)
        doc = self._trajectory(root, (self.thread.metadata or {}).get(META) if self.from_atif else None)
        children = []
        for key, trajectory in self.trajectories.items():
            agent = self.thread.agents.get(key)
            head = (agent.metadata or {}).get(META) if agent is not None else None
            if key != ROOT and (trajectory.steps or isinstance(head, Mapping)):
                children.append(self._trajectory(trajectory, head if isinstance(head, Mapping) else None))
        if children:
            doc["subagent_trajectories"] = children
        return {**{k: doc[k] for k in _ORDER if k in doc}, **{k: v for k, v in doc.items() if k not in _ORDER}}

    def _trajectory(self, trajectory: _Trajectory, head: Mapping[str, Any] | None) -> dict[str, Any]:
        steps = [step.dict(number) for number, step in enumerate(trajectory.steps, 1)]
        if head is not None:
            return {**head, "steps": steps}
        agent = self.thread.agents.get(trajectory.agent_id or "")
        spec: dict[str, Any] = {"name": agent.agent_name if agent else trajectory.agent_id or "agent", "version": "unknown"}
        model = (agent.metadata or {}).get("model_name") if agent else None
        if isinstance(model, str):
            spec["model_name"] = model
        doc: dict[str, Any] = {"schema_version": WRITE_VERSION}
        if trajectory.key == ROOT:
            doc["session_id"] = self.thread.thread_id
        else:
            doc["trajectory_id"] = trajectory.key
        doc.update(agent=spec, steps=steps)
        final = _final_metrics(self.thread, steps) if trajectory.key == ROOT else None
        if final:
            doc["final_metrics"] = final
        return doc


def _final_metrics(thread: Thread, steps: list[dict[str, Any]]) -> dict[str, Any]:
    """The thread's totals: the producer's (``usage_total``, ``cost_usd``) where it kept them,
    else the sums of the steps' metrics."""
    meta = thread.metadata or {}
    given = meta.get("usage_total") if isinstance(meta.get("usage_total"), Mapping) else None
    out: dict[str, Any] = {}
    for theirs, ours, step_key in (("total_prompt_tokens", "input_tokens", "prompt_tokens"), ("total_completion_tokens", "output_tokens", "completion_tokens"),
                                   ("total_cached_tokens", "cache_read_tokens", "cached_tokens")):
        if given is not None:
            if isinstance(given.get(ours), int):
                out[theirs] = given[ours]
            continue
        values = [s["metrics"][step_key] for s in steps if isinstance(s.get("metrics"), Mapping) and isinstance(s["metrics"].get(step_key), int)]
        if values:
            out[theirs] = sum(values)
    if isinstance(meta.get("cost_usd"), int | float):
        out["total_cost_usd"] = meta["cost_usd"]
    if out:
        out["total_steps"] = len(steps)
    return out
