"""The Claude Code frames route's fused passes (``formats/claude/fused.py``: the lanes in one loop,
with lanes for attachments, system and bookkeeping lines; ``survey.py``: chain order, tool calls
and usage in one pass a stream) against the careful route (a Thread of models, every pass on its
own) and against the multi-pass frames route they replace (``lanes.FramesConverter`` with
``reader.Passes``), on generated sessions in the shapes Claude Code writes (the ones the fused
passes take) mixed with the odd lines that must send a line or a stream the multi-pass way:
inline sidechains, a child before its parent, a repeated uuid, a time going back, torn and
broken lines, a stream event, an assistant message streamed over several lines (each a usage
snapshot: the last before the stop reason is kept), a message id two files share, subagent files
with and without their sidecar."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import orjson
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import threadlab.formats.claude as claude
import threadlab.formats.claude.fused as fused
import threadlab.formats.claude.survey as survey
from threadlab.formats import Source
from threadlab.formats.claude.lanes import FramesConverter
from threadlab.formats.claude.reader import Passes

from .documents_route import frames_view

SESSION = "s1"
texts = st.sampled_from(["hi", "ok, done", "\n\n", " ", "<command-name>/x</command-name>", "[Request interrupted by user]", "Warmup"])
ODD = ("sidechain", "child-first", "repeat", "back", "torn", "broken", "event", "no-time", "bad-time", "dangling", "sidecar", "model",
       "bad-usage", "agent-name", "init", "two-blocks")


@st.composite
def session_lines(draw: Any, prefix: str = "u", calls_from: list[str] | None = None) -> tuple[list[dict[str, Any]], list[str]]:
    """A chain in file order with rising times: prompts, assistant messages of one block a line
    (several lines a message, each with the usage so far), tool results answering the calls,
    attachments, system and bookkeeping lines. Returns the lines and the tool call ids made."""
    lines: list[dict[str, Any]] = []
    calls: list[str] = []
    clock = [draw(st.integers(0, 50))]
    parent: list[str | None] = [None]

    def envelope(kind: str, chained: bool = True) -> dict[str, Any]:
        clock[0] += draw(st.integers(0, 2))
        line: dict[str, Any] = {"type": kind, "timestamp": f"2026-01-01T00:{clock[0] // 60:02d}:{clock[0] % 60:02d}.{draw(st.sampled_from(['000', '250']))}Z",
                                "sessionId": SESSION, "cwd": "/w", "version": "2.1.0"}
        if chained:
            uuid = f"{prefix}{len(lines)}"
            line.update({"uuid": uuid, "parentUuid": parent[0], "isSidechain": False})
            parent[0] = uuid
        return line

    for _ in range(draw(st.integers(1, 10))):
        kind = draw(st.sampled_from(["prompt", "assistant", "assistant", "result", "attachment", "system", "queue", "bookkeeping"]))
        if kind == "prompt":
            flag = draw(st.sampled_from([None, None, "isMeta", "isCompactSummary", "isSynthetic"]))
            lines.append({**envelope("user"), "message": {"role": "user", "content": draw(texts)}, **({flag: True} if flag else {})})
        elif kind == "assistant":
            mid = f"msg_{prefix}{len(lines)}"
            blocks = draw(st.lists(st.sampled_from(["text", "thinking", "tool_use", "blank", "server"]), min_size=1, max_size=3))
            stop = draw(st.sampled_from(["end_turn", "tool_use", None]))
            for n, kind_ in enumerate(blocks):
                if kind_ in ("tool_use", "server"):
                    calls.append(f"toolu_{prefix}{len(lines)}")
                block = {"text": {"type": "text", "text": draw(texts)}, "blank": {"type": "text", "text": "\n\n"},
                         "thinking": {"type": "thinking", "thinking": "hm", "signature": "sig"},
                         "tool_use": {"type": "tool_use", "id": f"toolu_{prefix}{len(lines)}", "name": "Bash", "input": {"command": "ls"}},
                         "server": {"type": "server_tool_use", "id": f"toolu_{prefix}{len(lines)}", "name": "web_search", "input": {"q": "x"}}}[kind_]
                message: dict[str, Any] = {"id": mid, "type": "message", "role": "assistant", "model": "claude-sonnet-4-5", "content": [block],
                                           "usage": {"input_tokens": 3, "cache_read_input_tokens": 7, "output_tokens": 2 + n}}
                if n == len(blocks) - 1 and stop is not None:
                    message["stop_reason"] = stop
                lines.append({**envelope("assistant"), "message": message})
        elif kind == "result":
            open_calls = calls or calls_from or ["toolu_none"]
            call = draw(st.sampled_from(open_calls))
            content = draw(st.sampled_from(["out", [{"type": "text", "text": "out"}], None]))
            block = {"type": "tool_result", "tool_use_id": call, "content": content, **draw(st.sampled_from([{}, {"is_error": True}]))}
            lines.append({**envelope("user"), "message": {"role": "user", "content": [block]}, "toolUseResult": {"stdout": "out"}})
        elif kind == "attachment":
            attachment = draw(st.sampled_from([{"type": "date", "date": "x"}, {"type": "queued_command", "prompt": "p", "origin": {"kind": "peer"}},
                                               {"type": "hook_success", "hookName": "h"}, {"type": ""}, {"type": 7}, "odd"]))
            lines.append({**envelope("attachment"), "attachment": attachment})
        elif kind == "system":
            extra = draw(st.sampled_from([{"subtype": "turn_duration", "durationMs": 5}, {"subtype": "stop_hook_summary"},
                                          {"subtype": "local_command", "content": "<command-name>/x</command-name>"}, {}, {"subtype": ""}, {"subtype": 3}]))
            lines.append({**envelope("system"), **extra})
        elif kind == "queue":
            lines.append({**envelope("queue-operation", chained=False), "operation": "enqueue", "content": draw(texts)})
        else:
            kind_ = draw(st.sampled_from(["cost-state", "ai-title", "last-prompt", "file-history-snapshot", "custom-title"]))
            extra = {"cost-state": {"totalCostUSD": 0.5}, "ai-title": {"aiTitle": "T"}, "custom-title": {"customTitle": ""},
                     "last-prompt": {"lastPrompt": "p"}, "file-history-snapshot": {"snapshot": {}, "messageId": "m"}}[kind_]
            lines.append({**envelope(kind_, chained=False), **extra})
    return lines, calls


def _odd(draw: Any, lines: list[dict[str, Any]], which: str) -> None:
    """One odd line among the plain ones."""
    if not lines:
        return
    at = draw(st.integers(0, len(lines) - 1))
    target = lines[at]
    if which == "sidechain":
        target.update({"isSidechain": True, **draw(st.sampled_from([{"agentId": "side1"}, {}]))})
    elif which == "child-first" and at + 1 < len(lines):
        lines[at], lines[at + 1] = lines[at + 1], lines[at]
    elif which == "repeat":
        lines.insert(at, orjson.loads(orjson.dumps(target)))
    elif which == "back":
        target["timestamp"] = "2025-12-31T23:59:59.000Z"
    elif which == "no-time":
        target.pop("timestamp", None)
    elif which == "bad-time":
        target["timestamp"] = draw(st.sampled_from(["not a time", "2026-01-01T00:00:00+00:00", "2026-01-01 00:00:01.500Z"]))
    elif which == "dangling":
        target["parentUuid"] = "gone"
    elif which == "event":
        mids = [line["message"]["id"] for line in lines if line.get("type") == "assistant"] or ["msg_none"]
        lines.insert(at, {"type": "stream_event", "event": {"type": "message_delta", "usage": {"output_tokens": 99}, "delta": {"stop_reason": "end_turn"}},
                          "api_message_id": draw(st.sampled_from(mids))})
    elif which == "sidecar":
        lines.insert(at, {"type": "agent_metadata", "agentId": "side1", "agentType": "Explore"})
    elif which == "model" and isinstance(target.get("message"), dict):
        target["message"]["model"] = draw(st.sampled_from(["claude-other-1", "<synthetic>"]))
    elif which == "bad-usage" and isinstance(target.get("message"), dict):
        target["message"]["usage"] = draw(st.sampled_from([{"input_tokens": "many"}, {"output_tokens": 1.5}, {"output_tokens": 4, "output_tokens_details": {"thinking_tokens": 2}}]))
    elif which == "agent-name":
        lines.insert(at, {"type": "agent-name", "agentName": "helper", "sessionId": SESSION})
    elif which == "init":
        lines.insert(at, {"type": "system", "subtype": "init", "model": "claude-x", "sessionId": SESSION})
    elif which == "two-blocks" and isinstance(target.get("message"), dict) and isinstance(target["message"].get("content"), list):
        target["message"]["content"] = [*target["message"]["content"], {"type": "text", "text": "more"}]


@st.composite
def session_folder(draw: Any) -> tuple[list[bytes], dict[str, tuple[list[bytes], dict[str, Any] | None]]]:
    """The session file's lines and its subagent files (agent id → lines, sidecar), as bytes."""
    lines, calls = draw(session_lines())
    for which in draw(st.lists(st.sampled_from(ODD), max_size=2)):
        _odd(draw, lines, which)
    subagents: dict[str, tuple[list[bytes], dict[str, Any] | None]] = {}
    for n in range(draw(st.integers(0, 2))):
        sub, _ = draw(session_lines(prefix=f"a{n}u", calls_from=calls))
        if draw(st.booleans()) and lines and sub:  # a message id the session's file has too
            shared = next((line["message"]["id"] for line in lines if line.get("type") == "assistant"), None)
            target = next((line for line in sub if line.get("type") == "assistant"), None)
            if shared is not None and target is not None:
                target["message"]["id"] = shared
        if draw(st.integers(0, 3)) == 0:
            _odd(draw, sub, draw(st.sampled_from(ODD)))
        sidecar = draw(st.sampled_from([None, {"agentType": "Explore", "description": "look"}, *({"agentType": "Explore", "toolUseId": c} for c in calls[:2])]))
        subagents[f"a{n}"] = ([orjson.dumps(line) for line in sub], sidecar)
    data = [orjson.dumps(line) for line in lines]
    if data and draw(st.integers(0, 5)) == 0:
        data.insert(draw(st.integers(0, len(data))), b"{not json")
    if data and draw(st.integers(0, 5)) == 0:
        data[-1] = data[-1][: len(data[-1]) // 2]
    return data, subagents


def _write(root: Path, data: list[bytes], subagents: dict[str, tuple[list[bytes], dict[str, Any] | None]]) -> Path:
    path = root / f"{SESSION}.jsonl"
    path.write_bytes(b"\n".join(data) + b"\n")
    for agent, (lines, sidecar) in subagents.items():
        folder = root / SESSION / "subagents"
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"agent-{agent}.jsonl").write_bytes(b"\n".join(lines) + b"\n")
        if sidecar is not None:
            (folder / f"agent-{agent}.meta.json").write_bytes(orjson.dumps(sidecar))
    return path


@contextmanager
def _careful(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    with monkeypatch.context() as m:
        m.setattr(claude, "to_documents", lambda source: None)
        yield


@contextmanager
def _multi_pass(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """The frames route as it stood before the passes were fused: the lanes line by line, each pass on its own."""
    with monkeypatch.context() as m:
        m.setattr(fused, "FusedConverter", FramesConverter)
        m.setattr(survey, "Surveyed", Passes)
        yield


def _views(path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Any, Any, Any]:
    new = frames_view(Source(path))
    with _multi_pass(monkeypatch):
        before = frames_view(Source(path))
    with _careful(monkeypatch):
        careful = frames_view(Source(path))
    return new, before, careful


@settings(max_examples=250, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(folder=session_folder())
def test_fused_passes_give_the_frames_of_the_careful_and_the_multi_pass_route(folder: Any, monkeypatch: pytest.MonkeyPatch,
                                                                              tmp_path_factory: pytest.TempPathFactory) -> None:
    path = _write(tmp_path_factory.mktemp("projects"), *folder)
    new, before, careful = _views(path, monkeypatch)
    assert new == careful
    assert new == before
    with _multi_pass(monkeypatch):
        routed = claude.to_documents(Source(path)) is not None
    assert (claude.to_documents(Source(path)) is not None) == routed  # (no failure of the fused passes hidden by the careful way)


def test_the_generated_sessions_take_the_fused_passes(tmp_path: Path) -> None:
    """A plain generated session (no odd line) is read by the survey and the fused loop, its
    usage from the survey: the property above compares the fused passes, not only fallbacks."""
    lines = [
        {"type": "user", "uuid": "u0", "parentUuid": None, "timestamp": "2026-01-01T00:00:00.000Z", "sessionId": SESSION,
         "message": {"role": "user", "content": "hi"}},
        {"type": "assistant", "uuid": "u1", "parentUuid": "u0", "timestamp": "2026-01-01T00:00:01.000Z", "sessionId": SESSION,
         "message": {"id": "m1", "role": "assistant", "model": "claude-a", "content": [{"type": "tool_use", "id": "t1", "name": "Bash", "input": {}}],
                     "usage": {"input_tokens": 1, "output_tokens": 1}}},
        {"type": "assistant", "uuid": "u2", "parentUuid": "u1", "timestamp": "2026-01-01T00:00:02.000Z", "sessionId": SESSION,
         "message": {"id": "m1", "role": "assistant", "model": "claude-a", "content": [{"type": "text", "text": "ok"}],
                     "usage": {"input_tokens": 1, "output_tokens": 9}, "stop_reason": "tool_use"}},
        {"type": "user", "uuid": "u3", "parentUuid": "u2", "timestamp": "2026-01-01T00:00:03.000Z", "sessionId": SESSION,
         "message": {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1", "content": "out"}]}},
        {"type": "queue-operation", "operation": "dequeue", "timestamp": "2026-01-01T00:00:04.000Z", "sessionId": SESSION},
    ]
    path = _write(tmp_path, [orjson.dumps(line) for line in lines], {})
    seen: list[Any] = []
    real = survey.Surveyed.responses

    def responses(self: survey.Surveyed) -> Any:
        seen.append(real(self))
        return seen[-1]

    with pytest.MonkeyPatch.context() as m:
        m.setattr(survey.Surveyed, "responses", responses)
        [(_, doc)] = claude.to_documents(Source(path))  # type: ignore[misc]
    assert seen and seen[0] is not None and set(seen[0]) == {"m1"}
    assert [a["action_type"] for a in doc["actions"]] == ["user_message", "tool_call", "assistant_message", "tool_return", "system.queue_operation"]
    assert doc["actions"][2]["usage"]["output_tokens"] == 9  # the last snapshot's, on the text block
