"""smolagents memory dumps, counted from the raw bytes with orjson and the standard library
(``ast`` for the Python repr of a ``tool-call`` message), from smolagents' ``memory.py``
(``ActionStep.dict``, ``to_messages``) and what the real package 1.26.0 wrote:

Steps (``get_full_steps()``, ``get_succinct_steps()``, a ``RunResult``'s ``steps``, JSON Lines):
- human prompt: a task step (``task`` and no ``step_number``) whose task is not blank, unless it is
  the prompt a manager gives a managed agent (the ``managed_agent.task`` template: "You're a
  helpful agent named '...'"), which is a harness turn;
- assistant text: an action step's ``model_output`` that is not blank, a planning step's ``plan``;
- tool call: each of an action step's ``tool_calls`` (when there are none, its
  ``model_output_message.tool_calls``: the calls of a step whose tool raised); each call has a
  return; those of a step with an ``error`` are errors;
- tokens: the action and planning steps' ``token_usage``; a ``RunResult``'s own ``token_usage``
  is a usage total when it differs from their sum.

Messages (``write_memory_to_messages()``): a ``user`` message "New task:\\n..." is a prompt (a
managed agent's task a harness turn), any other user message a harness turn; an ``assistant``
message with text an assistant text; each call of a ``tool-call`` message a call; a
``tool-response`` "Observation:" a return, an "Error:" one an error (and a return unless the call
it names already had its observation)."""

from __future__ import annotations

import ast
from pathlib import Path
from typing import Any

import orjson

from tests.wild.count import Counts, blank

MANAGED = "You're a helpful agent named '"


def _text(content: Any) -> str:
    if isinstance(content, str):
        return content
    return "".join(p["text"] for p in content or [] if isinstance(p, dict) and isinstance(p.get("text"), str)) if isinstance(content, list) else ""


def _steps(steps: list[Any], c: Counts) -> tuple[int, int]:
    tokens = [0, 0]
    for s in steps:
        if not isinstance(s, dict):
            continue
        if isinstance(s.get("task"), str) and "step_number" not in s:
            if s["task"].startswith(MANAGED):
                c.harness_turns += 1
            elif not blank(s["task"]):
                c.human_prompts += 1
            continue
        if "plan" in s:
            c.assistant_texts += not blank(s.get("plan"))
        elif "step_number" in s:
            c.assistant_texts += not blank(_text(s.get("model_output")))
            calls = s.get("tool_calls") or (s.get("model_output_message") or {}).get("tool_calls") or []
            c.tool_calls += len(calls)
            c.tool_returns += len(calls)
            c.tool_errors += len(calls) if s.get("error") is not None else 0
        else:
            continue
        usage = s.get("token_usage")
        if isinstance(usage, dict):
            c.add_tokens(usage.get("input_tokens"), usage.get("output_tokens"))
            tokens[0] += usage.get("input_tokens") or 0
            tokens[1] += usage.get("output_tokens") or 0
    return tokens[0], tokens[1]


def _messages(messages: list[Any], c: Counts) -> None:
    answered: set[str] = set()
    pending: list[str] = []
    for m in messages:
        role, text = m.get("role"), _text(m.get("content"))
        if role == "user":
            if text.startswith("New task:\n") and not text.startswith("New task:\n" + MANAGED):
                c.human_prompts += 1
            else:
                c.harness_turns += 1
        elif role == "assistant":
            c.assistant_texts += not blank(text)
        elif role == "tool-call":
            calls = ast.literal_eval(text.removeprefix("Calling tools:\n"))
            c.tool_calls += len(calls)
            pending += [call.get("id", "") for call in calls]
        elif role == "tool-response":
            if text.startswith("Call id: ") or text.startswith("Error:\n"):
                call_id = text.removeprefix("Call id: ").split("\n", 1)[0] if text.startswith("Call id: ") else None
                c.tool_errors += 1
                if call_id in answered:
                    continue
                if call_id in pending:
                    pending.remove(call_id)
                elif pending and call_id is None:
                    pending.pop(0)
            elif pending:
                answered.add(pending.pop(0))
            c.tool_returns += 1


def smolagents(path: Path) -> Counts:
    data = path.read_bytes()
    try:
        value = orjson.loads(data)
    except orjson.JSONDecodeError:
        value = [orjson.loads(line) for line in data.splitlines() if line.strip()]
    c = Counts()
    if isinstance(value, list) and value and all(isinstance(m, dict) and "role" in m and "raw" in m for m in value):
        _messages(value, c)
        return c
    steps = value["steps"] if isinstance(value, dict) else value
    inp, out = _steps(steps, c)
    total = value.get("token_usage") if isinstance(value, dict) else None
    if isinstance(total, dict):
        c.usage_totals = int((total.get("input_tokens"), total.get("output_tokens")) != (inp, out))
    return c
