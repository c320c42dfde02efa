"""Who wrote an action: the person, the harness around the agent, the agent, a tool, the converter.

ThreadProtocol says in which role a message was written (``user_message`` is the user's role), not
who wrote it. Coding agents and frameworks write in the user's role themselves: Claude Code's
``[Request interrupted by user]`` markers, hook feedback and compaction summaries, Codex's
``<environment_context>`` and AGENTS.md messages, system reminders and attachments. They are part of
what the model was sent, so they stay ``user_message`` actions (a perspective or a replay needs
them), but "how many prompts did I type" must not count them. So every action has an *author*:

``metadata.author`` (text), set by a reader only where it differs from the default of the action's
kind (``DEFAULT_AUTHOR``), one of ``AUTHORS``:

- ``human``: a person typed it (a prompt; a slash command the person ran);
- ``harness``: the program around the agent wrote it (CLI, IDE, framework, eval harness);
- ``agent``: a model wrote it (an assistant message, thinking, a tool call; a message one agent
  sends another in the user's role);
- ``tool``: a tool's output;
- ``system``: the converter's own bookkeeping (``system.*`` actions that record no turn).

``metadata.harness`` (text, snake_case) says what the harness wrote when the author is ``harness``
(``HARNESS_KINDS`` lists the ones readers write; a reader may write another, documented where it
does). ``interrupt`` is the one the frames count (``threads.n_interrupts``): a marker the harness
wrote because the person stopped the agent.

This module only reads those keys; ``frames`` turns them into the ``author`` and ``harness_kind``
columns and ``n_human_prompts`` / ``n_harness_turns`` / ``n_interrupts`` of the threads frame."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

AUTHOR_KEY: Final = "author"
HARNESS_KEY: Final = "harness"

AUTHORS: Final = ("human", "harness", "agent", "tool", "system")

DEFAULT_AUTHOR: Final[Mapping[str, str]] = {
    "user_message": "human",
    "assistant_message": "agent",
    "thinking": "agent",
    "tool_call": "agent",
    "tool_return": "tool",
}

# what a harness writes in the user's role, with the formats that write it (a reader may add one)
HARNESS_KINDS: Final[Mapping[str, str]] = {
    "interrupt": "a marker that the person stopped the agent (Claude Code's [Request interrupted by user], Codex's <turn_aborted>)",
    "hook": "a hook's output or feedback (Claude Code's Stop-hook and other hook messages)",
    "meta": "a message the harness marks as its own (Claude Code's isMeta lines: caveats, skill bodies)",
    "command": "a slash command's invocation as the harness records it (Claude Code's <command-name>)",
    "command_output": "a local command the person ran and its output (Claude Code's <local-command-stdout>, Codex's <user_shell_command>)",
    "compaction_summary": "the summary that replaces the conversation after compaction",
    "environment_context": "the working directory, shell, sandbox and the like (Codex's <environment_context>)",
    "user_instructions": "project instructions (AGENTS.md, CLAUDE.md) sent as a user message",
    "system_reminder": "a reminder the harness injects (<system-reminder>)",
    "attachment": "a file or context the harness attaches in the user's role",
    "task_notification": "a background task's notification (Claude Code's <task-notification>)",
    "task_prompt": "the prompt a harness sends a sub-agent or an eval sample on the person's behalf",
    "retry_feedback": "a framework's feedback on a response it could not use (pydantic-ai's retry prompts)",
    "copied_context": "a user turn the harness copied from an earlier trajectory to continue it (ATIF's is_copied_context: Terminus 2's hand-over after summarizing)",
}

INTERRUPT: Final = "interrupt"


def author_of(action_type: Any, metadata: Any) -> str | None:
    """The author of an action of this kind with this metadata: ``metadata.author`` when it is one
    of ``AUTHORS``, else the kind's default (``system`` for ``system.*``; None for an action whose
    kind is not text or not known)."""
    if type(metadata) is dict or isinstance(metadata, Mapping):
        own = metadata.get(AUTHOR_KEY)
        if type(own) is str and own in AUTHORS:
            return own
    if type(action_type) is not str:
        return None
    default = DEFAULT_AUTHOR.get(action_type)
    if default is not None:
        return default
    return "system" if action_type.startswith("system.") else None


def harness_kind_of(metadata: Any) -> str | None:
    """What the harness wrote (``metadata.harness``) when the action's author is ``harness``."""
    if type(metadata) is dict or isinstance(metadata, Mapping):
        if metadata.get(AUTHOR_KEY) == "harness":
            kind = metadata.get(HARNESS_KEY)
            return kind if type(kind) is str else None
    return None


def harness_metadata(kind: str) -> dict[str, str]:
    """The metadata keys a reader sets on an action the harness wrote (merge into its metadata)."""
    return {AUTHOR_KEY: "harness", HARNESS_KEY: kind}
