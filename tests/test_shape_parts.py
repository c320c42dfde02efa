"""``core.shape``: a content part list is checked as pydantic would take it, a plain text part
without asking pydantic (the frames route checks one on nearly every message action)."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import TypeAdapter, ValidationError

import threadlab.core.shape as shape
from threadlab.core.model import MessageContent

_VALUES: list[Any] = [
    "plain",
    [{"type": "text", "text": "a"}],
    [{"type": "text", "text": "a"}, {"type": "text", "text": ""}],
    [{"type": "text", "text": 1}],
    [{"type": "text"}],
    [{"type": "text", "text": "a", "extra": 1}],
    [{"type": "text", "text": None}],
    [{"type": "image", "image_url": "http://x"}],
    [{"type": "image", "image_url": 3}],
    [{"content_type": "url", "media_type": "image/png", "media_category": "image", "url": "u"}],
    [{"content_type": "url", "media_type": "image/png", "media_category": "sound"}],
    [{"type": "widget", "x": 1}],
    [{"type": None}],
    ["text"],
    [1],
    [],
    [{"type": "text", "text": "a"}, {"type": "text", "text": 2}],
]


def _pydantic(value: Any) -> bool:
    try:
        TypeAdapter(MessageContent).validate_python(value)
    except ValidationError:
        return False
    return True


@pytest.mark.parametrize("value", _VALUES, ids=range(len(_VALUES)))
def test_content_check_agrees_with_pydantic(value: Any) -> None:
    assert shape.compile_check(MessageContent)(value) is _pydantic(value)


def test_text_parts_do_not_ask_pydantic(monkeypatch: pytest.MonkeyPatch) -> None:
    asked: list[Any] = []
    careful = shape._by_adapter

    def spy(annotation: Any) -> shape.Check:
        check = careful(annotation)
        return lambda v: asked.append(v) or check(v)

    monkeypatch.setattr(shape, "_by_adapter", spy)
    check = shape.compile_check(MessageContent)
    assert check([{"type": "text", "text": "a"}, {"type": "text", "text": "b"}])
    assert asked == []
    assert not check([{"type": "text", "text": "a"}, {"type": "text", "text": 2}])
    assert asked == [{"type": "text", "text": 2}]
