"""A live file is still a file (issue 24 §7): a JSON Lines file an agent is still writing ends
in a torn line. Detection ignores a torn last line in the head (``json_lines.complete_lines``),
the complete lines load as they would alone, and the torn one is a ``truncated`` problem naming
its line. Before, an Agents SDK session whose last line was torn gave "no format reads this"."""

from __future__ import annotations

import warnings
from pathlib import Path

import orjson
import pytest

import threadlab as tl
from tests.conformance.fixtures import Fixture, fixtures
from threadlab.formats import detect_format
from threadlab.formats.common.reading import UnreadFilesWarning
from threadlab.formats.common.source import Source

SESSION = Path(__file__).resolve().parent / "fixtures" / "openai_agents_session" / "weather_chat_items.jsonl"


def _json_lines(fixture: Fixture) -> list[bytes] | None:
    lines = [line for line in fixture.path.read_bytes().split(b"\n") if line.strip()]
    try:
        [orjson.loads(line) for line in lines]
    except orjson.JSONDecodeError:
        return None
    return lines if len(lines) >= 2 else None


LINES = [(f, lines) for f in fixtures() if (lines := _json_lines(f)) is not None]


def _detected(path: Path) -> str | None:
    try:
        return detect_format(Source(path)).NAME
    except tl.ThreadError:
        return None


def _torn(lines: list[bytes], keep: int) -> bytes:
    """The first ``keep`` lines and half of the next, as a writer leaves them mid-line."""
    return b"\n".join(lines[:keep]) + b"\n" + lines[keep][: max(1, len(lines[keep]) // 2)]


def test_a_running_agents_session_reads_its_complete_lines(tmp_path: Path) -> None:
    lines = [line for line in SESSION.read_bytes().split(b"\n") if line.strip()]
    complete = tmp_path / "complete" / "chat.jsonl"
    live = tmp_path / "live" / "chat.jsonl"
    complete.parent.mkdir()
    live.parent.mkdir()
    complete.write_bytes(b"\n".join(lines[:-1]) + b"\n")
    live.write_bytes(_torn(lines, len(lines) - 1))
    assert _detected(live) == "openai-agents-session"
    thread = tl.read(live, strict=False)
    assert tl.dumps(thread) == tl.dumps(tl.read(complete))
    assert [(p.rule, p.line) for p in thread.problems] == [("truncated", len(lines))]
    frames = tl.load(live, progress=False)
    assert len(frames.actions) == len(thread.actions) > 0 and list(frames.problems["rule"]) == ["truncated"]


@pytest.mark.parametrize(("fixture", "lines"), LINES, ids=[f.id for f, _ in LINES])
def test_a_torn_last_line_is_detected_as_the_complete_lines_and_named(fixture: Fixture, lines: list[bytes], tmp_path: Path) -> None:
    for keep in sorted({1, 2, 3, len(lines) - 1} & set(range(1, len(lines)))):
        whole, torn = tmp_path / f"whole{keep}" / fixture.path.name, tmp_path / f"torn{keep}" / fixture.path.name
        whole.parent.mkdir()
        torn.parent.mkdir()
        whole.write_bytes(b"\n".join(lines[:keep]) + b"\n")
        torn.write_bytes(_torn(lines, keep))
        expected = _detected(whole)
        if expected is None:  # a first line alone may be no format's (one object on one line)
            continue
        assert _detected(torn) == expected, keep
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always", UnreadFilesWarning)
            problems = [p for t in tl.read_all(torn, strict=False) for p in t.problems]
        # the complete lines hold no thread (a trace line alone): the file is named as unread
        problems += [p for w in caught if isinstance(w.message, UnreadFilesWarning) for p in w.message.problems]
        assert [(p.rule, p.line) for p in problems if p.line == keep + 1] == [("truncated", keep + 1)], keep


def _cut_first(lines: list[bytes], how: str) -> bytes:
    """The file with its first line cut: from its start (a capture begun mid-line) or its end
    (a first line that lost its end, as the AI SDK's saved Responses stream has it)."""
    first = lines[0]
    cut = first[len(first) // 2 :] if how == "start" else first[: max(2, len(first) // 2)]
    return b"\n".join([cut, *lines[1:]]) + b"\n"


@pytest.mark.parametrize(("fixture", "lines"), [(f, lines) for f, lines in LINES if len(lines) >= 3], ids=[f.id for f, lines in LINES if len(lines) >= 3])
def test_a_cut_first_line_is_detected_as_the_lines_after_it_and_named(fixture: Fixture, lines: list[bytes], tmp_path: Path) -> None:
    rest = tmp_path / "rest" / fixture.path.name
    rest.parent.mkdir()
    rest.write_bytes(b"\n".join(lines[1:]) + b"\n")
    expected = _detected(rest)
    if expected is None:  # the lines after the first are no format's alone (a trace's spans without their trace line)
        return
    for how in ("start", "end"):
        cut = tmp_path / how / fixture.path.name
        cut.parent.mkdir()
        cut.write_bytes(_cut_first(lines, how))
        assert _detected(cut) == expected, how
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always", UnreadFilesWarning)
            problems = [p for t in tl.read_all(cut, strict=False) for p in t.problems]
        problems += [p for w in caught if isinstance(w.message, UnreadFilesWarning) for p in w.message.problems]
        assert [(p.rule, p.line) for p in problems if p.line == 1] == [("truncated", 1)], how


def test_a_first_line_of_text_is_no_cut_line(tmp_path: Path) -> None:
    """Only a fragment of JSON is a cut line: a file that starts with a line of text before the
    session's lines stays no format's."""
    lines = [line for line in SESSION.read_bytes().split(b"\n") if line.strip()]
    path = tmp_path / "notes.jsonl"
    path.write_bytes(b"# my session, exported by hand\n" + b"\n".join(lines) + b"\n")
    assert _detected(path) is None


@pytest.mark.parametrize("name", ["claude/sdk_query_parsed_messages.json", "pydantic_ai/pydantic_ai_all_messages.json",
                                  "real/otel/openinference_vercel_v6_ai-generateText-doGenerate.json"])
def test_a_json_array_written_one_item_a_line_is_no_cut_capture(name: str, tmp_path: Path) -> None:
    """``[{...},`` then one item a line: the first line is no fragment of a cut line (the line
    after it is no JSON value alone), so the file is the array it was."""
    source = SESSION.parent.parent / name
    items = orjson.loads(source.read_bytes())
    path = tmp_path / source.name
    path.write_bytes(b"[" + b",\n".join(orjson.dumps(i) for i in items) + b"]\n")
    assert _detected(path) == _detected(source) is not None


GLUED_READERS = {"codex", "codex-exec", "copilot-cli", "gemini-cli", "qwen-code", "sts", "langchain"}  # the readers of json_lines.parsed_lines
GLUED = [(f, lines) for f, lines in LINES if f.format in GLUED_READERS and lines[0].lstrip()[:1] == b"{"]


def _shape(threads: list[tl.Thread]) -> list[list[tuple[str, str]]]:
    return [[(a.action_type, orjson.dumps(a.model_dump(mode="json").get("content")).decode()) for a in t.actions] for t in threads]


@pytest.mark.parametrize(("fixture", "lines"), GLUED, ids=[f.id for f, _ in GLUED])
def test_records_glued_onto_one_line_are_each_read_and_the_line_named(fixture: Fixture, lines: list[bytes], tmp_path: Path) -> None:
    """Two writers appending to one file, or one that lost a newline, leave ``{...}{...}``: the
    file is detected as before, every record is read, and a ``glued`` problem names the line."""
    at = min(2, len(lines) - 2)  # lines at+1 and at+2 (1-based) glued
    whole, glued = tmp_path / "whole" / fixture.path.name, tmp_path / "glued" / fixture.path.name
    whole.parent.mkdir()
    glued.parent.mkdir()
    whole.write_bytes(b"\n".join(lines) + b"\n")
    glued.write_bytes(b"\n".join([*lines[:at], lines[at] + lines[at + 1], *lines[at + 2:]]) + b"\n")
    assert _detected(glued) == _detected(whole) is not None
    expected, got = tl.read_all(whole, strict=False), tl.read_all(glued, strict=False)
    assert _shape(got) == _shape(expected)
    assert [(p.rule, p.line) for t in got for p in t.problems if p.rule == "glued"] == [("glued", at + 1)]
    with pytest.raises(tl.ThreadError, match="glued"):
        tl.read_all(glued, strict=True)


QWEN_GLUED = Path(__file__).resolve().parent / "fixtures" / "real" / "qwen_code" / "agent-sessions" / "019f0000-0000-7000-8000-000000000005.jsonl"


def test_agent_sessions_glued_qwen_file_reads_both_records() -> None:
    thread = tl.read(QWEN_GLUED, strict=False)
    assert [a.action_type for a in thread.actions] == ["user_message", "assistant_message"]
    assert [(p.rule, p.line) for p in thread.problems] == [("glued", 1)]


def test_a_glued_line_whose_last_record_is_torn_keeps_the_records_before(tmp_path: Path) -> None:
    data = QWEN_GLUED.read_bytes().rstrip()
    again = data.replace(b"8000-000000000051", b"8000-000000000061").replace(b"8000-000000000052", b"8000-000000000062").replace(b"14:00:00.000Z", b"14:00:02.000Z")
    path = tmp_path / "live.jsonl"
    path.write_bytes(data + b"\n" + again[: len(again) - 40])  # the last record cut short: a writer still at work
    thread = tl.read(path, strict=False)
    assert [a.action_type for a in thread.actions] == ["user_message", "assistant_message", "user_message"]
    assert [(p.rule, p.line) for p in thread.problems] == [("glued", 1), ("glued", 2), ("truncated", 2)]
