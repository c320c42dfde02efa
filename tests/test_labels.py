"""Label columns travel dictionary-encoded from the chunk reader to the frames
(``frames/labels.py``); the categoricals they become must be exactly the ones made from the
plain strings (same categories, same order, none unused, same codes), however the values are
spread over chunks and dictionaries."""

from __future__ import annotations

import itertools
import random
from pathlib import Path

import orjson
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc
import pytest

import threadlab as tl
from benchmarks.corpus import thread_doc
from threadlab.frames.arrow import _categorical, _series
from threadlab.frames.filled import fixed_width_array
from threadlab.frames.labels import COMPACT_SCHEMAS, LABEL_TYPE, categorical, compact, concat
from threadlab.frames.typed import ARROW_TYPES
from threadlab.loading import api
from threadlab.loading.cache import MANIFEST

from .test_load import assert_same_frames

VALUES = ["", "a", "B", "b", "é", "z", "zz", "\u4e2d", "a b", "\U0001f600"]


def assert_same_categorical(got: pd.Categorical, want: pd.Categorical) -> None:
    assert list(got.categories) == list(want.categories)
    assert got.categories.dtype == want.categories.dtype
    assert got.codes.tolist() == want.codes.tolist()
    pd.testing.assert_series_equal(pd.Series(got), pd.Series(want))


def chunks_of(values: list[str | None], rng: random.Random) -> list[pa.Array]:
    """``values`` cut into chunks, each dictionary-encoded with a dictionary of its own (some
    with values no row uses, as a sliced array's dictionary has)."""
    cuts = sorted(rng.sample(range(len(values) + 1), k=min(3, len(values) + 1)))
    bounds = [0, *cuts, len(values)]
    out = []
    for start, end in itertools.pairwise(bounds):
        part = pa.array(values[start:end], pa.large_string())
        encoded = pc.dictionary_encode(part)
        if rng.random() < 0.5:  # unused dictionary values, the dictionary in another order
            extra = pa.array([*reversed(encoded.dictionary.to_pylist()), "unused-" + str(start)], pa.large_string())
            positions = {v: i for i, v in enumerate(extra.to_pylist())}
            indices = pa.array([None if v is None else positions[v] for v in values[start:end]], pa.int32())
            encoded = pa.DictionaryArray.from_arrays(indices, extra)
        out.append(encoded)
    return out


@pytest.mark.parametrize("seed", range(40))
def test_merged_dictionaries_give_the_plain_strings_categorical(seed: int) -> None:
    rng = random.Random(seed)
    n = rng.choice([0, 1, 5, 50, 300])
    values = [None if rng.random() < 0.2 else rng.choice(VALUES) for _ in range(n)]
    want = _categorical(pa.chunked_array([pa.array(values, pa.large_string())]))
    chunks = chunks_of(values, rng)
    assert_same_categorical(categorical(pa.chunked_array(chunks, type=LABEL_TYPE)), want)
    # plain strings in several chunks (as ``Frames.from_batch`` passes them)
    plain = [c.cast(pa.large_string()) for c in chunks]
    assert_same_categorical(categorical(pa.chunked_array(plain, type=pa.large_string())), want)


def test_an_unused_value_is_no_category() -> None:
    array = pa.DictionaryArray.from_arrays(pa.array([1, None, 1], pa.int32()), pa.array(["x", "y", "a"], pa.large_string()))
    got = categorical(pa.chunked_array([array]))
    assert list(got.categories) == ["y"]
    assert got.codes.tolist() == [0, -1, 0]


def test_compact_and_concat_keep_values_and_schema() -> None:
    plain = tl.load(Path("data"), progress=False, workers=1).to_arrow()
    tables = compact(plain)
    for name, table in tables.items():
        assert table.schema.equals(COMPACT_SCHEMAS[name])
        assert table.cast(plain[name].schema).equals(plain[name])
    merged = concat([tables, plain, tables])
    for name, table in merged.items():
        assert table.schema.equals(COMPACT_SCHEMAS[name])
        assert table.num_rows == 3 * plain[name].num_rows


def test_frames_from_the_cache_equal_a_fresh_load(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Several chunks (each a cache entry with dictionaries of its own), read by two workers and
    then from the cache: the same frames as a load without a cache, dtypes included."""
    monkeypatch.setattr(api, "CHUNK_BYTES", 24 << 10)
    corpus = tmp_path / "c"
    corpus.mkdir()
    for i in range(24):
        (corpus / f"t{i:02d}.json").write_bytes(orjson.dumps(thread_doc(5, i, target_bytes=6000)))
    cache = tmp_path / "cache"
    fresh = tl.load(corpus, workers=1, progress=False)
    first = tl.load(corpus, cache=cache, workers=2, progress=False)
    entries = [p for p in cache.iterdir() if not p.name.startswith(".")]
    assert len(entries) > 2
    manifest = orjson.loads((entries[0] / MANIFEST).read_bytes())
    assert set(manifest["tables"]["actions"]) == {"bytes", "xxh3_128"}
    again = tl.load(corpus, cache=cache, workers=2, progress=False)
    for frames in (first, again):
        assert_same_frames(frames, fresh)
        for name, frame in fresh.tables().items():
            assert frame.dtypes.equals(frames.tables()[name].dtypes)


@pytest.mark.parametrize("n", [126, 127, 128, 32766, 32767, 32768])
def test_codes_width_at_the_boundaries(n: int) -> None:
    values = [f"v{i:06d}" for i in range(n)] + [None]
    want = _categorical(pa.chunked_array([pa.array(values, pa.large_string())]))
    half = len(values) // 2
    chunks = [pc.dictionary_encode(pa.array(values[:half], pa.large_string())), pc.dictionary_encode(pa.array(values[half:], pa.large_string()))]
    got = categorical(pa.chunked_array(chunks, type=LABEL_TYPE))
    assert got.codes.dtype == want.codes.dtype
    assert_same_categorical(got, want)


def fixed_width_chunks(kind: str, rng: random.Random) -> list[pa.Array]:
    """Random values of ``kind`` with nulls, cut into chunks, some of them slices (an offset
    into their buffers, as a concatenated or filtered table's chunks can be)."""
    make = {
        "int": lambda: rng.randint(-(2**62), 2**62),
        "float": lambda: rng.choice([rng.random(), float("nan"), -0.0, 1e300]),
        "bool": lambda: rng.random() < 0.5,
    }[kind]
    chunks = []
    for _ in range(rng.randint(0, 4)):
        values = [None if rng.random() < 0.3 else make() for _ in range(rng.randint(0, 40))]
        array = pa.array(values, ARROW_TYPES[kind])
        start = rng.randint(0, len(values))
        chunks.append(array.slice(start, rng.randint(0, len(values) - start)) if rng.random() < 0.5 else array)
    return chunks


@pytest.mark.parametrize("seed", range(30))
@pytest.mark.parametrize("kind", ["int", "float", "bool"])
def test_fixed_width_columns_equal_to_pandas(kind: str, seed: int) -> None:
    """Columns written chunk by chunk into their final arrays: what ``to_pandas`` + ``astype``
    give (values, nulls, NaN kept apart from null, dtype), offsets and empty chunks included."""
    column = pa.chunked_array(fixed_width_chunks(kind, random.Random(seed)), ARROW_TYPES[kind])
    want = _series(column, kind, "x")
    got = pd.Series(fixed_width_array(column, kind), name="x")
    pd.testing.assert_series_equal(got, want)
    assert got.isna().tolist() == want.isna().tolist()


def test_chunks_of_nulls_only_and_empty_chunks() -> None:
    """A chunk of nulls only has an empty dictionary; an empty chunk has no rows at all."""
    nulls = pc.dictionary_encode(pa.array([None, None], pa.large_string()))
    empty = pc.dictionary_encode(pa.array([], pa.large_string()))
    some = pc.dictionary_encode(pa.array(["b", None, "a"], pa.large_string()))
    got = categorical(pa.chunked_array([nulls, empty, some, nulls], LABEL_TYPE))
    assert list(got.categories) == ["a", "b"]
    assert got.codes.tolist() == [-1, -1, 1, -1, 0, -1, -1]
    assert len(categorical(pa.chunked_array([nulls], LABEL_TYPE)).categories) == 0
