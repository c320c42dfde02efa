"""Every frame's columns, declared once: name, kind (which fixes the dtype) and meaning.

Kinds → dtypes: ``str`` pyarrow-backed strings; ``label`` categorical (dictionary-encoded
repeated labels); ``int`` nullable Int64; ``float`` nullable Float64; ``time`` UTC datetime
(microseconds); ``bool`` nullable boolean."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import pandas as pd

Kind = Literal["str", "label", "int", "float", "time", "bool"]

DTYPES: dict[str, object] = {
    "str": pd.StringDtype("pyarrow"),
    "label": "category",
    "int": "Int64",
    "float": "Float64",
    "time": "datetime64[us, UTC]",
    "bool": "boolean",
}


@dataclass(frozen=True, slots=True)
class Column:
    name: str
    kind: Kind
    doc: str


def _cols(*specs: tuple[str, Kind, str]) -> tuple[Column, ...]:
    return tuple(Column(*spec) for spec in specs)


TOKENS = (
    ("input_tokens", "int", "input (prompt) tokens"),
    ("output_tokens", "int", "output (completion) tokens"),
    ("thinking_tokens", "int", "reasoning/thinking tokens, when reported separately"),
    ("cache_read_tokens", "int", "input tokens read from the provider's cache"),
    ("cache_write_tokens", "int", "input tokens written to the provider's cache"),
    ("total_tokens", "int", "total tokens (as reported, else input + output)"),
)

ACTIONS = _cols(
    ("source", "label", "the file (or object) the thread was read from"),
    ("thread_id", "label", "thread the action belongs to"),
    ("sequence", "int", "1, 2, 3 ... within the thread"),
    ("timestamp", "time", "when the action happened (UTC)"),
    ("action_type", "label", "user_message, assistant_message, thinking, tool_call, tool_return or system.*"),
    ("role", "label", "user | agent | tool | system | other"),
    ("author", "label", "who wrote it: human | harness | agent | tool | system (metadata.author, else the kind's default; core/authors.py)"),
    ("harness_kind", "label", "what the harness wrote, when author is harness: interrupt, hook, environment_context, ... (metadata.harness)"),
    ("agent_id", "label", "acting agent; for a tool_return, the agent whose call it answers"),
    ("agent_name", "label", "the agent's human name from the registry"),
    ("tool_name", "label", "tool of a tool_call / tool_return"),
    ("tool_call_id", "str", "correlates a call with its return"),
    ("status", "label", "tool_return status; on a tool_call, its pair's status (pending until answered)"),
    ("text", "str", "flattened text; JSON of args / return content / system data"),
    ("n_chars", "int", "length of text"),
    *TOKENS,
    ("finish_reason", "label", "stop | tool_call | length | content_filter"),
    ("model_name", "label", "model that produced the action, when known"),
    ("n_media", "int", "media parts and attachments in the content"),
)

TOOL_CALLS = _cols(
    ("source", "label", "the file the thread was read from"),
    ("thread_id", "label", "thread"),
    ("tool_call_id", "str", "the call's id"),
    ("agent_id", "label", "agent that made the call"),
    ("agent_name", "label", "its human name"),
    ("tool_name", "label", "tool called"),
    ("call_sequence", "int", "sequence of the tool_call (missing for an orphan return)"),
    ("return_sequence", "int", "sequence of the tool_return (missing while pending)"),
    ("call_time", "time", "when the call was made"),
    ("return_time", "time", "when the return arrived"),
    ("latency_s", "float", "return_time - call_time in seconds"),
    ("status", "label", "success | error | validation_error | pending | orphan_return"),
    ("args", "str", "arguments as JSON"),
    ("result", "str", "return content (text, or JSON)"),
)

USAGE = _cols(
    ("source", "label", "the file the thread was read from"),
    ("thread_id", "label", "thread"),
    ("sequence", "int", "the action that carries the usage"),
    ("timestamp", "time", "when"),
    ("action_type", "label", "assistant_message or thinking (or another action carrying usage)"),
    ("agent_id", "label", "agent"),
    ("agent_name", "label", "its human name"),
    ("model_name", "label", "model, when known"),
    ("provider_name", "label", "provider, when known"),
    *TOKENS,
    ("cost_usd", "float", "price in USD from genai-prices when the model is known (offline data)"),
)

THREADS = _cols(
    ("source", "label", "the file the thread was read from"),
    ("format", "label", "the wire format it was read as"),
    ("thread_id", "str", "thread id"),
    ("parent_thread_id", "str", "the thread this one branched from"),
    ("title", "str", "title"),
    ("created_at", "time", "thread created_at"),
    ("updated_at", "time", "thread updated_at"),
    ("first_action_at", "time", "first action's timestamp"),
    ("last_action_at", "time", "last action's timestamp"),
    ("duration_s", "float", "last - first action, seconds"),
    ("n_agents", "int", "agents in the registry"),
    ("agents", "str", "agent names, comma separated"),
    ("n_actions", "int", "actions"),
    ("n_messages", "int", "user and assistant messages"),
    ("n_human_prompts", "int", "user messages a person wrote (author human): the prompts typed"),
    ("n_harness_turns", "int", "actions the harness wrote (author harness): injected context, hook feedback, interrupt markers ..."),
    ("n_interrupts", "int", "times the person stopped the agent (harness_kind interrupt)"),
    ("n_tool_calls", "int", "tool calls"),
    ("n_tool_errors", "int", "tool returns with status error or validation_error"),
    ("n_pending", "int", "tool calls with no return"),
    ("n_problems", "int", "validation / parse problems"),
    ("n_records", "int", "input records (lines, messages, parts, chunks, items) the thread was read from"),
    ("n_unconverted", "int", "of those, records kept as unknown or lost to a problem (each has a problem row)"),
    *TOKENS,
    ("cost_usd", "float", "total cost in USD: what the producer reported for the thread (metadata.cost_usd) when it did, else its priced usage rows summed; never both"),
    ("cost_source", "label", "reported (the producer's own total, e.g. Claude Code's) or priced (usage rows priced by genai-prices); empty when unknown"),
    ("tokens_source", "label", "reported (the token columns hold the producer's own total, metadata.usage_total, e.g. Codex's running total) or summed (the usage rows added up); empty when the thread has no usage"),
)

PROBLEMS = _cols(
    ("source", "label", "file (or object) the problem is in"),
    ("thread_id", "str", "thread, when known"),
    ("sequence", "int", "action sequence, when there is one"),
    ("line", "int", "line in the file, when there is one"),
    ("rule", "label", "short stable rule name (sequence-order, tool-call-match, json, ...)"),
    ("message", "str", "what is wrong, in a sentence"),
)

# not one of the five: what a load's folder walk met and did not read (frames/skipped.py); made
# from the walk in the loading process, never by a worker or the cache
SKIPPED = _cols(
    ("path", "str", "the file (or folder) a folder walk met and did not read, as the walk spelled it"),
    ("reason", "label", "why: not conversation data (and what it is: Markdown text, a PNG image ...), an empty file, a hidden file, a Codex or Claude Code home's own file ..."),
    ("bytes", "int", "its size; empty for a folder, a special file or a broken link"),
)

# not stored in Frames: derived from the five (``frames.agent_usage()``, frames/agents.py); a
# Parquet dataset keeps it beside them for SQL (frames/dataset.py), and reading one derives it again
AGENT_USAGE = _cols(
    ("source", "label", "the file the thread was read from"),
    ("thread_id", "label", "thread"),
    ("agent_id", "label", "agent"),
    ("agent_name", "label", "its human name"),
    ("n_actions", "int", "the agent's actions (role agent)"),
    ("n_messages", "int", "its assistant messages"),
    ("n_model_calls", "int", "its usage rows: model responses"),
    ("n_tool_calls", "int", "tool calls it made"),
    ("n_tool_errors", "int", "of those, returns with status error or validation_error"),
    *TOKENS,
    ("cost_usd", "float", "its usage rows' cost in USD, summed (empty when none is priced)"),
    ("tool_latency_s", "float", "its tool calls' latency, summed, in seconds"),
    ("mean_tool_latency_s", "float", "its tool calls' mean latency, in seconds"),
    ("first_action_at", "time", "its first action"),
    ("last_action_at", "time", "its last action"),
    ("active_s", "float", "last - first action, seconds"),
)

TABLES: dict[str, tuple[Column, ...]] = {
    "actions": ACTIONS,
    "tool_calls": TOOL_CALLS,
    "usage": USAGE,
    "threads": THREADS,
    "problems": PROBLEMS,
}


def dtype_of(column: Column) -> object:
    return DTYPES[column.kind]
