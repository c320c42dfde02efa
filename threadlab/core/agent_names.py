"""An agent named the way a person names it: by its name, identifier or id.

Readers key agents by ids a person never sees (slugs, UUIDs, the producer's ids); what they see
is the name (``Researcher``). Every call that takes an agent (``perspective``,
``to_openai_chat(agent=)``, ``compare_perspectives``) finds it here, and a name the thread does
not have is an ``UnknownAgentError`` that repeats the name typed and lists the names the thread
has, so the next try can be right (issue 28: the error listed ids, which the user had not typed)."""

from __future__ import annotations

from collections import Counter
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from threadlab.core.model import Thread


class UnknownAgentError(KeyError, ValueError):
    """No agent of the thread has this id, name or identifier. A ``KeyError`` (a lookup that
    failed) and a ``ValueError`` (an argument that is wrong), so either ``except`` catches it."""

    def __init__(self, thread: Thread, agent: str) -> None:
        self.thread_id = thread.thread_id
        self.agent = agent
        self.names = agent_names(thread)
        have = ", ".join(repr(n) for n in self.names) if self.names else "none"
        super().__init__(f"thread {thread.thread_id} has no agent {agent!r}; its agents: {have}")

    def __str__(self) -> str:  # KeyError would show the message in quotes
        return str(self.args[0])


def agent_names(thread: Thread) -> list[str]:
    """How to name each agent of the thread: its name, or ``name (id)`` where two agents share
    a name (the id tells them apart)."""
    counts = Counter(config.agent_name for config in thread.agents.values())
    return [config.agent_name if counts[config.agent_name] == 1 else f"{config.agent_name} ({key})" for key, config in thread.agents.items()]


def agent_id(thread: Thread, agent: str) -> str:
    """The id of the agent ``agent`` names: an id first, then a name, then an identifier (the
    ``name (id)`` form ``agent_names`` gives for a shared name works too)."""
    if agent in thread.agents:
        return agent
    for key, config in thread.agents.items():
        if config.agent_name == agent:
            return key
    for key, config in thread.agents.items():
        if config.agent_identifier == agent or f"{config.agent_name} ({key})" == agent:
            return key
    raise UnknownAgentError(thread, agent)
