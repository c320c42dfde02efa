"""The coding agents' own files: Claude Code transcripts, Codex rollouts, ``codex exec --json``.

Claude Code (a transcript line is ``{type, message, isMeta?, isCompactSummary?, ...}``; the
message is an Anthropic Messages message; Claude Code writes its own lines in the user's role:
``isMeta`` lines, ``isCompactSummary`` summaries, the ``[Request interrupted by user...]`` marker,
``<local-command-stdout>`` / ``<task-notification>`` / ``<system-reminder>`` wrappers, and a
slash command as ``<command-name>``). Codex (``codex-rs/protocol``: a rollout line is
``{timestamp, type, payload}``; ``response_item`` payloads are Responses API items; Codex sends
``<environment_context>``, ``<user_instructions>`` / ``# AGENTS.md instructions`` and
``<turn_aborted>`` as user messages; ``event_msg`` ``token_count`` carries
``total_token_usage``). ``codex exec --json`` (``codex-rs/exec/src/exec_events.rs``: thread,
turn and item events)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.wild.count import Counts, blank, starts_with, texts_of, whole_or_lines

# --- Claude Code ----------------------------------------------------------------------------

CLAUDE_HARNESS_WRAPPERS = ("<local-command-stdout>", "<local-command-stderr>", "<local-command-caveat>", "<task-notification>",
                           "<system-reminder>", "<user-prompt-submit-hook>", "[Request interrupted by user")
CLAUDE_COMMAND_WRAPPERS = ("<command-name>", "<command-message>")
CLAUDE_CALLS = ("tool_use", "server_tool_use", "mcp_tool_use")


def claude_items(path: Path) -> list[Any]:
    """Every entry of a file (a JSON array's items, or JSON Lines with a marker for a line that is
    no JSON), a claude.ai export's ``loglines`` unwrapped."""
    items = whole_or_lines(path)
    if len(items) == 1 and isinstance(items[0], dict) and isinstance(items[0].get("loglines"), list):
        return items[0]["loglines"]
    return items


def claude_session_files(path: Path) -> list[Path]:
    """The session and its subagents: ``<id>/subagents/**/agent-*.jsonl`` and, before 2.1,
    ``agent-*.jsonl`` beside it whose first line names the session."""
    files = [path, *sorted((path.parent / path.stem / "subagents").rglob("agent-*.jsonl"))]
    for other in sorted(path.parent.glob("agent-*.jsonl")):
        first = next(iter(claude_items(other)), None)
        if other != path and isinstance(first, dict) and first.get("sessionId") == path.stem:
            files.append(other)
    return files


def claude_blocks(item: Any) -> list[Any]:
    message = item.get("message") if isinstance(item, dict) else None
    content = message.get("content") if isinstance(message, dict) else None
    return content if isinstance(content, list) else []


def claude_usage(items: list[Any]) -> dict[str, dict[str, Any]]:
    """Per API message id, its final usage: the line with a ``stop_reason`` (Claude Code writes a
    line per content block while the message streams), else the last one."""
    usage: dict[str, dict[str, Any]] = {}
    final: set[str] = set()
    for item in items:
        message = item.get("message") if isinstance(item, dict) and item.get("type") == "assistant" else None
        if not isinstance(message, dict) or not isinstance(message.get("id"), str) or not isinstance(message.get("usage"), dict):
            continue
        if message["id"] not in final:
            usage[message["id"]] = message["usage"]
        if message.get("stop_reason"):
            final.add(message["id"])
    return usage


def _claude_user(item: dict[str, Any], c: Counts) -> None:
    message = item.get("message")
    content = message.get("content") if isinstance(message, dict) else None
    rest = content
    if isinstance(content, list):
        for b in content:
            if isinstance(b, dict) and b.get("type") == "tool_result":
                c.tool_returns = (c.tool_returns or 0) + 1
                c.tool_errors = (c.tool_errors or 0) + (b.get("is_error") is True)
        rest = [b for b in content if not (isinstance(b, dict) and b.get("type") == "tool_result")]
        if not rest:
            return
    text = "".join(texts_of(rest))
    if item.get("isMeta") or item.get("isCompactSummary") or starts_with(text, CLAUDE_HARNESS_WRAPPERS):
        c.harness_turns = (c.harness_turns or 0) + 1
    elif not starts_with(text, CLAUDE_COMMAND_WRAPPERS) and (content is not None or (isinstance(message, dict) and "content" in message)):
        c.human_prompts = (c.human_prompts or 0) + 1


def claude_code(path: Path) -> Counts:
    files = claude_session_files(path) if path.suffix == ".jsonl" else [path]
    items = [i for f in files for i in claude_items(f)]
    c = Counts()
    for item in items:
        if not isinstance(item, dict):
            continue
        if item.get("type") == "user":
            _claude_user(item, c)
        elif item.get("type") == "assistant":
            message = item.get("message")
            if isinstance(message, dict) and isinstance(message.get("content"), str):  # stream-json of early SDKs
                c.assistant_texts += not blank(message["content"])
            for b in claude_blocks(item):
                if not isinstance(b, dict):
                    continue
                kind = b.get("type")
                c.assistant_texts += kind == "text" and not blank(b.get("text"))
                c.tool_calls += kind in CLAUDE_CALLS
                c.tool_returns += kind != "tool_result" and isinstance(b.get("tool_use_id"), str)  # server tools' results
    for u in claude_usage(items).values():
        read, write = u.get("cache_read_input_tokens") or 0, u.get("cache_creation_input_tokens") or 0
        c.add_tokens((u.get("input_tokens") or 0) + read + write, u.get("output_tokens"), read, write)
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
RESPONSES_CALLS = (*CODEX_CALLS, "shell_call", "apply_patch_call", "computer_call", *RESPONSES_HOSTED)
RESPONSES_RETURNS = (*CODEX_RETURNS, "shell_call_output", "apply_patch_call_output", "computer_call_output")


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
