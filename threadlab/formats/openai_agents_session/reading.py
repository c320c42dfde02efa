"""Agents SDK session items → one thread per session.

Items are Responses-API input items (``common/responses/items.py`` maps each), read with the Agents
SDK's meaning (``common/responses/agents_sdk.py``): a ``transfer_to_<agent>`` call whose output names the
next agent is a ``system.handoff`` and the model items after it are that agent's; a user message
starts a new run, at the agent the run's own tool calls point to, else at the entry agent, whose
name the session does not keep (``Agent``, or ``agent=``); the SDK's failed-tool text is an error
return. A record is an item (a row, a JSON Lines line, an array element); the items are read
whole before they become actions, because a run's first agent is decided by what comes after
its user message."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import orjson

from threadlab.core.builder import ThreadBuilder
from threadlab.core.model import Thread
from threadlab.core.problems import short
from threadlab.core.timefmt import parse_timestamp
from threadlab.formats.common.json_lines import Edge, torn_reason, with_edges
from threadlab.formats.common.responses.agents_sdk import START_AGENT, SdkItemReader, speakers

KEY = "openai_agents_session"
_BROKEN = object()  # a record that is not JSON


def sqlite_time(moment: datetime) -> str:
    """A time as SQLite's CURRENT_TIMESTAMP writes it (UTC, seconds)."""
    return moment.strftime("%Y-%m-%d %H:%M:%S")


@dataclass
class _Record:
    item: Any
    where: str
    line: int | None
    stamp: Any
    memo: dict[str, Any]
    error: str | None = None
    torn: str | None = None  # why a line that is no JSON is a torn edge of its file (json_lines.torn_reason)


class SessionReader:
    """Collects a session's records (``add``), then reads them into one thread (``build``)."""

    def __init__(self, thread_id: str, source: str, metadata: dict[str, Any], *, agent: str = START_AGENT) -> None:
        self.b = ThreadBuilder(thread_id, source=source, metadata={KEY: metadata})
        self.sdk = SdkItemReader(self.b, KEY)
        self.start = agent
        self.b.agent(agent)
        self.records: list[_Record] = []

    def add(self, raw: Any, *, where: str, line: int | None, stamp: Any = None, memo: dict[str, Any] | None = None, parsed: bool = False,
            edge: Edge | None = None) -> None:
        """One record: a JSON text (a row's ``message_data``, a line: ``edge`` says whether it is
        the file's first or last) or, ``parsed``, an item."""
        record = _Record(raw, where, line, stamp, dict(memo or {}))
        if not parsed and isinstance(raw, bytes | str):
            try:
                record.item = orjson.loads(raw)
            except orjson.JSONDecodeError as exc:
                torn = torn_reason(raw, exc, edge) if edge is not None and isinstance(raw, bytes) else None
                record.item, record.error, record.torn = _BROKEN, exc.msg, torn
        self.records.append(record)

    def build(self) -> Thread:
        names = speakers([r.item for r in self.records], self.start)
        for record, name in zip(self.records, names, strict=True):
            self._read(record, name)
        return self.b.build()

    def _read(self, record: _Record, agent: str) -> None:
        b, where, line = self.b, record.where, record.line
        if record.item is _BROKEN:
            if record.torn is not None:
                b.failed("truncated", f"{where} {record.torn}; the other lines are read", line=line)
            else:
                b.failed("json", f"{where} is not JSON ({record.error}); skipped", line=line)
            return
        when, memo = self._time(record.stamp, record.memo, where, line)
        item = record.item
        if not isinstance(item, dict):
            b.kept("schema", f"{where} is a JSON {type(item).__name__}, not a session item; kept as system.unknown_item", line=line)
            b.add("system.unknown_item", timestamp=when, data=item, metadata={KEY: memo} if memo else None)
            return
        actions = self.sdk.add(item, agent=agent, timestamp=when, meta={KEY: memo} if memo else None, where=where, line=line)
        if actions is None:
            what = f"a message in role {short(item['role'])}" if "type" not in item and "role" in item else f"item of type {short(item.get('type'))}"
            b.kept("unknown-type", f"{where}: {what} is not one threadlab maps; kept as system.unknown_item", line=line)
            b.add("system.unknown_item", timestamp=when, data=item, metadata={KEY: memo} if memo else None)
            return
        b.took()

    def _time(self, stamp: Any, memo: dict[str, Any], where: str, line: int | None) -> tuple[Any, dict[str, Any]]:
        if stamp is None:
            return None, memo
        try:
            moment = parse_timestamp(stamp)
        except ValueError:
            self.b.problem("schema", f"{where}: created_at {stamp!r} does not read; a synthetic time is used", line=line)
            return None, {**memo, "created_at": stamp}
        if not (isinstance(stamp, str) and sqlite_time(moment) == stamp):
            memo = {**memo, "created_at": stamp}
        return moment, memo


def read_items(lines: Iterable[tuple[int, bytes]], thread_id: str, source: str) -> Thread:
    """JSON Lines of session items (one item a line; blank lines are not records; a torn last
    line, a running agent's, is ``truncated``)."""
    reader = SessionReader(thread_id, source, {"container": "jsonl"})
    for edge in with_edges(lines):
        reader.add(edge.line, where=f"line {edge.number}", line=edge.number, edge=edge)
    return reader.build()


def from_agents_session(items: Iterable[Any], *, session_id: str = "session", agent: str = START_AGENT, source: str | None = None) -> Thread:
    """One thread from Agents SDK items in memory or saved as a JSON array (``await
    session.get_items()``, ``result.to_input_list()``, Python or JS SDK). ``agent`` names the
    entry agent (the items do not)."""
    reader = SessionReader(session_id, source or "<items>", {"container": "array"}, agent=agent)
    for index, item in enumerate(items):
        reader.add(item, where=f"item {index + 1}", line=None, parsed=True)
    return reader.build()
