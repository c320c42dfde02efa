"""``spans.repeats.Repeats``: a repeated history parsed once gives what a full parse gives.

The referee is ``model.json_value`` (orjson of the whole string) on every string of a sequence
built to tempt the shortcut: arrays extended, rewritten, truncated, cut mid-token, with
whitespace, trailing commas, non-JSON tails and non-arrays between them."""

from __future__ import annotations

import orjson
from hypothesis import given, settings
from hypothesis import strategies as st

from threadlab.formats.common.spans.model import json_value
from threadlab.formats.common.spans.repeats import Repeats

_LEAF = st.one_of(st.none(), st.booleans(), st.integers(-99, 99), st.text(max_size=4))
_MESSAGE = st.one_of(_LEAF, st.fixed_dictionaries({"role": st.sampled_from(["user", "assistant"]), "parts": st.lists(_LEAF, max_size=2)}))


@st.composite
def _texts(draw: st.DrawFn) -> list[str]:
    """A sequence of strings, most of them an earlier one extended (as model calls repeat a history)."""
    out: list[str] = []
    for _ in range(draw(st.integers(1, 8))):
        base = draw(st.sampled_from(out)) if out and draw(st.booleans()) else "[]"
        head = base.rstrip()[:-1] if base.rstrip().endswith("]") else base
        how = draw(st.sampled_from(["extend", "new", "cut", "junk", "space", "comma", "other"]))
        items = [orjson.dumps(m).decode() for m in draw(st.lists(_MESSAGE, max_size=3))]
        glue = "," if head.strip() != "[" else ""
        if how == "extend":
            text = head + (glue + ",".join(items) if items else "") + "]"
        elif how == "new":
            text = orjson.dumps(draw(st.lists(_MESSAGE, max_size=4))).decode()
        elif how == "cut":
            text = base[: draw(st.integers(0, max(0, len(base) - 1)))]
        elif how == "junk":
            text = head + draw(st.sampled_from([",]", ", ]", ",x]", "]x", ",1] ", " ,1]", "1]", ",[", "", ",\n2]", " 1]"]))
        elif how == "space":
            text = head + draw(st.sampled_from([" ", "\n"])) + (glue + " " + ",".join(items) if items else "") + " ] "
        elif how == "comma":
            text = head + glue + ",".join([*items, *items]) + "]" if items else head + ",]"
        else:
            text = draw(st.sampled_from(['{"a": 1}', "plain", "", "[1,2", "[", "[ ]", "[1, 2]"]))
        out.append(text)
    return out


@given(_texts())
@settings(max_examples=400, deadline=None)
def test_repeats_equal_a_full_parse(texts: list[str]) -> None:
    repeats = Repeats()
    for text in texts:
        assert repeats.value(text) == json_value(text)


def test_an_extended_history_shares_the_earlier_elements() -> None:
    """The shortcut is taken (else the test above proves nothing about it): the elements of the
    earlier array are the same objects."""
    repeats = Repeats()
    first = repeats.value('[{"role": "user", "parts": []}]')
    second = repeats.value('[{"role": "user", "parts": []},{"role": "assistant", "parts": ["hi"]}]')
    assert second[0] is first[0]
    assert second[1] == {"role": "assistant", "parts": ["hi"]}
    assert repeats.value('[{"role": "user", "parts": []},]') == '[{"role": "user", "parts": []},]'  # no JSON: kept as text


def test_tails_that_are_no_json_after_an_array_read_as_a_full_parse_does() -> None:
    """The edges the shortcut must refuse, each after ``[1]`` was read (so its head ``[1`` is a prefix)."""
    for text in ("[1 2]", "[1,]", "[1 ,2]", "[12]", "[1, 2]", "[1]x", "[1,2] "):
        repeats = Repeats()
        repeats.value("[1]")
        assert repeats.value(text) == json_value(text), text


def _chat_span(k: int, history: str, output: str) -> dict[str, object]:
    attrs = [("gen_ai.operation.name", "chat"), ("gen_ai.input.messages", history), ("gen_ai.output.messages", output)]
    return {"traceId": "ab" * 16, "spanId": f"{k + 1:016x}", "parentSpanId": f"{0:015x}f", "name": "chat m",
            "startTimeUnixNano": str(10**18 + 2 * k * 10**9), "endTimeUnixNano": str(10**18 + (2 * k + 1) * 10**9),
            "attributes": [{"key": key, "value": {"stringValue": v}} for key, v in attrs]}


_GENAI = st.builds(lambda role, text: {"role": role, "parts": [{"type": "text", "content": text}]},
                   st.sampled_from(["user", "assistant", "system"]), st.sampled_from(["a", "b", "c", ""]))


@st.composite
def _trace(draw: st.DrawFn) -> bytes:
    """An OTLP trace of model calls, each input the history so far (or a rewrite, a cut, a mangled copy) and an answer."""
    spans: list[dict[str, object]] = [{"traceId": "ab" * 16, "spanId": f"{0:015x}f", "name": "invoke_agent A",
                                       "startTimeUnixNano": str(10**18 - 1), "endTimeUnixNano": str(2 * 10**18),
                                       "attributes": [{"key": "gen_ai.operation.name", "value": {"stringValue": "invoke_agent"}}]}]
    history: list[object] = []
    for k in range(draw(st.integers(1, 6))):
        how = draw(st.sampled_from(["grow", "grow", "rewrite", "cut", "junk"]))
        if how == "rewrite":
            history = draw(st.lists(_GENAI, max_size=3))
        elif how == "cut" and history:
            history = history[: draw(st.integers(0, len(history) - 1))]
        history = [*history, *draw(st.lists(st.one_of(_GENAI, _LEAF), max_size=2))]
        text = orjson.dumps(history).decode()
        if how == "junk":
            text = text[:-1] + draw(st.sampled_from([",]", ", ]", "]]", "", " ]"]))
        answer = draw(_GENAI)
        spans.append(_chat_span(k, text, orjson.dumps([answer]).decode()))
        if draw(st.booleans()):  # (else the next call's input need not hold it: a history as some producers cut it)
            history.append(answer)
    return orjson.dumps({"resourceSpans": [{"scopeSpans": [{"spans": spans}]}]})


@given(_trace())
@settings(max_examples=150, deadline=None)
def test_a_trace_reads_the_same_with_and_without_the_shortcut(data: bytes) -> None:
    """The otel reader with ``Repeats`` (shared elements and messages) against every history
    parsed whole (``interpret`` without it): the same threads, actions, problems and account."""
    from unittest import mock

    from threadlab.formats.common.source import Source
    from threadlab.formats.otel import reading

    def threads() -> list[object]:
        out = reading.read_threads(Source(data, name="t.json"))
        return [(t.to_dict(), [(p.rule, p.message) for p in t.problems], t.account) for t in out]

    fast = threads()
    with mock.patch.object(reading, "Repeats", lambda: None):
        assert threads() == fast
