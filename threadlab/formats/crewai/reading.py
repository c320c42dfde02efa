"""CrewAI's ``latest_kickoff_task_outputs.db`` → a thread per task (see ``wire.py``).

The database is opened read-only with nothing written beside it, its stored columns selected in
row id order (the OpenAI Agents session format's ``opening`` and ``store``). A record is a message
of a row's ``output.messages`` (a row holding none, or whose ``output`` cannot be read, is one
record itself). ``system`` → ``system.prompt``; ``user`` → ``user_message`` written by CrewAI
(the task prompt it builds from the task's description and expected output, then its
observations and reminders: ``author: harness``, ``harness: task_prompt``); ``assistant`` → its
text (``assistant_message``) and ``tool_calls``, the agent named by ``output.agent``; ``tool`` →
``tool_return``. The messages hold no times: each action gets the row's ``timestamp``. The row's
other columns and ``output`` fields are the thread's ``metadata.crewai``."""

from __future__ import annotations

import sqlite3
from typing import Any

import orjson

from threadlab.core.authors import harness_metadata
from threadlab.core.builder import ThreadBuilder
from threadlab.core.model import Thread
from threadlab.core.problems import Problem, ThreadError, short
from threadlab.formats.common.arguments import parsed_arguments
from threadlab.formats.common.source import Source
from threadlab.formats.common.sqlite import Damage, Tables, opened, scan, schema, with_file_problems
from threadlab.formats.crewai.wire import COLUMNS, KEY, TABLE


def is_task_outputs(tables: Tables) -> bool:
    return set(COLUMNS) <= set(tables.get(TABLE, ()))


def _text(value: Any) -> Any:
    return value.decode("utf-8", "backslashreplace") if isinstance(value, bytes) else value


def _json(value: Any) -> tuple[Any, str | None]:
    try:
        return (orjson.loads(value) if isinstance(value, bytes | str) else value), None
    except orjson.JSONDecodeError as exc:
        return None, f"is no JSON ({exc})"


class TaskReader:
    def __init__(self, source: Source, row_id: int, row: dict[str, Any]) -> None:
        self.b = ThreadBuilder(str(_text(row.get("task_id"))), source=source.name)
        self.row_id, self.row = row_id, row
        self.names: dict[str, str] = {}

    def read(self) -> Thread:
        where = f"row {self.row_id} of table {TABLE}"
        head = {k: _text(v) for k, v in self.row.items() if k != "output"}
        if isinstance(head.get("inputs"), str):
            head["inputs"] = _json(head["inputs"])[0] if _json(head["inputs"])[1] is None else head["inputs"]
        output, error = _json(self.row.get("output"))
        messages = output.get("messages") if type(output) is dict else None
        if error is not None or type(output) is not dict:
            self.b.failed("json", f"{where}: its output {error or f'is {type(output).__name__}, no TaskOutput'}", line=self.row_id)
        elif not isinstance(messages, list) or not messages:
            self.b.took()  # a TaskOutput without messages (CrewAI before they were kept): the metadata holds it
        else:
            agent = self.b.agent(output["agent"]) if isinstance(output.get("agent"), str) and output["agent"] else self.b.agent("agent")
            self.b.title = str(output.get("description") or "")[:80]
            for index, m in enumerate(messages, 1):
                self.message(m, index, agent, head.get("timestamp"), where)
        self.b.metadata[KEY] = {**head, **({"output": {k: v for k, v in output.items() if k != "messages"}} if type(output) is dict else {})}
        return self.b.build()

    def message(self, m: Any, index: int, agent: str, when: Any, where: str) -> None:
        role = m.get("role") if type(m) is dict else None
        meta: dict[str, Any] = {KEY: {"index": index}}
        if role == "system":
            self.b.add("system.prompt", timestamp=when, data=m.get("content"), metadata=meta)
        elif role == "user":
            self.b.add("user_message", timestamp=when, content=m.get("content") if isinstance(m.get("content"), (str, list)) else "", metadata={**meta, **harness_metadata("task_prompt")})
        elif role == "assistant":
            calls = m.get("tool_calls") if isinstance(m.get("tool_calls"), list) else []
            content = m.get("content")
            if (isinstance(content, str) and content) or not calls:
                self.b.add("assistant_message", timestamp=when, agent_id=agent, content=content if isinstance(content, (str, list)) else "", metadata=meta)
            for k, call in enumerate(calls):
                fn = call.get("function") if type(call) is dict and type(call.get("function")) is dict else {}
                call_id = call.get("id") if type(call) is dict and isinstance(call.get("id"), str) else f"crewai-{index}-{k}"
                self.names[call_id] = str(fn.get("name") or "")
                self.b.add("tool_call", timestamp=when, agent_id=agent, tool_name=self.names[call_id], tool_call_id=call_id, args=parsed_arguments(fn.get("arguments")), metadata=meta)
        elif role == "tool":
            call_id = m.get("tool_call_id") if isinstance(m.get("tool_call_id"), str) else ""
            name = m.get("name") if isinstance(m.get("name"), str) else self.names.get(call_id, "")
            self.b.add("tool_return", timestamp=when, tool_call_id=call_id, tool_name=name, status="success", content=m.get("content"), metadata=meta)
        else:
            self.b.kept("unknown-type", f"{where}: message {index} is no chat message ({short(m)}); kept as system.unknown_message", line=self.row_id)
            self.b.add("system.unknown_message", timestamp=when, data=m, metadata=meta)
            return
        self.b.took()


def database_threads(source: Source) -> list[Thread]:
    damage: list[Damage] = []
    try:
        with opened(source.path, None if source.path is not None else source.data) as conn:
            tables = schema(conn, damage)
            if not is_task_outputs(tables):
                if damage:
                    raise ThreadError([Problem("io", d.describe(source.name), source=source.name, line=d.next_row) for d in damage])
                raise source.error("format", f"is an SQLite database without CrewAI's {TABLE} table")
            rows = list(scan(conn, TABLE, tables[TABLE], damage))
    except (sqlite3.Error, OSError) as exc:
        raise source.error("io", f"cannot be opened as an SQLite database ({exc})") from None
    threads = [TaskReader(source, row_id, row).read() for row_id, row in rows]
    size = source.path.stat().st_size if source.path is not None else len(source.data)
    return with_file_problems(threads, damage, source.name, source.head(100), size, "CrewAI task output")


def is_crewai_database(source: Source) -> bool:
    try:
        with opened(source.path, None if source.path is not None else source.data) as conn:
            return is_task_outputs(schema(conn, []))
    except (sqlite3.Error, OSError):
        return False
