"""Claude usage figures: the shortcut for plain integer figures (``usage.to_usage``) gives what
the general reading gives for the same figures written as whole floats (JavaScript writers'
``12.0``), which takes the careful way; missing figures count 0 either way."""

from __future__ import annotations

import itertools

from threadlab.formats.claude.usage import to_usage

KEYS = ("input_tokens", "cache_read_input_tokens", "cache_creation_input_tokens", "output_tokens")


def test_integer_figures_read_as_the_same_figures_as_floats() -> None:
    for figures in itertools.product((None, 0, 7, 2**40), repeat=4):
        ints = {k: v for k, v in zip(KEYS, figures, strict=True) if v is not None}
        floats = {k: float(v) for k, v in ints.items()}
        plain: list[str] = []
        careful: list[str] = []
        assert to_usage(ints, plain) == to_usage(floats, careful), ints
        assert plain == careful == []
    assert to_usage({"input_tokens": 1, "cache_read_input_tokens": 2, "cache_creation_input_tokens": 3, "output_tokens": 4}) == {
        "input_tokens": 6, "output_tokens": 4, "total_tokens": 10, "cache_read_tokens": 2, "cache_write_tokens": 3}


def test_a_figure_that_is_no_count_still_takes_the_careful_way() -> None:
    phrases: list[str] = []
    assert to_usage({"input_tokens": True, "output_tokens": 4}, phrases) == {"output_tokens": 4, "cache_read_tokens": 0, "cache_write_tokens": 0}
    assert len(phrases) == 1 and "input_tokens" in phrases[0]
    phrases = []
    usage = to_usage({"input_tokens": 1, "output_tokens": 4, "output_tokens_details": {"thinking_tokens": 1.5}}, phrases)
    assert usage is not None and "thinking_tokens" not in usage and len(phrases) == 1
