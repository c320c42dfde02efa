"""Giving a provider container back from a thread read from it (the inverse of
``providers.reading``), and what every replay of a foreign thread loses."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Mapping
from typing import Any

import orjson

from threadlab.core.model import BaseAction, Thread
from threadlab.formats.common.providers.history import request_indices
from threadlab.formats.common.providers.reading import RIDERS
from threadlab.formats.common.providers.replay import unmatched_returns
from threadlab.formats.common.providers.sse import sse_bytes
from threadlab.formats.common.providers.wire import put
from threadlab.formats.common.responses.items import restore

Rebuild = Callable[[list[BaseAction]], Any]
Body = Callable[[Any, list[Any]], Any]
AsEvents = Callable[[list[Any]], list[tuple[str | None, Any]]]  # whole responses -> (event name, event) of a stream


def own_meta(thread: Thread, key: str) -> dict[str, Any] | None:
    meta = (thread.metadata or {}).get(key)
    return meta if isinstance(meta, Mapping) and meta.get("container") else None  # type: ignore[return-value]


def history_of(thread: Thread, key: str, default_message: Rebuild) -> tuple[dict[int, Any], int]:
    """The wire messages of a thread read from the format, by history index (the default
    rebuild of each message's actions, corrected by the reader's memo), and how many actions
    belong to no message (added to the thread after it was read)."""
    groups: dict[int, list[BaseAction]] = {}
    stray = 0
    for action in thread.actions:
        m = ((action.metadata or {}).get(key) or {}).get("m")
        if isinstance(m, int):
            groups.setdefault(m, []).append(action)
        elif not (action.metadata or {}).get(key, {}).get("derived"):
            stray += 1
    history = {}
    for m, actions in groups.items():
        mine = (actions[0].metadata or {}).get(key) or {}
        rebuilt = default_message(actions)
        history[m] = restore(rebuilt, mine.get("item")) if isinstance(rebuilt, dict) else rebuilt
        riders = mine.get(RIDERS)  # messages of its response that are no action of their own
        for index, message in riders.items() if isinstance(riders, Mapping) else ():
            if str(index).isdigit():
                history[int(index)] = message
    return history, stray


def rebuild_container(thread: Thread, key: str, history: dict[int, Any], request_body: Body, response_body: Body, what: str,
                      as_events: AsEvents | None = None) -> tuple[bytes, list[str]]:
    """The container the thread was read from, and what of it could not be given back. A
    stream is written as the response it assembled into; a stream of several, as the stream of
    their ``as_events`` (each response whole), which reads back as the one thread it was."""
    meta = own_meta(thread, key) or {}
    container = meta.get("container")
    lost: list[str] = []
    if container == "list":
        return orjson.dumps([history[i] for i in sorted(history)], option=orjson.OPT_INDENT_2) + b"\n", lost
    docs = []
    for ex in meta.get("exchanges") or []:
        doc = ex.get("shell")
        if "request" in ex:
            echo = ex.get("echo") or {}
            messages = [echo.get(str(j), history.get(i)) for j, i in enumerate(request_indices(ex))]
            doc = put(doc, tuple(ex.get("req_path") or ()), request_body(ex["request"], messages))
        if "response" in ex:
            body = response_body(ex["response"], [history.get(i) for i in ex.get("got") or []])
            doc = put(doc, tuple(ex["resp_path"]), body) if "resp_path" in ex else body
        docs.append(doc)
    if meta.get("of"):
        lost.append(f"the file's other {meta['of'] - len(docs)} document(s) (this thread holds {len(docs)} of {meta['of']}; each is written alone)")
    if container in ("sse", "saved-events"):
        lost.append(f"the stream's {meta.get('events', 0)} events (written as the {what} they assemble into)")
        if len(docs) > 1 and as_events is not None:  # several messages: a stream of them, each whole (one thread again)
            pairs = as_events(docs)
            if container == "sse":
                return sse_bytes(pairs), lost
            return b"".join(orjson.dumps(value) + b"\n" for _, value in pairs), lost
    if container == "jsonl":
        return b"".join(orjson.dumps(d) + b"\n" for d in docs), lost
    if container == "array":
        return orjson.dumps(docs, option=orjson.OPT_INDENT_2) + b"\n", lost
    return orjson.dumps(docs[0] if docs else None, option=orjson.OPT_INDENT_2) + b"\n", lost


def foreign_losses(thread: Thread, picked: list[Any], agent_id: str | None) -> Counter[str]:
    """What a replay of a thread of another format loses whatever the provider: times, usage,
    actions of other agents (as text or left out), system actions other than prompts."""
    lost: Counter[str] = Counter()
    synthetic = (thread.metadata or {}).get("synthetic_timestamps") == len(thread.actions)
    if thread.actions and not synthetic:
        lost["action timestamps"] = 1
    for action in thread.actions:
        if getattr(action, "usage", None) is not None:
            lost["usage figures"] += 1
        if action.action_type.startswith("system.") and action.action_type != "system.message":
            lost[f"{action.action_type} actions"] += 1
    others = sum(1 for a in thread.actions if getattr(a, "agent_id", None) not in (None, agent_id))
    orphans = unmatched_returns(picked)
    if orphans:
        lost["tool results whose call is not written (as user-side text)"] += orphans
    if others:
        lost["actions of other agents (user-side text, or left out, in this agent's view)"] += others
    return lost


def write_own_or_replay(thread: Thread, key: str, name: str, agent: str | None, default_message: Rebuild, request_body: Body,
                        response_body: Body, what: str, replay: Callable[[], tuple[Any, Counter[str]]], as_events: AsEvents | None = None) -> bytes:
    """A thread read from the format (and no ``agent`` asked for) back in its container;
    else ``replay()``'s value. Both say what they lose (``WriteLoss``); a replay that keeps no
    message (a thread of only thinking and platform records, or of no actions) is a ValueError
    saying so, not an empty list that reads as nothing."""
    from threadlab.core.loss import nothing_to_write, report_loss

    if agent is None and own_meta(thread, key) is not None:
        history, stray = history_of(thread, key, default_message)
        data, lost = rebuild_container(thread, key, history, request_body, response_body, what, as_events)
        if stray:
            lost.append(f"{stray} actions added after the thread was read (they belong to no message)")
        report_loss(name, thread.thread_id, lost)
        return data
    value, counted = replay()
    if not (value.get("messages") if isinstance(value, Mapping) else value):
        raise nothing_to_write(name, thread)
    report_loss(name, thread.thread_id, loss_phrases(counted))
    return orjson.dumps(value, option=orjson.OPT_INDENT_2) + b"\n"


def loss_phrases(lost: Counter[str]) -> list[str]:
    return [f"{n} {what}" if n > 1 else what for what, n in sorted(lost.items())]


__all__ = ["foreign_losses", "history_of", "loss_phrases", "own_meta", "rebuild_container", "write_own_or_replay"]
