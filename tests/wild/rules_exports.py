"""Rules for the trace exports of observability tools: Phoenix span dataframes (Parquet or JSON).
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
