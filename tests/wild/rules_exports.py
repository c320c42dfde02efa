"""Rules for the trace exports of observability tools: Phoenix span dataframes (Parquet or JSON),
Langfuse traces and observations (JSON, JSON Lines).
Raw counts from the files (pyarrow for Parquet, orjson for JSON), never threadlab's readers."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.wild.count import Counts, whole_or_lines


def _rows(path: Path) -> list[dict[str, Any]]:
    if path.read_bytes()[:4] == b"PAR1":
        import pyarrow.parquet as pq

        return pq.read_table(path).to_pylist()
    docs = whole_or_lines(path)
    rows = [r for d in docs for r in (d if isinstance(d, list) else [d])]
    return [r for r in rows if isinstance(r, dict)]


def _at(row: dict[str, Any], dotted: str) -> Any:
    """A value by its dotted attribute name, in whichever column split the frame has
    (``attributes.llm.token_count.prompt``, or ``attributes.llm`` holding ``{"token_count": ...}``)."""
    parts = dotted.split(".")
    for cut in range(len(parts), 0, -1):
        column = ".".join(parts[:cut])
        if column in row:
            value = row[column]
            for step in parts[cut:]:
                value = value.get(step) if isinstance(value, dict) else None
            return value
    return None


def _count(value: Any) -> Any:
    return int(value) if isinstance(value, float) and value.is_integer() else value


def phoenix(path: Path) -> Counts:
    """Tokens of LLM rows only (``llm.token_count.*``): as for ``otel``, a model call's messages
    repeat the conversation, so no text count is taken."""
    c = Counts(None, None, None, None, None, None)
    for row in _rows(path):
        c.add_tokens(_count(_at(row, "attributes.llm.token_count.prompt")), _count(_at(row, "attributes.llm.token_count.completion")))
    return c


def _observations(value: Any) -> list[dict[str, Any]]:
    if isinstance(value, list):
        return [o for v in value for o in _observations(v)]
    if not isinstance(value, dict):
        return []
    if isinstance(value.get("data"), list) and isinstance(value.get("meta"), dict):
        return _observations(value["data"])
    if isinstance(value.get("observations"), list):
        return [o for o in value["observations"] if isinstance(o, dict)]
    return [value] if "type" in value else []


def langfuse(path: Path) -> Counts:
    """Tokens of GENERATION observations (``usageDetails`` input/output, else ``usage``); tool
    observations are tool calls with their returns. Texts are not counted: each generation's
    input repeats the conversation."""
    c = Counts(None, None, None, 0, 0, None)
    for obs in _observations(_rows(path)):
        if obs.get("type") == "TOOL":
            c.tool_calls = (c.tool_calls or 0) + 1
            c.tool_returns = (c.tool_returns or 0) + (obs.get("output") is not None)
        if obs.get("type") != "GENERATION":
            continue
        usage = obs.get("usageDetails", obs.get("usage_details")) or obs.get("usage") or {}
        usage = dict(usage) if isinstance(usage, list) else usage  # a Parquet map column: (key, value) pairs
        c.add_tokens(usage.get("input"), usage.get("output"))
    return c
