"""A SWE-agent trajectory → one thread (see ``wire.py`` for the file).

``history`` is the conversation (it is what the model saw): ``system`` → ``system.prompt``; a
``user`` message → ``user_message`` (a demonstration's, ``is_demo``, is ``author: harness``,
``harness: meta``), or, when it follows an action not yet answered, that action's
``tool_return``; ``assistant`` → its ``thinking_blocks`` (``thinking``), its ``content`` (``assistant_message``) and its calls: the
``tool_calls`` of function calling, else its ``action`` as a ``bash`` ``tool_call`` with args
``{"command": action}`` and id ``swe-<message>`` (marked ``metadata.swe_agent.derived``: SWE-agent
ran the action in its shell, the model wrote it as text); ``tool`` → a ``tool_return`` for each of
its ``tool_call_ids``. Each message's ``agent`` is its agent.

``trajectory`` records the same turns again from the agent's loop: its k-th step is the k-th
action of the history. A step whose ``action`` is that message's is accounted for by it (its
``state`` and ``execution_time`` go on the action's ``tool_call``, under
``metadata.swe_agent.step``; when the history holds no answer to the action, the run having ended
on it, the step's ``observation`` is its ``tool_return``, marked ``from_step``). Where they differ
(measured on SWE-agent's own files): with function calling the run's last action (``submit``) is
a step only, the loop ending before the history takes it: that step is a ``tool_call`` and
``tool_return`` of its own (``from_step``). Any other step that differs, or has no such message,
is kept as a ``system.trajectory_step`` with a ``trajectory-history`` problem naming it; history
actions no step records are named by one such problem too.

``info.model_stats``' ``tokens_sent`` / ``tokens_received`` are the run's own totals (no message
holds usage): the thread's ``usage_total`` when they are counts above zero.

A ``RetryAgent``'s file is a thread per attempt (``read_trajectory``).

Records: a ``history`` message and a ``trajectory`` step (the object itself when it holds none),
of each attempt in a ``RetryAgent``'s file."""

from __future__ import annotations

from typing import Any

from threadlab.core.authors import harness_metadata
from threadlab.core.builder import ThreadBuilder
from threadlab.core.model import Thread
from threadlab.core.problems import short

# the family's wire helpers both share (mini-swe-agent is SWE-agent's successor; the same Chat calls and thinking blocks)
from threadlab.formats.common.arguments import parsed_arguments
from threadlab.formats.common.counts import counts_as
from threadlab.formats.common.source import Source
from threadlab.formats.mini_swe_agent.wire import thoughts_of
from threadlab.formats.swe_agent.wire import is_action

KEY = "swe_agent"
AGENT = "SWE-agent"
_OWN = ("role", "content", "agent", "tool_calls", "tool_call_ids")


class TrajectoryReader:
    def __init__(self, source: Source, obj: dict[str, Any]) -> None:
        self.obj = obj
        self.b = ThreadBuilder(None, source=source.name)
        self.agents: dict[str, str] = {}
        self.pending: list[tuple[str, str]] = []  # calls of the last action not yet answered: (id, name)
        self.names: dict[str, str] = {}
        self.actions: list[Any] = []  # per history action: its first tool_call action
        self.title = ""
        self.returned: set[str] = set()

    def agent(self, message: dict[str, Any]) -> str:
        name = message.get("agent") if isinstance(message.get("agent"), str) and message.get("agent") else "main"
        if name not in self.agents:
            self.agents[name] = self.b.agent(name if name not in ("main", "primary") else AGENT, agent_id=name)
        return self.agents[name]

    def read(self) -> Thread:
        history = self.obj["history"]
        steps = self.obj.get("trajectory") if isinstance(self.obj.get("trajectory"), list) else []
        if not history and not steps:
            self.b.took()
        for index, message in enumerate(history, 1):
            if type(message) is not dict or message.get("role") not in ("system", "user", "assistant", "tool"):
                self.b.kept("unknown-type", f"history message {index} is no SWE-agent message ({short(message)}); kept as system.unknown_message")
                self.b.add("system.unknown_message", data=message, metadata={KEY: {"index": index}})
                continue
            self.message(message, index)
            self.b.took()
        self.steps(steps)
        self.finish()
        return self.b.build()

    def message(self, m: dict[str, Any], index: int) -> None:
        role, content = m["role"], m.get("content")
        meta: dict[str, Any] = {KEY: {"index": index, **{k: v for k, v in m.items() if k not in _OWN}}}
        agent = self.agent(m)
        if role == "system":
            self.b.add("system.prompt", data=content, metadata=meta)
        elif role == "tool":
            ids = [i for i in m.get("tool_call_ids") or [] if isinstance(i, str)] if isinstance(m.get("tool_call_ids"), list) else []
            for call_id in ids or [self.pending[0][0] if self.pending else ""]:
                self.returned.add(call_id)
                self.b.add("tool_return", tool_call_id=call_id, tool_name=self.names.get(call_id, ""), content=content, metadata=meta)
            self.pending.clear()
        elif role == "user":
            if self.pending and not m.get("is_demo"):
                call_id, name = self.pending.pop(0)
                self.returned.add(call_id)
                meta[KEY]["derived"] = True
                self.b.add("tool_return", tool_call_id=call_id, tool_name=name, content=content, metadata=meta)
                return
            self.pending.clear()
            if m.get("is_demo"):
                meta.update(harness_metadata("meta"))
            elif not self.title and isinstance(content, str) and content.strip():
                self.title = content.strip().splitlines()[0][:80]
            self.b.add("user_message", content=content if isinstance(content, (str, list)) else "", metadata=meta)
        else:
            self.assistant(m, content, agent, meta, index)

    def assistant(self, m: dict[str, Any], content: Any, agent: str, meta: dict[str, Any], index: int) -> None:
        for text, signature in thoughts_of(m):
            self.b.add("thinking", agent_id=agent, content=text, signature=signature, provider_name="litellm")
        calls = m.get("tool_calls") if isinstance(m.get("tool_calls"), list) else []
        if (isinstance(content, str) and content.strip()) or (isinstance(content, list) and content) or not (calls or is_action(m)):
            self.b.add("assistant_message", agent_id=agent, content=content if isinstance(content, (str, list)) else "", metadata=meta)
            meta = {KEY: {"index": index}}
        self.pending = []
        first = None
        for k, call in enumerate(calls):
            fn = call.get("function") if type(call) is dict and type(call.get("function")) is dict else {}
            call_id = call.get("id") if type(call) is dict and isinstance(call.get("id"), str) else f"swe-{index}-{k}"
            name = fn.get("name") if isinstance(fn.get("name"), str) else ""
            self.names[call_id] = name
            self.pending.append((call_id, name))
            added = self.b.add("tool_call", agent_id=agent, tool_name=name, tool_call_id=call_id, args=parsed_arguments(fn.get("arguments")), metadata={KEY: {**meta[KEY], "call": call}})
            first = first or added
        if not calls and is_action(m):
            call_id = f"swe-{index}"
            self.pending.append((call_id, "bash"))
            first = self.b.add("tool_call", agent_id=agent, tool_name="bash", tool_call_id=call_id, args={"command": m["action"]}, metadata={KEY: {**meta[KEY], "derived": True}})
        if is_action(m):
            self.actions.append((m["action"], first, index))

    def steps(self, steps: list[Any]) -> None:
        for k, step in enumerate(steps):
            recorded = self.actions[k] if k < len(self.actions) else None
            if type(step) is dict and recorded is not None and step.get("action") == recorded[0]:
                call = recorded[1]
                if call is not None and call.metadata is not None:
                    call.metadata[KEY]["step"] = {key: v for key, v in step.items() if key in ("state", "execution_time")}
                if call is not None and call.tool_call_id not in self.returned and "observation" in step:
                    self.step_return(call.tool_call_id, call.tool_name, step, k)
                self.b.took()
                continue
            if type(step) is dict and recorded is None and k == len(self.actions) and isinstance(step.get("action"), str):
                self.step_call(step, k)  # the run's last action (``submit``): the loop ended before the history took it
                self.b.took()
                continue
            why = f"its action differs from history message {recorded[2]}'s" if recorded is not None else "no history action is left for it"
            self.b.kept("trajectory-history", f"trajectory step {k + 1}: {why} ({short(step)}); kept as system.trajectory_step")
            self.b.add("system.trajectory_step", data=step, metadata={KEY: {"step": k + 1}})
        if steps and len(self.actions) > len(steps):
            self.b.problem("trajectory-history", f"the history holds {len(self.actions)} actions, the trajectory {len(steps)} steps: the last {len(self.actions) - len(steps)} have no step")

    def step_call(self, step: dict[str, Any], k: int) -> None:
        """A trailing step no history message records, as its own call and return."""
        agent = next(iter(self.agents.values()), None) or self.agent({})
        call_id = f"swe-step-{k + 1}"
        meta = {KEY: {"from_step": k + 1, "step": {key: v for key, v in step.items() if key in ("state", "execution_time")}}}
        self.b.add("tool_call", agent_id=agent, tool_name="bash", tool_call_id=call_id, args={"command": step["action"]}, metadata=meta)
        self.actions.append((step["action"], None, 0))
        if "observation" in step:
            self.step_return(call_id, "bash", step, k)

    def step_return(self, call_id: str, name: str, step: dict[str, Any], k: int) -> None:
        """The observation of an action the history holds no answer to (the run ended on it)."""
        self.b.add("tool_return", tool_call_id=call_id, tool_name=name, content=step["observation"], metadata={KEY: {"from_step": k + 1}})
        self.returned.add(call_id)

    def finish(self) -> None:
        info = self.obj.get("info") if type(self.obj.get("info")) is dict else {}
        stats = info.get("model_stats") if type(info.get("model_stats")) is dict else {}
        problems: list[str] = []
        totals = counts_as({"tokens_sent": ("input_tokens", stats.get("tokens_sent")), "tokens_received": ("output_tokens", stats.get("tokens_received"))}, problems, "info.model_stats.")
        for phrase in problems:
            self.b.problem("usage", phrase)
        if any(totals.values()):
            self.b.metadata["usage_total"] = totals
            self.b.metadata["usage_total_note"] = "SWE-agent's own totals (info.model_stats: every model call of the run; no message holds usage)"
        self.b.title = self.title
        self.b.metadata[KEY] = {k: v for k, v in self.obj.items() if k not in ("history", "trajectory")}


def read_trajectory(source: Source, obj: dict[str, Any]) -> list[Thread]:
    """One thread, or one per attempt of a ``RetryAgent``'s file (the chosen attempt's copy at the
    top is not read again: its attempt is the thread marked ``best_attempt``)."""
    attempts = obj.get("attempts")
    if not isinstance(attempts, list) or not attempts:
        return [TrajectoryReader(source, obj).read()]
    info = obj.get("info") if type(obj.get("info")) is dict else {}
    best = info.get("best_attempt_idx")
    threads = []
    for k, attempt in enumerate(attempts):
        thread = TrajectoryReader(source, attempt).read()
        thread.metadata[KEY]["attempt"] = k  # type: ignore[index]
        if k == 0:
            thread.metadata[KEY]["retry"] = {key: v for key, v in obj.items() if key not in ("attempts", "history", "trajectory")}  # type: ignore[index]
        if best == k:
            thread.metadata[KEY]["best_attempt"] = True  # type: ignore[index]
        threads.append(thread)
    return threads
