"""ThreadBuilder: how every converter assembles a Thread.

It numbers actions 1, 2, 3 ..., registers agents once, fills missing timestamps monotonically
(and says so in the thread's metadata: ``synthetic_timestamps``), collects problems found while converting, and keeps the
account of the input records (``core/account.py``), so each format module only has to say what
happened, in order: ``took`` a record that is now in the thread, ``kept`` one it did not
understand (an unknown action or part, with a problem), ``failed`` one that is only a problem."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime, timedelta
from typing import Any

from pydantic import ValidationError

from threadlab.core.account import Account
from threadlab.core.model import AgentConfig, BaseAction, InvalidAction, Thread, action_class
from threadlab.core.problems import Problem, short
from threadlab.core.timefmt import parse_timestamp

EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
_TICK = timedelta(microseconds=1)


def slug(name: str) -> str:
    text = "".join(c.lower() if c.isalnum() else "_" for c in name).strip("_")
    return text or "agent"


class ThreadBuilder:
    def __init__(
        self,
        thread_id: str | None = None,
        *,
        title: str = "",
        metadata: dict[str, Any] | None = None,
        parent_thread_id: str | None = None,
        source: str | None = None,
    ) -> None:
        self.thread_id = thread_id or str(uuid.uuid4())
        self.title = title
        self.metadata: dict[str, Any] = dict(metadata or {})
        self.parent_thread_id = parent_thread_id
        self.source = source
        self.agents: dict[str, AgentConfig] = {}
        self.actions: list[BaseAction] = []
        self.problems: list[Problem] = []
        self.account = Account()
        self._by_name: dict[str, str] = {}
        self._last_time: datetime | None = None
        self._synthetic = 0
        self._undated: set[str] = set()  # agents registered with no time of their own, before any action had one
        # before the first action with a time: the actions given none (``settle_leading``)
        self._first_time: datetime | None = None
        self._leading: list[int] = []

    # --- agents ---------------------------------------------------------------------------
    def agent(
        self,
        name: str,
        *,
        agent_id: str | None = None,
        identifier: str | None = None,
        created_at: Any = None,
        config_ref: str | None = None,
        metadata: dict[str, Any] | None = None,
    ) -> str:
        """Register an agent (once; later calls with the same id or name return it) and return
        its agent_id. Metadata given later is merged in. ``created_at``: when the source says
        the agent was made; without it, the time of the last action so far, or, for an agent
        registered before any action, the thread's first time (set by ``thread_head``): never
        a made-up 1970 in a thread of 2026 (issue 28)."""
        key = agent_id or self._by_name.get(name) or slug(name)
        existing = self.agents.get(key)
        if existing is not None:
            if metadata:
                existing.metadata = {**(existing.metadata or {}), **metadata}
            return key
        created = self._readable_time(created_at, f"agent {short(name)}'s created_at")
        if created is None and self._first_time is not None:  # (before it, the last time is a made-up one)
            created = self._last_time
        if created is None:
            self._undated.add(key)
        self.agents[key] = AgentConfig(
            agent_id=key,
            agent_identifier=identifier or slug(name),
            agent_name=name,
            created_at=created or EPOCH,
            config_ref=config_ref,
            metadata=metadata or None,
        )
        self._by_name.setdefault(name, key)
        return key

    def agent_id_for(self, name: str) -> str | None:
        return self._by_name.get(name) or (name if name in self.agents else None)

    # --- actions --------------------------------------------------------------------------
    def add(self, action_type: str, /, *, timestamp: Any = None, **fields: Any) -> BaseAction:
        """Append an action of ``action_type`` with the next sequence number. Values a wire
        format gave of the wrong type (a list where a tool name belongs) do not stop the
        conversion: the action is kept as it came (``InvalidAction``) with a ``schema`` problem
        naming its sequence, as ThreadProtocol JSON that breaks the schema is."""
        moment = self._time(timestamp)
        cls = action_class(action_type)
        fields = {k: v for k, v in fields.items() if v is not None or k in ("args", "content", "data")}
        sequence = len(self.actions) + 1
        try:
            action = cls(action_type=action_type, timestamp=moment, sequence=sequence, **fields)
        except ValidationError as exc:
            for err in exc.errors():
                where = ".".join(str(p) for p in err["loc"]) or "action"
                self.problem("schema", f"{action_type} {where}: {err['msg']} (got {short(err.get('input'))}); kept as it came"[:300], sequence=sequence)
            action = InvalidAction.model_validate({"action_type": action_type, "timestamp": moment, "sequence": sequence, **fields})
        self.actions.append(action)
        return action  # type: ignore[return-value]

    def _readable_time(self, value: Any, what: str, sequence: int | None = None) -> datetime | None:
        """``value`` as a time, or None (and a ``schema`` problem naming it) when it is none a
        datetime can hold: a converter's odd input costs the time, not the thread."""
        if value is None:
            return None
        try:
            return parse_timestamp(value)
        except ValueError as exc:
            self.problem("schema", f"{what} {short(value)} is no readable time ({exc}); a time is made up in its place", sequence=sequence)
            return None

    def _time(self, timestamp: Any) -> datetime:
        """The action's time; with none, the time before it and a microsecond (a made-up time,
        counted in ``synthetic_timestamps``). Made up before any action had one, it is the
        epoch's until ``settle_leading`` gives it the first time that comes."""
        moment = self._readable_time(timestamp, "timestamp", len(self.actions) + 1)
        if moment is None:
            self._synthetic += 1
            if self._first_time is None:
                self._leading.append(len(self.actions))
            moment = (self._last_time or EPOCH) + _TICK
        else:
            self._timed(moment)
        if self._last_time is None or moment > self._last_time:
            self._last_time = moment
        return moment

    def _timed(self, moment: datetime) -> None:
        """An action has a time of its own: the first one is what the made-up times before it become."""
        if self._first_time is None:
            self._first_time = moment
            if self._leading:
                self._last_time = None  # (the epoch's times before it give way to it)

    def settle_leading(self) -> None:
        """The actions given no time before the first action that has one take that action's time
        (agents given none take the thread's first time: ``thread_head``), not the epoch's: a thread whose first lines carry no time does not start
        in 1970. With no time anywhere there is nothing to go by, and they keep the epoch's."""
        if self._first_time is None:
            return
        for index in self._leading:
            self._stamp(index, self._first_time)
        self._leading = []

    def _stamp(self, index: int, moment: datetime) -> None:
        self.actions[index].timestamp = moment

    def problem(self, rule: str, message: str, *, sequence: int | None = None, line: int | None = None) -> None:
        self.problems.append(Problem(rule, message, self.thread_id, sequence, self.source, line))

    # --- the account of input records -----------------------------------------------------
    def took(self, n: int = 1) -> None:
        """``n`` input records are now in the thread (see ``core/account.py``)."""
        self.account.converted += n

    def kept(self, rule: str, message: str, *, sequence: int | None = None, line: int | None = None, n: int = 1) -> None:
        """``n`` records the reader did not understand, kept as they came (an unknown action or
        part), and the problem that names them."""
        self.account.kept += n
        self.problem(rule, message, sequence=sequence, line=line)

    def failed(self, rule: str, message: str, *, sequence: int | None = None, line: int | None = None, n: int = 1) -> None:
        """``n`` records that could not be read at all: the problem is all that is left of them."""
        self.account.failed += n
        self.problem(rule, message, sequence=sequence, line=line)

    @property
    def last_time(self) -> datetime | None:
        return self._last_time

    # --- result ---------------------------------------------------------------------------
    def build(self) -> Thread:
        self.settle_leading()
        thread = self.thread_head([a.timestamp for a in self.actions])
        thread.actions.extend(self.actions)  # as built (an InvalidAction is no member of the Action union)
        return thread

    def thread_head(self, times: list[Any]) -> Thread:
        """The thread without its actions, spanning ``times``, with the problems and account so
        far: what ``build`` wraps around the actions, and what a builder that writes actions as
        JSON objects (the Claude Code frames route) puts beside them."""
        metadata = dict(self.metadata)
        if self._synthetic:
            metadata["synthetic_timestamps"] = self._synthetic
        start = min(times) if times else self._last_time or EPOCH
        for key in self._undated:  # known only now: the thread's first time
            if key in self.agents:
                self.agents[key].created_at = start
        thread = Thread(
            thread_id=self.thread_id,
            parent_thread_id=self.parent_thread_id,
            created_at=start,
            updated_at=max(times) if times else self._last_time or EPOCH,
            title=self.title,
            metadata=metadata or None,
            agents=self.agents,
        )
        thread.problems = list(self.problems)
        thread.account = self.account
        return thread
