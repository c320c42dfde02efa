"""``timefmt.millis_text`` (the Claude lanes' timestamp text, sliced instead of formatted) gives
exactly ``format_timestamp(parse_timestamp(text))`` for every text it answers, and answers for
the shape Claude Code writes."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from threadlab.core.timefmt import format_timestamp, millis_text, parse_timestamp

_CHARS = st.sampled_from(list("0123456789-:.TZWt +z٣") )


def _canonical(text: str) -> str | None:
    try:
        return format_timestamp(parse_timestamp(text))
    except ValueError:
        return None


def test_the_claude_shape_is_sliced() -> None:
    assert millis_text("2026-03-03T07:32:00.042Z") == "2026-03-03T07:32:00.042000Z" == _canonical("2026-03-03T07:32:00.042Z")
    assert millis_text("2026-03-03T07:32:00.000Z") == "2026-03-03T07:32:00Z" == _canonical("2026-03-03T07:32:00.000Z")


def test_other_shapes_are_left_to_the_formatter() -> None:
    for text in ("2026-W09-7T10:00:00.123Z", "2026-03-03 07:32:00.042Z", "2026-03-03T07:32:00,042Z", "2026-03-03T07:32:00.042+00:00",
                 "2026-03-03T07:32:00.04Z", "2026-03-03T24:00:00.000Z", "2026-03-03T07:32:00.042z"):
        assert millis_text(text) is None


@settings(max_examples=400, deadline=None)
@given(st.datetimes(), st.integers(0, 999))
def test_sliced_text_is_the_canonical_text(moment, millis) -> None:  # type: ignore[no-untyped-def]
    text = moment.strftime("%Y-%m-%dT%H:%M:%S") + f".{millis:03d}Z"
    if len(text) == 24:
        assert millis_text(text) == _canonical(text)


@settings(max_examples=400, deadline=None)
@given(st.lists(_CHARS, min_size=24, max_size=24).map("".join), st.text(min_size=0, max_size=3))
def test_any_text_it_answers_is_canonical(text, noise) -> None:  # type: ignore[no-untyped-def]
    for value in (text, "2026-03-03T07:32:00.042Z"[: 24 - len(noise)] + noise):
        found = millis_text(value)
        if found is not None:
            assert found == _canonical(value)
