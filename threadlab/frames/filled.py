"""Chunked Arrow columns → pandas arrays, each written once into its final memory.

A load's tables arrive in chunks (one per chunk of files, or per cache entry). ``to_pandas``
of a chunked column converts every chunk, concatenates the results and (for the nullable
dtypes) copies again; on a cached reload of 1 GB those temporaries were hundreds of MB of fresh
pages, and touching fresh pages is most of what such a reload costs. Here each column's final
arrays are allocated once and every chunk's values (and validity) are copied straight into
their slice; a label column's codes are written the same way, through a small per-chunk table
from that chunk's dictionary to the merged, sorted categories."""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from threadlab.frames.typed import ARROW_TYPES

_NUMPY = {"int": np.int64, "float": np.float64, "bool": np.bool_}
FIXED_WIDTH = frozenset(_NUMPY)  # the kinds ``fixed_width_array`` converts (times: Arrow's own conversion was faster)


def _chunks(column: pa.ChunkedArray | pa.Array) -> list[pa.Array]:
    chunks = column.chunks if isinstance(column, pa.ChunkedArray) else [column]
    return [chunk for chunk in chunks if len(chunk)]


def _bits(buffer: pa.Buffer, offset: int, length: int) -> np.ndarray:
    """A bitmap's bits ``offset`` .. ``offset + length`` as bools (a view of a small temporary;
    only the bytes holding them are unpacked: a slice far into a chunk costs its own length)."""
    first = offset // 8
    raw = np.frombuffer(buffer, dtype=np.uint8, count=(offset + length + 7) // 8 - first, offset=first)
    return np.unpackbits(raw, count=offset - 8 * first + length, bitorder="little")[offset - 8 * first :].view(bool)


def _values(array: pa.Array, dtype: Any) -> np.ndarray:
    """A fixed-width array's values buffer as numpy (a view, nulls' slots included)."""
    return np.frombuffer(array.buffers()[1], dtype=dtype, count=array.offset + len(array))[array.offset :]


def _values_and_mask(column: pa.ChunkedArray | pa.Array, kind: str) -> tuple[np.ndarray, np.ndarray]:
    """Every chunk's values and nulls (True = null), each copied once into the column's arrays."""
    n = len(column)
    values = np.empty(n, dtype=_NUMPY[kind])
    mask = np.zeros(n, dtype=bool)
    at = 0
    for chunk in _chunks(column):
        if chunk.type != ARROW_TYPES[kind]:
            chunk = chunk.cast(ARROW_TYPES[kind])
        length, offset = len(chunk), chunk.offset
        validity, data = chunk.buffers()[:2]  # (nulls from the bitmap: a null's value may be anything)
        values[at : at + length] = _bits(data, offset, length) if kind == "bool" else _values(chunk, values.dtype)
        if chunk.null_count:
            np.logical_not(_bits(validity, offset, length), out=mask[at : at + length])
        at += length
    return values, mask


def fixed_width_array(column: pa.ChunkedArray | pa.Array, kind: str) -> Any:
    """An int, float or bool column as its frame dtype (Int64, Float64, boolean): what
    ``to_pandas`` + ``astype`` give, without their temporaries."""
    values, mask = _values_and_mask(column, kind)
    if kind == "int":
        return pd.arrays.IntegerArray(values, mask)
    if kind == "float":  # (a NaN is a null in the frames, as ``to_pandas`` makes it)
        return pd.arrays.FloatingArray(values, np.logical_or(mask, np.isnan(values), out=mask))
    return pd.arrays.BooleanArray(values, mask)


def _code_type(n_categories: int) -> type[np.signedinteger[Any]]:
    """The narrowest type pandas keeps codes in (so ``from_codes`` copies nothing)."""
    return next(t for t in (np.int8, np.int16, np.int32, np.int64) if n_categories < np.iinfo(t).max or t is np.int64)


def merged_categorical(chunks: list[pa.DictionaryArray]) -> pd.Categorical:
    """Dictionary-encoded chunks (each with a dictionary of its own) → one categorical of the
    values rows use, sorted; nulls are code -1. The dictionaries (a few values each) are merged
    and sorted; the rows cost one take per chunk, written into the final codes."""
    pool = pa.concat_arrays([chunk.dictionary for chunk in chunks]) if chunks else pa.array([], pa.large_string())
    encoded = pc.dictionary_encode(pool)  # one hash of every dictionary value: its distinct values
    categories = encoded.dictionary
    order = pc.array_sort_indices(categories).to_numpy()
    width = _code_type(len(categories))
    rank = np.empty(len(categories) + 1, dtype=width)  # a distinct value → its sorted position
    rank[order] = np.arange(len(order), dtype=width)
    rank[-1] = -1  # (a null in a dictionary)
    pooled = np.asarray(pc.fill_null(encoded.indices, len(categories)).to_numpy())
    codes = np.empty(sum(len(chunk) for chunk in chunks), dtype=width)
    at = start = 0
    for chunk in chunks:
        size = len(chunk.dictionary)
        lookup = rank[np.append(pooled[start : start + size], len(categories))]  # (+ a last -1)
        out, indices = codes[at : at + len(chunk)], chunk.indices
        # "clip": a null's index may be anything (its code is set below); "raise" would buffer
        np.take(lookup, _values(indices, np.int32), out=out, mode="clip")
        if indices.null_count:
            out[~_bits(indices.buffers()[0], indices.offset, len(indices))] = -1
        at, start = at + len(chunk), start + size
    categories = categories.take(pa.array(order))
    used = np.zeros(len(categories) + 1, dtype=bool)  # (the last slot takes code -1)
    used[codes] = True
    if not used[:-1].all():  # a value no row uses is no category
        kept = np.flatnonzero(used[:-1])
        renumber = np.full(len(categories) + 1, -1, dtype=_code_type(len(kept)))
        renumber[kept] = np.arange(len(kept), dtype=renumber.dtype)
        codes, categories = renumber[codes], categories.take(pa.array(kept))
    dtype = pd.CategoricalDtype(pd.Index(pd.arrays.ArrowStringArray(categories)))
    return pd.Categorical.from_codes(codes, dtype=dtype, validate=False)


__all__ = ["FIXED_WIDTH", "fixed_width_array", "merged_categorical"]
