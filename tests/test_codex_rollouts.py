"""Codex rollouts: who wrote each user message, interrupts, per-turn usage and Codex's own running
total, on every real rollout (public files and the real program's output), against counts taken
from the raw lines with orjson alone (``tests/codex_raw.py``, the corpus's Codex counter too);
plus the cases no real file here shows."""

from __future__ import annotations

import warnings
from pathlib import Path
from typing import Any

import orjson
import pytest

import threadlab
from tests.codex_raw import event, lines, raw_counts
from threadlab.core.builder import ThreadBuilder
from threadlab.core.loss import WriteLoss
from threadlab.formats import get_format
from threadlab.formats.common.source import Source

FIXTURES = Path(__file__).parent / "fixtures"
ROLLOUTS = sorted([*(FIXTURES / "real" / "codex").glob("*.jsonl"), *(FIXTURES / "codex").glob("codex-*/rollout-*.jsonl")])
RESUMED = FIXTURES / "codex" / "codex-0.169.0" / "rollout-2026-11-27T22-22-10-01a21f1a-0bf7-7763-8ac6-85fb41697546.jsonl"
FORKED = FIXTURES / "codex" / "codex-0.169.0" / "rollout-2026-11-27T22-22-12-01a21f1a-1328-74b2-9c0a-9fe2dea19cf5.jsonl"
SHELL = FIXTURES / "codex" / "codex-0.169.0" / "rollout-2026-11-27T22-27-44-01a21f1f-233d-74a1-acc5-1487c36a2497.jsonl"
VSCODE_040 = FIXTURES / "real" / "codex" / "rollout-2025-09-24T19-22-20-01997e76-d124-7592-9cac-2ec05abbca08.jsonl"
RESTARTED_040 = FIXTURES / "real" / "codex" / "rollout-2025-09-25T08-02-05-0199812e-64f0-7f73-91fc-095dda01c36e.jsonl"


@pytest.mark.parametrize("path", ROLLOUTS, ids=lambda p: p.name)
def test_rollout_counts_match_the_raw_lines(path: Path) -> None:
    """Human prompts, harness turns, interrupts, calls and returns, each turn's figures in
    order, and Codex's own total in the threads frame (a ``usage-total`` row exactly where it
    differs from the turns' sum)."""
    want = raw_counts(path)
    frames = threadlab.load(path, progress=False)
    (row,) = frames.threads.to_dict("records")
    got = {k: row[f"n_{k}"] for k in ("human_prompts", "harness_turns", "interrupts", "tool_calls", "tool_errors")}
    assert got == {"human_prompts": want["human"], "harness_turns": want["harness"], "interrupts": want["interrupts"], "tool_calls": want["tool_calls"],
                   "tool_errors": want["tool_errors"]}
    assert int((frames.actions["action_type"] == "tool_return").sum()) == want["tool_returns"]
    usage = frames.usage.sort_values("sequence")
    rows = [(int(u.input_tokens), int(u.output_tokens), int(u.cache_read_tokens or 0), int(u.thinking_tokens or 0)) for u in usage.fillna(0).itertuples()]
    assert rows == [(t[0], t[2], t[1], t[3]) for t in want["turns"]]
    flagged = set(frames.problems.loc[frames.problems["rule"] == "usage-total", "thread_id"])
    if want["producer"] is None:
        assert row["tokens_source"] is None or row["tokens_source"] != row["tokens_source"]  # (no usage: empty)
        return
    assert (row["total_tokens"], row["input_tokens"], row["output_tokens"], row["tokens_source"]) == (
        want["producer"]["total_tokens"], want["producer"]["input_tokens"], want["producer"]["output_tokens"], "reported")
    assert (row["thread_id"] in flagged) == want["differs"]


# --- the real program's interrupted, resumed and forked session -------------------------------


def test_an_interrupt_is_counted_once_and_a_resumed_session_keeps_its_total() -> None:
    """Codex 0.169 run for real: the ``<turn_aborted>`` message it wrote carries the interrupt
    (its ``turn_aborted`` event stays a system action, so it is not counted twice); the AGENTS.md
    and environment message is the harness's; ``resume`` appended to the same file and carried
    the total on, which equals the turns' sum."""
    (thread,) = threadlab.read_all(RESUMED)
    users = [a for a in thread.actions if a.action_type == "user_message"]
    assert [(a.metadata or {}).get("harness") for a in users] == ["user_instructions", None, "interrupt", None]
    assert [a.content for a in users if not (a.metadata or {}).get("author")] == ["Create notes.txt saying hello.", "Now fix the typo in notes.txt."]
    (aborted,) = [a for a in thread.actions if a.action_type == "system.turn_aborted"]
    assert "author" not in (aborted.metadata or {})
    frames = threadlab.load(RESUMED, progress=False)
    assert frames.threads["n_interrupts"].tolist() == [1] and frames.problems.empty


def test_a_shell_command_the_person_ran_is_no_prompt() -> None:
    """The interactive Codex 0.169, run for real: ``!ls`` is recorded for the model as a
    ``<user_shell_command>`` message (whose part Codex itself marks ``harness``): a harness turn
    of kind ``command_output``; the prompt typed after it is the one human prompt."""
    (thread,) = threadlab.read_all(SHELL)
    users = [a for a in thread.actions if a.action_type == "user_message"]
    assert [(a.metadata or {}).get("harness") for a in users] == ["command_output", "environment_context", None]
    assert "<command>\nls\n</command>" in users[0].content and users[2].content == "What did ls show?"  # type: ignore[attr-defined]
    frames = threadlab.load(SHELL, progress=False)
    assert frames.threads[["n_human_prompts", "n_harness_turns"]].values.tolist() == [[1, 2]]
    assert frames.actions.loc[frames.actions["harness_kind"] == "command_output", "author"].tolist() == ["harness"]


def test_a_forked_session_reports_the_parents_tokens_it_does_not_hold() -> None:
    """``codex exec fork`` (0.169, real): the new rollout holds one turn, but its running total
    starts with the parent's tokens. The thread shows Codex's total, the usage row stays the
    turn's own, and a ``usage-total`` row says by how much and why."""
    raw = lines(FORKED)
    (count,) = [x["payload"]["info"] for x in raw if event(x, "token_count")]
    frames = threadlab.load(FORKED, progress=False)
    assert frames.usage["total_tokens"].tolist() == [count["last_token_usage"]["total_tokens"]]
    assert frames.threads["total_tokens"].tolist() == [count["total_token_usage"]["total_tokens"]]
    (message,) = frames.problems.loc[frames.problems["rule"] == "usage-total", "message"]
    extra = count["total_token_usage"]["total_tokens"] - count["last_token_usage"]["total_tokens"]
    assert f"(+{extra:,})" in message and "forked from session" in message and "before this file's turns" in message


def test_a_total_that_starts_again_is_added_up_by_stretch() -> None:
    """Codex 0.40 took a session up again in the same file and counted from zero: the
    producer's total is both stretches added, equal to the turns' sum, so no problem row."""
    frames = threadlab.load(RESTARTED_040, progress=False)
    assert frames.threads["total_tokens"].tolist() == [int(frames.usage["total_tokens"].sum())]
    assert frames.problems.empty
    (thread,) = threadlab.read_all(RESTARTED_040)
    assert "starts again from zero" in thread.metadata["usage_total_note"]


def test_a_token_count_written_before_its_response_goes_to_that_response() -> None:
    """Codex 0.40 wrote each response's token_count just before the response's items: each
    event's figures go to the response right after it, none stays on the event."""
    (thread,) = threadlab.read_all(VSCODE_040)
    actions = thread.actions
    carrying = [a for a in actions if getattr(a, "usage", None) is not None]
    assert carrying and all(a.action_type != "system.token_count" for a in carrying)
    for action in carrying:
        before = next(b for b in reversed(actions[: action.sequence - 1]) if b.action_type == "system.token_count" and b.data.get("info"))  # type: ignore[attr-defined]
        usage = action.usage if isinstance(action.usage, dict) else action.usage.model_dump()  # type: ignore[attr-defined]
        assert usage["output_tokens"] == before.data["info"]["last_token_usage"]["output_tokens"]  # type: ignore[attr-defined]


# --- what no real file here shows -------------------------------------------------------------


def _rollout(tmp_path: Path, lines: list[dict[str, Any]]) -> Path:
    path = tmp_path / "rollout-2026-01-01T00-00-00-x.jsonl"
    path.write_bytes(b"".join(orjson.dumps(x) + b"\n" for x in lines))
    return path


def _user(text: str, when: str = "2026-01-01T00:00:01.000Z") -> dict[str, Any]:
    return {"timestamp": when, "type": "response_item", "payload": {"type": "message", "role": "user", "content": [{"type": "input_text", "text": text}]}}


HARNESS_TEXTS = {
    "<user_instructions>\n\nBe brief.\n\n</user_instructions>": "user_instructions",
    "<skill>\n<name>pdf</name>\n<path>/s/SKILL.md</path>\nUse pdftotext.\n</skill>": "attachment",
    "<user_shell_command>\n<command>\nls\n</command>\n<result>\nExit code: 0\nOutput:\na\n</result>\n</user_shell_command>": "command_output",
    "<user_action>\n  <context>User initiated a review task.</context>\n  <action>review</action>\n</user_action>\n": "command_output",
    '<subagent_notification>\n{"agent_id":"a1","status":"completed"}\n</subagent_notification>': "task_notification",
    '<hook_prompt hook_run_id="h1">Run the tests again.</hook_prompt>': "hook",
    "You are performing a CONTEXT CHECKPOINT COMPACTION. Create a handoff summary for another LLM that will resume the task.": "task_prompt",
    "Another language model started to solve this problem and produced a summary of its thinking process. Here: done.": "compaction_summary",
}


def test_every_kind_of_text_codex_writes_in_the_users_role_is_the_harness(tmp_path: Path) -> None:
    """The tags of codex-rs (contextual_user_message.rs, review and compact templates), one
    message each, beside a prompt typed with ``!`` inside it (a person's text is never matched
    by its middle) and a typed ``<turn_aborted>`` look-alike that does not open the message."""
    meta = {"timestamp": "2026-01-01T00:00:00.000Z", "type": "session_meta", "payload": {"id": "s1", "cli_version": "0.135.0"}}
    typed = "run `!ls` and tell me about <skill> tags </skill>"
    path = _rollout(tmp_path, [meta, *(_user(t) for t in HARNESS_TEXTS), _user(typed), _user("  <turn_aborted>\nstopped")])
    (thread,) = threadlab.read_all(path)
    users = [a for a in thread.actions if a.action_type == "user_message"]
    assert [(a.metadata or {}).get("harness") for a in users] == [*HARNESS_TEXTS.values(), None, "interrupt"]
    frames = threadlab.load(path, progress=False)
    assert frames.threads[["n_human_prompts", "n_harness_turns", "n_interrupts"]].values.tolist() == [[1, len(HARNESS_TEXTS) + 1, 1]]
    assert thread.title == typed


def test_a_message_no_prompt_event_repeats_is_the_harness_even_redacted(tmp_path: Path) -> None:
    """Texts redacted so that no tag shows: the one message Codex repeats as a prompt event is
    the person's (paired by position when the texts differ), the others are the harness's, of a
    kind the file no longer shows."""
    meta = {"timestamp": "2026-01-01T00:00:00.000Z", "type": "session_meta", "payload": {"id": "s1", "cli_version": "0.104.0"}}
    event = {"timestamp": "2026-01-01T00:00:02.000Z", "type": "event_msg", "payload": {"type": "user_message", "message": "[REDACTED len=5]"}}
    users = [_user(t, f"2026-01-01T00:00:0{i}.000Z") for i, t in enumerate(("[REDACTED len=3000]", "[REDACTED len=100]", "[REDACTED_T len=5]"))]
    path = _rollout(tmp_path, [meta, *users, event, _user("[REDACTED len=900]", "2026-01-01T00:00:03.000Z")])
    (thread,) = threadlab.read_all(path)
    users = [a for a in thread.actions if a.action_type == "user_message"]
    assert [(a.metadata or {}).get("author") for a in users] == ["harness", "harness", None, "harness"]
    assert all("harness" not in (a.metadata or {}) for a in users)


def test_the_threads_frame_shows_a_producers_total_for_any_format() -> None:
    """``metadata.usage_total`` is generic: a thread built in memory with one gets it in its
    token columns (``tokens_source`` reported) and a ``usage-total`` row where it differs from
    the rows' sum; one without is summed; an equal one is reported with no row."""
    threads = []
    for name, total in (("differs", {"input_tokens": 500, "output_tokens": 9, "total_tokens": 509}), ("none", None), ("equal", {"input_tokens": 100, "output_tokens": 5, "total_tokens": 105})):
        b = ThreadBuilder(name, source=f"{name}.json")
        agent = b.agent("Agent")
        b.add("user_message", content="hi")
        b.add("assistant_message", agent_id=agent, content="hello", usage={"input_tokens": 100, "output_tokens": 5, "total_tokens": 105})
        if total is not None:
            b.metadata["usage_total"] = total
            b.metadata["usage_total_note"] = "counted by the producer over two runs"
        threads.append(b.build())
    frames = threadlab.load(threads, progress=False)
    got = frames.threads.set_index("thread_id")[["input_tokens", "total_tokens", "tokens_source"]].to_dict("index")
    assert got == {
        "differs": {"input_tokens": 500, "total_tokens": 509, "tokens_source": "reported"},
        "none": {"input_tokens": 100, "total_tokens": 105, "tokens_source": "summed"},
        "equal": {"input_tokens": 100, "total_tokens": 105, "tokens_source": "reported"},
    }
    (problem,) = frames.problems.to_dict("records")
    assert problem["rule"] == "usage-total" and problem["thread_id"] == "differs"
    assert "input_tokens 500 reported, 100 summed (+400)" in problem["message"] and "over two runs" in problem["message"]
    assert frames.usage["total_tokens"].tolist() == [105, 105, 105]


def test_the_codex_writer_keeps_a_usage_total_and_says_what_it_cannot(tmp_path: Path) -> None:
    """A thread of another format with a producer's total above its turns' sum is written with
    the difference as the first running total's head start, and reads back with the same
    total; what a rollout cannot say as written (a note in other words, a harness message whose
    text has no Codex tag) is named in the WriteLoss."""
    b = ThreadBuilder("t1", source="x.json")
    b.agent("Codex", agent_id="codex")
    b.add("user_message", content="[Request interrupted by user]", metadata={"author": "harness", "harness": "interrupt"})
    b.add("user_message", content="<environment_context><cwd>/w</cwd></environment_context>", metadata={"author": "harness", "harness": "environment_context"})
    b.add("user_message", content="hi")
    b.add("assistant_message", agent_id="codex", content="hello", usage={"input_tokens": 10, "output_tokens": 2, "total_tokens": 12})
    b.metadata["usage_total"] = {"input_tokens": 110, "output_tokens": 7, "total_tokens": 117}
    b.metadata["usage_total_note"] = "two runs"
    thread = b.build()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        data = get_format("codex").from_thread(thread)
    (loss,) = [str(w.message) for w in caught if isinstance(w.message, WriteLoss)]
    assert "note on the usage total" in loss and "who wrote user messages" in loss and "running total is" not in loss
    (back,) = threadlab.read_all(Source(data, name="r.jsonl"), "codex", strict=False)
    assert back.metadata["usage_total"] == thread.metadata["usage_total"]
    assert [(a.metadata or {}).get("harness") for a in back.actions if a.action_type == "user_message"] == [None, "environment_context", None]
    below = thread.model_copy(update={"metadata": {"usage_total": {"input_tokens": 1, "output_tokens": 1, "total_tokens": 2}}})
    with pytest.warns(WriteLoss, match="the usage total"):
        get_format("codex").from_thread(below)
