"""The shape of a SWE-agent trajectory (``<instance_id>.traj``, JSON), as ``RunSingle`` /
``DefaultAgent.save_trajectory`` write it (sweagent/agent/agents.py of SWE-agent/SWE-agent; the
0.x releases wrote the same keys):

* ``history``: the messages the model was sent and gave, each ``{role, content, agent,
  message_type}`` (``system_prompt``, ``observation``, ``action``, ``demonstration``, ``thought``);
  an ``assistant`` message adds ``thought`` and ``action`` (the command it runs) and, with
  function calling, ``tool_calls`` (OpenAI Chat Completions calls); an observation of a function
  call is a ``tool`` message with ``tool_call_ids``, else a ``user`` message; ``is_demo`` marks a
  demonstration's messages;
* ``trajectory``: one step per action: ``{action, observation, response, thought, state,
  execution_time, query?, extra_info?}``: the same turns seen from the agent's loop;
* ``info``: ``model_stats`` (``tokens_sent``, ``tokens_received``, ``instance_cost``,
  ``api_calls``), ``exit_status``, ``submission``, ``edited_files*``, ``swe_agent_version`` ...;
* ``environment`` (the environment's name) and ``replay_config`` (the run's config as JSON text).

Demonstration trajectories (``trajectories/demonstrations/``) may hold ``history`` only. A
``RetryAgent``'s file holds ``attempts`` (each attempt's own trajectory data) and, once one is
chosen, a copy of the best one's keys beside them (``info.best_attempt_idx``; ``info.model_stats``
then the total of all attempts)."""

from __future__ import annotations

from typing import Any

TOP_KEYS = frozenset({"environment", "trajectory", "history", "info", "replay_config", "attempts"})


def is_trajectory(value: Any) -> bool:
    """A SWE-agent trajectory: a ``history`` list of messages with ``role`` and ``agent``, beside a
    ``trajectory`` list or (a demonstration) nothing but SWE-agent's own keys."""
    if type(value) is dict and isinstance(value.get("attempts"), list) and value["attempts"]:
        return all(is_trajectory(a) for a in value["attempts"][:3])
    if type(value) is not dict or not isinstance(value.get("history"), list):
        return False
    if isinstance(value.get("trajectory"), list):
        return True
    history = value["history"]
    return set(value) <= TOP_KEYS and bool(history) and all(type(m) is dict and "role" in m and "agent" in m for m in history[:3])


def is_action(message: Any) -> bool:
    """An assistant message that runs a command (what a trajectory step records)."""
    return type(message) is dict and message.get("role") == "assistant" and isinstance(message.get("action"), str)
