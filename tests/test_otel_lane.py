"""The GenAI lane of the OTel frames route (``otel/lane.py``, ``otel/lane_spans.py``) against the
careful route (``RawSpan`` → ``interpret`` → ``spans/assemble.py`` → ``DocBuilder``): on GenAI span
files built to tempt it (histories rewritten, cut, forked between runs, respelled; spans shuffled,
parents after children, times tied; tool calls without returns or tool spans, calls named twice,
results naming no call; usage figures that are no counts; attributes of the wrong type; parts and
messages of other shapes; handoffs; the attributes other conventions read), the lane either
declines (None) or gives exactly the careful route's thread, problems, account and JSON object.
Deliberately broken lanes are told apart (``test_a_broken_lane_is_told_apart``)."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import orjson
import pytest
from hypothesis import HealthCheck, Phase, find, given, settings
from hypothesis import strategies as st

import threadlab
from benchmarks.corpus import thread_doc
from threadlab.formats.common.source import Source
from threadlab.formats.otel import lane, lane_spans, to_otlp
from threadlab.formats.otel.lane import lane_documents
from threadlab.formats.otel.reading import raw_spans, threads_of
from threadlab.formats.otel.typed import decode

FIXTURES = Path(__file__).parent / "fixtures"
TRACE = "5b8efff798038103d269b633813fc60c"
BASE = 1_700_000_000_000_000_000


def both(data: bytes) -> tuple[Any, Any]:
    """(the lane's answer or None, the careful route's documents)."""
    doc = decode(Source(data, name="x.json"))
    got = lane_documents(doc, "x.json") if doc is not None else None
    raws, failures = raw_spans(Source(data, name="x.json"))
    return got, threads_of(Source(data, name="x.json"), raws, failures, documents=True)


def differs(data: bytes) -> bool:
    """The lane answered and its answer is not the careful route's."""
    try:
        got, want = both(data)
    except Exception:  # (a lane that raises is told apart too)
        return True
    if got is None:
        return False
    return len(got) != len(want) or any(
        g[1] != w[1] or g[0].to_dict() != w[0].to_dict() or g[0].problems != w[0].problems or g[0].account != w[0].account
        for g, w in zip(got, want, strict=False))


def check(data: bytes) -> Any:
    got, want = both(data)
    if got is not None:
        assert len(got) == len(want)
        for (thread, doc), (thread_c, doc_c) in zip(got, want, strict=True):
            assert doc["actions"] == doc_c["actions"]
            assert doc == doc_c
            assert thread.to_dict() == thread_c.to_dict()
            assert thread.problems == thread_c.problems
            assert thread.account == thread_c.account
    return got


def rarely(good: Any, bad: Any, one_in: int = 12) -> Any:
    """``good``, or ``bad`` about once in ``one_in`` (a middle value: hypothesis favours the bounds)."""
    return st.integers(0, one_in - 1).flatmap(lambda n: bad if n == one_in // 2 else good)


def once_in(draw: Any, n: int) -> bool:
    return draw(st.integers(0, n - 1)) == n // 2


_texts = st.sampled_from(["hello", "Plan the report.", "", "again", "hello"])
_call_ids = rarely(st.sampled_from(["c1", "c2", "c3", "c4"]), st.sampled_from([None, 7, ""]))
_tools = st.sampled_from(["search", "read_file", "transfer_to_coder"])
_odd_parts = st.sampled_from([
    "bare text", 5, {"type": "text", "content": 3}, {"type": "blob", "mime_type": "image/png", "content": "AAE="},
    {"type": "reasoning", "content": None}, {"type": "thinking", "content": "hm"}, {"type": "reasoning", "content": 4},
    {"type": "uri", "uri": "https://x"}, {"type": "tool_call_response", "result": "r"}, {"kind": "text"},
])


@st.composite
def parts(draw: Any, role: str) -> list[Any]:
    out: list[Any] = []
    for _ in range(draw(st.integers(0 if role == "assistant" else 1, 3))):
        if role == "assistant":
            kind = draw(st.sampled_from(["text", "text", "reasoning", "tool_call", "tool_call"]))
        elif role == "tool":
            kind = "tool_call_response"
        else:
            kind = draw(st.sampled_from(["text", "text", "text", "tool_call_response"]))
        if kind == "text":
            part: Any = {"type": "text", "content": draw(_texts)}
        elif kind == "reasoning":
            part = {"type": "reasoning", "content": draw(_texts)}
        elif kind == "tool_call":
            part = {"type": "tool_call", "id": draw(_call_ids), "name": draw(_tools),
                    "arguments": draw(st.sampled_from([{"q": 1}, '{"q": 1}', "not json", None, [1]]))}
        else:
            part = {"type": "tool_call_response", "id": draw(_call_ids), "response": draw(st.sampled_from([{"rows": 2}, "done", None]))}
            if draw(st.booleans()):
                part["name"] = draw(_tools)
        out.append(draw(rarely(st.just(part), _odd_parts, 30)))
    return out


@st.composite
def messages(draw: Any, role: str) -> Any:
    msg: dict[str, Any] = {"role": role, "parts": draw(parts(role))}
    if role == "assistant" and once_in(draw, 4):
        msg["finish_reason"] = draw(st.sampled_from(["stop", "tool_call", "length", 3]))
    odd = st.sampled_from([{"role": "system", "parts": [{"type": "text", "content": "Be brief."}]}, {"parts": []}, "no message",
                           {"role": "user", "parts": "no list"}, {"role": "user", "content": "chat style"}, {"role": 5, "parts": []},
                           {"role": "developer", "parts": []}, {"role": "model", "parts": [{"type": "text", "content": "hi"}]}])
    return draw(rarely(st.just(msg), odd, 40))


def _text_of(value: Any, draw: Any) -> Any:
    """A message list as producers write it: compact JSON mostly (so ``repeats`` extends it), spaced or no JSON rarely."""
    how = draw(rarely(st.just("compact"), st.sampled_from(["spaced", "cut", "object", "list"]), 20))
    if how == "compact":
        return orjson.dumps(value).decode()
    if how == "spaced":
        return json.dumps(value, indent=1)
    if how == "cut":
        return orjson.dumps(value).decode()[:-3]
    return value if how == "list" else {"kvlist": 1}


def _attr(key: str, value: Any) -> dict[str, Any]:
    if isinstance(value, bool):
        return {"key": key, "value": {"boolValue": value}}
    if isinstance(value, int):
        return {"key": key, "value": {"intValue": str(value)}}
    if isinstance(value, float):
        return {"key": key, "value": {"doubleValue": value}}
    if isinstance(value, list):
        return {"key": key, "value": {"arrayValue": {"values": [{"stringValue": v} for v in value]}}}
    if isinstance(value, dict):
        return {"key": key, "value": {"kvlistValue": {"values": [{"key": "k", "value": {"stringValue": "v"}}]}}}
    return {"key": key, "value": {"stringValue": value}}


_usage_values = rarely(st.integers(0, 5000), st.sampled_from([1.0, 2.5, -3, "12", True, 2**70, 0]), 25)
_extra = st.sampled_from([("server.address", "api.example"), ("gen_ai.conversation.id", "conv-1"), ("gen_ai.conversation.id", "conv-2"), ("session.id", "s"),
                          ("gen_ai.agent.description", "helps"), ("agent_name", "pai"), ("tool_arguments", "{}"),
                          ("pydantic_ai.all_messages", "[]"), ("gen_ai.request.temperature", 0.2), ("agent.name", "oi"),
                          ("openinference.span.kind", "LLM"), ("gen_ai.system_instructions", '[{"type": "text", "content": "Be kind."}]'),
                          ("gen_ai.system", "openai"), ("gen_ai.response.finish_reasons", ["stop"]), ("logfire.json_schema", "{}")])


@st.composite
def files(draw: Any) -> bytes:
    """One trace of agent runs, model calls, tool spans and handoffs in the GenAI convention."""
    spans: list[dict[str, Any]] = []
    ids = iter(f"{n:016x}" for n in range(1, 10_000))
    clock = [0]
    trace = [TRACE]

    def tick() -> int:
        clock[0] += draw(st.sampled_from([0, 1, 1, 2, 5]))  # (ties now and then)
        return clock[0]

    def span(name: str, parent: str | None, attrs: list[tuple[str, Any]], start: int, end: int, **more: Any) -> dict[str, Any]:
        attrs = attrs + draw(rarely(st.just([]), st.lists(_extra, min_size=1, max_size=1), 10))
        out: dict[str, Any] = {"traceId": trace[0], "spanId": next(ids), "name": name,
                               "startTimeUnixNano": str(BASE + start * 1000), "endTimeUnixNano": str(BASE + end * 1000),
                               "attributes": [_attr(k, v) for k, v in attrs], **more}
        if parent is not None:
            out["parentSpanId"] = parent
        spans.append(out)
        return out

    histories: list[list[Any]] = []
    for _ in range(draw(st.integers(1, 3))):
        agent = draw(rarely(st.sampled_from(["Planner", "Researcher", "Coder"]), st.sampled_from(["", 7])))
        trace[0] = draw(rarely(st.just(trace[0]), st.sampled_from([TRACE, "6" * 32, "7" * 32]), 4))  # (a session's runs in traces of their own)
        run_start = tick()
        run = span("invoke_agent " + str(agent), None, [("gen_ai.operation.name", "invoke_agent"), ("gen_ai.agent.name", agent)], run_start, run_start)
        if once_in(draw, 11):  # model calls at the root, no run
            parent = None
        elif once_in(draw, 16):
            parent = spans[0]["spanId"]  # a run under another (delegation: the careful route's)
            run["parentSpanId"] = parent
            parent = run["spanId"]
        else:
            parent = run["spanId"]
        history: list[Any] = [draw(messages("user"))]
        if histories and once_in(draw, 4):  # a fork: another run's history goes on here
            history = list(draw(st.sampled_from(histories)))
        for _ in range(draw(st.integers(0, 4))):
            sent = list(history)
            change = draw(rarely(st.just("none"), st.sampled_from(["rewrite", "cut", "respell", "shuffle"]), 8))
            if change == "rewrite" and sent:
                sent[draw(st.integers(0, len(sent) - 1))] = draw(messages("user"))
            elif change == "cut" and sent:
                sent = sent[: draw(st.integers(0, len(sent) - 1))]
            elif change == "respell" and sent:  # equal content, spelled otherwise: tool args as an object or a string
                sent = [{**m, "parts": [{**p, "arguments": json.dumps(p["arguments"])} if isinstance(p, dict) and isinstance(p.get("arguments"), dict) else p
                                        for p in m["parts"]]} if isinstance(m, dict) and isinstance(m.get("parts"), list) else m for m in sent]
            elif change == "shuffle" and len(sent) > 1:
                sent = list(reversed(sent))
            output = [draw(messages("assistant")) for _ in range(draw(st.sampled_from([1, 1, 1, 0, 2])))]
            start = tick()
            end = tick()
            attrs: list[tuple[str, Any]] = [("gen_ai.operation.name", draw(rarely(st.just("chat"), st.sampled_from(["text_completion", "embeddings", 5]), 30))),
                                            ("gen_ai.agent.name", agent)]
            if not once_in(draw, 13) or not output:
                attrs.append(("gen_ai.input.messages", _text_of(sent, draw)))
            if not once_in(draw, 13):
                attrs.append(("gen_ai.output.messages", _text_of(output, draw)))
            attrs += [("gen_ai.response.model", draw(st.sampled_from(["gpt-4o", "", 3]))), ("gen_ai.provider.name", "openai")]
            for key in draw(st.lists(st.sampled_from(["gen_ai.usage.input_tokens", "gen_ai.usage.output_tokens", "gen_ai.usage.cache_read.input_tokens",
                                                      "gen_ai.usage.prompt_tokens", "llm.token_count.total"]), max_size=3, unique=True)):
                attrs.append((key, draw(_usage_values)))
            span("chat gpt-4o", parent, attrs, start, end)
            history = sent + [m for m in output if not (isinstance(m, dict) and m.get("role") in ("system", "developer"))]
            calls = [p for m in output if isinstance(m, dict) and isinstance(m.get("parts"), list)
                     for p in m["parts"] if isinstance(p, dict) and p.get("type") == "tool_call"]
            answers: list[Any] = []
            for call in calls:
                t0, t1 = tick(), tick()
                if not once_in(draw, 5):
                    tool_attrs = [("gen_ai.operation.name", "execute_tool"), ("gen_ai.tool.name", call["name"])]
                    if not once_in(draw, 31):
                        tool_attrs.append(("gen_ai.tool.call.id", draw(rarely(st.just(call["id"]), _call_ids, 6))))
                    tool_attrs.append(("gen_ai.tool.call.arguments", json.dumps(call["arguments"])))
                    if draw(st.booleans()):
                        tool_attrs.append(("gen_ai.tool.call.result", draw(st.sampled_from(["ok", '{"rows": 1}', ""]))))
                    more = {"status": draw(st.sampled_from([{"code": 2, "message": "boom"}, {"code": 2}, {"code": 1}]))} if once_in(draw, 5) else {}
                    span("execute_tool " + call["name"], parent, tool_attrs, t0, t1, **more)
                if not once_in(draw, 4):
                    answers.append({"type": "tool_call_response", "id": call["id"], "response": "ok"})
            if answers:
                history.append({"role": draw(st.sampled_from(["tool", "user"])), "parts": answers})
            if draw(st.booleans()):
                history.append(draw(messages("user")))
            if once_in(draw, 6):
                t = tick()
                target = draw(st.sampled_from(["Coder", "None", ""]))
                span("handoff to " + target, parent, [("openinference.span.kind", draw(st.sampled_from(["TOOL", "tool"]))),
                                                      ("input.value", draw(st.sampled_from([str(agent), "None", ""]))), ("output.value", target)], t, t)
        histories.append(history)
    odd = draw(st.sampled_from(["none"] * 6 + ["time", "events", "events"]))  # one span of the file timed otherwise, or with an event
    if odd == "time":
        draw(st.sampled_from(spans))["startTimeUnixNano"] = draw(st.sampled_from([BASE, "soon", str(BASE), 1.5]))
    elif odd == "events":
        draw(st.sampled_from(spans))["events"] = [{"name": "gen_ai.choice", "timeUnixNano": draw(st.sampled_from([str(BASE), "soon"]))}]
    if once_in(draw, 5):
        spans = draw(st.permutations(spans))  # (parents after their children, calls after their tools)
    groups = [{"resource": {"attributes": [_attr("service.name", "svc")]}, "scopeSpans": [{"scope": {"name": "x"}, "spans": spans}]}]
    return orjson.dumps({"resourceSpans": groups})


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(files())
def test_the_lane_is_the_careful_route_or_declines(data: bytes) -> None:
    check(data)


def test_the_lane_takes_most_generated_files() -> None:
    """The referee above is not vacuous: most files it is given are the lane's to read."""
    taken = []

    @settings(max_examples=100, deadline=None, database=None, derandomize=True, phases=[Phase.generate], suppress_health_check=list(HealthCheck))
    @given(files())
    def run(data: bytes) -> None:
        taken.append(check(data) is not None)

    run()
    assert sum(taken) >= len(taken) // 5, f"the lane took {sum(taken)} of {len(taken)}"
    print(f"the lane took {sum(taken)} of {len(taken)}")


def test_the_lane_reads_the_benchmark_shape() -> None:
    """A trace written by threadlab's own OTel writer (the benchmark corpus's shape) is the lane's, and its frames are the careful route's."""
    for index in range(6):
        assert check(_benchmark_file(0, index)) is not None


def test_the_lane_reads_agent_framework_spans() -> None:
    """Microsoft Agent Framework's own OTLP export (``tests/fixtures/otel/README.md``: two runs of a
    session, one trace each, protobuf's JSON with base64 ids) is the lane's, and the careful route's."""
    got = check((FIXTURES / "otel" / "agent_framework_otlp_snake.json").read_bytes())
    assert got is not None and len(got) == 2


def test_the_lane_changes_no_frame(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A load's frames with and without the lane (the careful route forced by declining every file)."""
    for index in range(4):
        (tmp_path / f"t{index}.json").write_bytes(_benchmark_file(1, index))
    fast = threadlab.load(tmp_path, progress=False, workers=1)

    def decline(doc: Any) -> Any:
        raise lane_spans.Declined("forced")

    monkeypatch.setattr(lane, "lane_file", decline)
    slow = threadlab.load(tmp_path, progress=False, workers=1)
    for name in ("actions", "tool_calls", "usage", "threads", "problems"):
        a, b = getattr(fast, name), getattr(slow, name)
        assert a.equals(b), name


def _benchmark_file(seed: int, index: int) -> bytes:
    """A trace of the benchmark corpus (``benchmarks/spans.py``): a ThreadProtocol thread of
    ``benchmarks/corpus.py`` written by threadlab's ``otel`` writer."""
    thread = threadlab.read(orjson.dumps(thread_doc(seed, index, target_bytes=8_000)))
    return orjson.dumps(to_otlp(thread))


def _broken(monkeypatch: pytest.MonkeyPatch, mutation: str) -> None:
    if mutation == "identity only":  # histories compared by object identity alone
        monkeypatch.setattr(lane._Lane, "_common_prefix", lambda self, a, b: next((i for i, (x, y) in enumerate(zip(a, b, strict=False)) if x is not y), min(len(a), len(b))))
    elif mutation == "no prompt times":  # a turn's prompt at its model call's start, not its run's
        monkeypatch.setattr(lane, "_results_only", lambda parts: True)
    elif mutation == "conversation ids read as none":
        monkeypatch.setitem(lane_spans._DENIED, lane_spans.MODEL, frozenset())
    elif mutation == "events taken":
        monkeypatch.setattr(lane_spans, "_span", _without_events(lane_spans._span))
    elif mutation == "usage oddities taken":
        monkeypatch.setattr(lane_spans.C, "_usage", lambda a, problems: {"input": 1} if a else None)


def _without_events(span: Callable[..., Any]) -> Callable[..., Any]:
    def read(raw: Any, ids: Any, repeats: Any) -> Any:
        raw.events = None
        return span(raw, ids, repeats)
    return read


@pytest.mark.parametrize("mutation", ["identity only", "no prompt times", "conversation ids read as none", "events taken", "usage oddities taken"])
def test_a_broken_lane_is_told_apart(monkeypatch: pytest.MonkeyPatch, mutation: str) -> None:
    _broken(monkeypatch, mutation)
    found = find(files(), differs, settings=settings(max_examples=3000, deadline=None, database=None, derandomize=True, phases=[Phase.generate],
                                                          suppress_health_check=list(HealthCheck)))
    assert found
