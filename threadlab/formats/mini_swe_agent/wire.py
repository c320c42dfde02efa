"""The shape of a mini-swe-agent trajectory (``<instance>.traj.json``, ``last_mini_run.traj.json``;
in a Harbor job folder ``agent/mini-swe-agent.trajectory.json``).

Written by ``DefaultAgent.save`` (src/minisweagent/agents/default.py of SWE-agent/mini-swe-agent)
as one JSON object: ``info`` (``model_stats`` {``instance_cost``, ``api_calls``}, ``config``,
``mini_version``, ``exit_status``, ``submission``), ``messages`` (the OpenAI Chat Completions
messages the model was sent and gave, each with an ``extra`` object of the agent's own) and
``trajectory_format`` (``mini-swe-agent-1`` for 1.x, ``mini-swe-agent-1.1`` from 2.0 on). What
the model, environment and run add is merged in beside them (``instance_id``, ...).

Two ways an action travels (docs/usage/output_files.md):

* **text-based** (every 1.x release, 2.x ``*_textbased`` models): the assistant's content holds one
  fenced command (```` ```bash ```` in 1.x, ```` ```mswea_bash_command ```` in 2.x; 2.x also lists
  it in ``extra.actions`` as ``{"command": ...}``) and the next ``user`` message is its
  observation (``<returncode>`` / ``<output>`` in 1.x's template; 2.x adds ``extra.returncode``
  and ``extra.raw_output``);
* **tool calling** (2.x default): the assistant message has ``tool_calls`` (``bash`` with
  ``{"command": ...}``) and each observation is a ``tool`` message with its ``tool_call_id``.

A ``user`` message with ``extra.interrupt_type`` (``FormatError``, ...) is the harness telling the
model its answer could not be run; an ``exit`` message (2.x) ends the run (``extra.exit_status``,
``extra.submission``)."""

from __future__ import annotations

import re
from typing import Any

FORMAT_PREFIX = "mini-swe-agent"
ROLES = frozenset({"system", "user", "assistant", "tool", "exit"})
# the fenced command of a text-based answer: 1.x ```bash, 2.x ```mswea_bash_command (the default regexes)
COMMAND = re.compile(r"```(?:bash|mswea_bash_command)\s*\n(.*?)\n```", re.DOTALL)
RETURNCODE = re.compile(r"<returncode>\s*(-?\d+)\s*</returncode>")


def is_trajectory(value: Any) -> bool:
    """A saved trajectory: its ``trajectory_format`` names mini-swe-agent, or (files saved before
    the field) an ``info`` with ``mini_version`` beside the ``messages`` list."""
    if type(value) is not dict or not isinstance(value.get("messages"), list):
        return False
    fmt = value.get("trajectory_format")
    if isinstance(fmt, str):
        return fmt.startswith(FORMAT_PREFIX)
    info = value.get("info")
    return type(info) is dict and isinstance(info.get("mini_version"), str)


def commands_of(message: dict[str, Any]) -> list[str]:
    """The commands a text-based answer runs: ``extra.actions`` (2.x), else the fenced blocks of
    its content (1.x, which parsed exactly one and sent a format error otherwise)."""
    extra = message.get("extra")
    actions = extra.get("actions") if type(extra) is dict else None
    if isinstance(actions, list) and actions and all(type(a) is dict and isinstance(a.get("command"), str) for a in actions):
        if not any("tool_call_id" in a for a in actions):
            return [a["command"] for a in actions]
        return []
    content = message.get("content")
    if not isinstance(content, str):
        return []
    found = [c.strip() for c in COMMAND.findall(content)]
    return found if len(found) == 1 else []


def thoughts_of(message: dict[str, Any]) -> list[tuple[str, str | None]]:
    """The model's thinking an assistant message keeps, as (text, signature): litellm's
    ``thinking_blocks`` (Anthropic's ``thinking`` blocks, with their signatures; SWE-agent keeps them
    too), else its ``reasoning_content`` text."""
    blocks = message.get("thinking_blocks")
    if isinstance(blocks, list) and blocks:
        return [(b["thinking"], b.get("signature") if isinstance(b.get("signature"), str) else None)
                for b in blocks if type(b) is dict and b.get("type") == "thinking" and isinstance(b.get("thinking"), str)]
    reasoning = message.get("reasoning_content")
    return [(reasoning, None)] if isinstance(reasoning, str) and reasoning.strip() else []
