"""agency-swarm 1.x / OpenAI Agents SDK: the flat saved message list → one multi-agent thread.

agency-swarm keeps one flat list of Responses-API input items per chat, each tagged with
``agent``, ``callerAgent``, a microsecond ``timestamp`` stamped when the item was *persisted*,
``agent_run_id`` and, for sub-agent items, ``parent_run_id`` = the ``call_id`` of the caller's
``send_message`` call. The list is in persistence order: a sub-agent's items are saved before the
caller's ``send_message`` call that started them. Reading re-nests every sub-agent block right
after that call, so the thread reads in causal order; timestamps that would then run backwards
(items stamped late at persist time) are pulled back to the next item's time, and the original
value stays in the action's metadata. The sub-agent joins right before its block
(``system.agent_join`` {agent_id, invited_by, tool_call_id}) and its actions carry
``metadata.parent_tool_call_id``, so who called whom is in the thread.

A plain OpenAI Agents SDK item list (``session.get_items()``, ``result.to_input_list()``, from the
Python or the JS SDK) reads the same way: its items name no agent, so they are the entry agent's
(``from_agency_swarm(items, agent=...)``) until a handoff's output (``{"assistant": "Billing"}``)
names the next one, which a ``system.handoff`` {from_agent_id, to_agent_id, tool_call_id} marks.
Hosted tool calls (web or file search, code interpreter, MCP ...) carry their result in the call
item: each gives a tool_call and its tool_return. Items of a type threadlab does not map are kept
as ``system.unknown_item`` with a problem; the account of every item is on ``thread.account``.

Every item's fields that have no ThreadProtocol home (``agent``, ``callerAgent``, run ids,
``id``, ``status``, the item's position in the saved list ...) are kept under
``metadata["agency_swarm"]``, so ``from_thread`` writes the saved list back exactly (the
joins and handoffs the reader made are not written; what a list cannot hold of a thread from
another format is named in a ``WriteLoss``).

The seed's thread-per-pair design is here too: ``pair_threads`` splits a chat into one thread
per communicating pair (``chat_id__A__B``, ``chat_id__A__USER``), ``merge_pair_threads`` puts
them back together, and ``ThreadStore`` / ``FileThreadStore`` persist them through the seed's
load/save callbacks (or straight from a running agency's ``save_threads_callback``)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import orjson

from threadlab.core.model import Thread
from threadlab.formats.agency_swarm import container
from threadlab.formats.agency_swarm.common import META, USER, items_of
from threadlab.formats.agency_swarm.order import causal_order
from threadlab.formats.agency_swarm.pairs import merge_pair_threads, pair_key, pair_threads
from threadlab.formats.agency_swarm.reading import from_agency_swarm
from threadlab.formats.agency_swarm.store import FileThreadStore, ThreadStore
from threadlab.formats.agency_swarm.usage import usage_fields
from threadlab.formats.agency_swarm.writing import to_agency_swarm
from threadlab.formats.source import Source

NAME = "agency-swarm"


def detect(source: Source) -> bool:
    """Claims agency-swarm's saved list (a JSON array of items tagged with ``agent`` and
    ``callerAgent``, the FastAPI body holding one, or those items one per JSON Lines line) and
    a plain OpenAI Agents SDK item list saved as a JSON array (``session.get_items()``,
    ``result.to_input_list()``: Responses-API input items, at least one of a kind only that API
    has). Cheap: the head must show an agency tag or a Responses item type before anything is
    parsed. JSON Lines of plain SDK items (a session log) are read when named, not claimed."""
    if source.is_dir:
        return False
    if source.is_object:
        return items_of(source.obj) is not None
    head = source.head(4096)
    tagged = b'"callerAgent"' in head and b'"agent"' in head
    if not tagged and not any(marker in head for marker in _SDK_MARKERS):
        return False
    if head.lstrip()[:1] == b"[" or not tagged:
        return items_of(source.try_json()) is not None
    obj = source.try_json()
    return items_of(obj) is not None if obj is not None else container.looks_like_lines(source)


# what the head of a plain Agents SDK item list shows (with or without a space after the colon)
_SDK_MARKERS = (
    *(
        f'"type":{space}"{kind}'.encode()
        for kind in ("function_call", "reasoning", "message", "item_reference", "web_search_call", "file_search_call")
        for space in ("", " ")
    ),
    b'"input_text"',
    b'"output_text"',
    b'_call_output"',
    b'"callId"',
)


def to_threads(source: Source) -> list[Thread]:
    saved = container.load(source)
    return [
        from_agency_swarm(
            saved.items,
            chat_id=container.chat_id_of(source),
            usage=saved.usage,
            source=source.name,
            lines=saved.lines,
            broken=saved.broken,
            body=saved.body,
        )
    ]


def from_thread(thread: Thread) -> bytes:
    """The saved list as JSON (what ``load_threads_callback`` returns); warns ``WriteLoss`` for
    what the list cannot hold."""
    items: Any = to_agency_swarm(thread)
    kept = (thread.metadata or {}).get(META)
    body = kept.get("body") if isinstance(kept, Mapping) else None
    if isinstance(body, Mapping) and isinstance(body.get("fields"), Mapping) and isinstance(body.get("items_key"), str):
        items = {**body["fields"], body["items_key"]: items}  # the FastAPI body it was read from
    return orjson.dumps(items, option=orjson.OPT_INDENT_2) + b"\n"


__all__ = [
    "META",
    "NAME",
    "USER",
    "FileThreadStore",
    "ThreadStore",
    "causal_order",
    "detect",
    "from_agency_swarm",
    "from_thread",
    "merge_pair_threads",
    "pair_key",
    "pair_threads",
    "to_agency_swarm",
    "to_threads",
    "usage_fields",
]
