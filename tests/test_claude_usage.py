"""Claude usage figures: the shortcut for plain integer figures (``usage.to_usage``) gives what
the general reading gives for the same figures written as whole floats (JavaScript writers'
``12.0``), which takes the careful way; missing figures count 0 either way."""

from __future__ import annotations

import itertools
from collections.abc import Mapping
from types import MappingProxyType
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from threadlab.formats.claude.usage import Response, to_usage
from threadlab.formats.claude.wire import is_blank

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


_BLOCKS = [{"type": "text", "text": "\n\n"}, {"type": "text", "text": "hi"}, {"type": "text", "text": ""}, {"type": "text", "text": 3},
           {"type": "text"}, {"type": "thinking", "thinking": " "}, {"type": "tool_use", "id": "t", "name": "Bash"}, {"text": " "},
           {}, "text", None, 5, MappingProxyType({"type": "text", "text": " "}), MappingProxyType({"type": "tool_use"})]


@given(st.one_of(st.lists(st.sampled_from(_BLOCKS), max_size=5), st.sampled_from(["", " ", "hi", None, 7])))
def test_a_messages_block_types_as_is_blank_tells_them(content: Any) -> None:
    """``Response.add_blocks`` (``is_blank`` written out for plain dicts) gives the block types,
    and says whether a blank text block was met, as reading every block with ``is_blank`` does:
    what decides which action of the message carries its usage (``Response.holder``)."""
    blocks = content if isinstance(content, list) else [{"type": "text", "text": content if isinstance(content, str) else "-"}]
    mappings = [b for b in blocks if isinstance(b, Mapping)]
    response = Response()
    response.add_blocks(content)
    assert response.blank == any(is_blank(b) for b in mappings)
    assert response.block_types == [b.get("type", "") for b in mappings if not is_blank(b)]


def test_the_usage_of_a_message_with_a_blank_text_block_goes_to_its_call() -> None:
    response = Response()
    response.add_blocks([{"type": "text", "text": "\n\n"}, {"type": "tool_use", "id": "t", "name": "Bash", "input": {}}])
    assert (response.holder, response.blank) == ("tool_use", True)
