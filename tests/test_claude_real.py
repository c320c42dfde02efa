"""Claude Code files other projects committed (tests/fixtures/real/claude, see its README):
every file reads with auto-detection, and its tool calls, tool returns, prompts and usage are
what the raw JSON says, counted here with plain orjson and no threadlab code."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

import threadlab as tl
from tests.conformance.fixtures import fixtures
from tests.wild.expected import EXPECTED
from tests.wild.rules_agents import claude_blocks as blocks
from tests.wild.rules_agents import claude_items as raw_items
from tests.wild.rules_agents import claude_session_files as session_files
from tests.wild.rules_agents import claude_usage
from threadlab.core import Thread, tool_pairs
from threadlab.formats import Source, detect_format, get_format

REAL = Path(__file__).parent / "fixtures" / "real" / "claude"
# a file whose counts disagree today is checked (and its disagreement listed) by tests/wild
LISTED = {REAL.parent / name for name in EXPECTED if name.startswith("claude/")}
SESSIONS = sorted(p for p in REAL.rglob("*.json*") if "subagents" not in p.parts and not p.name.startswith("agent-") and not p.name.endswith(".meta.json")
                  and p not in LISTED)
_WRAPPERS = ("<command-name>", "<command-message>", "<local-command-stdout>", "<local-command-stderr>", "<task-notification>")


# --- counts from the raw files ------------------------------------------------------------


def is_prompt(item: Any) -> bool:
    """A line a person typed: a user line with content other than tool results, not one Claude
    Code writes itself (meta lines, compaction summaries, command and notification wrappers)."""
    if not isinstance(item, dict) or item.get("type") != "user" or item.get("isMeta") or item.get("isCompactSummary"):
        return False
    message = item.get("message")
    content = message.get("content") if isinstance(message, dict) else None
    if isinstance(content, str):
        text = content
    elif isinstance(content, list):
        rest = [b for b in content if not (isinstance(b, dict) and b.get("type") == "tool_result")]
        if not rest:
            return False
        text = "".join(b.get("text", "") for b in rest if isinstance(b, dict) and isinstance(b.get("text"), str))
    else:
        return isinstance(message, dict) and "content" in message  # content null: an empty prompt
    return not text.lstrip().startswith(_WRAPPERS)


def raw_counts(path: Path) -> dict[str, Any]:
    items = [item for f in session_files(path) for item in raw_items(f)]
    calls = [b for i in items for b in blocks(i) if isinstance(b, dict) and b.get("type") in ("tool_use", "server_tool_use") and isinstance(b.get("id"), str)]
    returns = [b for i in items for b in blocks(i) if isinstance(b, dict) and isinstance(b.get("tool_use_id"), str)]
    usage = claude_usage(items)  # per API message: the final usage (the line with a stop_reason), else the last one
    keys = ("input_tokens", "output_tokens", "cache_read_input_tokens", "cache_creation_input_tokens")
    totals = {k: sum(u.get(k) or 0 for u in usage.values()) for k in keys}
    return {"calls": len(calls), "returns": len(returns), "prompts": sum(map(is_prompt, items)), "usage": totals}


def thread_counts(thread: Thread) -> dict[str, Any]:
    kinds = [a.action_type for a in thread.actions]
    # usage is a field of messages and thinking, and rides on a tool call that opens a response without text
    used = [u if isinstance(u, dict) else u.model_dump() for u in (getattr(a, "usage", None) for a in thread.actions) if u is not None]
    read = sum(u.get("cache_read_tokens") or 0 for u in used)
    write = sum(u.get("cache_write_tokens") or 0 for u in used)
    totals = {"input_tokens": sum(u.get("input_tokens") or 0 for u in used) - read - write, "output_tokens": sum(u.get("output_tokens") or 0 for u in used),
              "cache_read_input_tokens": read, "cache_creation_input_tokens": write}
    return {"calls": kinds.count("tool_call"), "returns": kinds.count("tool_return"), "prompts": kinds.count("user_message"), "usage": totals}


# --- every file ---------------------------------------------------------------------------


@pytest.mark.parametrize("path", SESSIONS, ids=lambda p: str(p.relative_to(REAL)))
def test_real_file_reads_with_what_its_json_holds(path: Path) -> None:
    assert detect_format(Source(path)).NAME == "claude-code"
    (thread,) = tl.read_all(path, strict=False)
    assert thread_counts(thread) == raw_counts(path)
    assert thread.account is not None and thread.account.unconverted == sum(1 for p in thread.problems if p.rule in ("json", "schema", "truncated", "unknown-type"))


@pytest.mark.parametrize("path", SESSIONS, ids=lambda p: str(p.relative_to(REAL)))
def test_real_file_written_back_reads_the_same(path: Path) -> None:
    (thread,) = tl.read_all(path, strict=False)
    wire = get_format("claude-code").from_thread(thread)
    (again,) = tl.read_all(Source(wire, name=str(path)), strict=False)
    assert again.to_dict() == thread.to_dict()


def test_the_folder_of_every_variant_loads_one_thread_per_session() -> None:
    frames = tl.load(REAL, progress=False)
    frames.threads = frames.threads[~frames.threads["source"].isin({str(p) for p in LISTED})]
    walked = [f.path for f in fixtures(origins=("real",)) if f.format == "claude-code" and f.path not in LISTED]  # sessions, as a walk finds them
    assert sorted(frames.threads["source"]) == sorted(str(p) for p in walked)  # one thread a session (its id may be the session_id inside)
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
