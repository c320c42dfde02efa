"""Timestamps: every ThreadProtocol time is an aware UTC datetime, written as
``YYYY-MM-DDTHH:MM:SS[.ffffff]Z`` (microseconds only when non-zero; the year always four
digits, so ``0999-06-01T00:00:00Z`` reads back as it was written).

A time finer than a microsecond (OpenTelemetry's unix nanoseconds, ISO text with nine fraction
digits) is a ``Moment``: a datetime (the microseconds, what arithmetic, comparison and the
frames see) that also keeps the digits after the sixth as they came, so it is written back
exactly (``...T09:00:00.123456789Z``) and ``unix_nanos`` gives the nanoseconds back. The
frames hold microseconds: a load says so once per file (a ``time-precision`` note row)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

from threadlab.core.problems import short

EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


class Moment(datetime):
    """A datetime with the fraction digits beyond its microseconds (``extra``: "789" of
    ``.123456789``, as written, zeros too)."""

    __slots__ = ("extra",)
    extra: str

    def __reduce_ex__(self, protocol: Any) -> Any:  # pickles and copies keep the digits
        return (_restore, (datetime.__reduce__(self)[1], self.extra))


def _restore(state: tuple[Any, ...], extra: str) -> Moment:
    moment = Moment(*state)
    moment.extra = extra
    return moment


def finer(moment: datetime, extra: str) -> datetime:
    """``moment`` keeping ``extra`` fraction digits beyond its microseconds (none: as it is)."""
    if not extra:
        return moment
    out = Moment(moment.year, moment.month, moment.day, moment.hour, moment.minute, moment.second, moment.microsecond, moment.tzinfo, fold=moment.fold)
    out.extra = extra
    return out


def extra_digits(moment: datetime) -> str:
    """The fraction digits of ``moment`` beyond its microseconds ("" for a plain datetime)."""
    return getattr(moment, "extra", "") if type(moment) is Moment else ""


def from_unix_nanos(ns: int) -> datetime:
    """Unix nanoseconds as a time, exactly (a ``Moment`` when they are not whole microseconds)."""
    moment = EPOCH + timedelta(microseconds=ns // 1000)
    return finer(moment, f"{ns % 1000:03d}" if ns % 1000 else "")


def unix_nanos(moment: datetime) -> int:
    """The unix nanoseconds of ``moment`` (its digits beyond the microseconds up to the ninth)."""
    return (moment - EPOCH) // timedelta(microseconds=1) * 1000 + int((extra_digits(moment) + "000")[:3])


def fraction_beyond(value: str) -> str:
    """The fraction digits after the sixth of ISO text (the fraction at index 19, as
    ``YYYY-MM-DDTHH:MM:SS.ffffff`` puts it); "" for most text, cheaply."""
    if len(value) < 28 or value[19] not in ".," or not value[26].isdigit():
        return ""
    end = 26
    while end < len(value) and value[end].isdigit():
        end += 1
    return value[26:end]


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
                dt = dt.replace(tzinfo=UTC)
            elif dt.tzinfo is not UTC:
                dt = _to_utc(dt, value)
            if len(value) > 27 and value[26].isdigit():  # (cheap: most times have no 7th digit)
                return finer(dt, fraction_beyond(value))
            return dt
    if isinstance(value, datetime):
        if value.tzinfo is not None and value.tzinfo is not UTC and type(value) is Moment:
            return finer(_to_utc(value, value), value.extra)
        dt = value
    elif isinstance(value, str):
        text = value.strip()
        if text.endswith(("Z", "z")):
            text = text[:-1] + "+00:00"
        try:
            dt = finer(datetime.fromisoformat(text), fraction_beyond(text))
        except ValueError as exc:
            raise ValueError(f"not an ISO 8601 timestamp: {short(value)}") from exc
    elif isinstance(value, int | float) and not isinstance(value, bool):
        try:
            dt = datetime.fromtimestamp(value, UTC)
        except (OverflowError, OSError, ValueError) as exc:
            raise ValueError(f"unix time {short(value)} is out of range") from exc
    else:
        raise ValueError(f"not a timestamp: {short(value)}")
    extra = extra_digits(dt)
    if dt.tzinfo is None:
        return finer(dt.replace(tzinfo=UTC), extra)
    return finer(_to_utc(dt, value), extra)


def _to_utc(dt: datetime, value: object) -> datetime:
    try:
        return dt.astimezone(UTC)
    except OverflowError as exc:
        raise ValueError(f"timestamp {short(value)} is out of range in UTC") from exc


def format_timestamp(dt: datetime) -> str:
    """The canonical text of a timestamp: ``isoformat`` (C, and its year is always four digits:
    ``strftime("%Y")`` writes year 999 as ``999``, which no ISO 8601 reader takes back) with
    ``Z`` for UTC; microseconds only when non-zero, as isoformat writes them, and a
    ``Moment``'s digits beyond them as they came."""
    if type(dt) is datetime and dt.tzinfo is UTC:  # (nearly every call: once per action on the loaders' hot path)
        return dt.isoformat()[:-6] + "Z"
    extra = extra_digits(dt)
    if extra:
        if dt.tzinfo is not None and dt.tzinfo is not UTC:
            dt = dt.astimezone(UTC)
        return dt.replace(tzinfo=None).isoformat(timespec="microseconds") + extra + "Z"
    if dt.tzinfo is None:
        return dt.isoformat() + "Z"
    if dt.tzinfo is not UTC:
        dt = dt.astimezone(UTC)
    return dt.isoformat()[:-6] + "Z"  # without its "+00:00"


def canonical_timestamp_text(value: object) -> str:
    return format_timestamp(parse_timestamp(value))


def millis_text(value: str) -> str | None:
    """``format_timestamp(parse_timestamp(value))`` for the one shape most producers write
    (``YYYY-MM-DDTHH:MM:SS.fffZ``: Claude Code's every line), by slicing the text instead of
    formatting the moment (a loader's hot path: once per action); None for any other text,
    whose moment is then formatted as usual. Only for text ``parse_timestamp`` read."""
    if (len(value) == 24 and value[4:20:3] == "--T::." and value[23] == "Z" and value[11:13] < "24"  # (the separators at 4, 7, ... 19 in one slice)
            and value.isascii()):
        return value[:19] + "Z" if value[20:23] == "000" else value[:23] + "000Z"
    return None
