"""SWE-agent ``.traj`` files and mini-swe-agent ``*.traj.json`` trajectories, counted from the raw
bytes with orjson only, from the agents' own documentation and source (SWE-agent's
``sweagent/agent/agents.py`` and docs/usage/trajectories.md; mini-swe-agent's
docs/usage/output_files.md, ``agents/default.py`` and ``models/utils/actions_*.py``):

- human prompt: a ``user`` message that answers no command (a demonstration's, ``is_demo``, and
  mini-swe-agent's format-error and timeout notices, ``extra.interrupt_type`` in 2.x, in 1.x a
  ``user`` message right after a model message that ran nothing, are harness turns);
- assistant text: an ``assistant`` message whose content is not blank;
- tool call: each ``tool_calls`` entry; else an assistant message's command (SWE-agent's
  ``action``; mini-swe-agent's ``extra.actions`` without call ids, or its content's one fenced
  ```` ```bash ```` / ```` ```mswea_bash_command ```` block); a SWE-agent ``trajectory`` step past
  the history's last action is one too (the run's ``submit``, which only the steps record);
- return: each ``tool`` message (SWE-agent: each of its ``tool_call_ids``), the ``user`` message
  after a command, and a SWE-agent step's ``observation`` for an action the history never answers;
  error (mini-swe-agent): an exit code (``extra.returncode``, or ``<returncode>``) other than 0;
- a Responses API model's items (2.x): a ``response`` object's ``message`` items are its text,
  its ``function_call`` items calls; a ``function_call_output`` is a return;
- tokens: mini-swe-agent's ``extra.response.usage`` (``prompt_tokens``, cached ones inside,
  ``completion_tokens``, ``prompt_tokens_details.cached_tokens``);
  SWE-agent's run totals ``info.model_stats`` (``tokens_sent``, ``tokens_received``), which no
  message holds: a usage total."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import orjson

from tests.wild.count import Counts, blank

_FENCE = re.compile(r"```(?:bash|mswea_bash_command)\s*\n(.*?)\n```", re.DOTALL)
_CODE = re.compile(r"<returncode>\s*(-?\d+)\s*</returncode>")


def _add(c: Counts, name: str, n: int = 1) -> None:
    setattr(c, name, (getattr(c, name) or 0) + n)


def _commands(m: dict[str, Any]) -> int:
    extra = m.get("extra") if isinstance(m.get("extra"), dict) else {}
    actions = extra.get("actions")
    if isinstance(actions, list) and actions and all(isinstance(a, dict) and isinstance(a.get("command"), str) for a in actions):
        return 0 if any("tool_call_id" in a for a in actions) else len(actions)
    content = m.get("content")
    return 1 if isinstance(content, str) and len(_FENCE.findall(content)) == 1 else 0


def mini_swe_agent(path: Path) -> Counts:
    c = Counts()
    waiting, previous = 0, None
    for m in orjson.loads(path.read_bytes())["messages"]:
        if not isinstance(m, dict):
            continue
        role, extra = m.get("role"), m.get("extra") if isinstance(m.get("extra"), dict) else {}
        if m.get("object") == "response" and isinstance(m.get("output"), list):  # a Responses API model's response
            items = [i for i in m["output"] if isinstance(i, dict)]
            texts = [p.get("text") for i in items if i.get("type") == "message" for p in i.get("content") or [] if isinstance(p, dict)]
            if any(not blank(t) for t in texts):
                _add(c, "assistant_texts")
            _add(c, "tool_calls", sum(1 for i in items if i.get("type") == "function_call"))
            waiting, previous = 0, "assistant"
            continue
        if m.get("type") == "function_call_output":
            m, role = {**m, "content": m.get("output")}, "tool"
        if role == "assistant":
            if not blank(m.get("content")) or (isinstance(m.get("content"), list) and m["content"]):
                _add(c, "assistant_texts")
            calls = m.get("tool_calls") if isinstance(m.get("tool_calls"), list) else []
            waiting = 0 if calls else _commands(m)
            _add(c, "tool_calls", len(calls) + waiting)
            usage = extra.get("response", {}).get("usage") if isinstance(extra.get("response"), dict) else None
            if isinstance(usage, dict):
                details = usage.get("prompt_tokens_details") if isinstance(usage.get("prompt_tokens_details"), dict) else {}
                c.add_tokens(usage.get("prompt_tokens"), usage.get("completion_tokens"), details.get("cached_tokens"))
        elif role == "tool" or (role == "user" and waiting and "interrupt_type" not in extra):
            waiting = max(0, waiting - 1) if role == "user" else waiting
            _add(c, "tool_returns")
            code = extra.get("returncode")
            if code is None and isinstance(m.get("content"), str):
                found = _CODE.search(m["content"])
                code = int(found.group(1)) if found else None
            if isinstance(code, int) and code != 0:
                _add(c, "tool_errors")
        elif role == "user":
            waiting = 0
            _add(c, "harness_turns" if "interrupt_type" in extra or previous == "assistant" else "human_prompts")
        previous = role
    return c


def swe_agent(path: Path) -> Counts:
    """A ``RetryAgent``'s file (``attempts``, each an attempt's trajectory data, and a copy of the
    chosen one beside them) counts each attempt once."""
    value = orjson.loads(path.read_bytes())
    attempts = value.get("attempts")
    if not isinstance(attempts, list) or not attempts:
        return _attempt(value)
    total = Counts()
    for attempt in attempts:
        for name, figure in vars(_attempt(attempt)).items():
            if figure is not None:
                setattr(total, name, (getattr(total, name) or 0) + figure)
    return total


def _attempt(value: dict[str, Any]) -> Counts:
    c = Counts()
    waiting, actions, answered = False, 0, []
    for m in value["history"]:
        if not isinstance(m, dict):
            continue
        role = m.get("role")
        if role == "assistant":
            if not blank(m.get("content")):
                _add(c, "assistant_texts")
            calls = m.get("tool_calls") if isinstance(m.get("tool_calls"), list) else []
            action = isinstance(m.get("action"), str)
            _add(c, "tool_calls", len(calls) or int(action))
            waiting = bool(calls) or action
            if action:
                actions += 1
                answered.append(False)
        elif role == "tool":
            ids = m.get("tool_call_ids") if isinstance(m.get("tool_call_ids"), list) else []
            _add(c, "tool_returns", len(ids) or 1)
            waiting = False
            if answered:
                answered[-1] = True
        elif role == "user" and waiting and not m.get("is_demo"):
            _add(c, "tool_returns")
            waiting = False
            answered[-1] = True
        elif role == "user":
            waiting = False
            _add(c, "harness_turns" if m.get("is_demo") else "human_prompts")
    steps = value.get("trajectory") if isinstance(value.get("trajectory"), list) else []
    for k, step in enumerate(steps):
        if not isinstance(step, dict) or "observation" not in step:
            continue
        if k >= actions:
            _add(c, "tool_calls")
            _add(c, "tool_returns")
        elif not answered[k]:
            _add(c, "tool_returns")
    stats = value.get("info", {}).get("model_stats") if isinstance(value.get("info"), dict) else None
    if isinstance(stats, dict) and any(isinstance(stats.get(k), int) and stats[k] > 0 for k in ("tokens_sent", "tokens_received")):
        c.add_tokens(stats.get("tokens_sent"), stats.get("tokens_received"))
        c.usage_totals = 1
    return c
