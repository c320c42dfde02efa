"""``threadlab-schema.json``: what a Parquet dataset of frames holds, and which threadlab can read it.

The file sits at the dataset's root::

    {"dataset": "threadlab", "version": "1.0", "written_by": "threadlab 0.1.0",
     "partition_by": ["format"], "parts": ["part-000001-3f9c0a1b", ...],
     "tables": {"actions": {"derived": false, "doc": "...",
                            "columns": [{"name": "source", "kind": "label",
                                         "type": "dictionary<values=large_string, indices=int32>",
                                         "doc": "the file (or object) the thread was read from"}, ...]},
                ...}}

``version`` is MAJOR.MINOR of the dataset's schema (``SCHEMA_VERSION``): a column added is a
minor step (an older threadlab reads the dataset and leaves the column out, saying so; a newer
one reads an older dataset and leaves the column empty), a column removed, renamed or of
another kind is a major step, which an older threadlab refuses to read (``SchemaVersionError``)
rather than guess. Major 2 adds one field and changes no table: ``"deleted"``, the rows of
changed files that no longer count (``deletions.py``); a document records it only when it has
some, and is written as version 2 then only, so a threadlab of schema 1.x refuses a dataset with
deletions (it would show the stale rows) and still reads one without (``PLAIN_VERSION``).
Every column's kind and meaning come from ``frames/columns.py``; ``type`` is
the Arrow type the Parquet files hold. ``parts`` lists the write batches the dataset is made of,
in order: a file of a part the list does not name (a write that stopped half way) is no part of
the dataset, and the next write removes it. The folder layout written before this file existed
(``<table>.parquet`` for the five frames and ``skipped``) is version ``0``. A dataset ``tl.sync``
keeps also holds ``"sources"``: the manifest of the files it converted (``loading/archive.py``),
kept as it is by ``to_parquet(mode="append")``."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import orjson
import pyarrow as pa

from threadlab.frames.columns import AGENT_USAGE, SKIPPED, TABLES, Column
from threadlab.frames.deletions import deleted_sources
from threadlab.frames.labels import LABEL_TYPE
from threadlab.frames.typed import ARROW_TYPES

SCHEMA_FILE = "threadlab-schema.json"
SCHEMA_VERSION = "2.0"  # what this threadlab reads, and writes when the dataset records deleted rows
PLAIN_VERSION = "1.0"  # what it writes otherwise: the same tables, readable by a threadlab of schema 1.x
LEGACY_VERSION = "0"
ROW = "_row"  # a partitioned table's row number within its part (the frames' order comes back)

TABLE_DOCS = {
    "actions": "one row per action of every thread",
    "tool_calls": "one row per tool call, paired with its return",
    "usage": "one row per model response that reported token usage",
    "threads": "one row per thread",
    "problems": "one row per problem: a broken file, line or rule",
    "skipped": "files a folder load met and did not read, with the reason",
    "agent_usage": "derived from the five frames (frames.agent_usage()): one row per agent per thread; read_parquet derives it again",
}
# every table a dataset holds, in folder order; ``agent_usage`` is derived (kept for SQL)
COLUMNS: dict[str, tuple[Column, ...]] = {**TABLES, "skipped": SKIPPED, "agent_usage": AGENT_USAGE}
DERIVED = frozenset({"agent_usage"})


class SchemaVersionError(ValueError):
    """A dataset written with a newer major schema than this threadlab reads."""


def arrow_type(column: Column) -> pa.DataType:
    """The type a column has in the dataset's files: labels dictionary-encoded."""
    return LABEL_TYPE if column.kind == "label" else ARROW_TYPES[column.kind]


def file_schema(name: str) -> pa.Schema:
    return pa.schema([(c.name, arrow_type(c)) for c in COLUMNS[name]])


def schema_document(parts: list[str], partition_by: tuple[str, ...], deleted: Mapping[str, Mapping[str, int]] | None = None) -> dict[str, Any]:
    """The document of a dataset of ``parts``; ``deleted``: the deletion lists (``deletions.py``)
    of the parts, which make it version 2."""
    from threadlab._version import __version__

    tables = {
        name: {
            "derived": name in DERIVED,
            "doc": TABLE_DOCS[name],
            "columns": [{"name": c.name, "kind": c.kind, "type": str(arrow_type(c)), "doc": c.doc} for c in columns],
        }
        for name, columns in COLUMNS.items()
    }
    deleted = {part: dict(sources) for part, sources in (deleted or {}).items() if sources}
    document = {"dataset": "threadlab", "version": SCHEMA_VERSION if deleted else PLAIN_VERSION, "written_by": f"threadlab {__version__}",
                "partition_by": list(partition_by), "parts": list(parts), "tables": tables}
    if deleted:
        document["deleted"] = deleted
    return document


def dumps(document: dict[str, Any]) -> bytes:
    return orjson.dumps(document, option=orjson.OPT_INDENT_2) + b"\n"


def parse_version(text: Any, where: str) -> tuple[int, int]:
    try:
        major, _, minor = str(text).partition(".")
        return int(major), int(minor or 0)
    except ValueError:
        raise ValueError(f"{where}: the schema version {text!r} is not MAJOR.MINOR") from None


def check_document(document: Any, where: str) -> dict[str, Any]:
    """The document, when this threadlab can read the dataset; else an error saying why."""
    if not isinstance(document, dict) or document.get("dataset") != "threadlab" or not isinstance(document.get("parts"), list):
        raise ValueError(f"{where} is not a threadlab dataset schema (no \"dataset\": \"threadlab\" and list of parts)")
    ours = parse_version(SCHEMA_VERSION, "threadlab")
    theirs = parse_version(document.get("version"), where)
    if theirs[0] > ours[0]:
        raise SchemaVersionError(
            f"{where} holds a dataset of schema {document.get('version')} ({document.get('written_by', 'a newer threadlab')}); "
            f"this threadlab reads schema {ours[0]}.x and older: upgrade threadlab to read it"
        )
    deleted_sources(document, where)  # the deletion lists, checked
    return document


def declared_columns(document: dict[str, Any], name: str) -> dict[str, str] | None:
    """Column name → kind as the dataset declares ``name`` (None: the table is not declared)."""
    table = (document.get("tables") or {}).get(name)
    if not isinstance(table, dict):
        return None
    return {str(c["name"]): str(c.get("kind")) for c in table.get("columns") or () if isinstance(c, dict) and "name" in c}


__all__ = ["COLUMNS", "DERIVED", "LEGACY_VERSION", "PLAIN_VERSION", "ROW", "SCHEMA_FILE", "SCHEMA_VERSION", "SchemaVersionError", "check_document",
           "declared_columns", "dumps", "file_schema", "parse_version", "schema_document"]
