"""Column lists → typed Arrow arrays, whatever the values are.

Each column is converted whole, in one vectorised call, which is what makes the frames fast;
a column that will not convert (an int where a name belongs, a count beyond 64 bits, a time
Arrow cannot read) is converted again one value at a time, and only the odd values are
changed: text columns keep them as JSON text, number columns leave them empty, and each is
reported through ``report(row, message)`` so the caller can add a problem row naming the file,
thread and sequence. So one odd value costs its cell, never the column, the chunk or the load.

Time columns report nothing: a time that cannot be read was reported when the thread was read
(``validate`` parses every action timestamp; the schema check every thread time) and is empty
here. A time is read here as ``validate`` reads it (``parse_timestamp``), so a file's frames do
not depend on which other files share its chunk."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import datetime
from typing import Any

import orjson
import pyarrow as pa
import pyarrow.compute as pc

from threadlab.core.canonical import json_bytes
from threadlab.core.problems import short
from threadlab.core.timefmt import fraction_beyond, parse_timestamp

TIME = pa.timestamp("us", tz="UTC")
ARROW_TYPES: dict[str, pa.DataType] = {
    "str": pa.large_string(),
    "label": pa.large_string(),
    "int": pa.int64(),
    "float": pa.float64(),
    "time": TIME,
    "bool": pa.bool_(),
}
Report = Callable[[int, str], None]
_INT64 = (-(2**63), 2**63 - 1)
# 0001-01-01T00:00:00Z and 9999-12-31T23:59:59.999999Z in microseconds since the epoch: the
# moments a Python datetime (and so a Thread) can hold
_TIME_RANGE = (-62_135_596_800_000_000, 253_402_300_799_999_999)
_CONVERSION_ERRORS = (pa.ArrowException, OverflowError, ValueError, TypeError)
_JSON_TEXT = orjson.OPT_NON_STR_KEYS | orjson.OPT_SORT_KEYS
_TEXT_TYPES = frozenset((str, type(None)))


def typed_array(values: Sequence[Any] | pa.Array, kind: str, report: Report | None = None) -> pa.Array:
    """``values`` as an array of ``kind``'s Arrow type (see module docstring)."""
    if isinstance(values, pa.Array | pa.ChunkedArray):
        return values
    if kind == "time":
        return parse_times(values, report)
    try:
        if kind == "float":
            return pa.array(values, type=pa.float64(), from_pandas=True)
        return pa.array(values, type=ARROW_TYPES[kind])
    except _CONVERSION_ERRORS:
        return _by_value(values, kind, report)


def text_and_lengths(values: Sequence[Any], report: Report | None = None) -> tuple[pa.Array, pa.Array]:
    """The text column and each value's length in characters. When every value is text (or
    empty) and Arrow takes them as they are, the lengths are Python's (both count code points),
    taken from the values in hand instead of counted again over the Arrow buffer."""
    if isinstance(values, list) and set(map(type, values)) <= _TEXT_TYPES:
        try:
            array = pa.array(values, type=pa.large_string())
        except _CONVERSION_ERRORS:  # a lone surrogate: converted (and reported) value by value below
            pass
        else:
            lengths = list(map(len, values)) if None not in values else [None if v is None else len(v) for v in values]
            return array, pa.array(lengths, type=pa.int64())
    array = typed_array(values, "str", report)
    return array, pc.utf8_length(array).cast(pa.int64())


def parse_times(values: Sequence[Any] | pa.Array, report: Report | None = None) -> pa.Array:
    """ISO 8601 text (any offset, ``Z``, or naive = UTC) → UTC microsecond timestamps; text
    Arrow's own parser does not take (naive, a comma, a week date, nanoseconds) is read by
    ``parse_timestamp``, and what neither reads is empty. A time with non-zero digits beyond
    the microseconds is ``report``ed (the column holds microseconds, the thread the exact time)."""
    if isinstance(values, pa.Array) and values.type == TIME:
        return values
    try:
        array = values if isinstance(values, pa.Array) else pa.array(values, type=pa.large_string(), from_pandas=True)
        times = array.cast(TIME)
    except _CONVERSION_ERRORS:
        return _times_by_value(values.to_pylist() if isinstance(values, pa.Array) else values, report)
    low, high = pc.min_max(times.cast(pa.int64())).values()
    if low.is_valid and (low.as_py() < _TIME_RANGE[0] or high.as_py() > _TIME_RANGE[1]):
        return _times_by_value(array.to_pylist())  # an offset took a moment out of years 1-9999
    return times


def _times_by_value(values: Sequence[Any], report: Report | None = None) -> pa.Array:
    if report is not None:
        for row, value in enumerate(values):
            if type(value) is str and fraction_beyond(value).strip("0"):
                report(row, f"{short(value)} is finer than a microsecond; the frames hold microseconds, the thread the exact time")
    return pa.array([_time(v) for v in values], type=TIME)


def _time(value: Any) -> datetime | None:
    if type(value) is str:
        try:
            return parse_timestamp(value)
        except ValueError:
            return None
    return value if isinstance(value, datetime) and value.tzinfo is not None else None


def _by_value(values: Sequence[Any], kind: str, report: Report | None) -> pa.Array:
    convert = _CONVERTERS[kind]
    cells = []
    for row, value in enumerate(values):
        cell, why = convert(value)
        if why is not None and report is not None:
            report(row, why)
        cells.append(cell)
    return pa.array(cells, type=ARROW_TYPES[kind], from_pandas=kind == "float")


def _text(value: Any) -> tuple[str | None, str | None]:
    if value is None:
        return None, None
    if type(value) is str or isinstance(value, str):
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            return value.encode("utf-8", "backslashreplace").decode("utf-8"), f"{short(value)} holds a lone surrogate; kept with it escaped"
        return str(value), None
    try:
        text = json_bytes(value, option=_JSON_TEXT).decode("utf-8")
    except Exception:  # not JSON at all (an object of some library): its str
        text = str(value)
    return text, f"{short(value)} is {type(value).__name__}, not text; kept as JSON text"


def _int(value: Any) -> tuple[int | None, str | None]:
    if value is None:
        return None, None
    if isinstance(value, int) and not isinstance(value, bool) and _INT64[0] <= value <= _INT64[1]:
        return int(value), None
    if isinstance(value, int) and not isinstance(value, bool):
        return None, f"{short(value)} does not fit a 64-bit integer; left empty"
    return None, f"{short(value)} is {type(value).__name__}, not an integer; left empty"


def _float(value: Any) -> tuple[float | None, str | None]:
    if value is None:
        return None, None
    if isinstance(value, int | float) and not isinstance(value, bool):
        try:
            return float(value), None
        except OverflowError:
            return None, f"{short(value)} is beyond any float; left empty"
    return None, f"{short(value)} is {type(value).__name__}, not a number; left empty"


def _bool(value: Any) -> tuple[bool | None, str | None]:
    if value is None or isinstance(value, bool):
        return value, None
    return None, f"{short(value)} is {type(value).__name__}, not true/false; left empty"


_CONVERTERS: dict[str, Callable[[Any], tuple[Any, str | None]]] = {
    "str": _text,
    "label": _text,
    "int": _int,
    "float": _float,
    "bool": _bool,
}
