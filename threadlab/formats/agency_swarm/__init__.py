"""agency-swarm 1.x / OpenAI Agents SDK: the flat saved message list → one multi-agent thread.

agency-swarm keeps one flat list of Responses-API input items per chat, each tagged with
``agent``, ``callerAgent``, a microsecond ``timestamp`` stamped when the item was *persisted*,
``agent_run_id`` and, for sub-agent items, ``parent_run_id`` = the ``call_id`` of the caller's
``send_message`` call. The list is in persistence order: a sub-agent's items are saved before the
caller's ``send_message`` call that started them. Reading re-nests every sub-agent block right
after that call, so the thread reads in causal order; timestamps that would then run backwards
(items stamped late at persist time) are pulled back to the next item's time, and the original
value stays in the action's metadata.

Every item's fields that have no ThreadProtocol home (``agent``, ``callerAgent``, run ids,
``id``, ``status``, the item's position in the saved list ...) are kept under
``metadata["agency_swarm"]``, so ``from_thread`` writes the saved list back exactly.

The seed's thread-per-pair design is here too: ``pair_threads`` splits a chat into one thread
per communicating pair (``chat_id__A__B``, ``chat_id__A__USER``), ``merge_pair_threads`` puts
them back together, and ``ThreadStore`` / ``FileThreadStore`` persist them through the seed's
load/save callbacks (or straight from a running agency's ``save_threads_callback``)."""

from __future__ import annotations

from collections.abc import Mapping

import orjson

from threadlab.core.model import Thread
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
    """Cheap: a file must show ``"callerAgent"`` in its first 4 KiB before it is parsed; then
    its first items must carry agent and callerAgent (no other format has that key)."""
    if source.is_dir:
        return False
    if source.is_object:
        return items_of(source.obj) is not None
    head = source.head(4096)
    if b'"callerAgent"' not in head or b'"agent"' not in head:
        return False
    return items_of(source.try_json()) is not None


def to_threads(source: Source) -> list[Thread]:
    obj = source.obj
    items = items_of(obj)
    if items is None:
        raise source.error("format", "is not an agency-swarm saved message list (items with agent/callerAgent)")
    usage = obj.get("usage") if isinstance(obj, Mapping) else None
    chat_id = source.path.stem if source.path is not None else None
    return [from_agency_swarm(items, chat_id=chat_id, usage=usage, source=source.name)]


def from_thread(thread: Thread) -> bytes:
    return orjson.dumps(to_agency_swarm(thread), option=orjson.OPT_INDENT_2) + b"\n"


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
