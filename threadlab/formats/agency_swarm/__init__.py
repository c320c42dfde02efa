"""agency-swarm 1.x: the flat saved message list → one multi-agent thread.

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

Each item is a Responses-API input item read through the mapping every Responses reader shares
(``common/responses/items.py``), with the Agents SDK's meaning (``common/responses/agents_sdk.py``: a
``transfer_to_*`` handoff's output naming the next agent becomes a ``system.handoff``
{from_agent_id, to_agent_id, tool_call_id}; hosted tool calls, web or file search, code
interpreter, MCP ..., carry their result in the call item and give a tool_call and its
tool_return). The same items without agency-swarm's tags (``session.get_items()``,
``result.to_input_list()``) are ``openai-agents-session``'s. Items of a type threadlab does not
map are kept as ``system.unknown_item`` with a problem; the account of every item is on
``thread.account``.

Every item's agency-swarm tags (``agent``, ``callerAgent``, ``timestamp``, ``agent_run_id``,
``parent_run_id`` ...) and its position in the saved list are kept under
``metadata["agency_swarm"]``, with the memo of what the shared mapping's default rule would not
give back of the Responses item itself (``id``, ``status``, content part fields ...), so
``from_thread`` writes the saved list back exactly (the joins and handoffs the reader made are not written; what a list cannot
hold of a thread from another format is named in a ``WriteLoss``).

The seed's thread-per-pair design is here too: ``pair_threads`` splits a chat into one thread
per communicating pair (``chat_id__A__B``, ``chat_id__A__USER``), ``merge_pair_threads`` puts
them back together, and ``ThreadStore`` / ``FileThreadStore`` persist them through the seed's
load/save callbacks (or straight from a running agency's ``save_threads_callback``)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import orjson

from threadlab.core.finite import refuses_non_finite
from threadlab.core.loss import nothing_to_write
from threadlab.core.model import Thread
from threadlab.formats.agency_swarm import container
from threadlab.formats.agency_swarm.common import META, USER, items_of
from threadlab.formats.agency_swarm.order import causal_order
from threadlab.formats.agency_swarm.pairs import merge_pair_threads, pair_key, pair_threads
from threadlab.formats.agency_swarm.reading import from_agency_swarm
from threadlab.formats.agency_swarm.store import FileThreadStore, ThreadStore
from threadlab.formats.agency_swarm.usage import usage_fields
from threadlab.formats.agency_swarm.writing import to_agency_swarm
from threadlab.formats.common.source import Source

NAME = "agency-swarm"


def detect(source: Source) -> bool:
    """Claims agency-swarm's saved list: a JSON array whose first items are tagged with
    ``agent`` and ``callerAgent``, the FastAPI body holding one (``new_messages`` /
    ``chat_history``), or such items one per JSON Lines line. Cheap: the head must show both tags
    before anything is parsed."""
    if source.is_dir:
        return False
    if source.is_object:
        return items_of(source.obj) is not None
    head = source.head(4096)
    if b'"callerAgent"' not in head or b'"agent"' not in head:
        return False
    obj = source.try_json()
    return items_of(obj) is not None if obj is not None else container.looks_like_lines(source)


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


@refuses_non_finite
def from_thread(thread: Thread) -> bytes:
    """The saved list as JSON (what ``load_threads_callback`` returns); warns ``WriteLoss`` for
    what the list cannot hold."""
    items: Any = to_agency_swarm(thread)
    if not items:
        raise nothing_to_write(NAME, thread)
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
