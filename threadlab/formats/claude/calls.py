"""Tool calls keyed as Claude Code keys them: by the ``tool_use`` block's ``id``, which each
``tool_result``'s ``tool_use_id`` names.

Files trimmed by hand (test fixtures, excerpts pasted into issues) sometimes drop those ids. A
``tool_use`` without an ``id`` is still a tool call: it gets an id made from its line's ``uuid``
and its place in the line (``threadlab:<uuid>:<block>``; without a uuid, from the agent and the
count of such calls so far), which no id of the file carries (a ``'`` is added until none does),
and a ``missing-id`` problem says so. A ``tool_result`` without ``tool_use_id`` answers the one
call of its agent still open when there is exactly one (a ``missing-id`` problem names it);
otherwise no call can be told and it stays an unknown block. Reading the written file back gives
the same ids: the writer leaves the ids out again (``id_absent`` / ``tool_use_id_absent``)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from threadlab.core.builder import ThreadBuilder
from threadlab.formats.claude.wire import Entry

_CALL_TYPES = ("tool_use", "server_tool_use", "mcp_tool_use")


class Calls:
    """The calls read so far: their tool names, their agents, the ones no result has answered."""

    def __init__(self, builder: ThreadBuilder, entries: list[Entry]) -> None:
        self.b = builder
        self.entries = entries
        self.names: dict[str, str] = {}  # call id → tool name
        self.owner: dict[str, str] = {}  # call id → the agent that made it
        self.open: dict[str, dict[str, None]] = {}  # agent → its calls not answered yet, in order
        self._real: set[str] | None = None
        self._made: dict[str, int] = {}

    def opened(self, call_id: str, name: str, agent: str) -> None:
        self.names[call_id] = name
        self.owner[call_id] = agent
        self.open.setdefault(agent, {})[call_id] = None

    def answered(self, call_id: str) -> None:
        agent = self.owner.get(call_id)
        if agent is not None:
            self.open.get(agent, {}).pop(call_id, None)

    def only_open(self, agent: str) -> str | None:
        """The agent's one unanswered call (None when it has none or several)."""
        calls = self.open.get(agent)
        return next(iter(calls)) if calls and len(calls) == 1 else None

    def made_id(self, entry: Entry, index: int, agent: str) -> str:
        """An id for a call its file gave none (see the module doc)."""
        count = self._made[agent] = self._made.get(agent, 0) + 1
        made = f"threadlab:{entry.uuid}:{index}" if entry.uuid else f"threadlab:{agent}:{count}"
        real = self._real_ids()
        while made in real or made in self.names:
            made += "'"
        return made

    def _real_ids(self) -> set[str]:
        """Every id a call of the file carries (looked for only once a call without one is met)."""
        if self._real is None:
            self._real = set()
            for entry in self.entries:
                message = entry.raw.get("message")
                content = message.get("content") if isinstance(message, Mapping) else None
                for block in content if isinstance(content, list) else ():
                    if isinstance(block, Mapping) and block.get("type") in _CALL_TYPES and isinstance(block.get("id"), str):
                        self._real.add(block["id"])
        return self._real


def has_no_id(block: Any) -> bool:
    """A tool call block without an ``id`` key (one whose id is there but no text is not this)."""
    return isinstance(block, Mapping) and block.get("type") in _CALL_TYPES and "id" not in block
