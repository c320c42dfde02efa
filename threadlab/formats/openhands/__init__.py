"""OpenHands runs → one thread each, both generations (``wire.py`` says what the files hold):

* a JSON array of events (V0's ``--save-trajectory-path`` and the trajectories its tests
  replay; a V1 event list);
* an evaluation ``output.jsonl`` row (``instance_id`` and its ``history`` of events), one row a
  file as a JSON object or JSON Lines of rows (a thread per row);
* a V1 conversation folder ``<id>/`` (``base_state.json`` beside ``events/event-*.json``): read
  from ``base_state.json``, its events from the folder beside it; a V0 session's
  ``events/<n>.json``: read from the first event file, the others with it (and the
  ``base_state.json`` beside the folder, if any). A later event file named by itself is read alone
  (a thread of one event).

A reader only: the event stream is OpenHands' own record of a run (its runtime's observations,
agent states, the model responses), which no other format's thread holds. ``layout.py`` tells a
folder walk which files are read together."""

from __future__ import annotations

import os
from typing import Any

import orjson

from threadlab.core.model import Thread
from threadlab.formats.common.json_lines import HEAD, refusal
from threadlab.formats.common.source import Source
from threadlab.formats.openhands.common import AGENT, KEY
from threadlab.formats.openhands.events_v0 import V0Reader
from threadlab.formats.openhands.events_v1 import V1Reader
from threadlab.formats.openhands.layout import plan_folder
from threadlab.formats.openhands.wire import (
    BASE_STATE,
    EVENTS,
    event_files,
    is_base_state,
    is_eval_row,
    is_event,
    is_event_list,
    is_v1_event,
)

NAME = "openhands"
_HEADS = (b'"action"', b'"observation"', b'"kind"', b'"history"', b'"execution_status"')


def _shape(source: Source) -> str | None:
    if source.is_dir or source.is_object:
        return None
    head = source.head(HEAD).lstrip()
    if head[:1] not in (b"[", b"{") or not any(k in head for k in _HEADS):
        return None
    value = source.try_json()
    if is_event_list(value):
        return "events"
    if is_eval_row(value):
        return "row"
    if is_base_state(value):
        return "state" if source.path is not None else None
    if is_event(value):
        return "event"
    if value is None and head[:1] == b"{" and b'"instance_id"' in head:
        return "rows" if _rows(source, 1) else None
    return None


def _rows(source: Source, limit: int | None = None) -> list[tuple[int, Any]]:
    out = []
    for number, line in source.lines():
        try:
            value = orjson.loads(line)
        except orjson.JSONDecodeError:
            value = None
        out.append((number, value))
        if limit is not None and len(out) >= limit:
            return out if is_eval_row(value) else []
    return out


def detect(source: Source) -> bool:
    """A JSON array of OpenHands events, an evaluation row (or JSON Lines of rows), a V1
    conversation's ``base_state.json``, or one event file."""
    return _shape(source) is not None


def _read(source: Source, events: list[Any], state: dict[str, Any] | None = None, bad: list[str] = (), row: dict[str, Any] | None = None, *, from_state: bool = False) -> Thread:  # type: ignore[assignment]
    v1 = state is not None or any(is_v1_event(e) for e in events[:3])
    reader = V1Reader(source, state=state) if v1 else V0Reader(source)
    if from_state:
        reader.b.took()  # base_state.json, the file read: the agent, the stats, the thread's id
    for phrase in bad:
        reader.b.failed("json", f"event file {phrase}")
    if row is not None:
        if isinstance(row.get("instance_id"), str):
            reader.b.thread_id = row["instance_id"]
        reader.b.metadata[KEY] = {k: v for k, v in row.items() if k != "history"}
    return reader.read(events, counted=from_state)


def _folder_events(folder: str) -> tuple[list[Any], list[str]]:
    """The events of an ``events/`` folder in their order, and a phrase for each file that did not read."""
    events, bad = [], []
    for _, name in event_files(folder):
        try:
            with open(os.path.join(folder, name), "rb") as fh:
                events.append(orjson.loads(fh.read()))
        except (OSError, orjson.JSONDecodeError) as exc:
            bad.append(f"{name}: {exc}")
    return events, bad


def to_threads(source: Source) -> list[Thread]:
    shape = _shape(source)
    if shape is None:
        raise refusal(source, f"is not an OpenHands run (no events, evaluation row or conversation state: {source.describe()})")
    value = source.try_json()
    if shape == "events":
        return [_read(source, value)]
    if shape == "row":
        return [_row(source, value)]
    if shape == "rows":
        threads = []
        for number, row in _rows(source):
            if is_eval_row(row):
                threads.append(_row(source, row))
            else:
                raise source.error("json", f"line {number} is no OpenHands evaluation row ({'not JSON' if row is None else 'no history of events'})", line=number)
        return threads
    assert source.path is not None or shape == "event"
    folder = os.path.join(os.path.dirname(source.path), EVENTS) if shape == "state" and source.path is not None else None
    if shape == "event" and source.path is not None and source.path.parent.name == EVENTS:
        files = event_files(str(source.path.parent))
        if files and files[0][1] == source.path.name:
            folder = str(source.path.parent)
    if folder is None:
        return [_read(source, [value])]
    events, bad = _folder_events(folder)
    return [_read(source, events, value if shape == "state" else _state_beside(folder), bad, from_state=shape == "state")]


def _state_beside(folder: str) -> dict[str, Any] | None:
    """The ``base_state.json`` beside an ``events/`` folder loaded by itself, when there is one."""
    try:
        with open(os.path.join(os.path.dirname(folder), BASE_STATE), "rb") as fh:
            value = orjson.loads(fh.read())
    except (OSError, orjson.JSONDecodeError):
        return None
    return value if is_base_state(value) else None


def _row(source: Source, row: dict[str, Any]) -> Thread:
    return _read(source, row["history"], row=row)


def from_thread(thread: Thread) -> bytes:
    raise ValueError(f"threadlab does not write OpenHands event streams (thread {thread.thread_id}; the events are OpenHands' own record of a run: runtime observations, agent states, model responses): convert to another format, e.g. --to atif")


__all__ = ["AGENT", "KEY", "NAME", "detect", "from_thread", "plan_folder", "to_threads"]
