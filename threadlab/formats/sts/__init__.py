"""Hugging Face session traces: the Hub's Session Trace Simple Format (STS-Format,
huggingface/hub-docs ``docs/hub/session-traces-format.md``), read and written.

A JSON Lines file: a header ``{"type": "session", "harness", "id", "name"?, …}``, then one
``{"type": "message", "message": {role, content, reasoningContent?, toolCalls?, toolCallId?,
timestamp? (epoch ms), model?}}`` a line. A record is a line. ``reading`` says what each becomes;
``writing`` writes any thread, and what the format cannot hold (usage, agents, system events) is
named in a ``WriteLoss`` found by reading the written lines back."""

from __future__ import annotations

import orjson

from threadlab.core.finite import refuses_non_finite
from threadlab.core.loss import report_loss
from threadlab.core.model import Thread
from threadlab.formats.common.losses import thread_losses
from threadlab.formats.common.source import Source
from threadlab.formats.sts.reading import is_header, read_session
from threadlab.formats.sts.writing import to_sts_lines

NAME = "hf-session-trace"
REASONS = {
    "the usage": "a session trace keeps no token counts",
    "the timestamp": "a session trace keeps a time per message, in whole milliseconds",
    "metadata '": "a session trace has no place for another format's metadata",
    "thread metadata": "a session trace's header holds the harness, id and name",
    "the agent": "a session trace has one harness and no agent per message",
    "{n} agents'": "a session trace names one harness, no agents",
    "{n} system.": "a session trace holds messages only",
    "the status": "a tool message has no error status",
    "the provider name": "a session trace keeps no provider per reasoning",
    "the signature": "a session trace keeps no reasoning signature",
    "the finish reason": "a session trace keeps no finish reason",
    "the order of": "an assistant message holds its reasoning, text and calls in that order",
    "the content of": "a session trace's content is text",
    "{n} tool_return actions": "a tool message's content is text: other values are written as their JSON text",
    "{n} user_message actions": "a session trace's content is text: media parts are left out",
    "{n} assistant_message actions": "a session trace's content is text: media parts are left out",
}


def detect(source: Source) -> bool:
    """The first line is a session header (``type`` "session", ``harness``, ``id``) and the next,
    if any, a message whose ``content`` is text (Pi's session lines hold content blocks)."""
    if source.is_dir or source.is_object:
        return False
    lines = [line for line in source.head(8192).splitlines() if line.strip()][:2]
    if not lines or b'"session"' not in lines[0]:
        return False
    try:
        docs = [orjson.loads(line) for line in lines]
    except orjson.JSONDecodeError:
        docs = [orjson.loads(lines[0])] if _json(lines[0]) else []
    if not docs or not is_header(docs[0]):
        return False
    second = docs[1] if len(docs) > 1 else None
    return second is None or (isinstance(second, dict) and second.get("type") == "message" and isinstance(second.get("message"), dict)
                              and isinstance(second["message"].get("content"), str))


def _json(line: bytes) -> bool:
    try:
        orjson.loads(line)
    except orjson.JSONDecodeError:
        return False
    return True


def to_threads(source: Source) -> list[Thread]:
    return [read_session(source)]


@refuses_non_finite
def from_thread(thread: Thread) -> bytes:
    """The thread as session-trace JSON Lines; warns ``WriteLoss`` naming what it does not hold."""
    wire = b"".join(orjson.dumps(line) + b"\n" for line in to_sts_lines(thread))
    again = read_session(Source(wire, name=thread.origin[0] or f"{thread.thread_id}.jsonl"))
    report_loss(NAME, thread.thread_id, thread_losses(thread, again, REASONS))
    return wire


__all__ = ["NAME", "detect", "from_thread", "to_threads"]
