"""Agents SDK session items → one thread per session.

Items say nothing of which agent produced them; the handoffs do: a ``transfer_to_<agent>`` call
whose output is ``{"assistant": "<agent name>"}`` (what the SDK's handoff returns) hands the
conversation to that agent, shown as a ``system.handoff`` action, and the model items after it
are that agent's. A user message starts a new run, back at the starting agent, whose name the
session does not keep (``Agent``)."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime
from typing import Any

import orjson

from threadlab.core.builder import ThreadBuilder
from threadlab.core.model import Thread
from threadlab.core.timefmt import parse_timestamp
from threadlab.formats.responses_items import ItemReader

KEY = "openai_agents_session"
START_AGENT = "Agent"
HANDOFF_PREFIX = "transfer_to_"
_TOOL_ERROR = "An error occurred while running the tool."  # the SDK's default failure_error_function text


def tool_status(output: Any) -> str:
    return "error" if isinstance(output, str) and output.startswith(_TOOL_ERROR) else "success"


def sqlite_time(moment: datetime) -> str:
    """A time as SQLite's CURRENT_TIMESTAMP writes it (UTC, seconds)."""
    return moment.strftime("%Y-%m-%d %H:%M:%S")


class SessionReader:
    def __init__(self, thread_id: str, source: str, metadata: dict[str, Any]) -> None:
        self.b = ThreadBuilder(thread_id, source=source, metadata={KEY: metadata})
        self.items = ItemReader(self.b, KEY, status_of=tool_status)
        self.start = self.b.agent(START_AGENT)
        self.agent = self.start
        self.handoffs: dict[str, str] = {}  # call id → the agent the call hands off to (when it says)

    def add(self, raw: Any, *, where: str, line: int, stamp: Any = None, memo: dict[str, Any] | None = None) -> None:
        """One record: a JSON text (a row's ``message_data``, a line) or an already parsed item."""
        if isinstance(raw, bytes | str):
            try:
                item = orjson.loads(raw)
            except orjson.JSONDecodeError as exc:
                self.b.failed("json", f"{where} is not JSON ({exc.msg}); skipped", line=line)
                return
        else:
            item = raw
        when, memo = self._time(stamp, memo or {}, where, line)
        if not isinstance(item, dict):
            self.b.kept("schema", f"{where} is a JSON {type(item).__name__}, not a session item; kept as system.unknown_item", line=line)
            self.b.add("system.unknown_item", timestamp=when, data=item, metadata={KEY: memo} if memo else None)
            return
        if item.get("role") == "user" and item.get("type", "message") == "message":
            self.agent = self.start  # a new run begins at the starting agent
        meta: dict[str, Any] = {KEY: memo} if memo else {}
        actions = self.items.add(item, agent_id=self.agent, timestamp=when, meta=meta)
        if actions is None:
            self.b.kept("unknown-type", f"{where}: item of type {item.get('type')!r} is not one threadlab maps; kept as system.unknown_item", line=line)
            self.b.add("system.unknown_item", timestamp=when, data=item, metadata={KEY: memo} if memo else None)
            return
        self.b.took()
        for action in actions:
            if action.action_type == "tool_call" and action.tool_name.startswith(HANDOFF_PREFIX):  # type: ignore[attr-defined]
                self.handoffs[action.tool_call_id] = action.tool_name  # type: ignore[attr-defined]
            elif action.action_type == "tool_return" and action.tool_call_id in self.handoffs:  # type: ignore[attr-defined]
                self._handoff(action.tool_call_id, action.content, when)  # type: ignore[attr-defined]

    def _handoff(self, call_id: str, output: Any, when: Any) -> None:
        try:
            value = orjson.loads(output) if isinstance(output, str) else output
        except orjson.JSONDecodeError:
            return
        name = value.get("assistant") if isinstance(value, dict) else None
        if not isinstance(name, str) or not name:
            return
        to = self.b.agent(name)
        data = {"from_agent_id": self.agent, "to_agent_id": to, "tool_call_id": call_id}
        self.b.add("system.handoff", timestamp=when, data=data, metadata={KEY: {"derived": True}})
        self.agent = to

    def _time(self, stamp: Any, memo: dict[str, Any], where: str, line: int) -> tuple[Any, dict[str, Any]]:
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

    def build(self) -> Thread:
        return self.b.build()


def read_items(lines: Iterable[tuple[int, bytes]], thread_id: str, source: str) -> Thread:
    """JSON Lines of session items (one item a line; blank lines are not records)."""
    reader = SessionReader(thread_id, source, {"container": "jsonl"})
    for number, raw in lines:
        if raw.strip():
            reader.add(raw, where=f"line {number}", line=number)
    return reader.build()
