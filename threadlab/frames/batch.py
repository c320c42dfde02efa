"""What a batch of extracted threads is: the column lists each frame fills (``new_batch``), the
internal columns beside the declared ones, and the record each thread comes as
(``ThreadRecord``). ``extract.py`` fills a batch; ``arrow.py`` types it."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from threadlab.core.account import Account
from threadlab.core.problems import Problem
from threadlab.frames.columns import TABLES

Columns = dict[str, list[Any]]
Batch = dict[str, Columns]
MESSAGE_TYPES = frozenset(("user_message", "assistant_message"))
TOOL_ERRORS = frozenset(("error", "validation_error"))
TOKEN_KEYS = (
    "input_tokens",
    "output_tokens",
    "thinking_tokens",
    "cache_read_tokens",
    "cache_write_tokens",
    "total_tokens",
)
# internal columns beside the declared ones: the row's thread (index into the batch's threads),
# whether the action carries usage, and the provider (usage frame only)
THREAD_INDEX = "_thread"
HAS_USAGE = "_has_usage"
PROVIDER = "_provider_name"
# tool_calls: each row as the actions rows of its call and its return (None for the one it
# lacks); arrow.py takes the columns from the actions table by these rows
CALL_ROW = "_call_row"
RETURN_ROW = "_return_row"
# threads: the cost the producer reported (thread metadata ``cost_usd``), used instead of pricing,
# and its token total (``usage_total`` with ``usage_total_note``), used instead of summing
REPORTED_COST = "_reported_cost_usd"
REPORTED_TOKENS = "_reported_tokens"


@dataclass(slots=True)
class ThreadRecord:
    """One thread's JSON object and where it came from."""

    doc: Mapping[str, Any]
    source: str | None
    format: str | None
    problems: Sequence[Problem] = field(default_factory=tuple)
    account: Account | None = None  # None: not read from an input (a Thread built in memory)
    typed: bool = False  # actions are msgspec Structs (``loading.structs``), read by attribute
    # the actions' fields as columns (name -> one value per action), when the reader has them
    columns: Mapping[str, Sequence[Any]] | None = None
    # with ``columns``: the tool pairs the reader's rules found, as ``[call row, return row]`` in
    # the thread's actions (``validation.paired_tool_actions``)
    tool_pairs: Sequence[Sequence[int | None]] | None = None


def empty_columns(table: str) -> Columns:
    return {c.name: [] for c in TABLES[table]}


def new_batch() -> Batch:
    """Empty column lists; columns computed in arrow.py from whole columns stay empty here, and
    the tool_calls frame is two lists of row numbers (``CALL_ROW``, ``RETURN_ROW``)."""
    batch = {name: empty_columns(name) for name in TABLES if name != "tool_calls"}
    batch["actions"].update({THREAD_INDEX: [], HAS_USAGE: [], PROVIDER: []})
    batch["tool_calls"] = {CALL_ROW: [], RETURN_ROW: []}
    batch["threads"][REPORTED_COST] = []
    batch["threads"][REPORTED_TOKENS] = []
    return batch


def as_mapping(value: Any) -> Mapping[str, Any]:
    return value if isinstance(value, Mapping) else {}
