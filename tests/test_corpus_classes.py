"""The classes the wild corpus (``tests/fixtures/real/``, issue 24 §8) exposed, each on the real
files that showed it: writers given a thread they can keep nothing of, a lenient read that
raised, vendor chat chunks that were not detected, one-line files cut or damaged with no line
named, round trips of rollout fragments and of files of several sessions, Mistral's thinking
parts, media parts written to Anthropic, another format's items written to agency-swarm."""

from __future__ import annotations

import warnings
from pathlib import Path
from typing import Any

import orjson
import pytest

import threadlab
from threadlab.core.loss import WriteLoss
from threadlab.core.model import Thread
from threadlab.core.problems import ThreadError
from threadlab.formats import Source, get_format
from threadlab.formats.common.reading import UnreadFilesWarning
from threadlab.formats.common.registry import FORMATS

REAL = Path(__file__).parent / "fixtures" / "real"
FRAGMENTS = [*sorted((REAL / "codex" / "agentcmd-individual").glob("*.jsonl")), REAL / "codex" / "ccusage" / "session-alpha.jsonl"]


def lenient(source: Any, fmt: str = "auto") -> tuple[list[Thread], list[Any]]:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        threads = threadlab.read_all(source, fmt, strict=False)
    return threads, [p for w in caught if isinstance(w.message, UnreadFilesWarning) for p in w.message.problems]


def written(thread: Thread, fmt: str) -> tuple[bytes, list[WriteLoss]]:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        wire = get_format(fmt).from_thread(thread)
    return wire, [w.message for w in caught if isinstance(w.message, WriteLoss)]


# --- a writer that can keep nothing writes nothing --------------------------------------------


@pytest.mark.parametrize("writer", [spec.name for spec in FORMATS if spec.writes])  # a reader only refuses every thread (tests/conformance)
@pytest.mark.parametrize("path", [REAL / "codex" / "agentcmd-individual" / "turn-context.jsonl", REAL / "codex_exec" / "agentcmd_stream_output_multi-1.jsonl",
                                  REAL / "claude" / "agentcmd-individual" / "user-slash-command.jsonl"], ids=lambda p: p.name)
def test_a_thread_a_writer_keeps_nothing_of_is_refused_or_reads_back(path: Path, writer: str) -> None:
    """Threads of system actions only (a Codex ``turn_context`` line, ``codex exec`` output cut
    after its turn started, a slash command alone): each writer raises a ValueError saying there
    is nothing to write, or writes what its own reader reads (before: ``[]`` or an empty database
    that its reader refused, with no WriteLoss)."""
    (thread,) = threadlab.read_all(path, strict=False)
    try:
        wire, _ = written(thread, writer)
    except ValueError as exc:
        assert "nothing to write" in str(exc) and thread.thread_id in str(exc)
        return
    back, unread = lenient(Source(wire, name=f"written.{writer}"), writer)
    assert back and unread == []


# --- lenient means lenient -------------------------------------------------------------------


def test_a_lenient_read_as_a_named_format_never_raises(tmp_path: Path) -> None:
    """A file the named format cannot read: lenient ``read_all`` gives no thread and names the file
    in an UnreadFilesWarning with its problems; strict raises them; ``read`` (one thread) raises."""
    path = REAL / "codex" / "agentcmd-individual" / "turn-context.jsonl"
    threads, unread = lenient(path, "openai-chat")
    assert threads == [] and [p.rule for p in unread] == ["format"] and str(path) in unread[0].message
    with pytest.raises(ThreadError):
        threadlab.read_all(path, "openai-chat")
    with pytest.raises(ThreadError):
        threadlab.read(path, "openai-chat", strict=False)


# --- the compatible vendors' chunks ---------------------------------------------------------


@pytest.mark.parametrize(("name", "kinds", "tokens"), [
    ("vercel_ai_moonshotai_stream.chunks.jsonl", ["thinking", "assistant_message"], (9, 12)),  # no "object" on any chunk
    ("vercel_ai_azure_model_router.chunks.jsonl", ["assistant_message"], (15, 78)),  # a first chunk of filter results, object ""
])
def test_vendor_chunks_without_the_chunk_object_are_a_chat_stream(name: str, kinds: list[str], tokens: tuple[int, int]) -> None:
    path = REAL / "openai_chat" / name
    raw = [orjson.loads(line) for line in path.read_bytes().splitlines() if line.strip()]
    assert not all(c.get("object") == "chat.completion.chunk" for c in raw)
    claimed = [spec.name for spec in FORMATS if get_format(spec.name).detect(Source(path))]
    assert claimed == ["openai-chat"]
    (thread,) = threadlab.read_all(path, strict=False)
    assert [a.action_type for a in thread.actions] == kinds
    text = "".join(c["choices"][0]["delta"].get("content") or "" for c in raw if c.get("choices"))
    assert next(a for a in thread.actions if a.action_type == "assistant_message").content == text
    usage = next(c["usage"] for c in reversed(raw) if c.get("usage"))
    assert (usage["prompt_tokens"], usage["completion_tokens"]) == tokens
    frames = threadlab.load(path, progress=False)
    assert (int(frames.threads["input_tokens"].sum()), int(frames.threads["output_tokens"].sum())) == tokens


# --- a cut or damaged one-line file names its line -------------------------------------------


@pytest.mark.parametrize("damage", ["cut", "bad-utf8"])
@pytest.mark.parametrize(("path", "fmt"), [(REAL / "codex" / "agentcmd-individual" / "event-user-message.jsonl", "codex"),
                                           (REAL / "codex_exec" / "agentcmd_stream_output_multi-1.jsonl", "codex-exec")], ids=lambda x: getattr(x, "name", x))
def test_a_cut_or_damaged_first_line_is_named_with_its_line(path: Path, fmt: str, damage: str, tmp_path: Path) -> None:
    """Before: ``format: is not a Codex rollout`` and no line. Now the JSON or UTF-8 error of line 1."""
    data = path.read_bytes()
    bad = tmp_path / path.name
    bad.write_bytes(data[: len(data) * 2 // 3] if damage == "cut" else data[:40] + b"\xff\xfe" + data[40:])
    threads, unread = lenient(bad, fmt)
    assert threads == []
    (problem,) = unread
    assert (problem.line, problem.rule) == (1, "json" if damage == "cut" else "encoding") and str(bad) in str(problem)


def test_a_garbage_line_in_a_json_document_is_named(tmp_path: Path) -> None:
    data = (REAL / "openai_responses" / "vercel_ai_reasoning_encrypted.json").read_bytes()
    bad = tmp_path / "response.json"
    bad.write_bytes(b"\n\x00garbage {not json\n" + data)
    _, unread = lenient(bad, "openai-responses")
    assert [(p.rule, p.line) for p in unread] == [("json", 2)]


# --- round trips ------------------------------------------------------------------------------


@pytest.mark.parametrize("path", FRAGMENTS, ids=lambda p: p.name)
def test_a_rollout_fragment_is_written_back_line_for_line(path: Path) -> None:
    """Lines cut from a rollout (no ``session_meta`` line) come back as they were; before, the
    writer put a ``session_meta`` of its own first."""
    (thread,) = threadlab.read_all(path, "codex", strict=False)
    wire, losses = written(thread, "codex")
    assert losses == []
    assert [orjson.loads(line) for line in wire.splitlines()] == [orjson.loads(line) for line in path.read_bytes().splitlines() if line.strip()]


def test_one_session_of_a_file_of_several_says_what_it_leaves() -> None:
    """A file of three sessions, one of them met twice (jazzyalex/agent-sessions' parser fixture):
    a thread per session id, and each thread written alone reads back as a file's only session
    (its id, the fields its lines share): a WriteLoss says so."""
    threads = threadlab.read_all(REAL / "claude" / "agent-sessions-small" / "small.jsonl", strict=False)
    assert [t.thread_id for t in threads] == ["ses_stage0_small", "stage0-session", "[trimmed for fixture]"]
    for thread in threads:
        _, losses = written(thread, "claude-code")
        assert [loss.lost for loss in losses] == [["the file's other 2 session(s) (each thread is written alone)"]]


# --- what the corpus showed of single readers and writers -------------------------------------


def test_mistral_thinking_parts_are_thinking() -> None:
    """Magistral answers with a ``thinking`` content part (text chunks) before its text: before,
    an unknown part inside the assistant message, which the Anthropic writer copied into a block
    its reader then crashed on."""
    path = REAL / "openai_chat" / "vercel_ai_mistral_reasoning.json"
    thread = threadlab.read(path, strict=False)
    body = orjson.loads(path.read_bytes())["choices"][0]["message"]["content"]
    assert [(a.action_type, a.content if isinstance(a.content, str) else a.content[0].text) for a in thread.actions] == [
        ("thinking", body[0]["thinking"][0]["text"]), ("assistant_message", body[1]["text"])]
    wire, losses = written(thread, "openai-chat")
    assert losses == [] and orjson.loads(wire) == orjson.loads(path.read_bytes())
    wire, losses = written(thread, "anthropic-messages")  # another provider's thinking: named, not copied as a block
    back, unread = lenient(Source(wire, name="back.json"), "anthropic-messages")
    assert unread == [] and [a.action_type for a in back[0].actions] == ["assistant_message"] and any("thinking" in str(loss) for loss in losses)


def test_an_image_part_is_an_anthropic_image_block() -> None:
    """A pasted image (agentcmd's Claude Code line) written as Anthropic messages: an ``image``
    block with its base64 source (before: the ThreadProtocol part as it is, which no reader reads)."""
    path = REAL / "claude" / "agentcmd-individual" / "user-image.jsonl"
    (line,) = [orjson.loads(x) for x in path.read_bytes().splitlines()]
    image = next(b for b in line["message"]["content"] if b["type"] == "image")
    wire, _ = written(threadlab.read(path, strict=False), "anthropic-messages")
    block = orjson.loads(wire)["messages"][0]["content"][0]
    assert block == {"type": "image", "source": {**image["source"]}}


def test_another_formats_items_are_not_written_to_agency_swarm_untagged() -> None:
    """A Codex rollout with items its reader kept as ``system.unknown_item``: agency-swarm's writer
    left them untagged in its list, which its reader then refused whole."""
    thread = threadlab.read(REAL / "codex" / "agent-sessions" / "stage0-large.jsonl", strict=False)
    unknown = sum(1 for a in thread.actions if a.action_type == "system.unknown_item")
    wire, losses = written(thread, "agency-swarm")
    assert unknown and any(f"{unknown} system.unknown_item actions (items of another format)" in loss.lost for loss in losses)
    back, unread = lenient(Source(wire, name="back.json"), "agency-swarm")
    assert back and unread == []
