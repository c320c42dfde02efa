"""Extract frame rows from thread JSON objects, straight into column lists.

Works on the JSON object (as parsed from disk, or ``Thread.to_dict()``), never on one pydantic
object per action: this is the loaders' hot path. Each column of a batch of threads is built
by one list comprehension over all their actions (not one ``append`` per cell), which is what
makes it fast in CPython; only tool pairs and agent lookups are walked per thread. Values are
left raw (timestamps as text); ``arrow.py`` types each column in one vectorised step and adds
what is computed from whole columns (cost, latency, per-thread totals)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from itertools import chain, repeat
from operator import attrgetter
from typing import Any

import msgspec
import orjson

from threadlab.core.authors import AUTHOR_KEY, author_of, harness_kind_of
from threadlab.core.problems import Problem
from threadlab.frames.agent_lookup import SharedMap, agent_lookup, models_of, names_of
from threadlab.frames.batch import (
    HAS_USAGE,
    PROVIDER,
    THREAD_INDEX,
    TOKEN_KEYS,
    Batch,
    ThreadRecord,
    new_batch,
)
from threadlab.frames.cell_text import SORTED_JSON, to_text
from threadlab.frames.thread_rows import add_thread_rows
from threadlab.frames.tool_rows import pair_tools, take_pairs

_ROLE = {
    "user_message": "user",
    "assistant_message": "agent",
    "thinking": "agent",
    "tool_call": "agent",
    "tool_return": "tool",
}


def count_media(action: Mapping[str, Any]) -> int:
    content = action.get("content")
    n = 0
    if isinstance(content, list):
        n += sum(1 for p in content if isinstance(p, Mapping) and p.get("type") != "text")
    attachments = action.get("attachments")
    if isinstance(attachments, list):
        n += len(attachments)
    return n


def _role(kind: Any) -> str:
    role = _ROLE.get(kind) if isinstance(kind, str) else None
    if role is not None:
        return role
    return "system" if isinstance(kind, str) and kind.startswith("system.") else "other"


BLOCK_ACTIONS = 256  # columns are built per block of threads: their dicts stay in the CPU cache


def extract(items: Sequence[ThreadRecord | Problem], batch: Batch | None = None) -> Batch:
    """The rows of every thread record in ``items``. Problems among the items (a file that
    could not be read) go to the problems frame in their place, so problems keep input order.

    Per-action columns are one comprehension each over the actions of a block of threads
    (column-wise is what is fast in CPython; blocks keep the dicts being walked in the CPU
    cache); columns that repeat per thread (source, thread_id) and what is counted per thread
    are left to ``arrow.py``, which does them with array operations. The rows are appended to
    ``batch`` when one is given (a new batch by default)."""
    out = batch if batch is not None else new_batch()
    records = [item for item in items if isinstance(item, ThreadRecord)]
    names, models = agent_lookup(records)
    block: list[ThreadRecord] = []
    size = 0
    first_thread = len(out["threads"]["thread_id"])
    first_action = len(out["actions"]["action_type"])
    base = first_thread
    for record in records:
        block.append(record)
        size += len(record.doc.get("actions") or ())
        if size >= BLOCK_ACTIONS:
            first_action += _extract_block(out, block, first_thread, first_action, names, models, base)
            first_thread += len(block)
            block, size = [], 0
    if block:
        _extract_block(out, block, first_thread, first_action, names, models, base)
    for item in items:
        if isinstance(item, ThreadRecord):
            add_problems(out, item.problems, source=item.source)
        else:
            add_problems(out, (item,), source=None)
    return out


def _extract_block(
    out: Batch, records: list[ThreadRecord], first_thread: int, first_action: int, names: Any, models: Any, base: int
) -> int:
    """Append the rows of ``records`` (threads ``first_thread``... whose actions start at row
    ``first_action``; ``names``/``models`` count threads from ``base``); returns the number of
    actions."""
    per_thread = [list(r.doc["actions"]) if r.typed else _object_actions(r.doc.get("actions")) for r in records]
    acts = list(chain.from_iterable(per_thread))
    mode = _mode(acts)
    by_column = all(r.columns is not None for r in records)  # the reader read every field already
    col = _joined_columns(records) if by_column else _getter(acts, mode)
    kinds = col("action_type") if mode == "attr" else [k if type(k) is str else None for k in col("action_type")]  # (a Struct's tag is text)
    agent_ids = col("agent_id")
    call_ids = col("tool_call_id")
    statuses: list[Any] = [None] * len(acts)
    # the threads whose tools the reader's rules paired already (``ThreadRecord.tool_pairs``) are not paired again
    paired = [r.tool_pairs is not None for r in records]
    tool_rows = [] if all(paired) else [i for i, k in enumerate(kinds) if k == "tool_call" or k == "tool_return"]
    kind_set = set(kinds)  # a handful of kinds: what depends on the kind only is looked up per kind
    field_of = {k: _TEXT_FIELD.get(k) or ("data" if k is not None and k.startswith("system.") else "content") for k in kind_set}
    contents = col("content")
    if by_column:
        values = _text_values(col, kinds, field_of, contents)
    else:
        fields = list(map(field_of.__getitem__, kinds))
        if mode == "dict":
            values = list(map(dict.get, acts, fields))
        elif mode == "attr":
            values = list(map(getattr, acts, fields))
        else:
            values = [x.get(f) for x, f in zip(acts, fields, strict=True)]
    dumps, sort = orjson.dumps, SORTED_JSON  # a call's args, a return's content: dicts straight to canonical JSON
    try:
        texts = [v if type(v) is str else dumps(v, option=sort).decode() if type(v) is dict else to_text(v) for v in values]
    except TypeError:  # orjson refused a value (an integer beyond 64 bits, nested past 254 deep)
        texts = [v if type(v) is str else to_text(v) for v in values]
    sequences = col("sequence") if mode == "attr" else [v if type(v) is int else None for v in col("sequence")]  # (a Struct's is int)
    stamps = col("timestamp")
    tool_names = col("tool_name")
    own_status = col("status") if tool_rows or any(r.tool_pairs for r in records) else statuses  # (read by row for tool actions only)
    thread_index: list[int] = []
    start = 0
    rows = iter(tool_rows)
    row = next(rows, None)
    for offset, (record, actions, pairs_found) in enumerate(zip(records, per_thread, paired, strict=True), first_thread):
        end = start + len(actions)
        thread_index += [offset] * len(actions)
        mine = []
        while row is not None and row < end:
            mine.append(row)
            row = next(rows, None)
        if pairs_found:
            take_pairs(out, record.tool_pairs, start, own_status, agent_ids, statuses, first_action)  # type: ignore[arg-type]
        else:
            pair_tools(out, own_status, mine, kinds, agent_ids, statuses, call_ids, first_action)
        start = end
    add_thread_rows(out, records, names, first_thread - base)
    for i in tool_rows:  # a tool_return's status is its own
        if kinds[i] == "tool_return":
            statuses[i] = own_status[i]

    a = out["actions"]
    a[THREAD_INDEX] += thread_index
    a["sequence"] += sequences
    a["timestamp"] += stamps
    a["action_type"] += kinds
    role_of = {k: _ROLE.get(k) or _role(k) for k in kind_set}
    a["role"] += list(map(role_of.__getitem__, kinds))
    a["agent_id"] += agent_ids
    shared = isinstance(names, SharedMap) and isinstance(models, SharedMap)
    local = thread_index if shared else [t - base for t in thread_index]  # (unused with shared maps)
    a["agent_name"] += names_of(names, local, agent_ids)
    a["tool_name"] += tool_names
    a["tool_call_id"] += call_ids
    a["status"] += statuses
    a["text"] += texts
    a["finish_reason"] += col("finish_reason")
    metas = col("metadata")
    metas = [m if type(m) is dict else _EMPTY for m in metas]
    authors, harness_kinds = _authors(kinds, kind_set, metas)
    a["author"] += authors
    a["harness_kind"] += harness_kinds
    a["model_name"] += models_of(models, local, agent_ids, metas)
    a["n_media"] += _media_counts(acts, contents, col("attachments"))
    usages = col("usage")
    if mode == "attr":  # a Struct's usage is a Struct (else the typed path refused the file)
        usage_rows = [i for i, u in enumerate(usages) if u is not None]
    else:
        usage_rows = [
            i for i, u in enumerate(usages) if u is not None and (type(u) is dict or isinstance(u, Mapping) or isinstance(u, msgspec.Struct))
        ]
    a[HAS_USAGE] += [first_action + i for i in usage_rows]  # row numbers of the actions that carry usage
    used = [usages[i] for i in usage_rows]
    providers = col("provider_name") if usage_rows else []
    token = _getter(used, _mode(used))
    for key in TOKEN_KEYS:  # for the usage rows only; arrow.py spreads them over the actions
        a[key] += [v if type(v) is int else None for v in token(key)]
    a[PROVIDER] += [
        metas[i].get("provider_name") or (providers[i] if kinds[i] == "thinking" else None) for i in usage_rows
    ]
    return len(acts)


def _object_actions(actions: Any) -> list[Any]:
    """The actions that are JSON objects (a list of dicts, nearly always: itself)."""
    if type(actions) is list and set(map(type, actions)) <= _DICT:
        return actions
    return [a for a in (actions or []) if type(a) is dict or isinstance(a, Mapping)]


def _authors(kinds: list[Any], kind_set: set[Any], metas: list[dict[str, Any]]) -> tuple[list[Any], list[Any]]:
    """The author and harness kind of each action (``author_of``, ``harness_kind_of``): the
    kind's default, looked up once per kind, for every action whose metadata names no author
    (nearly all of them); the two functions for the others only."""
    authors = list(map({k: author_of(k, None) for k in kind_set}.__getitem__, kinds))
    harness: list[Any] = [None] * len(kinds)
    owns = list(map(dict.get, metas, repeat(AUTHOR_KEY)))
    if owns.count(None) != len(owns):
        for i in [i for i, own in enumerate(owns) if own is not None]:
            authors[i] = author_of(kinds[i], metas[i])
            harness[i] = harness_kind_of(metas[i])
    return authors, harness


def _joined_columns(records: list[ThreadRecord]) -> Any:
    """``key`` → the column ``key`` of the records' actions, from the columns the reader kept."""
    if len(records) == 1:
        only = records[0].columns
        return lambda key: list(only[key])  # type: ignore[index]
    return lambda key: list(chain.from_iterable(r.columns[key] for r in records))  # type: ignore[index]


def _text_values(col: Any, kinds: list[Any], field_of: dict[Any, str], contents: list[Any]) -> list[Any]:
    """Each action's text field (``_TEXT_FIELD``): the content column, with the rows of the
    kinds whose text is another field (a call's args, a system action's data) taken from it."""
    values = list(contents)
    for name in set(field_of.values()) - {"content"}:
        kinds_of = {k for k, f in field_of.items() if f == name}
        column = col(name)
        for i in [i for i, k in enumerate(kinds) if k in kinds_of]:
            values[i] = column[i]
    return values


def _media_counts(acts: list[Any], contents: list[Any], attachments: list[Any]) -> list[int]:
    """Media parts and attachments per action (only an action whose content is a list or that
    has attachments can have any: most have neither, and are told apart by type alone)."""
    n = len(acts)
    if list not in set(map(type, contents)) and attachments.count(None) == n:
        return [0] * n
    return [count_media(x) if type(c) is list or m is not None else 0 for x, c, m in zip(acts, contents, attachments, strict=True)]


def _mode(rows: list[Any]) -> str:
    """How to read the rows: ``dict`` when every row is a plain dict (what JSON parsing and
    ``to_dict`` give: ``dict.get`` mapped over them is about twice as fast as a comprehension
    calling ``.get``), ``attr`` when every row is a msgspec Struct (of the typed fast path:
    every field it is asked for is one of its attributes, read by ``attrgetter``, faster still),
    else ``get`` (``.get`` on each row)."""
    kinds = set(map(type, rows))
    if not rows or kinds == {dict}:
        return "dict"
    if all(issubclass(k, msgspec.Struct) for k in kinds):
        return "attr"
    return "get"


def _getter(rows: list[Any], mode: str) -> Any:
    """``key`` → the list of ``row.get(key)`` over ``rows``."""
    if mode == "dict":
        return lambda key: list(map(dict.get, rows, repeat(key)))
    if mode == "attr":
        return lambda key: list(map(attrgetter(key), rows))
    return lambda key: [row.get(key) for row in rows]


_TEXT_FIELD = {
    "tool_call": "args",
    "user_message": "content",
    "assistant_message": "content",
    "thinking": "content",
    "tool_return": "content",
}
_EMPTY: Mapping[str, Any] = {}
_DICT = frozenset((dict,))


def add_problems(batch: Batch, problems: Any, *, source: str | None) -> None:
    p = batch["problems"]
    for problem in problems:
        p["source"].append(problem.source or source)
        p["thread_id"].append(problem.thread_id)
        p["sequence"].append(problem.sequence)
        p["line"].append(problem.line)
        p["rule"].append(problem.rule)
        p["message"].append(problem.message)
