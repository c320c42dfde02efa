"""Span times as exporters write them (OTLP unix-nano numbers or strings, the JavaScript SDK's
``HrTime`` pairs, ISO 8601 text, seconds as floats) → unix nanoseconds, and a span's
(start, end) with a ``schema`` problem for a time given that is none. Shared by every reader of
spans (``otel``, ``openai-agents-trace``, ``langfuse``)."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from threadlab.core.problems import short

# the moments a datetime holds (0001-01-01 to 9999-12-31 UTC), in unix nanoseconds
_NANOS = (-62_135_596_800 * 10**9, 253_402_300_800 * 10**9 - 1)


def nanos(value: Any) -> int | None:
    """Unix nanoseconds from a number, a numeric string or an ISO 8601 timestamp; None for
    what is no time, or no moment a datetime (and so a thread) holds."""
    found = _nanos(value)
    return found if found is not None and _NANOS[0] <= found <= _NANOS[1] else None


def _nanos(value: Any) -> int | None:
    if type(value) is str and value.isdigit():  # OTLP/JSON's unix-nano strings, first: every span has two
        return int(value) if value.isascii() and len(value) < 30 else None
    if isinstance(value, bool):
        return None
    if isinstance(value, list) and len(value) == 2 and all(type(v) is int for v in value) and 0 <= value[1] < 10**9:
        return value[0] * 1_000_000_000 + value[1]  # the JavaScript SDK's HrTime: [seconds, nanoseconds]
    if isinstance(value, int):
        return value
    if isinstance(value, float):
        scaled = value * 1e9 if value < 1e11 else value
        return int(scaled) if abs(scaled) < 1e30 else None  # (not inf: no moment anyway)
    if isinstance(value, str) and value:
        if value.isdigit():
            return int(value) if value.isascii() and len(value) < 30 else None
        text = value.strip()
        if text.endswith(("Z", "z")):
            text = text[:-1] + "+00:00"
        frac = ""
        head = text
        if "." in text:  # keep the nanoseconds that datetime would cut to microseconds
            head, _, rest = text.partition(".")
            n = 0
            while n < len(rest) and rest[n].isdigit():
                n += 1
            frac, head = rest[:n], head + rest[n:]
        try:
            moment = datetime.fromisoformat(head)
        except ValueError:
            return None
        if moment.tzinfo is None:
            moment = moment.replace(tzinfo=UTC)
        seconds = int(moment.timestamp())
        return seconds * 1_000_000_000 + int((frac + "000000000")[:9])
    return None


def span_times(start: Any, end: Any, names: tuple[str, str], problems: list[tuple[str, str]]) -> tuple[int, int, bool]:
    """A span's (start, end, untimed) in unix nanoseconds. A time given that is none (``nanos``)
    is a ``schema`` problem naming it, and the span keeps its other time; with neither, it is
    untimed (``spans.model.settle_untimed``), never put at 0, the unix epoch."""
    first, last = nanos(start), nanos(end)
    bad = [f"{name} is {short(value)}" for name, value, got in ((names[0], start, first), (names[1], end, last)) if got is None and value is not None]
    if bad:
        kept = "the span has no time" if first is None and last is None else f"the span's {names[0] if first is not None else names[1]} is used"
        problems.append(("schema", f"{' and '.join(bad)}, no time; {kept}"))
    if first is None:
        if last is None:
            return 0, 0, True
        first = last
    return first, (last if last is not None else first), False
