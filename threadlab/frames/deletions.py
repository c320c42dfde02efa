"""Rows a dataset's files hold that no longer count: the deletion lists of ``threadlab-schema.json``.

When ``tl.sync`` converts a changed file again (a live session that grew), the file's old rows
sit in a part an earlier sync wrote, among other files' rows. Cutting them out means reading and
writing that whole part again: with 1% of a year's sessions grown, half the archive's parts
(profiled on the 1 GB benchmark corpus: 1.0 s of 1.4 s). So, as Delta Lake's and Iceberg's
deletion vectors do at the grain of rows, the schema document records per part the sources whose
rows in that part no longer count, with the size each file had when they were written::

    "deleted": {"part-000012-ab12cd34": {"/abs/path/session.jsonl": 48213, ...}, ...}

and every reader drops those rows as it reads the part's files: ``read_parquet``
(``dataset_read.read_tables``), ``tl.sql``'s views and ``engine="dask"``'s partitions. The
filter is on the ``source`` column (a hive folder's value put back first); a table without one
(``skipped``) is kept whole, as the rewrite kept it. A source deleted in part A and written again
in part B counts in B only.

**Versions.** A threadlab that does not know the lists would show the stale rows, so a document
that records any has schema version ``schema.SCHEMA_VERSION`` (2.x), which a threadlab of schema
1.x refuses (``SchemaVersionError``, "upgrade threadlab"); a dataset without deletions is written
as ``schema.PLAIN_VERSION`` (1.x, the same tables), which older threadlab still reads.

**Compaction.** The rewrite stays: ``tl.sync`` rewrites a part without its deleted rows once the
deleted files' bytes reach ``COMPACT_SHARE`` of the part's (the manifest's sizes: the live files'
now, the deleted ones' as recorded). At a half, a reader never reads more dead bytes than live
ones (a part's read costs at most twice its rows, the dataset at most twice its size), and a part
is rewritten only after as many bytes died in it as it keeps, so the rewriting a sync does stays
proportional to what changed, not to the size of the parts it touched.

Users who read the Parquet files with a glob of their own see the deleted rows too: ``tl.sql``
(``con=`` their connection) defines views that drop them."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

DELETED = "deleted"
COMPACT_SHARE = 0.5  # a part is rewritten once its deleted files' bytes reach this share of its bytes
MAX_SLICES = 64  # a table's rows kept in more runs than this are copied out (filter) rather than sliced


def deleted_sources(document: Mapping[str, Any], where: str) -> dict[str, frozenset[str]]:
    """Part id → the sources whose rows in it no longer count (parts without deletions absent)."""
    found = document.get(DELETED)
    if found is None:
        return {}
    if not isinstance(found, dict) or not all(isinstance(v, dict) and all(isinstance(s, str) for s in v) for v in found.values()):
        raise ValueError(f"{where}: \"{DELETED}\" is not an object of part → {{source: bytes}}")
    return {str(part): frozenset(sources) for part, sources in found.items() if sources}


def recorded(document: Mapping[str, Any] | None, where: str) -> dict[str, dict[str, int]]:
    """The document's deletion lists as a writer keeps them (a copy, checked)."""
    if document is None:
        return {}
    deleted_sources(document, where)
    return {str(part): dict(sources) for part, sources in (document.get(DELETED) or {}).items() if sources}


def keep_mask(table: pa.Table, gone: frozenset[str] | None) -> pa.Array | None:
    """A boolean mask of the rows of ``table`` that count (None: all of them): those whose
    ``source`` is not in ``gone``; a row without a source counts."""
    if not gone or "source" not in table.column_names or not table.num_rows:
        return None
    values = pa.array(sorted(gone), pa.large_string())
    column = table["source"]
    if not pa.types.is_dictionary(column.type):  # compare each row's string
        return pc.invert(pc.fill_null(pc.is_in(column.cast(pa.large_string()), value_set=values), False))
    masks = []
    for chunk in column.chunks:  # compare the few dictionary values, then take by index
        hit = pc.is_in(chunk.dictionary.cast(pa.large_string()), value_set=values).to_numpy(zero_copy_only=False)
        indices = chunk.indices.fill_null(-1).to_numpy(zero_copy_only=False)
        masks.append(~np.append(hit, False)[indices])
    return pa.array(np.concatenate(masks) if masks else np.ones(0, dtype=bool))


def without_deleted(table: pa.Table, gone: frozenset[str] | None) -> pa.Table:
    """``table`` without the rows of the sources in ``gone``. A file's rows lie together in its
    part, so the rows kept are a few runs: slices of the table (no copy; a filter copied every
    column of the part, a fifth of reading a year's archive back) unless they are many."""
    mask = keep_mask(table, gone)
    if mask is None:
        return table
    kept = np.asarray(mask, dtype=bool)
    edges = np.flatnonzero(np.diff(np.concatenate(([False], kept, [False])).astype(np.int8)))
    if len(edges) > 2 * MAX_SLICES:
        return table.filter(mask)
    runs = [(int(start), int(stop - start)) for start, stop in zip(edges[::2], edges[1::2], strict=True)]
    if not runs:
        return table.slice(0, 0)
    return pa.concat_tables([table.slice(start, length) for start, length in runs])


__all__ = ["COMPACT_SHARE", "DELETED", "deleted_sources", "keep_mask", "recorded", "without_deleted"]
