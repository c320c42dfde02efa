"""Cline and Roo Code task folders (``<VS Code globalStorage>/saoudrizwan.claude-dev/tasks/<task
id>/``, ``rooveterinaryinc.roo-cline/tasks/<task id>/``) → one thread per task.

``api_conversation_history.json`` is the task: read with the ``ui_messages.json`` and
``task_metadata.json`` beside it (companions in a folder walk; ``reading.py``); a
``ui_messages.json`` whose history is not there is read by itself (``ui.py``). Read only: a task
is several files the extension keeps in step, no one file of bytes. The extension's storage
folder (``tasks/`` beside ``settings/``, ``cache/``, ``checkpoints/`` ...) reads as one source:
only ``tasks/`` holds conversations, the rest is listed as skipped. The CLI's sessions (npm
``cline`` 3.x, Cline 4: ``~/.cline/data/sessions/<id>/<id>.messages.json`` beside ``<id>.json``)
are read too, the data folder's settings, databases and logs listed as skipped."""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Any

import orjson

from threadlab.core.builder import ThreadBuilder
from threadlab.core.model import Thread
from threadlab.formats.cline.reading import TaskReader
from threadlab.formats.cline.ui import UiReader
from threadlab.formats.cline.wire import AGENT, CONTEXT, HISTORY, KEY, METADATA, UI, is_cli_session, is_history, is_ui_log
from threadlab.formats.common.json_lines import refusal
from threadlab.formats.common.registry import FolderPlan
from threadlab.formats.common.source import Source, read_regular

NAME = "cline"
_HEAD = 4096
_CLI_SUFFIX = ".messages.json"
_CLI_HOME = frozenset({"settings", "db", "logs", "locks", "cache"})
_CLI_OTHER = "in the Cline CLI's data folder, beside sessions/ (settings, SQLite indexes, logs, locks: no conversation the sessions do not hold)"
_TASK_FILES = {
    CONTEXT: "a Cline task's context_history.json (the context manager's truncation edits; no messages)",
}
_TASK_OTHER = "in a Cline task folder, beside api_conversation_history.json (read with ui_messages.json and task_metadata.json)"
_STORAGE_MARKERS = frozenset({"settings", "cache", "checkpoints", "puppeteer", "state", "mcp", "workspace"})
_STORAGE_OTHER = "in Cline's / Roo Code's extension storage, beside tasks/ (only tasks/ holds conversations)"


def _looks(head: bytes) -> bool:
    head = head.lstrip()
    if head[:1] == b"{":
        return b'"sessionId"' in head and b'"messages"' in head
    if head[:1] != b"[":
        return False
    return (b'"role"' in head and b'"content"' in head) or (b'"ts"' in head and b'"type"' in head and (b'"say"' in head or b'"ask"' in head))


def detect(source: Source) -> bool:
    """A JSON array of Anthropic messages with Cline's marks (``wire.is_history``), or of the
    chat panel's say/ask records (``wire.is_ui_log``), or a CLI session's messages object
    (``wire.is_cli_session``)."""
    if source.is_dir or source.is_object or not _looks(source.head(_HEAD)):
        return False
    value = source.try_json()
    return is_history(value) or is_ui_log(value) or is_cli_session(value)


def _sibling(source: Source, name: str, b: ThreadBuilder) -> Any:
    """A file of the task folder by its fixed name (None when it is not there or not JSON, the
    latter a problem)."""
    if source.path is None:
        return None
    path = source.path.parent / name
    if not path.is_file():
        return None
    try:
        return orjson.loads(read_regular(path))
    except (OSError, orjson.JSONDecodeError) as exc:
        b.problem("io", f"{path} beside {source.name} cannot be read as JSON ({exc}); the task is read without it")
        return None


def to_threads(source: Source) -> list[Thread]:
    if not detect(source):
        raise refusal(source, f"is not a Cline task's api_conversation_history.json or ui_messages.json ({source.describe()})")
    value = source.json()
    if is_cli_session(value):
        return [_cli(source, value)]
    in_task = source.path is not None and source.path.name in (HISTORY, UI)
    task_id = source.path.parent.name if in_task and source.path is not None else (source.path.stem if source.path is not None else source.name)
    b = ThreadBuilder(task_id, metadata={KEY: {"task_id": task_id}}, source=source.name)
    if is_history(value):
        ui = _sibling(source, UI, b) if in_task else None
        meta = _sibling(source, METADATA, b) if in_task else None
        if meta is not None:
            b.took()
            b.metadata[KEY]["task_metadata"] = meta
        TaskReader(b, value, ui if isinstance(ui, list) else None).read()
    else:
        reader = UiReader(b, b.agent(AGENT, agent_id=AGENT))
        for position, record in enumerate(value, 1):
            reader.record(record, position)
        if reader.cost:
            b.metadata["cost_usd"] = reader.cost
    return [b.build()]


def _cli(source: Source, value: dict[str, Any]) -> Thread:
    """A CLI session: its messages, with the run's ``<id>.json`` beside (found by this file's
    own name, ``<id>.messages.json``) in ``metadata.cline.session``."""
    b = ThreadBuilder(value["sessionId"], metadata={KEY: {k: v for k, v in value.items() if k != "messages"}}, source=source.name)
    if source.path is not None and source.path.name.endswith(_CLI_SUFFIX):
        run = _sibling(source, source.path.name[: -len(_CLI_SUFFIX)] + ".json", b)
        if isinstance(run, dict):
            b.took()
            b.metadata[KEY]["session"] = run
    TaskReader(b, value["messages"], None, source.path.name if source.path is not None else source.name, cli=True).read()
    return b.build()


def from_thread(thread: Thread) -> bytes:
    """A Cline task is several files the extension keeps in step (api history, UI log,
    metadata), no one file of bytes this interface returns."""
    raise ValueError(f"threadlab does not write Cline tasks (thread {thread.thread_id}): convert to another format, e.g. --to threadprotocol")


def plan_folder(folder: str, entries: Sequence[os.DirEntry[str]]) -> FolderPlan | None:
    """A task folder (the api history beside its UI log or metadata): the history is read with
    them, the rest listed; the extension's storage folder: everything but ``tasks/`` listed."""
    names = {e.name for e in entries}
    if HISTORY in names and names & {UI, METADATA}:
        side = tuple(n for n in (UI, METADATA) if n in names)
        rest = names - {HISTORY, *side}
        return FolderPlan(companions={HISTORY: side}, ignore={n: _TASK_FILES.get(n, _TASK_OTHER) for n in rest if not n.startswith(".")})
    cli = sorted(n for n in names if n.endswith(_CLI_SUFFIX))
    if cli:
        runs = {n: (n[: -len(_CLI_SUFFIX)] + ".json",) for n in cli if n[: -len(_CLI_SUFFIX)] + ".json" in names}
        return FolderPlan(companions=runs) if runs else None
    if "sessions" in names and len(names & _CLI_HOME) >= 2:
        return FolderPlan(ignore={n: _CLI_OTHER for n in names - {"sessions"} if not n.startswith(".")})
    if "tasks" in names and names & _STORAGE_MARKERS:
        return FolderPlan(ignore={n: _STORAGE_OTHER for n in names - {"tasks"} if not n.startswith(".")})
    return None


__all__ = ["AGENT", "KEY", "NAME", "detect", "from_thread", "plan_folder", "to_threads"]
