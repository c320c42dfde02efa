"""CrewAI's ``latest_kickoff_task_outputs.db``, counted with sqlite3 and orjson only, from
``crewai/memory/storage/kickoff_task_outputs_storage.py`` and ``Crew._store_execution_log``: each
row's ``output.messages`` are OpenAI Chat Completions messages;

- harness turn: a ``user`` message (CrewAI writes them all: the task prompt, observations);
- assistant text: an ``assistant`` message whose ``content`` has something but whitespace;
- tool call: each ``tool_calls`` entry; return: each ``tool`` message (no failure is marked);
- tokens: none are kept."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import orjson

from tests.wild.count import Counts, blank


def crewai(path: Path) -> Counts:
    c = Counts(tool_errors=None)
    conn = sqlite3.connect(path.resolve().as_uri() + "?immutable=1", uri=True)
    try:
        outputs = [row[0] for row in conn.execute("SELECT output FROM latest_kickoff_task_outputs ORDER BY rowid")]
    finally:
        conn.close()
    for output in outputs:
        messages = orjson.loads(output).get("messages") or []
        for m in messages:
            role = m.get("role")
            if role == "user":
                c.harness_turns = (c.harness_turns or 0) + 1
            elif role == "assistant":
                if not blank(m.get("content")):
                    c.assistant_texts = (c.assistant_texts or 0) + 1
                c.tool_calls = (c.tool_calls or 0) + len(m.get("tool_calls") or [])
            elif role == "tool":
                c.tool_returns = (c.tool_returns or 0) + 1
    return c
