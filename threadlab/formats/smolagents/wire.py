"""The shapes smolagents hands a run's memory out in, as people save them to disk.

smolagents (huggingface/smolagents, ``src/smolagents/memory.py``) keeps a run as memory steps:
``SystemPromptStep`` (``system_prompt``), ``TaskStep`` (``task``, ``task_images``),
``PlanningStep`` (``plan``, ``model_input_messages``, ``model_output_message``, ``timing``,
``token_usage``), ``ActionStep`` (``step_number``, ``timing``, ``model_input_messages``,
``tool_calls``, ``error``, ``model_output_message``, ``model_output``, ``code_action``,
``observations``, ``observations_images``, ``action_output``, ``token_usage``,
``is_final_answer``) and ``FinalAnswerStep`` (``output``). Each step's ``dict()`` is its JSON
form; the files are

- ``agent.memory.get_full_steps()`` / ``get_succinct_steps()`` (the latter without
  ``model_input_messages``) dumped as one JSON list;
- ``agent.run(..., return_full_result=True).dict()``: ``RunResult`` {``output``, ``state``,
  ``steps``, ``token_usage``, ``timing``};
- JSON Lines of step dicts (a step callback writing each step as the run goes; the system prompt
  step first as ``{"system_prompt": ...}``);
- ``agent.write_memory_to_messages()`` as ``ChatMessage.dict()`` objects (``role``, ``content``
  parts, ``tool_calls``, ``raw``, ``token_usage``), roles ``system``, ``user``, ``assistant``,
  ``tool-call`` (``"Calling tools:\\n"`` + the calls' Python repr) and ``tool-response``
  (``"Observation:\\n..."``, or ``"Call id: <id>\\nError:\\n..."``).

A step carries no type name; its keys say which it is (``step_kind``). Some wrappers add the
class name as ``__class__`` or ``type``: that is read first.

A CodeAgent's code action is already a tool call in the step: ``tool_calls`` holds one
``python_interpreter`` call whose ``arguments`` are the code (``code_action``)."""

from __future__ import annotations

import ast
from typing import Any

STEP_KINDS = ("SystemPromptStep", "TaskStep", "PlanningStep", "ActionStep", "FinalAnswerStep")
MESSAGE_ROLES = frozenset({"system", "user", "assistant", "tool-call", "tool-response"})
MESSAGE_KEYS = frozenset({"role", "content", "tool_calls", "raw", "token_usage"})
RUN_KEYS = frozenset({"output", "state", "steps", "token_usage", "timing"})
_ACTION_KEYS = frozenset({"model_output", "observations", "code_action", "is_final_answer", "action_output", "model_output_message", "tool_calls"})
CALLING = "Calling tools:\n"
# how smolagents' default ``managed_agent.task`` template starts: a manager's task for a managed agent
MANAGED_TASK = "You're a helpful agent named '"
OBSERVATION = "Observation:\n"


def step_kind(step: Any) -> str | None:
    """Which memory step a dict is, by its class name when a wrapper kept one, else by its keys."""
    if type(step) is not dict:
        return None
    named = step.get("__class__", step.get("type"))
    if named in STEP_KINDS:
        return named
    if "step_number" in step and "timing" in step and not _ACTION_KEYS.isdisjoint(step):
        return "ActionStep"
    if "plan" in step and ("model_output_message" in step or "timing" in step):
        return "PlanningStep"
    if isinstance(step.get("task"), str) and set(step) <= {"task", "task_images", "__class__", "type"}:
        return "TaskStep"
    if isinstance(step.get("system_prompt"), str) and set(step) <= {"system_prompt", "__class__", "type"}:
        return "SystemPromptStep"
    if set(step) == {"output"} or (set(step) <= {"output", "__class__", "type"} and "output" in step):
        return "FinalAnswerStep"
    return None


def is_run_result(value: Any) -> bool:
    return type(value) is dict and RUN_KEYS <= set(value) and isinstance(value.get("steps"), list)


def is_steps(value: Any) -> bool:
    """A list of memory steps: most of its first items steps (one that is none is kept as it
    came), one of them an action or a planning step (a task alone says too little)."""
    if not isinstance(value, list) or not value:
        return False
    kinds = [step_kind(v) for v in value[:20]]
    return 2 * kinds.count(None) < len(kinds) and any(k in ("ActionStep", "PlanningStep") for k in kinds)


def is_message(value: Any) -> bool:
    return type(value) is dict and MESSAGE_KEYS <= set(value) and value.get("role") in MESSAGE_ROLES


def is_messages(value: Any) -> bool:
    """``write_memory_to_messages()`` dumped: ChatMessage dicts, one of them a ``tool-call`` or
    ``tool-response`` (smolagents' own roles) or all with ``raw`` and ``token_usage``."""
    if not isinstance(value, list) or not value:
        return False
    head = value[:50]
    return all(is_message(v) for v in head)


def text_of(content: Any) -> str | None:
    """A ChatMessage's content as text: a string, or its text parts joined."""
    if isinstance(content, str):
        return content
    if isinstance(content, list) and all(type(p) is dict for p in content):
        texts = [p["text"] for p in content if p.get("type") == "text" and isinstance(p.get("text"), str)]
        return "".join(texts) if len(texts) == len(content) else None
    return None


def called_tools(text: str) -> list[dict[str, Any]] | None:
    """The calls a ``tool-call`` message names (``"Calling tools:\\n"`` + a Python repr of the
    calls' dicts), or None when the text is not that."""
    if not text.startswith(CALLING):
        return None
    try:
        calls = ast.literal_eval(text[len(CALLING):])
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return None
    return calls if isinstance(calls, list) and all(type(c) is dict for c in calls) else None


def call_parts(call: Any) -> tuple[str, str, Any] | None:
    """(id, name, arguments) of a step's ``ToolCall.dict()`` or a ChatMessage tool call."""
    if type(call) is not dict:
        return None
    fn = call.get("function")
    if type(fn) is not dict or not isinstance(fn.get("name"), str):
        return None
    call_id = call.get("id")
    return (call_id if isinstance(call_id, str) else ""), fn["name"], fn.get("arguments")
