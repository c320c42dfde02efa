"""What the two generations' readers share: the builder, the agents (a delegate is an agent of
its own), usage once per model response, the calls waiting for their observation."""

from __future__ import annotations

from typing import Any

from threadlab.core.authors import harness_metadata
from threadlab.core.builder import ThreadBuilder
from threadlab.core.model import Thread, Usage
from threadlab.core.problems import short
from threadlab.formats.common.counts import counts_as
from threadlab.formats.common.source import Source

KEY = "openhands"
AGENT = "OpenHands"
MAIN = "main"
PROVIDER = "litellm"


def harness(kind: str, meta: dict[str, Any]) -> dict[str, Any]:
    """``meta`` marked as the harness's (``author: harness``, ``harness: kind``)."""
    return {**meta, **harness_metadata(kind)}


class EventReader:
    def __init__(self, source: Source, name: str = AGENT) -> None:
        self.b = ThreadBuilder(None, source=source.name)
        self.stack = [self.b.agent(name, agent_id=MAIN)]  # the agent acting now: a delegate above its parent
        self.calls: dict[Any, tuple[str, str]] = {}  # an action's id → (tool_call_id, tool_name)
        self.responses: set[str] = set()  # model responses whose usage is on an action already
        self.title = ""

    def read(self, events: list[Any], *, counted: bool = False) -> Thread:
        """Each event that is one of the generation's (``is_event``) through ``event``; any other
        value kept as ``system.unknown_event``; then the thread's totals (``finish``). No events:
        the file is the one record (unless it is ``counted`` already: a state with no events)."""
        if not events and not counted:
            self.b.took()
        for index, event in enumerate(events):
            if self.is_event(event):
                self.event(event, index)
                continue
            self.b.kept("unknown-type", f"event {index + 1} is no OpenHands event ({short(event)}); kept as system.unknown_event")
            self.b.add("system.unknown_event", data=event, metadata={KEY: {"index": index}})
        self.finish()
        self.b.title = self.title
        return self.b.build()

    def is_event(self, value: Any) -> bool:
        raise NotImplementedError

    def event(self, event: dict[str, Any], index: int) -> None:
        raise NotImplementedError

    def finish(self) -> None:
        """The thread's own totals, after its events."""

    @property
    def agent(self) -> str:
        return self.stack[-1]

    def usage(self, figures: Any, where: str, names: dict[str, str]) -> Usage | None:
        """A response's token counts (``names``: theirs → ours), problems for values that are no count."""
        if type(figures) is not dict:
            return None
        problems: list[str] = []
        found = counts_as({k: (ours, _dig(figures, k)) for k, ours in names.items()}, problems, where)
        for phrase in problems:
            self.b.problem("usage", phrase)
        return Usage(**found) if found else None

    def once(self, response_id: Any) -> bool:
        """Whether this model response's usage is still to be given (several actions share one)."""
        if not isinstance(response_id, str) or not response_id:
            return True
        if response_id in self.responses:
            return False
        self.responses.add(response_id)
        return True

    def prompt_title(self, text: Any) -> None:
        if not self.title and isinstance(text, str) and text.strip():
            self.title = text.strip().splitlines()[0][:80]

    def join(self, name: str, invited_by: str, meta: dict[str, Any]) -> str:
        """A delegate: ``system.agent_join`` and the agent acting from now on."""
        child = self.b.agent(name, agent_id=f"{name}-{len(self.b.agents)}")
        self.b.add("system.agent_join", data={"agent_id": child, "invited_by": invited_by}, metadata=meta)
        self.stack.append(child)
        return child


def _dig(figures: dict[str, Any], dotted: str) -> Any:
    value: Any = figures
    for part in dotted.split("."):
        value = value.get(part) if type(value) is dict else None
    return value
