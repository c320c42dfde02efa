"""Counts taken from raw Codex rollouts with orjson and the standard library only (no threadlab
code): who wrote each user message, interrupts, calls, returns, errors, assistant texts, each
turn's tokens and Codex's own running total. One counter for Codex: ``tests/test_codex_rollouts.py``
and the wild corpus (``tests/wild/rules_agents.py``) both hold threadlab to it.

The rules are Codex's own, written again from codex-rs (``codex-rs/protocol``,
``codex-rs/core``), not from threadlab's reader:

- A rollout line is ``{timestamp, type, payload}``; a ``response_item`` payload is a Responses
  API item (``ResponseItem``). The first generation (spring 2025) wrote a header line without a
  payload and then the items themselves, one a line.
- Who wrote a user message. Where Codex gives each content part its provenance
  (``internal_chat_message_metadata_passthrough.content_item_metadata[].provenance.type``, late
  2026 releases), a part of type ``user`` makes the message the person's, and any other
  (``harness``, ``skills``, ``tool`` ...) Codex's. Else a message one of whose text parts is a
  *contextual fragment* is Codex's: ``contextual_user_message.rs`` judges a part by its text,
  leading whitespace left out, starting with the fragment's opening marker and, trailing
  whitespace left out, ending with its closing one, ASCII case ignored (``CONTEXTUAL_USER_FRAGMENTS``:
  AGENTS.md, ``<environment_context>``, ``<skill>``, ``<user_shell_command>``,
  ``<turn_aborted>``, ``<subagent_notification>``; ``<hook_prompt …>`` in ``protocol/items.rs``;
  ``<user_instructions>`` in older releases' ``is_session_prefix``; ``<user_action>`` in
  ``templates/review``), or that opens with the compaction prompt or summary prefix
  (``templates/compact``). A message with neither is typed, unless the rollout repeats typed
  prompts as UI events (``event_msg`` ``user_message`` of kind ``plain`` or none, from late 2025;
  ``item_completed`` of a ``UserMessage`` later): Codex writes one for each prompt a person
  typed and for nothing else, so the person typed as many messages as there are such events.
- Every ``compacted`` line is a harness turn (the summary Codex wrote in place of the history).
- An interrupt is one ``<turn_aborted>`` message, or, where the release wrote none, one
  ``turn_aborted`` event of reason ``interrupted``: counted once, and as a harness turn.
- Calls and returns are the protocol's tool items (a ``web_search_call`` is its own result when
  completed); a return is an error where Codex's output says the command's exit code was not 0
  (``format_exec_output_for_model``: the JSON ``{"output", "metadata": {"exit_code"}}`` of
  ``shell``, the ``Exit code: N`` header of the freeform one, ``Process exited with code N`` of
  unified exec, before its ``Output:`` line).
- Tokens: each ``token_count`` event's ``last_token_usage`` is a turn's (an event repeating the
  previous total adds nothing); ``total_token_usage`` is Codex's running total, which counts
  what a resumed, forked, trimmed or compacted session holds no turn for. A total that drops
  below the one before started again from zero (autumn 2025 releases on resuming), so Codex's
  total for the file is the last total of each stretch, added. ``input_tokens`` includes
  ``cached_input_tokens``, ``output_tokens`` ``reasoning_output_tokens``."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import orjson

from tests.conformance.records import _whole_or_lines as whole_or_lines

TOKENS = ("input_tokens", "cached_input_tokens", "output_tokens", "reasoning_output_tokens", "total_tokens")
CALLS = ("function_call", "custom_tool_call", "local_shell_call", "web_search_call", "tool_search_call", "image_generation_call")
RETURNS = ("function_call_output", "custom_tool_call_output", "local_shell_call_output", "tool_search_output")
HOSTED = ("web_search_call", "image_generation_call")  # the call item carries its result

ABORTED = ("<turn_aborted>", "</turn_aborted>")  # the person interrupted the turn before
# (opening marker, closing marker): contextual_user_message.rs, protocol/items.rs (hook prompts),
# the review template (<user_action>), older releases' session prefix (<user_instructions>) and
# the contextual fragments of late 2026 (skills instructions, goal context, internal context)
FRAGMENTS = (
    ("# AGENTS.md instructions for ", "</INSTRUCTIONS>"),
    ("<environment_context>", "</environment_context>"),
    ("<user_instructions>", "</user_instructions>"),
    ("<skills_instructions>", "</skills_instructions>"),
    ("<skill>", "</skill>"),
    ("<recommended_plugins>", "</recommended_plugins>"),
    ("<user_shell_command>", "</user_shell_command>"),
    ("<user_action>", "</user_action>"),
    ABORTED,
    ("<subagent_notification>", "</subagent_notification>"),
    ("<hook_prompt", "</hook_prompt>"),
    ("<goal_context>", "</goal_context>"),
    ("<codex_internal_context", "</codex_internal_context>"),
)
# templates/compact: the prompt Codex sends for /compact, the prefix of the summary it keeps
COMPACTION = ("You are performing a CONTEXT CHECKPOINT COMPACTION.",
              "Another language model started to solve this problem and produced a summary of its thinking process.")
_EXIT = re.compile(r"^(?:Exit code:|Process exited with code) (-?\d+)$", re.M)


def lines(path: Path) -> list[dict[str, Any]]:
    return [x for x in whole_or_lines(path) if isinstance(x, dict)]


def event(line: dict[str, Any], kind: str) -> bool:
    return line.get("type") == "event_msg" and isinstance(line.get("payload"), dict) and line["payload"].get("type") == kind


def items(rollout: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The Responses items: ``response_item`` payloads, or the first generation's item lines."""
    if rollout and "payload" not in rollout[0]:
        return [x for x in rollout[1:] if "type" in x or "role" in x]
    return [x["payload"] for x in rollout if x.get("type") == "response_item" and isinstance(x.get("payload"), dict)]


def kind_of(item: dict[str, Any]) -> Any:
    return item.get("type", "message" if "role" in item else None)


def texts(item: dict[str, Any]) -> list[str]:
    content = item.get("content")
    if isinstance(content, str):
        return [content]
    return [p["text"] for p in content or [] if isinstance(p, dict) and isinstance(p.get("text"), str)] if isinstance(content, list) else []


def fragment(text: str, start: str, end: str) -> bool:
    """A text part is this fragment as codex-rs matches it."""
    head = text.lstrip()
    return head[: len(start)].lower() == start.lower() and head.rstrip().lower().endswith(end.lower())


def contextual(text: str) -> bool:
    """Whether Codex wrote this text part itself."""
    return any(fragment(text, start, end) for start, end in FRAGMENTS) or text.lstrip().startswith(COMPACTION)


def provenance(item: dict[str, Any]) -> list[str]:
    meta = item.get("internal_chat_message_metadata_passthrough")
    parts = meta.get("content_item_metadata") if isinstance(meta, dict) else None
    found = [p["provenance"].get("type") for p in parts or [] if isinstance(p, dict) and isinstance(p.get("provenance"), dict)] if isinstance(parts, list) else []
    return [k for k in found if isinstance(k, str)]


def typed(item: dict[str, Any]) -> bool | None:
    """True: the person's; False: Codex's; None: no mark either way (the prompt events decide)."""
    kinds = provenance(item)
    if kinds:
        return "user" in kinds
    return False if any(contextual(t) for t in texts(item)) else None


def failed(output: Any) -> bool:
    """Whether a call's output says its command exited with a code other than 0."""
    if not isinstance(output, str):
        return False
    if output.startswith('{"output"'):
        try:
            meta = orjson.loads(output).get("metadata")
        except (orjson.JSONDecodeError, AttributeError):
            return False
        code = meta.get("exit_code") if isinstance(meta, dict) else None
        return isinstance(code, int) and code != 0
    head, has_output, _ = output[:400].partition("\nOutput:")
    found = _EXIT.search(head) if has_output else None
    return bool(found) and int(found.group(1)) != 0


def _prompt_events(rollout: list[dict[str, Any]]) -> int:
    plain = sum(1 for x in rollout if event(x, "user_message") and x["payload"].get("kind") in (None, "plain"))
    completed = sum(1 for x in rollout if event(x, "item_completed") and (x["payload"].get("item") or {}).get("type") == "UserMessage")
    return plain or completed


def running_total(totals: list[dict[str, Any]]) -> dict[str, int] | None:
    """Codex's total from its running totals in order: the last of each stretch, added (a total
    below the one before started again from zero); None without any."""
    stretches: list[dict[str, int]] = []
    running: dict[str, int] | None = None
    for given in totals:
        total = {k: given.get(k) or 0 for k in TOKENS}
        if running is not None and any(total[k] < running[k] for k in TOKENS):
            stretches.append(running)
        running = total
    return {k: sum(s[k] for s in [*stretches, running]) for k in TOKENS} if running else None


def _tokens(rollout: list[dict[str, Any]]) -> tuple[list[tuple[int, ...]], dict[str, int] | None]:
    """Each turn's figures (TOKENS order) and Codex's total."""
    turns, totals = [], []
    for x in rollout:
        info = x["payload"].get("info") if event(x, "token_count") else None
        if not isinstance(info, dict) or not isinstance(info.get("total_token_usage"), dict) or (totals and info["total_token_usage"] == totals[-1]):
            continue
        totals.append(info["total_token_usage"])
        if isinstance(info.get("last_token_usage"), dict):
            turns.append(tuple(info["last_token_usage"].get(k) or 0 for k in TOKENS))
    return turns, running_total(totals)


def raw_counts(path: Path) -> dict[str, Any]:
    """Everything the tests compare: ``human``, ``harness``, ``interrupts``, ``tool_calls``,
    ``tool_returns``, ``tool_errors``, ``texts`` (assistant messages with text), ``turns``
    (each turn's TOKENS), ``producer`` (Codex's total, TOKENS; None without usage) and
    ``differs`` (Codex's total is not the turns' sum in some figure)."""
    rollout = lines(path)
    found = items(rollout)
    users = [typed(i) for i in found if kind_of(i) == "message" and i.get("role") == "user"]
    marked, unmarked = users.count(True), users.count(None)
    events = _prompt_events(rollout)
    human = min(max(events, marked), marked + unmarked) if events else marked + unmarked
    markers = sum(1 for i in found if kind_of(i) == "message" and i.get("role") == "user" and any(fragment(t, *ABORTED) for t in texts(i)))
    interrupted = sum(1 for x in rollout if event(x, "turn_aborted") and x["payload"].get("reason") == "interrupted")
    calls = [i for i in found if kind_of(i) in CALLS]
    hosted = [i for i in calls if kind_of(i) in HOSTED and i.get("status") == "completed"]
    outputs = [i for i in found if kind_of(i) in RETURNS]
    turns, producer = _tokens(rollout)
    return {
        "human": human,
        "harness": len(users) - human + sum(1 for x in rollout if x.get("type") == "compacted") + max(interrupted - markers, 0),
        "interrupts": max(interrupted, markers),
        "tool_calls": len(calls),
        "tool_returns": len(outputs) + len(hosted),
        "tool_errors": sum(1 for i in outputs if failed(i.get("output"))) + sum(1 for i in hosted if i.get("error") not in (None, "")),
        "texts": sum(1 for i in found if kind_of(i) == "message" and i.get("role") == "assistant" and "".join(texts(i)).strip()),
        "turns": turns,
        "producer": producer,
        "differs": producer is not None and any(producer[k] != sum(t[i] for t in turns) for i, k in enumerate(TOKENS)),
    }


__all__ = ["ABORTED", "CALLS", "RETURNS", "TOKENS", "contextual", "event", "failed", "fragment", "items", "lines", "raw_counts", "running_total", "typed"]
