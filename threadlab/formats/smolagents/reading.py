"""smolagents memory steps → one thread (see ``wire.py`` for the files).

``SystemPromptStep`` → ``system.prompt`` (a steps dump holds none: the first model input's system
message is the prompt, read once); ``TaskStep`` → ``user_message`` (the first one titles the
thread); ``PlanningStep`` → ``assistant_message`` of the plan (``metadata.smolagents.step`` is
``planning``), with its usage; ``ActionStep`` → the model's text (``model_output``) as an
``assistant_message``, its calls (``tool_calls``; when the step lost them to an error, the calls of
``model_output_message``) as ``tool_call``s, and one ``tool_return`` per call: the step's
``observations``, or its ``error`` (status ``error``, the error's message; observations made before
the error under ``metadata.smolagents.observations``). Several calls in one step share one
``observations`` text (smolagents joins their outputs): the first call's return holds it, the
others' returns say where it is (``metadata.smolagents.observations_in``). A step whose error
came before any call (output that did not parse) is a ``system.error``. ``token_usage`` is the
step's usage (on its text, else its first call), ``timing.start_time`` its time;
``FinalAnswerStep`` → ``system.final_answer``. A CodeAgent's code runs as the step's
``python_interpreter`` call (smolagents' own), so code actions are tool calls.

``RunResult``'s ``token_usage`` is the producer's total (``metadata.usage_total``); its
``output``, ``state`` and ``timing`` are the thread's ``metadata.smolagents``.

Records: a step (a line of a JSON Lines file; a list's items)."""

from __future__ import annotations

from typing import Any

from threadlab.core.authors import harness_metadata
from threadlab.core.builder import ThreadBuilder
from threadlab.core.model import Thread
from threadlab.core.problems import short
from threadlab.formats.common.counts import counts_as
from threadlab.formats.smolagents.wire import MANAGED_TASK, call_parts, step_kind, text_of

KEY = "smolagents"
AGENT = "smolagents"
_USAGE = {"input_tokens": "input_tokens", "output_tokens": "output_tokens", "total_tokens": "total_tokens"}
_HANDLED = frozenset({"__class__", "type", "timing", "model_input_messages", "tool_calls", "error", "model_output", "observations", "token_usage", "step_number", "task", "plan", "output", "system_prompt"})


def usage_of(b: ThreadBuilder, figures: Any, where: str) -> dict[str, int] | None:
    if type(figures) is not dict:
        return None
    problems: list[str] = []
    found = counts_as({k: (ours, figures.get(k)) for k, ours in _USAGE.items()}, problems, where)
    for phrase in problems:
        b.problem("usage", phrase)
    return found or None


class StepsReader:
    def __init__(self, source_name: str) -> None:
        self.b = ThreadBuilder(None, source=source_name)
        self.agent = self.b.agent(AGENT, agent_id="main")
        self.when: Any = None
        self.prompted = False
        self.title = ""

    def step(self, step: Any, where: str, line: int | None = None) -> None:
        kind = step_kind(step)
        if kind is None:
            self.b.kept("unknown-type", f"{where} is no smolagents memory step ({short(step)}); kept as system.unknown_step", line=line)
            self.b.add("system.unknown_step", timestamp=self.when, data=step, metadata={KEY: {"where": where}})
            return
        timing = step.get("timing")
        start = timing.get("start_time") if type(timing) is dict else None
        if isinstance(start, (int, float)) and not isinstance(start, bool):
            self.when = start
        rest = {k: v for k, v in step.items() if k not in _HANDLED and v is not None}
        meta: dict[str, Any] = {KEY: {"step": kind.removesuffix("Step").lower(), **({"timing": timing} if timing else {}), **rest}}
        getattr(self, kind)(step, meta, where)
        self.b.took()

    def SystemPromptStep(self, step: dict[str, Any], meta: dict[str, Any], where: str) -> None:
        self.prompted = True
        self.b.add("system.prompt", timestamp=self.when, data=step["system_prompt"], metadata=meta)

    def TaskStep(self, step: dict[str, Any], meta: dict[str, Any], where: str) -> None:
        task = step["task"]
        if task.startswith(MANAGED_TASK):  # a manager wrote it (the default template), no person
            meta.update(harness_metadata("task_prompt"))
        elif not self.title and task.strip():
            self.title = task.strip().splitlines()[0][:80]
        self.b.add("user_message", timestamp=self.when, content=task, metadata=meta)

    def FinalAnswerStep(self, step: dict[str, Any], meta: dict[str, Any], where: str) -> None:
        self.b.add("system.final_answer", timestamp=self.when, data=step.get("output"), metadata=meta)

    def system_from(self, step: dict[str, Any]) -> None:
        """The system prompt of a dump that has no SystemPromptStep: the first model input's."""
        if self.prompted:
            return
        inputs = step.get("model_input_messages")
        first = inputs[0] if isinstance(inputs, list) and inputs else None
        if type(first) is dict and first.get("role") == "system" and isinstance(text_of(first.get("content")), str):
            self.prompted = True
            self.b.add("system.prompt", timestamp=self.when, data=text_of(first["content"]), metadata={KEY: {"from": "model_input_messages"}})

    def PlanningStep(self, step: dict[str, Any], meta: dict[str, Any], where: str) -> None:
        self.system_from(step)
        plan = step.get("plan")
        self.b.add("assistant_message", timestamp=self.when, agent_id=self.agent, content=plan if isinstance(plan, str) else "",
                   usage=usage_of(self.b, step.get("token_usage"), f"{where}.token_usage."), metadata=meta)

    def ActionStep(self, step: dict[str, Any], meta: dict[str, Any], where: str) -> None:
        self.system_from(step)
        usage = usage_of(self.b, step.get("token_usage"), f"{where}.token_usage.")
        text = step.get("model_output")
        text = text_of(text) if isinstance(text, list) else text
        calls = [c for c in (call_parts(c) for c in step.get("tool_calls") or []) if c is not None]
        if not calls:  # a step whose tool raised keeps no tool_calls; the model's message has them
            message = step.get("model_output_message")
            calls = [c for c in (call_parts(c) for c in (message.get("tool_calls") or [] if type(message) is dict else [])) if c is not None]
            if calls:
                meta[KEY]["calls_from"] = "model_output_message"
        number = step.get("step_number")
        if isinstance(text, str) and (text.strip() or not calls):
            self.b.add("assistant_message", timestamp=self.when, agent_id=self.agent, content=text, usage=usage, metadata=meta)
            usage, meta = None, {KEY: {"step": "action", "step_number": number}}
        ids = []
        for k, (call_id, name, args) in enumerate(calls):
            call_id = call_id or f"smol-{number}-{k}"
            ids.append((call_id, name))
            self.b.add("tool_call", timestamp=self.when, agent_id=self.agent, tool_name=name, tool_call_id=call_id, args=args, usage=usage, metadata=meta)
            usage, meta = None, {KEY: {"step": "action", "step_number": number}}
        self.returns(step, ids, meta)

    def returns(self, step: dict[str, Any], ids: list[tuple[str, str]], meta: dict[str, Any]) -> None:
        observations, error = step.get("observations"), step.get("error")
        message = error.get("message") if type(error) is dict else error
        if not ids:
            if error is not None:
                self.b.add("system.error", timestamp=self.when, data=error, metadata=meta)
            elif observations is not None:
                self.b.add("system.observation", timestamp=self.when, data=observations, metadata=meta)
            elif "assistant_message" not in {a.action_type for a in self.b.actions[-1:]}:
                self.b.add("system.step", timestamp=self.when, data=None, metadata=meta)
            return
        end = step.get("timing", {}).get("end_time") if type(step.get("timing")) is dict else None
        when = end if isinstance(end, (int, float)) and not isinstance(end, bool) and not (isinstance(self.when, (int, float)) and end < self.when) else self.when
        self.when = when  # what follows (a final answer step, which has no timing) is after the returns
        for k, (call_id, name) in enumerate(ids):
            own: dict[str, Any] = {KEY: dict(meta[KEY])}
            if k and (observations is not None or error is not None):
                own[KEY]["observations_in"] = ids[0][0]
                content: Any = None
            elif error is not None:
                if observations is not None:
                    own[KEY]["observations"] = observations
                if type(error) is dict and set(error) == {"type", "message"}:  # AgentError.dict(): the message is the content
                    own[KEY]["error_type"] = error["type"]
                else:
                    own[KEY]["error"] = error
                content = message
            else:
                content = observations
            self.b.add("tool_return", timestamp=when, tool_call_id=call_id, tool_name=name, status="error" if error is not None else "success", content=content, metadata=own)

    def build(self, extra: dict[str, Any] | None = None) -> Thread:
        self.b.title = self.title
        if extra:
            self.b.metadata[KEY] = extra
        return self.b.build()


def read_steps(name: str, steps: list[tuple[Any, str, int | None]], run: dict[str, Any] | None = None) -> Thread:
    """A thread of ``steps`` (each with where it is and its line); ``run`` is the RunResult around them."""
    reader = StepsReader(name)
    first = next((s for s, _, _ in steps if type(s) is dict and step_kind(s) in ("ActionStep", "PlanningStep")), None)
    if first is not None:  # the prompt the model was sent stands before the task, as in the run
        reader.system_from(first)
    for step, where, line in steps:
        reader.step(step, where, line)
    extra = None
    if run is not None:
        extra = {k: v for k, v in run.items() if k not in ("steps", "token_usage")}
        total = usage_of(reader.b, run.get("token_usage"), "token_usage.")
        if total:
            reader.b.metadata["usage_total"] = total
        if not steps:
            reader.b.took()
    return reader.build(extra)
