"""Timestamps: every ThreadProtocol time is an aware UTC datetime, written as
``YYYY-MM-DDTHH:MM:SS[.ffffff]Z`` (microseconds only when non-zero; the year always four
digits, so ``0999-06-01T00:00:00Z`` reads back as it was written)."""

from __future__ import annotations

from datetime import UTC, datetime

from threadlab.core.problems import short


def parse_timestamp(value: object) -> datetime:
    """Read an ISO 8601 string, a datetime, or unix seconds into an aware UTC datetime.

    Naive values are taken as UTC (what every producer we read means by them). ISO text with
    ``Z`` or an offset - nearly every timestamp - takes one ``fromisoformat`` call: this runs
    once per action on the loaders' hot path. Anything that is no moment UTC can hold (an
    offset that moves year 1 or 9999 out of range, unix seconds beyond any calendar) raises
    ValueError, like any other bad timestamp, never OverflowError."""
    if type(value) is str:
        try:
            dt = datetime.fromisoformat(value)
        except ValueError:
            pass
        else:
            if dt.tzinfo is None:
                return dt.replace(tzinfo=UTC)
            return dt if dt.tzinfo is UTC else _to_utc(dt, value)
    if isinstance(value, datetime):
        dt = value
    elif isinstance(value, str):
        text = value.strip()
        if text.endswith(("Z", "z")):
            text = text[:-1] + "+00:00"
        try:
            dt = datetime.fromisoformat(text)
        except ValueError as exc:
            raise ValueError(f"not an ISO 8601 timestamp: {short(value)}") from exc
    elif isinstance(value, int | float) and not isinstance(value, bool):
        try:
            dt = datetime.fromtimestamp(value, UTC)
        except (OverflowError, OSError, ValueError) as exc:
            raise ValueError(f"unix time {short(value)} is out of range") from exc
    else:
        raise ValueError(f"not a timestamp: {short(value)}")
    if dt.tzinfo is None:
        return dt.replace(tzinfo=UTC)
    return _to_utc(dt, value)


def _to_utc(dt: datetime, value: object) -> datetime:
    try:
        return dt.astimezone(UTC)
    except OverflowError as exc:
        raise ValueError(f"timestamp {short(value)} is out of range in UTC") from exc


def format_timestamp(dt: datetime) -> str:
    """The canonical text of a timestamp: ``isoformat`` (C, and its year is always four digits:
    ``strftime("%Y")`` writes year 999 as ``999``, which no ISO 8601 reader takes back) with
    ``Z`` for UTC; microseconds only when non-zero, as isoformat writes them."""
    if dt.tzinfo is None:
        return dt.isoformat() + "Z"
    if dt.tzinfo is not UTC:
        dt = dt.astimezone(UTC)
    return dt.isoformat()[:-6] + "Z"  # without its "+00:00"


def canonical_timestamp_text(value: object) -> str:
    return format_timestamp(parse_timestamp(value))
