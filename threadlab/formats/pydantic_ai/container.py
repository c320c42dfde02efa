"""Where the messages of a pydantic-ai file are, whatever the container.

A history is a JSON array of ModelMessages (``ModelMessagesTypeAdapter.dump_json``), but files
in the wild also hold JSON Lines: one message a line, one history (or one run's
``new_messages``) a line, and stream events (``TypeAdapter(AgentStreamEvent)`` dumps) between
them. This module reads the container only (plain JSON, no pydantic-ai): it finds the
conversations of a file and, for each, its messages in order, its stream events, and what became
of every line.

Lines join one conversation when they share a ``conversation_id``, or when a line's history
starts with the messages read so far (a history saved again after each turn: the repeated
messages are repeats, converted once); single messages one per line make one conversation. A
history line that neither shares an id nor continues another is a conversation of its own (a
file of one run per line)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import orjson

from threadlab.core.problems import ThreadError
from threadlab.formats.common.json_lines import first_line, torn_reason, with_edges
from threadlab.formats.common.source import Source
from threadlab.formats.pydantic_ai.shape import is_event, is_message_like, run_result_history


@dataclass
class Entry:
    """One message of a conversation as the file holds it."""

    raw: Any
    line: int | None
    counted: bool  # its parts are records of the file (False: read from a run result's state)


@dataclass
class Conversation:
    entries: list[Entry] = field(default_factory=list)
    events: list[tuple[int | None, dict[str, Any]]] = field(default_factory=list)  # (line, event) in file order
    repeated: int = 0  # records that repeat messages the conversation already has
    taken: int = 0  # other records fully used (a run result line)
    failed: list[tuple[str, str, int | None]] = field(default_factory=list)  # (rule, message, line)
    key: str | None = None  # its conversation_id
    cursor: int = 0  # where a history written again one message a line has got to

    @property
    def has_messages(self) -> bool:
        return bool(self.entries)


def parts_of(raw: Any) -> int:
    """How many records a message is (its parts; a message with none is one)."""
    parts = raw.get("parts") if isinstance(raw, Mapping) else None
    return max(1, len(parts)) if isinstance(parts, list) else 1


def read(source: Source) -> list[Conversation]:
    """The conversations of ``source``; a file with none raises the problems that say why."""
    items = _items(source)
    reader = _Grouping()
    for line, value in items:
        reader.add(line, value)
    return reader.finish(source)


def _items(source: Source) -> list[tuple[int | None, Any]]:
    """(line, value) for each top-level item: the whole document, or each JSON Lines line (a line
    that is not JSON is ``_Bad``)."""
    if source.is_object:
        value = source.obj
        if callable(getattr(value, "all_messages", None)):
            value = value.all_messages()
        if isinstance(value, list):
            from threadlab.formats.pydantic_ai.wire import to_wire_dicts  # ModelMessage objects need pydantic-ai

            value = to_wire_dicts(value)
        return [(None, value)]
    whole = _whole(source)
    if whole is not _NOT_JSON:
        if isinstance(whole, list) and whole and all(isinstance(v, list) for v in whole):
            return [(None, v) for v in whole]  # an array of histories
        return [(None, whole)]
    out: list[tuple[int | None, Any]] = []
    for edge in with_edges(source.lines()):
        try:
            out.append((edge.number, orjson.loads(edge.line)))
        except orjson.JSONDecodeError as exc:
            torn = torn_reason(edge.line, exc, edge)  # a live file's last line, a capture's cut first
            out.append((edge.number, _Bad(torn or _line_reason(edge.line, exc), "truncated" if torn else "json")))
    return out


_NOT_JSON: Any = object()


class _Bad:
    def __init__(self, reason: str, rule: str = "json") -> None:
        self.reason = reason
        self.rule = rule


def _whole(source: Source) -> Any:
    """The file as one JSON document, or ``_NOT_JSON`` when it is JSON Lines (its first line is
    a JSON value on its own). A broken document that is not JSON Lines raises its JSON error."""
    try:
        return source.json()
    except ThreadError as exc:
        try:
            orjson.loads(first_line(source) or b"")
        except orjson.JSONDecodeError:
            raise exc from None
        return _NOT_JSON


def _line_reason(line: bytes, exc: orjson.JSONDecodeError) -> str:
    try:
        line.decode("utf-8")
    except UnicodeDecodeError as err:
        return f"is not UTF-8 (bad byte at column {err.start + 1})"
    return f"is not JSON ({exc.msg})"


class _Grouping:
    """Puts each item of a file in its conversation, in order."""

    def __init__(self) -> None:
        self.conversations: list[Conversation] = []
        self.by_key: dict[str, Conversation] = {}
        self.current: Conversation | None = None  # where single message lines and events go
        self.early_events: list[tuple[int | None, dict[str, Any]]] = []  # before any message
        self.early_failed: list[tuple[str, str, int | None]] = []

    def add(self, line: int | None, value: Any) -> None:
        if isinstance(value, _Bad):
            self._fail((value.rule, f"line {line} {value.reason}", line))
        elif is_message_like(value):
            self._message(line, value)
        elif isinstance(value, list):
            if value and all(is_message_like(m) for m in value):
                self._history([Entry(m, line, True) for m in value])
            else:
                self._fail(("schema", _what(line, "an array that is not a list of pydantic-ai ModelMessages"), line))
        elif is_event(value):
            history = run_result_history(value) if value["event_kind"] == "agent_run_result" else None
            if history is not None and all(is_message_like(m) for m in history):
                self._history([Entry(m, line, False) for m in history]).taken += 1
            else:
                self._event(line, value)
        else:
            self._fail(("schema", _what(line, "neither a pydantic-ai ModelMessage nor a stream event"), line))

    def _fail(self, failure: tuple[str, str, int | None]) -> None:
        (self.current.failed if self.current is not None else self.early_failed).append(failure)

    def _event(self, line: int | None, value: dict[str, Any]) -> None:
        (self.current.events if self.current is not None else self.early_events).append((line, value))

    def _new(self, key: str | None) -> Conversation:
        conversation = Conversation(key=key)
        self.conversations.append(conversation)
        if key is not None:
            self.by_key[key] = conversation
        return conversation

    def _message(self, line: int | None, value: Mapping[str, Any]) -> None:
        key = _key([value])
        target = self.by_key.get(key) if key is not None else None
        if target is None:
            current = self.current
            target = current if current is not None and current.key in (None, key) else self._new(key)
            if key is not None and target.key is None:
                target.key = key
                self.by_key[key] = target
        entries = target.entries
        if target.cursor < len(entries) and entries[target.cursor].raw == value:
            target.repeated += parts_of(value)  # the history written again, one message a line
            target.cursor += 1
        elif entries and target.cursor == len(entries) and entries[0].raw == value and len(entries) > 1:
            target.repeated += parts_of(value)
            target.cursor = 1
        else:
            entries.append(Entry(value, line, True))
            target.cursor = len(entries)
        self.current = target

    def _history(self, entries: list[Entry]) -> Conversation:
        raws = [e.raw for e in entries]
        key = _key(raws)
        target = self.by_key.get(key) if key is not None else None
        common = _prefix(target, raws) if target is not None else 0
        if target is None:  # a history this one continues (saved again after a turn), or an earlier save of it
            for conversation in self.conversations:
                common = _prefix(conversation, raws)
                if common and common in (len(conversation.entries), len(raws)):
                    target = conversation
                    break
        if target is None:
            target, common = self._new(key), 0
        target.repeated += sum(parts_of(e.raw) for e in entries[:common] if e.counted)
        target.entries.extend(entries[common:])
        target.cursor = len(target.entries)
        self.current = target
        return target

    def finish(self, source: Source) -> list[Conversation]:
        if not self.conversations:
            if not self.early_events:
                problems = [source.error(rule, message, line=line).problems[0] for rule, message, line in self.early_failed]
                raise ThreadError(problems or source.error("empty", "holds no pydantic-ai message").problems, source=source.name)
            self.conversations.append(Conversation())
        first = self.conversations[0]
        first.events[:0] = self.early_events
        first.failed[:0] = self.early_failed
        return self.conversations


def _key(raws: list[Any]) -> str | None:
    for raw in raws:
        value = raw.get("conversation_id") if isinstance(raw, Mapping) else None
        if isinstance(value, str) and value:
            return value
    return None


def _prefix(conversation: Conversation | None, raws: list[Any]) -> int:
    """How many messages ``raws`` and the conversation have in common from the start."""
    if conversation is None:
        return 0
    count = 0
    for entry, raw in zip(conversation.entries, raws, strict=False):
        if entry.raw != raw:
            break
        count += 1
    return count


def _what(line: int | None, what: str) -> str:
    return f"line {line} is {what}" if line is not None else f"the input is {what}"
