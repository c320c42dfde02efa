"""The coding agents' own files: Claude Code transcripts, Codex rollouts, ``codex exec --json``.

Claude Code: ``tests/claude_raw.py`` (one counter for the Claude Code tests and the corpus; it
says who wrote each line, from Claude Code's own markers). Codex rollouts: ``tests/codex_raw.py``
(one counter for the Codex tests and the corpus, from codex-rs: its tags, provenance and prompt
events, its running total); the Responses items they hold are counted here for the logs of
other producers too. ``codex exec --json`` (``codex-rs/exec/src/exec_events.rs``: thread,
turn and item events)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests import claude_raw, codex_raw
from tests.wild.count import Counts, blank, texts_of, whole_or_lines

# --- Claude Code ----------------------------------------------------------------------------


def claude_code(path: Path) -> Counts:
    """``tests/claude_raw.py``'s counts (who wrote each turn, calls, returns, usage by one final
    snapshot per API message) in the corpus's terms: a harness turn includes an interrupt."""
    raw = claude_raw.raw_counts(path)
    c = Counts(human_prompts=raw["prompts"], harness_turns=raw["harness"], assistant_texts=raw["texts"], tool_calls=raw["calls"],
               tool_returns=raw["returns"], tool_errors=raw["errors"])
    u = raw["usage"]
    read, write = u["cache_read_input_tokens"], u["cache_creation_input_tokens"]
    c.add_tokens(u["input_tokens"] + read + write, u["output_tokens"], read, write)
    return c


# --- Responses items (the Agents SDK's sessions, agency-swarm) and Codex rollouts ------------


def responses_item(item: Any, c: Counts) -> None:
    """One Responses API item (a message by role, a call or a call's output)."""
    if not isinstance(item, dict):
        return
    kind = item.get("type", "message" if "role" in item else None)
    if kind == "message":
        text = "".join(texts_of(item.get("content")))
        if item.get("role") == "user" and not blank(text):
            c.human_prompts = (c.human_prompts or 0) + 1
        elif item.get("role") == "assistant" and not blank(text):
            c.assistant_texts = (c.assistant_texts or 0) + 1
    elif kind in RESPONSES_CALLS:
        c.tool_calls = (c.tool_calls or 0) + 1
        if kind in RESPONSES_HOSTED and item.get("status") == "completed":
            c.tool_returns = (c.tool_returns or 0) + 1
            c.tool_errors = (c.tool_errors or 0) + (item.get("error") not in (None, ""))
    elif kind in RESPONSES_RETURNS:
        c.tool_returns = (c.tool_returns or 0) + 1


RESPONSES_HOSTED = ("web_search_call", "file_search_call", "code_interpreter_call", "image_generation_call", "mcp_call")
# programmatic tool calling: a ``program`` item is the model's call, its ``program_output`` the result
RESPONSES_CALLS = (*codex_raw.CALLS, "shell_call", "apply_patch_call", "computer_call", "program", *RESPONSES_HOSTED)
RESPONSES_RETURNS = (*codex_raw.RETURNS, "shell_call_output", "apply_patch_call_output", "computer_call_output", "program_output")


def codex(path: Path) -> Counts:
    """``tests/codex_raw.py``'s counts (who wrote each user message by Codex's own tags,
    provenance and prompt events; interrupts counted once; Codex's running total, stretches
    added) in the corpus's terms: an interrupt is a harness turn; tokens are Codex's total, as
    the threads frame shows a producer's total where there is one."""
    raw = codex_raw.raw_counts(path)
    c = Counts(human_prompts=raw["human"], harness_turns=raw["harness"], assistant_texts=raw["texts"], tool_calls=raw["tool_calls"],
               tool_returns=raw["tool_returns"], tool_errors=raw["tool_errors"], usage_totals=int(raw["differs"]))
    if raw["producer"] is not None:
        total = raw["producer"]
        c.add_tokens(total["input_tokens"], total["output_tokens"], total["cached_input_tokens"])
    return c


# --- codex exec --json ----------------------------------------------------------------------

EXEC_TOOLS = ("command_execution", "mcp_tool_call", "web_search", "file_change", "collab_tool_call")


def codex_exec(path: Path) -> Counts:
    """Items are the ``item`` of ``item.completed`` events (an ``item.started`` without its
    completion is a call without a return); a ``turn.completed`` usage is Codex's running total
    for the session (``exec_events.rs``' writer fills it from the last ``token_count``'s
    ``total_token_usage``), so the tokens are that total as a rollout's are (``codex_raw``)."""
    c = Counts(human_prompts=None, harness_turns=None)
    started: set[Any] = set()
    totals = []
    for event in whole_or_lines(path):
        if not isinstance(event, dict) or not isinstance(event.get("item"), dict):
            if isinstance(event, dict) and event.get("type") == "turn.completed" and isinstance(event.get("usage"), dict):
                totals.append(event["usage"])
            continue
        item, kind = event["item"], event["item"].get("type") or event["item"].get("item_type")
        if event.get("type") == "item.started" and kind in EXEC_TOOLS:
            started.add(item.get("id"))
            c.tool_calls += 1
        elif event.get("type") == "item.completed":
            if kind in ("agent_message", "assistant_message") and not blank(item.get("text")):
                c.assistant_texts += 1
            elif kind in EXEC_TOOLS:
                c.tool_calls += item.get("id") not in started
                c.tool_returns += 1
                c.tool_errors += item.get("status") == "failed" or (isinstance(item.get("exit_code"), int) and item["exit_code"] != 0)
    total = codex_raw.running_total(totals)
    if total is not None:
        c.add_tokens(total["input_tokens"], total["output_tokens"], total["cached_input_tokens"])
    return c
