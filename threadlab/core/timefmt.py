"""Timestamps: every ThreadProtocol time is an aware UTC datetime, written as
``YYYY-MM-DDTHH:MM:SS[.ffffff]Z`` (microseconds only when non-zero)."""

from __future__ import annotations

from datetime import UTC, datetime


def parse_timestamp(value: object) -> datetime:
    """Read an ISO 8601 string, a datetime, or unix seconds into an aware UTC datetime.

    Naive values are taken as UTC (what every producer we read means by them). ISO text with
    ``Z`` or an offset - nearly every timestamp - takes one ``fromisoformat`` call: this runs
    once per action on the loaders' hot path."""
    if type(value) is str:
        try:
            dt = datetime.fromisoformat(value)
        except ValueError:
            pass
        else:
            if dt.tzinfo is None:
                return dt.replace(tzinfo=UTC)
            return dt if dt.tzinfo is UTC else dt.astimezone(UTC)
    if isinstance(value, datetime):
        dt = value
    elif isinstance(value, str):
        text = value.strip()
        if text.endswith(("Z", "z")):
            text = text[:-1] + "+00:00"
        try:
            dt = datetime.fromisoformat(text)
        except ValueError as exc:
            raise ValueError(f"not an ISO 8601 timestamp: {value!r}") from exc
    elif isinstance(value, int | float) and not isinstance(value, bool):
        dt = datetime.fromtimestamp(value, UTC)
    else:
        raise ValueError(f"not a timestamp: {value!r}")
    if dt.tzinfo is None:
        return dt.replace(tzinfo=UTC)
    return dt.astimezone(UTC)


def format_timestamp(dt: datetime) -> str:
    """The canonical text of a timestamp."""
    if dt.tzinfo is not None:
        dt = dt.astimezone(UTC)
    text = dt.strftime("%Y-%m-%dT%H:%M:%S")
    if dt.microsecond:
        text += f".{dt.microsecond:06d}"
    return text + "Z"


def canonical_timestamp_text(value: object) -> str:
    return format_timestamp(parse_timestamp(value))
