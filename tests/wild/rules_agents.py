"""The coding agents' own files: Claude Code transcripts, Codex rollouts, ``codex exec --json``.

Claude Code: ``tests/claude_raw.py`` (one counter for the Claude Code tests and the corpus; it
says who wrote each line, from Claude Code's own markers). Codex (``codex-rs/protocol``: a rollout line is
``{timestamp, type, payload}``; ``response_item`` payloads are Responses API items; Codex sends
``<environment_context>``, ``<user_instructions>`` / ``# AGENTS.md instructions`` and
``<turn_aborted>`` as user messages; ``event_msg`` ``token_count`` carries
``total_token_usage``). ``codex exec --json`` (``codex-rs/exec/src/exec_events.rs``: thread,
turn and item events)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests import claude_raw
from tests.wild.count import Counts, blank, starts_with, texts_of, whole_or_lines

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


# --- Codex rollouts -------------------------------------------------------------------------

CODEX_HARNESS = ("<environment_context>", "<user_instructions>", "# AGENTS.md instructions", "<turn_aborted>")
CODEX_CALLS = ("function_call", "custom_tool_call", "local_shell_call", "web_search_call", "tool_search_call")
CODEX_RETURNS = ("function_call_output", "custom_tool_call_output", "local_shell_call_output", "tool_search_output")


def codex_item(line: Any) -> Any:
    """A line's Responses item: the payload of a ``response_item`` line, or (first generation,
    2025 spring) the line itself."""
    if not isinstance(line, dict):
        return None
    if line.get("type") == "response_item":
        return line.get("payload")
    return line if "payload" not in line and line.get("type") in ("message", *CODEX_CALLS, *CODEX_RETURNS, "reasoning") else None


def responses_item(item: Any, c: Counts, *, harness: tuple[str, ...] = ()) -> None:
    """One Responses API item (a message by role, a call or a call's output)."""
    if not isinstance(item, dict):
        return
    kind = item.get("type", "message" if "role" in item else None)
    if kind == "message":
        text = "".join(texts_of(item.get("content")))
        if item.get("role") == "user" and not blank(text):
            if harness and starts_with(text, harness):
                c.harness_turns = (c.harness_turns or 0) + 1
            else:
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
RESPONSES_CALLS = (*CODEX_CALLS, "shell_call", "apply_patch_call", "computer_call", "program", *RESPONSES_HOSTED)
RESPONSES_RETURNS = (*CODEX_RETURNS, "shell_call_output", "apply_patch_call_output", "computer_call_output", "program_output")


def codex(path: Path) -> Counts:
    c = Counts()
    total = None
    for line in whole_or_lines(path):
        responses_item(codex_item(line), c, harness=CODEX_HARNESS)
        payload = line.get("payload") if isinstance(line, dict) and line.get("type") == "event_msg" else None
        if isinstance(payload, dict) and payload.get("type") == "token_count" and isinstance(payload.get("info"), dict):
            total = payload["info"].get("total_token_usage") or total
    if isinstance(total, dict):
        c.add_tokens(total.get("input_tokens"), total.get("output_tokens"), total.get("cached_input_tokens"))
    return c


# --- codex exec --json ----------------------------------------------------------------------

EXEC_TOOLS = ("command_execution", "mcp_tool_call", "web_search", "file_change", "collab_tool_call")


def codex_exec(path: Path) -> Counts:
    """Items are the ``item`` of ``item.completed`` events (an ``item.started`` without its
    completion is a call without a return); tokens are the sum of ``turn.completed`` usages."""
    c = Counts(human_prompts=None, harness_turns=None)
    started: set[Any] = set()
    for event in whole_or_lines(path):
        if not isinstance(event, dict) or not isinstance(event.get("item"), dict):
            if isinstance(event, dict) and event.get("type") == "turn.completed" and isinstance(event.get("usage"), dict):
                u = event["usage"]
                c.add_tokens(u.get("input_tokens"), u.get("output_tokens"), u.get("cached_input_tokens"))
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
    return c
