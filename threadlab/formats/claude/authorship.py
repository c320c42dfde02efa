"""Who wrote each Claude Code record (``core/authors.py``'s convention): the person, Claude Code
itself, or another agent, though all of it is written in the user's role.

Claude Code writes much in the user's role that no person typed. Each record stays what the
converter makes of it (nothing is dropped or turned into another kind); its action gets
``metadata.author`` (and ``metadata.harness``, what the harness wrote) where that differs from
the kind's default. Record → action: author (harness kind):

- a prompt the person typed → ``user_message``: human (the default);
- ``[Request interrupted by user]`` / ``[Request interrupted by user for tool use]``, as the
  content or as the text blocks beside the line's tool results → ``user_message``: harness
  (``interrupt``); ``threads.n_interrupts`` counts each once;
- a message of ``<system-reminder>`` blocks only → ``user_message``: harness (``system_reminder``);
  one stream-json marks ``isSynthetic`` (its dialect of ``isMeta``) → harness (by its text, else
  ``meta``);
- hook feedback (``Stop hook feedback: ...``, ``PreToolUse:Bash hook blocking error ...``, bare or
  in a reminder) → ``user_message`` or, ``isMeta``, ``system.meta_message``: harness (``hook``);
- a subagent's prompt (its launching call's ``prompt``) → ``user_message``: agent; the
  compaction agent's (``agent-acompact-*``) and a sidechain ``Warmup`` → harness (``task_prompt``);
- other ``isMeta`` lines (command caveats, skill bodies, reminders) → ``system.meta_message``:
  harness (``meta``, ``system_reminder``);
- ``isCompactSummary`` → ``system.compact_summary``: harness (``compaction_summary``);
- ``<command-name>`` / ``<command-message>`` (a slash command the person ran) →
  ``system.command``: human; ``<local-command-stdout>`` / ``-stderr`` → ``system.command_output``:
  harness (``command_output``); 2.1's ``system/local_command`` lines the same by their content;
- ``<task-notification>`` → ``system.task_notification``: harness (``task_notification``);
- ``system/stop_hook_summary`` (the Stop hooks that ran) → harness (``hook``);
- ``attachment`` lines (2.1.1xx on): ``hook_*`` → harness (``hook``); ``queued_command`` (a
  prompt typed while the agent worked) → human, agent when its ``origin.kind`` is ``peer``,
  harness (``task_notification``) in ``task-notification`` mode; any other (files, reminders,
  listings, ...) → harness (``attachment``).

Other ``system`` lines (``turn_duration``, ``compact_boundary``, ``api_error`` ...), ``progress``
lines (hook progress included: they record that something runs, not what was sent) and the
bookkeeping entries keep the ``system`` default. A slash command is the person's but no
``user_message``, so ``threads.n_human_prompts`` does not count it. Each author is derived from
the line again when the thread is read back, so the writer needs nothing to round-trip it."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from threadlab.core.authors import AUTHOR_KEY, harness_metadata

INTERRUPT_MARKERS = frozenset({"[Request interrupted by user]", "[Request interrupted by user for tool use]"})
_HOOK_TEXT = re.compile(r"\s*(?:<system-reminder>\s*)?[A-Za-z]+(?::\S*)? hook (?:additional context|blocking error|feedback|success|error)\b")
_REMINDER = re.compile(r"\s*<system-reminder>.*</system-reminder>\s*", re.DOTALL)
_COMPACTION_AGENT = "acompact"
_HUMAN = {AUTHOR_KEY: "human"}
_AGENT = {AUTHOR_KEY: "agent"}


def _texts(content: Any) -> list[str] | None:
    """The texts of a user message's content (a string, or text blocks); None when some part is
    not text (an image, a document: what a person pastes)."""
    if isinstance(content, str):
        return [content]
    if not isinstance(content, list):
        return None
    texts = []
    for block in content:
        if not (isinstance(block, Mapping) and block.get("type") == "text" and isinstance(block.get("text"), str)):
            return None
        texts.append(block["text"])
    return texts


def _harness_text(texts: list[str]) -> dict[str, str] | None:
    if texts and all(t.strip() in INTERRUPT_MARKERS for t in texts):
        return harness_metadata("interrupt")
    whole = "".join(texts)
    if _HOOK_TEXT.match(whole):
        return harness_metadata("hook")
    if texts and all(_REMINDER.fullmatch(t) for t in texts):
        return harness_metadata("system_reminder")
    return None


def prompt_author(content: Any, agent: str, main: str, synthetic: bool = False) -> dict[str, str] | None:
    """Who wrote a user message the converter keeps as a ``user_message`` (None: the person);
    ``synthetic``: the line says Claude Code made it (stream-json's ``isSynthetic``)."""
    texts = _texts(content)
    found = _harness_text(texts) if texts is not None else None
    if found is None and synthetic:
        found = harness_metadata("meta")
    if found is not None or agent == main:
        return found
    if agent.startswith(_COMPACTION_AGENT) or (texts is not None and "".join(texts).strip() == "Warmup"):
        return harness_metadata("task_prompt")
    return _AGENT


def wrapped_author(name: str, content: Any) -> dict[str, str]:
    """Who wrote a user line Claude Code marks or wraps (``user.system_name``'s ``system.*`` names)."""
    if name == "command":
        return _HUMAN
    if name == "meta_message":
        texts = _texts(content) or []
        found = _harness_text(texts)
        return found if found is not None and found["harness"] != "interrupt" else harness_metadata("meta")
    kind = {"compact_summary": "compaction_summary", "command_output": "command_output", "task_notification": "task_notification"}.get(name, "meta")
    return harness_metadata(kind)


def attachment_author(attachment: Any) -> dict[str, str]:
    """Who wrote an ``attachment`` line: hook output, a prompt queued while the agent worked, or
    context the harness attached."""
    kind = attachment.get("type") if isinstance(attachment, Mapping) else None
    if isinstance(kind, str) and kind.startswith("hook_"):
        return harness_metadata("hook")
    if kind == "queued_command":
        origin = attachment.get("origin")
        origin_kind = origin.get("kind") if isinstance(origin, Mapping) else None
        if attachment.get("commandMode") == "task-notification":
            return harness_metadata("task_notification")
        return _AGENT if origin_kind == "peer" else _HUMAN
    return harness_metadata("attachment")


def system_line_author(subtype: Any, raw: Mapping[str, Any]) -> dict[str, str] | None:
    """Who wrote a ``system`` line that records a turn (None: Claude Code's own bookkeeping)."""
    if subtype == "stop_hook_summary":
        return harness_metadata("hook")
    if subtype == "local_command":
        content = raw.get("content")
        text = content.lstrip() if isinstance(content, str) else ""
        if text.startswith(("<command-name>", "<command-message>")):
            return _HUMAN
        return harness_metadata("command_output")
    return None
