"""Who wrote a Codex rollout's user-role messages: the person, or Codex itself.

Codex sends the model, in the user's role, text nobody typed: the environment (working folder,
shell, sandbox), AGENTS.md, skills, a person's ``!command`` and its output, the marker that the
person interrupted the previous turn, sub-agent notifications, hook prompts, a review's result,
compaction prompts and summaries. It marks each with a tag of its own and never counts them as
the person's turns: ``codex-rs/core/src/contextual_user_message.rs`` (``CONTEXTUAL_USER_FRAGMENTS``:
``AGENTS_MD_FRAGMENT``, ``ENVIRONMENT_CONTEXT_FRAGMENT``, ``SKILL_FRAGMENT``,
``USER_SHELL_COMMAND_FRAGMENT``, ``TURN_ABORTED_FRAGMENT``, ``SUBAGENT_NOTIFICATION_FRAGMENT``,
hook prompts), older releases' ``event_mapping.rs`` ``is_session_prefix`` (``<environment_context>``,
``<user_instructions>``), ``templates/review/*.xml`` (``<user_action>``) and
``templates/compact/*.md``. A fragment matches as Codex matches it: the text, leading
whitespace left out, starts with the opening marker (ASCII case ignored) and, trailing
whitespace left out, ends with the closing one.

``harness_kind`` gives the ``metadata.harness`` kind (``core/authors.py``) of a message's content,
None for text a person typed. Kinds, by tag:

- ``environment_context``: ``<environment_context>``;
- ``user_instructions``: ``<user_instructions>`` (AGENTS.md before late 2025),
  ``# AGENTS.md instructions for <dir>`` … ``</INSTRUCTIONS>``, ``<skills_instructions>``;
- ``attachment``: ``<skill>`` (a SKILL.md the person named), ``<recommended_plugins>``,
  ``<external_…>`` (context a client or hook adds);
- ``command_output``: ``<user_shell_command>`` — a command the person ran with ``!``: Codex
  writes it with its exit code and output for the model to see; the person typed the command,
  not the message, and it is no prompt to the agent, so it is not counted as one — and
  ``<user_action>`` (a ``/review``'s result);
- ``interrupt``: ``<turn_aborted>`` (the person stopped the previous turn; only its start is
  matched, as Codex does);
- ``task_notification``: ``<subagent_notification>``;
- ``hook``: ``<hook_prompt hook_run_id=…>``;
- ``system_reminder``: ``<goal_context>``, ``<codex_internal_context source=…>`` and the warnings
  Codex once wrote as user messages;
- ``task_prompt``: the compaction prompt Codex sends on the person's behalf (``/compact``);
- ``compaction_summary``: a message opening with the prefix Codex puts before a compaction's
  summary."""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Final

from threadlab.core.authors import AUTHOR_KEY, INTERRUPT, harness_metadata
from threadlab.core.model import BaseAction

# (opening marker, closing marker or None for "the start alone", kind)
_FRAGMENTS: Final = (
    ("<environment_context>", "</environment_context>", "environment_context"),
    ("<user_instructions>", "</user_instructions>", "user_instructions"),
    ("# AGENTS.md instructions", "</INSTRUCTIONS>", "user_instructions"),
    ("<skills_instructions>", "</skills_instructions>", "user_instructions"),
    ("<skill>", "</skill>", "attachment"),
    ("<recommended_plugins>", "</recommended_plugins>", "attachment"),
    ("<user_shell_command>", "</user_shell_command>", "command_output"),
    ("<user_action>", "</user_action>", "command_output"),
    ("<turn_aborted>", None, "interrupt"),
    ("<subagent_notification>", "</subagent_notification>", "task_notification"),
    ("<hook_prompt", "</hook_prompt>", "hook"),
    ("<goal_context>", "</goal_context>", "system_reminder"),
    ("<codex_internal_context", "</codex_internal_context>", "system_reminder"),
)
_STARTS: Final = (
    ("You are performing a CONTEXT CHECKPOINT COMPACTION.", "task_prompt"),
    ("You have exceeded the maximum number of tokens, please stop coding and instead write a short memento", "task_prompt"),
    ("Another language model started to solve this problem and produced a summary of its thinking process.", "compaction_summary"),
    ("Warning: The maximum number of unified exec processes you can keep open is", "system_reminder"),
    ("Warning: Your account was flagged for potentially high-risk cyber activity", "system_reminder"),
)


def _matches(text: str, start: str, end: str | None) -> bool:
    head = text.lstrip()
    if head[: len(start)].lower() != start.lower():
        return False
    return end is None or head.rstrip()[-len(end) :].lower() == end.lower()


def text_kind(text: str) -> str | None:
    """The kind of one text part Codex wrote itself, None for a person's text."""
    for start, end, kind in _FRAGMENTS:
        if _matches(text, start, end):
            return kind
    head = text.lstrip()
    if head.startswith("<external_") and head.rstrip().endswith(">") and "</external_" in head:
        return "attachment"
    for start, kind in _STARTS:
        if head.startswith(start):
            return kind
    return None


def texts(content: Any) -> list[str]:
    """The text parts of a message's content (ThreadProtocol content: a string or parts)."""
    if isinstance(content, str):
        return [content]
    if isinstance(content, list):
        found = (p.get("text") if isinstance(p, Mapping) else getattr(p, "text", None) for p in content)
        return [t for t in found if isinstance(t, str)]
    return []


def harness_kind(content: Any) -> str | None:
    """What Codex wrote, when a text part of the message is one of its fragments (as Codex
    judges a message: any part makes it contextual); None for a message a person typed."""
    for text in texts(content):
        kind = text_kind(text)
        if kind is not None:
            return kind
    return None


def prompt_text(content: Any) -> str:
    """A message's text as Codex's ``user_message`` event repeats it, for pairing the two."""
    return "\n".join(texts(content)).strip()


def mark(action: BaseAction, kind: str | None) -> None:
    """Set ``metadata.author = "harness"`` (and ``metadata.harness = kind`` when known)."""
    meta = dict(getattr(action, "metadata", None) or {})  # (an InvalidAction may have none)
    meta.update(harness_metadata(kind) if kind is not None else {AUTHOR_KEY: "harness"})
    action.metadata = meta


@dataclass
class Authorship:
    """Decides, once the whole rollout is read, who wrote each user message and which action
    records each interrupt.

    Tagged messages are Codex's (``harness_kind``). A message without a tag is the person's,
    except in a rollout where Codex repeats every typed prompt as a UI event (``event_msg``
    ``user_message`` from late 2025, ``item_completed`` of a ``UserMessage`` in later releases)
    and no event repeats it: then it is Codex's too, of a kind the text no longer shows (a
    rollout whose texts were redacted or altered): ``metadata.author = "harness"`` without
    ``metadata.harness``. An event is paired with the message whose text it repeats, else
    (texts redacted differently) with the nearest unpaired message before it, as Codex writes
    the message and then its event. Events of a ``kind`` other than ``plain`` (the
    ``user_instructions`` / ``environment_context`` events of autumn 2025 releases) repeat
    injected context, not a prompt.

    An interrupt is counted once: by the ``<turn_aborted>`` message when Codex wrote one (from
    about 0.4x on, just before its ``turn_aborted`` event), else by the ``turn_aborted`` event
    whose reason is ``interrupted`` (``system.turn_aborted``, marked ``harness`` /
    ``interrupt``). A turn aborted because another task replaced it is no interrupt."""

    messages: list[tuple[BaseAction, str, bool]] = field(default_factory=list)  # untagged user messages: text, known to be typed
    events: dict[str, list[tuple[int, str]]] = field(default_factory=dict)  # source -> (sequence, text)
    interrupts: list[tuple[int, BaseAction | None]] = field(default_factory=list)  # (sequence, event action or None for a marker)

    def user_message(self, action: BaseAction, provenance: list[str] | None = None) -> None:
        """One user message; ``provenance``: the ``content_item_metadata`` provenance types late
        2026 releases give each part (``user``, ``harness``, ``agents_md`` ...), which decide
        when present: a part the person wrote makes the message theirs."""
        content = getattr(action, "content", None)
        kind = harness_kind(content)
        if provenance:
            if "user" in provenance:
                self.messages.append((action, prompt_text(content), True))
                return
        elif kind is None:
            self.messages.append((action, prompt_text(content), False))
            return
        mark(action, kind)
        if kind == INTERRUPT:
            self.interrupts.append((action.sequence, None))

    def prompt_event(self, action: BaseAction, source: str, text: Any) -> None:
        self.events.setdefault(source, []).append((action.sequence, text.strip() if isinstance(text, str) else ""))

    def aborted(self, action: BaseAction) -> None:
        self.interrupts.append((action.sequence, action))

    def finish(self) -> list[BaseAction]:
        """Mark what Codex wrote; the messages left are the person's (in order)."""
        self._pair_interrupts()
        # the UI events of one generation only (a release writing both would pair twice)
        events = self.events.get("user_message") or self.events.get("item_completed") or []
        if not events:
            return [m[0] for m in self.messages]
        by_text: dict[str, list[int]] = {}  # messages no event has repeated yet, by text, in order
        for i, (_, text, _) in enumerate(self.messages):
            by_text.setdefault(text, []).append(i)
        taken: set[int] = set()
        unmatched = []
        for sequence, text in events:
            same = [i for i in by_text.get(text, ()) if i not in taken]
            if same:
                taken.add(self._nearest(same, sequence))
            else:
                unmatched.append(sequence)
        if unmatched:  # texts that differ (redacted alike): the nearest open message before, else after
            merged = sorted([(self.messages[i][0].sequence, i) for i in range(len(self.messages)) if i not in taken] + [(q, -1) for q in unmatched])
            before: list[int] = []
            waiting = 0
            for _, row in merged:
                if row < 0 and before:
                    taken.add(before.pop())
                elif row < 0:
                    waiting += 1
                elif waiting:
                    waiting -= 1
                    taken.add(row)
                else:
                    before.append(row)
        left = {i for i in range(len(self.messages)) if i not in taken and not self.messages[i][2]}
        for i in sorted(left):
            mark(self.messages[i][0], None)
        return [m[0] for i, m in enumerate(self.messages) if i not in left]

    def _nearest(self, rows: list[int], sequence: int) -> int:
        """Of these messages (in order), the last one before the event, else the first after it."""
        before = bisect_left([self.messages[i][0].sequence for i in rows], sequence)
        return rows[before - 1] if before else rows[0]

    def _pair_interrupts(self) -> None:
        markers = 0
        unpaired: list[BaseAction] = []
        for _, event in sorted(self.interrupts, key=lambda x: x[0]):
            if event is None:
                if unpaired:
                    unpaired.pop(0)
                else:
                    markers += 1
            elif markers:
                markers -= 1
            else:
                unpaired.append(event)
        for event in unpaired:
            mark(event, INTERRUPT)


__all__ = ["Authorship", "harness_kind", "mark", "prompt_text", "text_kind", "texts"]
