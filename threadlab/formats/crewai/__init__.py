"""CrewAI's ``latest_kickoff_task_outputs.db`` → a thread per task of the last kickoff (the
agent's LLM messages CrewAI keeps in each ``TaskOutput``). See ``wire.py`` for the store and for
what else CrewAI writes (no conversation), ``reading.py`` for the threads. A reader only: the
store is CrewAI's replay state, rows keyed by its own task ids."""

from __future__ import annotations

from threadlab.core.model import Thread
from threadlab.formats.common.source import Source
from threadlab.formats.common.sqlite import SQLITE_MAGIC
from threadlab.formats.crewai.reading import database_threads, is_crewai_database
from threadlab.formats.crewai.wire import KEY

NAME = "crewai"


def detect(source: Source) -> bool:
    if source.is_dir or source.is_object or not source.head(16).startswith(SQLITE_MAGIC):
        return False
    return is_crewai_database(source)


def to_threads(source: Source) -> list[Thread]:
    if source.is_dir or source.is_object or not source.head(16).startswith(SQLITE_MAGIC):
        raise source.error("format", "is not a CrewAI task outputs database (latest_kickoff_task_outputs.db: no SQLite file)")
    return database_threads(source)


def from_thread(thread: Thread) -> bytes:
    raise ValueError(f"threadlab does not write CrewAI task outputs (thread {thread.thread_id}; the store is CrewAI's replay state, rows keyed by its own task ids): convert to another format, e.g. --to atif")


__all__ = ["KEY", "NAME", "detect", "from_thread", "to_threads"]
