"""Claude Code files other projects committed (tests/fixtures/real/claude, see its README):
every file reads with auto-detection, and its tool calls, tool returns, the prompts a person
typed, the turns Claude Code wrote in the user's role, the interrupts and the tokens are what the
raw JSON says (``tests/claude_raw.py``: plain orjson, no threadlab code), in the thread and in the
frames; what was read is written back line for line."""

from __future__ import annotations

import warnings
from pathlib import Path
from typing import Any

import orjson
import pytest

import threadlab as tl
from tests.claude_raw import blocks, ccusage_usage, final_usage, raw_counts, raw_items, session_files
from tests.conformance.fixtures import fixtures
from tests.wild.expected import EXPECTED
from threadlab import WriteLoss
from threadlab.core import Thread, tool_pairs
from threadlab.core.authors import author_of, harness_kind_of
from threadlab.formats import Source, detect_format, get_format

REAL = Path(__file__).parent / "fixtures" / "real" / "claude"
# a file whose counts disagree today is checked (and its disagreement listed) by tests/wild
LISTED = {REAL.parent / name for name in EXPECTED if name.startswith("claude/")}
SESSIONS = sorted(p for p in REAL.rglob("*.json*") if "subagents" not in p.parts and not p.name.startswith("agent-") and not p.name.endswith(".meta.json")
                  and p not in LISTED)


def file_counts(path: Path) -> dict[str, Any]:
    """``thread_counts`` summed over the file's threads (a file of several sessions, as Agent
    Sessions' parser fixture ``agent-sessions-small/small.jsonl`` is, gives a thread each)."""
    total: dict[str, Any] = {}
    for thread in tl.read_all(path, strict=False):
        for key, value in thread_counts(thread).items():
            total[key] = {k: total.get(key, {}).get(k, 0) + v for k, v in value.items()} if isinstance(value, dict) else total.get(key, 0) + value
    return total


def thread_counts(thread: Thread) -> dict[str, Any]:
    kinds = [a.action_type for a in thread.actions]
    authors = [(a.action_type, author_of(a.action_type, a.metadata), harness_kind_of(a.metadata)) for a in thread.actions]
    # usage is a field of messages and thinking, and rides on a tool call that opens a response without text
    used = [u if isinstance(u, dict) else u.model_dump() for u in (getattr(a, "usage", None) for a in thread.actions) if u is not None]
    read = sum(u.get("cache_read_tokens") or 0 for u in used)
    write = sum(u.get("cache_write_tokens") or 0 for u in used)
    totals = {"input_tokens": sum(u.get("input_tokens") or 0 for u in used) - read - write, "output_tokens": sum(u.get("output_tokens") or 0 for u in used),
              "cache_read_input_tokens": read, "cache_creation_input_tokens": write}
    return {"calls": kinds.count("tool_call"), "returns": kinds.count("tool_return"), "texts": kinds.count("assistant_message"),
            "errors": sum(1 for a in thread.actions if a.action_type == "tool_return" and a.status in ("error", "validation_error")),
            "prompts": sum(1 for kind, author, _ in authors if kind == "user_message" and author == "human"),
            "interrupts": sum(1 for _, _, harness in authors if harness == "interrupt"),
            "harness": sum(1 for _, author, _ in authors if author == "harness"),
            "agent_prompts": sum(1 for kind, author, _ in authors if kind == "user_message" and author == "agent"), "usage": totals}


# --- every file ---------------------------------------------------------------------------


@pytest.mark.parametrize("path", SESSIONS, ids=lambda p: str(p.relative_to(REAL)))
def test_real_file_reads_with_what_its_json_holds(path: Path) -> None:
    assert detect_format(Source(path)).NAME == "claude-code"
    assert file_counts(path) == raw_counts(path)
    for thread in tl.read_all(path, strict=False):
        # a line whose time is no time is converted (it takes the time before it) and named by a problem
        unread = [p for p in thread.problems if p.rule in ("json", "schema", "truncated", "unknown-type") and "is no time; the line takes" not in p.message]
        assert thread.account is not None and thread.account.unconverted == len(unread)


@pytest.mark.parametrize("path", SESSIONS, ids=lambda p: str(p.relative_to(REAL)))
def test_real_file_written_back_reads_the_same(path: Path) -> None:
    threads = tl.read_all(path, strict=False)
    if len(threads) > 1:  # a file of several sessions: each is written alone, and says so (more in tests/test_corpus_classes.py)
        for thread in threads:
            with pytest.warns(WriteLoss, match="other 2 session"):
                get_format("claude-code").from_thread(thread)
        return
    (thread,) = threads
    wire = get_format("claude-code").from_thread(thread)
    (again,) = tl.read_all(Source(wire, name=str(path)), strict=False)
    assert again.to_dict() == thread.to_dict()


@pytest.mark.parametrize("path", [p for p in SESSIONS if session_files(p) == [p] and p.suffix == ".jsonl"], ids=lambda p: str(p.relative_to(REAL)))
def test_real_file_written_back_gives_its_lines(path: Path) -> None:
    """A session without subagent files comes back as the lines it was read from (whitespace-only
    text lines, lines without ids and all)."""
    written = []
    for thread in tl.read_all(path, strict=False):  # the sessions of a file of several, together
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", WriteLoss)
            wire = get_format("claude-code").from_thread(thread)
        written += [orjson.dumps(orjson.loads(line), option=orjson.OPT_SORT_KEYS) for line in wire.splitlines()]
    canonical = [orjson.dumps(item, option=orjson.OPT_SORT_KEYS) for item in raw_items(path)]
    assert sorted(written) == sorted(canonical)


@pytest.mark.parametrize("path", SESSIONS, ids=lambda p: str(p.relative_to(REAL)))
def test_frames_count_prompts_harness_turns_interrupts_and_tokens_as_the_raw_lines_do(path: Path) -> None:
    """The threads frame (the frames route, ``to_documents``) says what the raw counter says: the
    prompts a person typed, the turns Claude Code wrote in the user's role, the interrupts, and
    the tokens with one final snapshot per API message."""
    raw = raw_counts(path)
    threads = tl.load(path, progress=False, workers=1).threads
    columns = ["n_human_prompts", "n_harness_turns", "n_interrupts", "input_tokens", "output_tokens", "cache_read_tokens", "cache_write_tokens"]
    row = threads[columns].fillna(0).sum().to_dict()  # a file of several sessions: its threads together
    assert (row["n_human_prompts"], row["n_harness_turns"], row["n_interrupts"]) == (raw["prompts"], raw["harness"], raw["interrupts"])
    usage = raw["usage"]
    fresh = usage["input_tokens"] + usage["cache_read_input_tokens"] + usage["cache_creation_input_tokens"]
    tokens = (row["input_tokens"], row["output_tokens"], row["cache_read_tokens"], row["cache_write_tokens"])
    assert tuple(0 if v is None or v != v else int(v) for v in tokens) == (fresh, usage["output_tokens"], usage["cache_read_input_tokens"],
                                                                           usage["cache_creation_input_tokens"])


@pytest.mark.parametrize("path", SESSIONS, ids=lambda p: str(p.relative_to(REAL)))
def test_input_and_cache_tokens_agree_with_ccusage_output_tokens_are_final(path: Path) -> None:
    """ccusage and threadlab count each API message once and agree on input and cache tokens;
    ccusage keeps a message's first streaming snapshot, threadlab its final one, so output tokens
    differ exactly where a message's output grew over its lines."""
    items = [item for f in session_files(path) for item in raw_items(f)]
    ours, theirs = final_usage(items), ccusage_usage(items)
    assert {k: v for k, v in ours.items() if k != "output_tokens"} == {k: v for k, v in theirs.items() if k != "output_tokens"}
    assert ours["output_tokens"] >= theirs["output_tokens"]
    assert file_counts(path)["usage"] == ours


def test_the_folder_of_every_variant_loads_one_thread_per_session() -> None:
    frames = tl.load(REAL, progress=False)
    frames.threads = frames.threads[~frames.threads["source"].isin({str(p) for p in LISTED})]
    walked = [f.path for f in fixtures(origins=("real",)) if f.format == "claude-code" and f.path not in LISTED]  # sessions, as a walk finds them
    # one thread a session (its id may be the session_id inside); Agent Sessions' parser fixture
    # holds three session ids (ses_stage0_small, stage0-session, "[trimmed for fixture]")
    sessions = {REAL / "agent-sessions-small" / "small.jsonl": 3}
    assert sorted(frames.threads["source"]) == sorted(str(p) for p in walked for _ in range(sessions.get(p, 1)))
    assert set(frames.threads["format"]) == {"claude-code"}
    assert int(frames.threads["n_records"].sum()) == sum(len(raw_items(f)) + sum(max(len(blocks(i)), 1) - 1 for i in raw_items(f))
                                                          for p in walked for f in session_files(p))


# --- what each variant gives --------------------------------------------------------------


def read(folder: str, name: str) -> Thread:
    return tl.read(REAL / folder / name, strict=False)


def test_pre_2_1_agent_file_beside_the_session_is_its_subagent() -> None:
    """Before 2.1 a subagent's transcript is ``agent-<id>.jsonl`` beside the session, with no
    sidecar: it is an agent of that session, linked to the Task call whose result names it,
    and no problem says a sidecar is missing."""
    thread = read("cli-2.0.46-agent-files-beside-the-session", "88a8d761-7b9a-4bf1-a8ca-c1febe6bf358.jsonl")
    sub = thread.agents["e1c84ba5"]
    assert sub.metadata is not None and sub.metadata["parent_tool_call_id"] == "toolu_01JA2mLseQCAW3MdwPE4qWEk"
    assert sub.agent_name == "general-purpose: Research data-border-color usage and CSS class mat..."
    join = next(a for a in thread.actions if a.action_type == "system.agent_join")
    assert join.data == {"agent_id": "e1c84ba5", "invited_by": "main", "tool_call_id": "toolu_01JA2mLseQCAW3MdwPE4qWEk",
                         "agent_type": "general-purpose", "description": "Research data-border-color usage and CSS class mat..."}
    assert "subagent-meta" not in {p.rule for p in thread.problems}
    assert {a.metadata.get("parent_tool_call_id") for a in thread.actions if getattr(a, "agent_id", None) == "e1c84ba5"} == {"toolu_01JA2mLseQCAW3MdwPE4qWEk"}
    assert len(tl.read_all(REAL / "cli-2.0.46-agent-files-beside-the-session", strict=False)) == 1  # the agent file is no session of its own


def test_2_1_subagents_folder_without_sidecar_is_linked_without_a_problem() -> None:
    thread = read("cli-2.1.17-subagents-without-sidecar", "29ccd257-68b1-427f-ae5f-6524b7cb6f20.jsonl")
    sub = thread.agents["a2271d1"]
    assert sub.metadata is not None and (sub.metadata["parent_tool_call_id"], sub.metadata["agent_type"]) == ("toolu_01SXaWzD5YZ73zGwchbcxeWi", "Explore")
    assert sub.metadata["model_name"] == "claude-haiku-4-5-20251001" and thread.agents["main"].metadata == {"model_name": "claude-opus-4-5-20251101"}
    assert thread.problems == []
    pending = [p.call.tool_name for p in tool_pairs(thread) if p.ret is None and p.call is not None]
    assert pending == ["Bash", "Read", "Read"]  # the trimmed subagent file ends before their results


def test_2_1_sidecars_name_and_link_parallel_subagents() -> None:
    thread = read("cli-2.1.173-subagents-with-sidecars", "55550000-0000-4000-8000-000000000001.jsonl")
    names = {k: (a.agent_name, (a.metadata or {}).get("parent_tool_call_id")) for k, a in thread.agents.items() if k != "main"}
    assert names == {"showcol1": ("general-purpose: Survey the web module", "toolu_sc_showcol1"),
                     "showcol2": ("general-purpose: Survey the jobs module", "toolu_sc_showcol2")}
    assert thread.agents["showcol1"].metadata["claude_meta"] == {"agentType": "general-purpose", "description": "Survey the web module", "toolUseId": "toolu_sc_showcol1"}
    assert thread.problems == []


def test_inline_sidechain_lines_become_subagents() -> None:
    """Sidechain lines in the session file: by their ``agentId``; lines without one by the root
    of their chain."""
    thread = read("cli-2.0.46-sidechains-inline", "sidechain_integrated.jsonl")
    by_agent = {a.agent_id: a.content for a in thread.actions if a.action_type == "assistant_message"}
    assert by_agent == {"sidechain-b674eedd": "I'll research how `data-border-color` is used thro...",
                        "main": "Excellent research! The sub-assistant has identifi..."}
    assert set(thread.agents) == {"main", "sidechain-b674eedd", "e1c84ba5"}


def test_claude_ai_web_export() -> None:
    thread = read("claude-ai-web-loglines", "sample_session.json")
    assert thread.thread_id == "sample_session" and thread.title == "Create a simple Python function to add two numbers"
    thinking = next(a for a in thread.actions if a.action_type == "thinking")
    assert thinking.content is not None and thinking.content.startswith("The user wants a simple addition function") and thinking.signature is None
    assert [a.action_type for a in thread.actions].count("system.compact_summary") == 1
    assert thread.problems == [] and "claude" in (thread.metadata or {})


def test_lines_without_the_session_envelope() -> None:
    thread = read("jsonl-without-envelope", "sample_session.jsonl")
    assert thread.thread_id == "sample_session" and thread.title == "Test session for JSONL parsing"
    assert [p.status for p in tool_pairs(thread)] == ["success", "success"] and thread.problems == []


def test_broken_lines_of_a_1_0_file_are_kept_and_named() -> None:
    thread = read("cli-1.0-claude-code-log", "edge_cases.jsonl")
    kept = sorted((p.rule, p.line) for p in thread.problems if p.rule in ("schema", "unknown-type"))
    assert kept == [("schema", 13), ("schema", 15), ("schema", 16), ("unknown-type", 10), ("unknown-type", 11), ("unknown-type", 14), ("unknown-type", 18)]
    assert thread.account is not None and (thread.account.kept, thread.account.failed) == (7, 0)
    no_message = [p.message for p in thread.problems if p.line in (10, 11)]
    assert any("message has no content" in m for m in no_message) and any("has no message object" in m for m in no_message)
    unparsed = [a.data for a in thread.actions if a.action_type == "system.unparsed_line"]
    assert unparsed == [{"type": "bad-line", "value": "massive error"}, {"type": "bad-line", "value": 42}, {"type": "bad-line", "value": [1]}]


def test_rewind_branches_and_compaction_keep_their_order() -> None:
    thread = read("cli-2.1.0-rewind-and-compaction", "dag_compact_after_rewind.jsonl")
    texts = [a.content if isinstance(a.content, str) else a.content[0].text for a in thread.actions if a.action_type in ("user_message", "assistant_message")]
    assert texts == ["Start", "Ready", "First attempt", "First answer", "Second attempt", "Second answer", "Keep going", "Kept going",
                     "After compaction", "Final answer"]
    boundary = next(a for a in thread.actions if a.action_type == "system.compact_boundary")
    assert boundary.data["logicalParentUuid"] == "b2a2" and boundary.data["compactMetadata"] == {"trigger": "auto", "preTokens": 150000}


# --- who wrote what, whitespace, ids, streamed usage (Claude Code 2.1.x and earlier) ---------


def _who(thread: Thread) -> list[tuple[str, str | None, str | None, str]]:
    """(kind, author, harness kind, text) of every action written in the user's role or recording a turn."""
    out = []
    for a in thread.actions:
        author = author_of(a.action_type, a.metadata)
        if a.action_type == "user_message" or (author in ("harness", "human") and a.action_type.startswith("system.")):
            content = getattr(a, "content", None) if a.action_type == "user_message" else getattr(a, "data", None)
            content = content.get("content") if isinstance(content, dict) and "content" in content else content
            text = content if isinstance(content, str) else orjson.dumps(content, default=lambda p: p.model_dump()).decode()
            out.append((a.action_type, author, harness_kind_of(a.metadata), text[:40]))
    return out


def test_an_interrupt_after_rejected_tool_calls_and_a_local_command() -> None:
    """2.1.38: the person rejects two tool calls, Claude Code writes the interrupt marker beside
    nothing else, then ``/model`` runs as ``system/local_command`` lines (the command, its output)."""
    thread = read("cli-2.1.38-interrupt-and-local-command", "short.jsonl")
    assert _who(thread) == [
        ("user_message", "human", None, "mix phx.server doesnt seem to start"),
        ("user_message", "harness", "interrupt", '[{"type":"text","text":"[Request interru'),
        ("system.local_command", "human", None, "<command-name>/model</command-name>\n    "),
        ("system.local_command", "harness", "command_output", "<local-command-stdout>Kept model as \x1b[1m"),
    ]
    assert [p.status for p in tool_pairs(thread)] == ["error", "error"]


def test_whitespace_text_blocks_are_no_messages_and_are_written_back() -> None:
    """The ``"\\n\\n"`` text block Claude Code streams before a message's thinking or tool call is
    its own line: no assistant message, the line kept on the next action, the message's usage on
    its first real text."""
    path = REAL / "cli-2.1.38-interrupt-and-local-command" / "short.jsonl"
    thread = tl.read(path, strict=False)
    blank = [i for i in raw_items(path) if any(isinstance(b, dict) and b.get("type") == "text" and not b["text"].strip() for b in blocks(i))]
    assert len(blank) == 1
    texts = [a.content for a in thread.actions if a.action_type == "assistant_message"]
    assert texts == ["Let me check the project structure and try running the server to see the error."]
    carrier = next(a for a in thread.actions if a.action_type == "thinking")
    assert carrier.metadata["claude"]["stream_events"] == [blank[0]]
    (used,) = [a for a in thread.actions if getattr(a, "usage", None) is not None]
    assert used.action_type == "assistant_message" and used.usage.output_tokens == 13


def test_a_message_streamed_over_lines_counts_its_final_output_tokens() -> None:
    """One API message over two lines whose ``output_tokens`` grow (25, then 173): threadlab counts
    173 once; ccusage's first-snapshot rule would count 25 (its issues #901 and #938)."""
    path = REAL / "cli-2.1.38-mcp-command-and-interrupts" / "tool_heavy.jsonl"
    lines = [i for i in raw_items(path) if i.get("type") == "assistant" and i["message"].get("id") == "msg_019BN3FRqb7NU4DgBN5jdsym"]
    assert [i["message"]["usage"]["output_tokens"] for i in lines] == [25, 173] and ccusage_usage(lines)["output_tokens"] == 25
    thread = tl.read(path, strict=False)
    (used,) = [a for a in thread.actions if getattr(a, "usage", None) is not None and a.metadata["claude"]["message"]["id"] == "msg_019BN3FRqb7NU4DgBN5jdsym"]
    usage = used.usage if isinstance(used.usage, dict) else used.usage.model_dump()
    assert (usage["output_tokens"], usage["input_tokens"], usage["cache_read_tokens"]) == (173, 47 + 26504 + 1115, 26504)


def test_interrupts_commands_and_their_output() -> None:
    """2.1.38: ``/mcp`` written the older way (a caveat, the command and its output as user lines)
    and, later in the same session, the 2.1 way (``system/local_command`` lines); two interrupts."""
    thread = read("cli-2.1.38-mcp-command-and-interrupts", "tool_heavy.jsonl")
    who = [(kind, author, harness) for kind, author, harness, _ in _who(thread)]
    assert who == [("user_message", "human", None), ("user_message", "harness", "interrupt"), ("system.meta_message", "harness", "meta"),
                   ("system.command", "human", None), ("system.command_output", "harness", "command_output"), ("system.local_command", "human", None),
                   ("system.local_command", "harness", "command_output"), ("user_message", "human", None), ("user_message", "harness", "interrupt")]


def test_a_skill_command_its_body_and_the_stop_hook() -> None:
    """A plugin's slash command (the person's), the skill body Claude Code sends with it
    (``isMeta``), an interrupt, and the Stop hooks' summary line."""
    thread = read("cli-2.1.38-skill-command-and-stop-hook", "subagent.jsonl")
    who = [(kind, author, harness) for kind, author, harness, _ in _who(thread)]
    assert who == [("system.command", "human", None), ("system.meta_message", "harness", "meta"), ("user_message", "harness", "interrupt"),
                   ("user_message", "human", None), ("system.stop_hook_summary", "harness", "hook")]


def test_compaction_its_command_and_the_compaction_agent() -> None:
    """2.1.39 ``/compact``: the summary, the caveat, the command and its output are Claude Code's
    or the person's, not prompts; the compaction agent's prompt is the harness's (its file has
    no sidecar and starts in the session's chain, as Claude Code writes it)."""
    thread = read("cli-2.1.39-compaction-with-command-output", "ae4a77f8-aedd-4bc1-888f-c94edc91af04.jsonl")
    who = [(kind, author, harness) for kind, author, harness, _ in _who(thread)]
    assert who == [("user_message", "human", None), ("user_message", "harness", "task_prompt"), ("system.compact_summary", "harness", "compaction_summary"),
                   ("system.meta_message", "harness", "meta"), ("system.command", "human", None), ("system.command_output", "harness", "command_output"),
                   ("user_message", "human", None)]


def test_interrupt_of_a_1_0_session() -> None:
    thread = read("cli-1.0.17-interrupt-and-streamed-usage", "fed8ce56-bc79-401f-a83e-af084253362f.jsonl")
    assert [(author, harness) for _, author, harness, _ in _who(thread)] == [("human", None), ("harness", "interrupt"), ("human", None)]


def test_a_session_begun_by_a_slash_command_has_no_typed_prompt() -> None:
    """1.0.98: ``/orchestrator create TODO app`` and the command body Claude Code expands it to
    (``isMeta``): the person's command, the harness's body, no user prompt row."""
    thread = read("cli-1.0.98-slash-command-with-meta-body", "1af7fc5e-8455-4414-9ccd-011d40f70b2a.jsonl")
    assert [(kind, author, harness) for kind, author, harness, _ in _who(thread)] == [("system.command", "human", None), ("system.meta_message", "harness", "meta")]


def test_tool_use_without_id_and_tool_result_without_tool_use_id() -> None:
    """A file trimmed of its ids: the ``tool_use`` is a tool call with an id made from its line's
    uuid and place, the ``tool_result`` answers it (the one open call), each with a
    ``missing-id`` problem; written back, neither has an id again."""
    path = REAL / "cli-2.1.80-ids-trimmed" / "large.jsonl"
    thread = tl.read(path, strict=False)
    (pair,) = tool_pairs(thread)
    assert pair.call is not None and pair.ret is not None and (pair.call.tool_call_id, pair.call.tool_name, pair.status) == ("threadlab:a1:2", "bash", "success")
    assert [(p.rule, p.line) for p in thread.problems] == [("missing-id", 2), ("missing-id", 3)]
    assert "system.unknown_block" not in {a.action_type for a in thread.actions}
    wire = get_format("claude-code").from_thread(thread)
    written = [orjson.loads(line) for line in wire.splitlines()]
    assert [b for line in written for b in blocks(line) if b.get("type") in ("tool_use", "tool_result")] == [
        {"type": "tool_use", "name": "bash", "input": {"command": "printf 'line1\\nline2\\nline3\\n'"}}, {"type": "tool_result", "content": "ok"}]
