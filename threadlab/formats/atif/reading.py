"""ATIF trajectory → Thread.

One trajectory file is one thread (its ``session_id``, else its ``trajectory_id``, else the file's
name). A record is a step, of the trajectory and of every trajectory embedded in
``subagent_trajectories``; each is taken (its actions hold it), or kept with a problem (a part,
call or result of it that ATIF does not define is kept as it came), or failed (no step object).

- a ``system`` step is a ``system.message`` ``{role: "system", content}``; a ``user`` step a
  ``user_message`` (the harness's, ``copied_context``, when ``is_copied_context`` marks it copied
  from an earlier trajectory: nobody typed it into this one); an ``agent`` step, in order: ``thinking`` (``reasoning_content``), the
  ``assistant_message`` (left out when it is empty beside reasoning, calls or results),
  ``tool_call``s, then its observation's results;
- a result naming a call (``source_call_id``) is that call's ``tool_return``; one naming none is
  a ``system.observation`` ``{content}`` (the spec: an action that is no tool call);
- each ``subagent_trajectory_ref`` is a delegation: ``system.agent_join`` ``{agent_id,
  invited_by, tool_call_id?, ref}`` and, for an embedded trajectory (v1.7: ``trajectory_id``
  among ``subagent_trajectories``), the child's steps as the child agent's actions, before the
  result's return. A ``trajectory_path`` is not opened (paths are never built from input data);
- a step's time is its first action's; an action after a subagent's steps is given the child's
  last time (the step's own would go back in time);
- ``metrics`` token counts are the step's usage (on its assistant message, else its first
  action), ``model_name`` each agent action's ``metadata.model_name``, ``final_metrics`` the
  thread's ``usage_total`` (and ``cost_usd`` when no subagent lives in another file);
- whatever else a step, call or result holds is kept under ``metadata["atif"]`` of its first
  action, so writing the thread back gives the same trajectory."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from threadlab.core.authors import harness_metadata
from threadlab.core.builder import ThreadBuilder, slug
from threadlab.core.model import CORE_ACTION_TYPES, Thread, Usage
from threadlab.core.problems import short
from threadlab.formats.atif.carry import restorable, restore, status_and_value, unwrapped
from threadlab.formats.atif.wire import (
    AGENT,
    CARRIED,
    JOIN,
    META,
    SOURCES,
    TOTAL_KEYS,
    content_in,
    int_or_none,
    read_time,
    usage_of,
)

_STEP_FIELDS = ("step_id", "timestamp", "source", "model_name", "message", "reasoning_content", "tool_calls", "observation", "metrics")
_AGENT_KINDS = ("assistant_message", "thinking", "tool_call")
MAX_DEPTH = 64  # subagent trajectories nested deeper are not read (size-limit)


def read_trajectory(doc: Mapping[str, Any], *, default_id: str | None, source: str | None) -> Thread:
    head = {k: v for k, v in doc.items() if k not in ("steps", "subagent_trajectories")}
    thread_id = next((doc[k] for k in ("session_id", "trajectory_id") if isinstance(doc.get(k), str) and doc[k]), None) or default_id or "atif"
    metadata: dict[str, Any] = {META: head}
    metadata.update(_totals(doc))
    builder = ThreadBuilder(thread_id, metadata=metadata, source=source)
    reader = _Reader(builder)
    root = reader.agent_of(doc, None)
    reader.trajectory(doc, root, None, _embedded(doc, builder))
    if doc["steps"] and not any(a.action_type in CORE_ACTION_TYPES for a in builder.actions):
        builder.problem("no-actions", "its steps give no message, thinking, tool call or return")
    return builder.build()


def _totals(doc: Mapping[str, Any]) -> dict[str, Any]:
    """The producer's totals (``final_metrics``) as the thread's ``usage_total`` / ``cost_usd``."""
    final = doc.get("final_metrics")
    if not isinstance(final, Mapping):
        return {}
    out: dict[str, Any] = {}
    total = {ours: final[theirs] for theirs, ours in TOTAL_KEYS.items() if int_or_none(final.get(theirs)) is not None}
    if total:
        out["usage_total"] = total
    refs_elsewhere = any(
        isinstance(ref, Mapping) and ref.get("trajectory_path")
        for step in doc["steps"] if isinstance(step, Mapping) and isinstance(step.get("observation"), Mapping)
        for result in step["observation"].get("results") or [] if isinstance(result, Mapping)
        for ref in result.get("subagent_trajectory_ref") or []
    )
    cost = final.get("total_cost_usd")
    if isinstance(cost, int | float) and not isinstance(cost, bool) and not refs_elsewhere:
        out["cost_usd"] = cost
    return out


def _embedded(doc: Mapping[str, Any], builder: ThreadBuilder) -> dict[str, Mapping[str, Any]]:
    """A trajectory's ``subagent_trajectories`` by ``trajectory_id`` (the first of an id)."""
    out: dict[str, Mapping[str, Any]] = {}
    subs = doc.get("subagent_trajectories")
    if subs is None:
        return out
    if not isinstance(subs, list):
        builder.problem("schema", f"subagent_trajectories is {short(subs)}, not a list of trajectories; not read")
        return out
    for number, sub in enumerate(subs):
        if isinstance(sub, Mapping) and isinstance(sub.get("steps"), list):
            key = sub.get("trajectory_id") if isinstance(sub.get("trajectory_id"), str) else f"subagent_trajectories[{number}]"
            out[f"{key}#{number}" if key in out else key] = sub
        else:
            builder.problem("schema", f"subagent_trajectories[{number}] is {short(sub)}, not a trajectory with steps; not read")
    return out


class _Reader:
    def __init__(self, builder: ThreadBuilder) -> None:
        self.b = builder
        self.read: set[str] = set()  # embedded trajectories already read (a second ref only joins)
        self.depth = 0

    def agent_of(self, doc: Mapping[str, Any], trajectory_id: str | None) -> str:
        agent = doc.get("agent") if isinstance(doc.get("agent"), Mapping) else {}
        name = agent.get("name") if isinstance(agent.get("name"), str) and agent.get("name") else trajectory_id or "agent"
        meta: dict[str, Any] = {"model_name": agent["model_name"]} if isinstance(agent.get("model_name"), str) else {}
        if trajectory_id is None:
            return self.b.agent(name, metadata=meta or None)
        meta[META] = {k: v for k, v in doc.items() if k not in ("steps", "subagent_trajectories")}
        return self.b.agent(name, agent_id=trajectory_id, metadata=meta)

    def trajectory(self, doc: Mapping[str, Any], agent: str, where: str | None, embedded: dict[str, Mapping[str, Any]]) -> None:
        if self.depth >= MAX_DEPTH:  # each level is a few Python frames: a file nested past this costs its deepest steps, not the file
            steps = _steps_below(doc)
            self.b.failed("size-limit", f"subagent trajectory {where} is nested {MAX_DEPTH} levels deep: its {steps} steps (and its own subagents') are not read", n=steps)
            return
        self.depth += 1
        try:
            self._trajectory(doc, agent, where, embedded)
        finally:
            self.depth -= 1

    def _trajectory(self, doc: Mapping[str, Any], agent: str, where: str | None, embedded: dict[str, Mapping[str, Any]]) -> None:
        own = {**embedded, **_embedded(doc, self.b)} if where is not None else embedded
        calls: dict[str, str] = {}  # call id → tool name, of this trajectory
        for index, step in enumerate(doc["steps"]):
            label = f"step {index + 1}" + (f" of subagent trajectory {where}" if where else "")
            if not isinstance(step, Mapping):
                self.b.failed("schema", f"{label} is {short(step)}, not a step object; skipped")
                continue
            _Step(self, step, index, agent, where, own, calls, label).read()
        for key, sub in own.items():  # embedded trajectories no ref names: after the steps of the one holding them
            if key not in self.read and (where is None or key not in embedded):
                self.join(agent, key, sub, where)

    def join(self, parent: str, key: str, sub: Mapping[str, Any], where: str | None) -> None:
        """An embedded trajectory no ref names: joined by the trajectory that holds it, after its steps."""
        child = self.agent_of(sub, key)
        meta = {META: {"in": where}} if where is not None else None
        self.b.add("system.agent_join", data={"agent_id": child, "invited_by": parent, "unreferenced": True}, metadata=meta)
        self.read.add(key)
        self.trajectory(sub, child, key, {})


class _Step:
    """One step's actions, in the order the module docstring gives."""

    def __init__(self, reader: _Reader, step: Mapping[str, Any], index: int, agent: str, where: str | None,
                 embedded: dict[str, Mapping[str, Any]], calls: dict[str, str], label: str) -> None:
        self.r, self.b, self.step, self.agent, self.where = reader, reader.b, step, agent, where
        self.embedded, self.calls, self.label = embedded, calls, label
        self.odd: list[tuple[str, str]] = []  # (rule, message): the step is kept, not taken
        self.rest: dict[str, Any] = {k: v for k, v in step.items() if k not in _STEP_FIELDS}
        self.absent = [k for k in ("timestamp", "message") if k not in step]
        if step.get("step_id") != index + 1:
            self.rest["step_id"] = step.get("step_id")
        self.when, exact = read_time(step.get("timestamp"))
        if "timestamp" in step and not exact:
            self.rest["timestamp"] = step["timestamp"]
            if self.when is None:
                self.odd.append(("schema", f"{label} has timestamp {short(step['timestamp'])}, not ISO 8601; kept as it came"))
        self.model = step.get("model_name")
        self.agent = self._agent(agent)
        self.usage = usage_of(step.get("metrics"))
        self.actions: list[Any] = []

    def _agent(self, agent: str) -> str:
        """The step's agent: its trajectory's; the subagent Harbor's Claude Code converter names
        (``extra.is_sidechain`` with ``extra.agent_id``: a subagent's steps inline); or the one
        ``extra.threadlab_agent`` names (a thread of several agents written by threadlab)."""
        extra = self.rest.get("extra")
        if isinstance(extra, Mapping) and extra.get("is_sidechain") is True and isinstance(extra.get("agent_id"), str) and extra["agent_id"]:
            return self.b.agent(extra["agent_id"], agent_id=extra["agent_id"])
        tag = extra.get(AGENT) if isinstance(extra, Mapping) else None
        if not (isinstance(tag, Mapping) and isinstance(tag.get("agent_id"), str) and isinstance(tag.get("agent_name"), str)):
            return agent
        left = {k: v for k, v in extra.items() if k != AGENT}  # type: ignore[union-attr]
        if left:
            self.rest["extra"] = left
        else:
            del self.rest["extra"]
        return self.b.agent(tag["agent_name"], agent_id=tag["agent_id"])

    def add(self, kind: str, *, meta: dict[str, Any] | None = None, **fields: Any) -> Any:
        metadata = dict(meta or {})
        if kind in _AGENT_KINDS and isinstance(self.model, str):
            metadata["model_name"] = self.model
        own = dict(metadata.get(META) or {})
        if self.where is not None:
            own["in"] = self.where
        if own:
            metadata[META] = own
        when = self.when
        if self.actions and when is not None and self.b.last_time is not None and self.b.last_time > when:
            when = self.b.last_time  # after a subagent's steps: a step has one time, and the child's came after it
        action = self.b.add(kind, timestamp=when, metadata=metadata or None, **fields)
        self.actions.append(action)
        return action

    def read(self) -> None:
        source = self.step.get("source")
        if source not in SOURCES:
            self.rest["source"] = source
            self.odd.append(("schema", f"{self.label} has source {short(source)}, not system, user or agent; read as a system step"))
        extra = self.step.get("extra")
        if source == "system" and restorable(self.step, self.rest):
            restore(self.b, extra[CARRIED], self.when, self.label)  # type: ignore[index]
            return
        message, odd_parts = content_in(self.step.get("message"))
        if odd_parts:
            self.odd.append(("unknown-type", f"{self.label} has {len(odd_parts)} content part(s) ATIF does not define; kept as they came"))
        if "message" in self.step and not isinstance(self.step["message"], str | list):
            self.rest["message"] = self.step["message"]
            self.odd.append(("schema", f"{self.label} has message {short(self.step['message'])}, not text or content parts; kept as it came"))
            message = None
        if source == "user":
            copied = harness_metadata("copied_context") if self.step.get("is_copied_context") is True else None
            self.add("user_message", meta=copied, content=message if message is not None else "")
        elif source == "agent":
            self.agent_turn(message)
        else:
            self.add("system.message", data={"role": "system", "content": message})
        self.observation()
        self.settle()

    def agent_turn(self, message: Any) -> None:
        reasoning = self.step.get("reasoning_content")
        if isinstance(reasoning, str):
            self.add("thinking", agent_id=self.agent, content=reasoning, provider_name="atif")
        elif reasoning is not None:
            self.rest["reasoning_content"] = reasoning
            self.odd.append(("schema", f"{self.label} has reasoning_content {short(reasoning)}, not text; kept as it came"))
        calls = self.step.get("tool_calls")
        results = self.step.get("observation", {}).get("results") if isinstance(self.step.get("observation"), Mapping) else None
        if message is not None and (message != "" or not (calls or results or isinstance(reasoning, str))):
            self.add("assistant_message", agent_id=self.agent, content=message)
        if calls is None:
            return
        if not isinstance(calls, list):
            self.rest["tool_calls"] = calls
            self.odd.append(("schema", f"{self.label} has tool_calls {short(calls)}, not a list; kept as it came"))
            return
        for call in calls:
            if isinstance(call, Mapping) and isinstance(call.get("tool_call_id"), str) and isinstance(call.get("function_name"), str):
                kept = {k: v for k, v in call.items() if k not in ("tool_call_id", "function_name", "arguments")}
                if "arguments" not in call:
                    kept["absent"] = ["arguments"]
                args = unwrapped(call.get("arguments"), kept)
                self.calls[call["tool_call_id"]] = call["function_name"]
                self.add("tool_call", agent_id=self.agent, tool_name=call["function_name"], tool_call_id=call["tool_call_id"],
                         args=args, meta={META: kept} if kept else None)
            else:
                self.odd.append(("missing-id", f"{self.label} has a tool call without a tool_call_id or function_name ({short(call)}); kept as it came"))
                self.add("system.unknown_part", data={"tool_call": call})

    def observation(self) -> None:
        if "observation" not in self.step:
            return
        observation = self.step["observation"]
        results = observation.get("results") if isinstance(observation, Mapping) else None
        if not isinstance(results, list) or set(observation) != {"results"}:
            self.rest["observation"] = observation
            self.odd.append(("schema", f"{self.label} has observation {short(observation)}, not {{results: [...]}}; kept as it came"))
            return
        for result in results:
            if isinstance(result, Mapping):
                self.result(result)
            else:
                self.odd.append(("schema", f"{self.label} has an observation result {short(result)}, not an object; kept as it came"))
                self.add("system.unknown_part", data={"result": result})

    def result(self, result: Mapping[str, Any]) -> None:
        call_id = result.get("source_call_id")
        refs = result.get("subagent_trajectory_ref")
        kept = {k: v for k, v in result.items() if k not in ("source_call_id", "content", "subagent_trajectory_ref")}
        if "source_call_id" in result and call_id is None:
            kept["source_call_id"] = None
        answered = call_id if isinstance(call_id, str) and call_id in self.calls else None
        if refs is not None:
            if not isinstance(refs, list):
                kept["subagent_trajectory_ref"] = refs
                self.odd.append(("schema", f"{self.label} has subagent_trajectory_ref {short(refs)}, not a list; kept as it came"))
            else:
                self.joins(refs, answered, {META: {"result": kept}} if kept and "content" not in result else None)
                if "content" not in result:
                    return
        content, odd_parts = content_in(result.get("content"))
        if odd_parts:
            self.odd.append(("unknown-type", f"{self.label} has {len(odd_parts)} result content part(s) ATIF does not define; kept as they came"))
        if "content" not in result:
            kept["absent"] = ["content"]
        if refs is not None and isinstance(refs, list):
            kept["joined"] = True  # the result of the joins before it
        status, content = status_and_value(kept, content)
        meta = {META: kept} if kept else None
        if answered is not None:
            self.add("tool_return", tool_call_id=answered, tool_name=self.calls[answered], content=content, meta=meta, status=status)
            return
        data: dict[str, Any] = {"content": content}
        if call_id is not None:
            data["source_call_id"] = call_id
            self.odd.append(("unknown-id", f"{self.label} has a result for call {short(call_id)}, which no tool call of its trajectory made; kept as system.observation"))
        self.add("system.observation", data=data, meta=meta)

    def joins(self, refs: list[Any], call_id: str | None, meta: dict[str, Any] | None) -> None:
        for ref in refs:
            key = None
            if isinstance(ref, Mapping):
                key = next((ref[k] for k in ("trajectory_id", "session_id", "trajectory_path") if isinstance(ref.get(k), str) and ref[k]), None)
            if key is None:
                self.odd.append(("schema", f"{self.label} has a subagent_trajectory_ref {short(ref)} that names no trajectory; kept in its agent_join"))
                key = f"subagent_{slug(self.label)}"
            sub = self.embedded.get(key) if isinstance(ref, Mapping) and ref.get("trajectory_id") == key else None
            child = self.r.agent_of(sub, key) if sub is not None else self.b.agent(key, agent_id=key)
            data: dict[str, Any] = {"agent_id": child, "invited_by": self.agent, "ref": ref}
            if call_id is not None:
                data["tool_call_id"] = call_id
            carried = ref.get("extra", {}).get(JOIN) if isinstance(ref, Mapping) and isinstance(ref.get("extra"), Mapping) else None
            if isinstance(carried, Mapping) and set(ref) == {"trajectory_id", "extra"} and set(ref["extra"]) == {JOIN} and carried.get("agent_id") == child:
                data = dict(carried)  # the delegation of a thread of another format, as it was
            self.add("system.agent_join", data=data, meta=meta)
            meta = None
            if sub is not None and key not in self.r.read:
                self.r.read.add(key)
                self.r.trajectory(sub, child, key, self.embedded)

    def settle(self) -> None:
        """The step's usage on its assistant message (else its first agent action), and its account."""
        if self.usage:
            target = next((a for a in self.actions if a.action_type == "assistant_message"), None)
            target = target or next((a for a in self.actions if a.action_type in _AGENT_KINDS), None)
            if target is None:
                self.rest.setdefault("metrics", self.step.get("metrics"))
            else:
                target.usage = Usage(**self.usage) if target.action_type != "tool_call" else dict(self.usage)
                metrics = self.step["metrics"]
                left = {k: v for k, v in metrics.items() if not (k in ("prompt_tokens", "completion_tokens", "cached_tokens") and int_or_none(v) is not None)}
                if left:
                    self.rest["metrics"] = left
        elif "metrics" in self.step:
            self.rest["metrics"] = self.step["metrics"]
        if "model_name" in self.step and not any(a.action_type in _AGENT_KINDS for a in self.actions):
            self.rest["model_name"] = self.step["model_name"]
        if self.actions:  # the first action keeps what the step holds beyond its actions
            first = self.actions[0]
            metadata = dict(first.metadata or {})
            own = {**(metadata.get(META) or {}), "step": self.rest}
            if self.absent:
                own["step_absent"] = self.absent
            metadata[META] = own
            first.metadata = metadata
        if self.odd:
            for rule, message in self.odd[1:]:
                self.b.problem(rule, message)
            self.b.kept(*self.odd[0])
        else:
            self.b.took()


def _steps_below(doc: Mapping[str, Any]) -> int:
    """The steps of a trajectory and of every trajectory embedded below it (what the record
    counter counts), without recursion."""
    total, stack = 0, [doc]
    while stack:
        item = stack.pop()
        if isinstance(item, Mapping) and isinstance(item.get("steps"), list):
            total += len(item["steps"])
            subs = item.get("subagent_trajectories")
            stack.extend(subs if isinstance(subs, list) else [])
    return total
