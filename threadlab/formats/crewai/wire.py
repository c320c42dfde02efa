"""What CrewAI keeps of a run that holds the conversation: ``latest_kickoff_task_outputs.db``
(``crewai/memory/storage/kickoff_task_outputs_storage.py``), an SQLite file in the project's data
folder (``db_storage_path()``: the user data folder named after the project, or
``CREWAI_STORAGE_DIR``), which ``crewai log-tasks-outputs`` lists and ``crewai replay -t`` replays
from. One table, ``latest_kickoff_task_outputs`` (``task_id``, ``task_key``, ``expected_output``,
``output`` JSON, ``task_index``, ``inputs`` JSON, ``was_replayed``, ``timestamp``), a row per task
of the last kickoff; ``output`` is the task's ``TaskOutput`` (``description``, ``summary``,
``raw``, ``pydantic``, ``json_dict``, ``output_format``, ``agent``: the agent's role) with
``messages``: the agent's LLM messages for the task, OpenAI Chat Completions messages (``system``,
``user``, ``assistant`` with ``tool_calls``, ``tool`` with ``tool_call_id`` and ``name``).

What CrewAI writes elsewhere holds no conversation: the crew's ``output_log_file`` (JSON array
or text lines) logs each task's start and completion (task description, agent role, final
output), and the memory stores (LanceDB / Qdrant; ``long_term_memory_storage.db`` before 1.x)
hold distilled memories and task-quality scores."""

from __future__ import annotations

KEY = "crewai"
TABLE = "latest_kickoff_task_outputs"
COLUMNS = ("task_id", "output")

