"""``spans.model.same`` tells two messages apart without making their keys where it can
(``_differ``); the shortcut must never say "different" of two messages whose keys are equal."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from threadlab.formats.common.spans.model import LazyMsg, Msg, Part, _differ, same

_text = st.sampled_from(["", "hi", "hello", None])
_args = st.sampled_from(['{"a": 1}', {"a": 1}, '{"a":1}', None, "[1]", [1]])
_part = st.one_of(
    st.builds(Part, st.sampled_from(["text", "reasoning"]), text=_text),
    st.builds(Part, st.just("tool_call"), id=st.sampled_from(["c1", "c2", None]), name=st.sampled_from(["f", None]), args=_args),
    st.builds(Part, st.just("tool_result"), id=st.sampled_from(["c1", None]), result=_args),
    st.builds(Part, st.sampled_from(["media", "other"]), raw=st.sampled_from([{"type": "image"}, "x", None])),
)
_msg = st.builds(Msg, st.sampled_from(["user", "assistant", "tool", "system"]), st.lists(_part, max_size=3))


def _respelled(value: Any) -> Any:
    """The same JSON value spelled the other way (an object as its JSON text and back), as producers differ."""
    if isinstance(value, str):
        try:
            return json.loads(value)
        except ValueError:
            return value
    return json.dumps(value) if isinstance(value, dict | list) else value


def _copy(msg: Msg) -> Msg:
    """``msg`` again, its tool args and results spelled the other way: the same key."""
    return Msg(msg.role, [Part(p.kind, p.text, p.id, p.name, _respelled(p.args), _respelled(p.result), p.raw) for p in msg.parts], msg.finish_reason)


@settings(max_examples=500, deadline=None)
@given(_msg, _msg)
def test_messages_told_apart_have_other_keys(a: Msg, b: Msg) -> None:
    if _differ(a, b):
        assert a.key != b.key
    assert same(a, b) == (a.key == b.key)


@settings(max_examples=200, deadline=None)
@given(_msg, st.sampled_from(["tool", "user", "assistant"]))
def test_a_message_and_its_copy_are_the_same(msg: Msg, role: Any) -> None:
    """Equal keys are never told apart: a copy, and results only under another role (the key's role is "tool")."""
    copy = _copy(msg)
    assert copy.key == msg.key
    assert not _differ(msg, copy) and same(msg, copy)
    if msg.parts and all(p.kind == "tool_result" for p in msg.parts):
        other = Msg(role, copy.parts)
        assert same(msg, other)


def test_lazy_messages_are_compared_as_read() -> None:
    def read(raw: Any) -> Msg:
        return Msg(raw["role"], [Part("text", text=raw["content"])])

    a = LazyMsg({"role": "user", "content": "hi", "x": 1}, read)
    b = LazyMsg({"role": "user", "content": "hi", "x": 2}, read)
    c = LazyMsg({"role": "user", "content": "ho"}, read)
    assert same(a, b) and not same(a, c)
