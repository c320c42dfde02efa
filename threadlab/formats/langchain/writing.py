"""A thread → LangChain messages.

A thread read from this format goes back to its container and each message to its own
spelling (``messages_to_dict``, ``dumpd`` or ``model_dump``) exactly. Any other thread is
written as ``messages_to_dict`` output (what ``messages_from_dict`` loads): the user's messages
as ``human``, each agent's text and tool calls as ``ai`` messages carrying its ``name`` and
usage, tool returns as ``tool`` messages (an error keeps ``status: "error"``), system prompts as
``system``. What LangChain messages cannot hold (thinking of other providers, times, other
system actions) is named in a ``WriteLoss``."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from typing import Any

import orjson

from threadlab.core.loss import nothing_to_write, report_loss
from threadlab.core.model import BaseAction, Thread
from threadlab.formats.common.providers.wire import put
from threadlab.formats.common.providers.writing import loss_phrases
from threadlab.formats.common.responses.items import restore
from threadlab.formats.langchain.wire import KEY, default_data

NAME = "langchain"


def _is_valid_call(action: BaseAction) -> bool:
    return action.action_type == "tool_call" and isinstance(getattr(action, "args", None), Mapping)


def _wrap(info: Mapping[str, Any], data: dict[str, Any]) -> Any:
    shape, kind = info.get("shape", "dict"), info.get("type")
    if shape == "lc":
        return {"lc": info.get("lc", 1), "type": "constructor", "id": info.get("id"), "kwargs": data}
    if shape == "flat":
        return data
    return {"type": kind, "data": data}


def _own_messages(thread: Thread) -> tuple[list[Any], int]:
    groups: dict[int, list[BaseAction]] = {}
    stray = 0
    for action in thread.actions:
        i = ((action.metadata or {}).get(KEY) or {}).get("i")
        if isinstance(i, int):
            groups.setdefault(i, []).append(action)
        else:
            stray += 1
    out = []
    for i in sorted(groups):
        actions = groups[i]
        info = (actions[0].metadata or {}).get(KEY) or {}
        if actions[0].action_type == "system.unknown_message":
            out.append(actions[0].data)  # type: ignore[attr-defined]
            continue
        data = restore(default_data(actions, thread.agents, _kind(info)), info.get("item"))
        out.append(_wrap(info, data))
    return out, stray


def _kind(info: Mapping[str, Any]) -> str:
    kind = info.get("type")
    return kind if isinstance(kind, str) else "ai"


def _foreign(thread: Thread) -> tuple[list[Any], Counter[str]]:
    lost: Counter[str] = Counter()
    out: list[Any] = []
    turn: list[BaseAction] = []

    def flush() -> None:
        if turn:
            out.append({"type": "ai", "data": default_data(turn, thread.agents, "ai")})
            turn.clear()

    for action in thread.actions:
        kind = action.action_type
        if kind in ("assistant_message", "thinking"):
            if turn and (turn[-1].action_type == "tool_call" or getattr(turn[-1], "agent_id", None) != action.agent_id or (kind == "assistant_message" and any(a.action_type == "assistant_message" for a in turn))):  # type: ignore[attr-defined]
                flush()
            turn.append(action)
        elif kind == "tool_call":
            invalid_before = _is_valid_call(action) and any(a.action_type == "tool_call" and not _is_valid_call(a) for a in turn)
            if turn and (getattr(turn[-1], "agent_id", None) != action.agent_id or invalid_before):  # type: ignore[attr-defined]
                flush()  # a message lists its tool_calls before its invalid_tool_calls: keep the order
            turn.append(action)
            args = action.args  # type: ignore[attr-defined]
            if not isinstance(args, Mapping | str) and args is not None:
                lost["tool call arguments that are neither an object nor text (written as JSON text)"] += 1
        else:
            flush()
            if kind == "user_message":
                out.append({"type": "human", "data": default_data([action], thread.agents, "human")})
            elif kind == "tool_return":
                out.append({"type": "tool", "data": default_data([action], thread.agents, "tool")})
                if not isinstance(action.content, str | list):  # type: ignore[attr-defined]
                    lost["tool results that are not text (written as JSON text)"] += 1
            elif kind == "system.message":
                out.append({"type": "system", "data": default_data([action], thread.agents, "system")})
            else:
                lost[f"{kind} actions"] += 1
    flush()
    synthetic = (thread.metadata or {}).get("synthetic_timestamps") == len(thread.actions)
    if thread.actions and not synthetic:
        lost["action timestamps"] += 1
    return out, lost


def write_langchain(thread: Thread) -> bytes:
    meta = (thread.metadata or {}).get(KEY)
    if isinstance(meta, Mapping) and meta.get("container"):
        messages, stray = _own_messages(thread)
        lost = [f"{stray} actions added after the thread was read (they belong to no message)"] if stray else []
        if meta.get("of"):
            lost.append(f"the file's other {meta['of'] - 1} conversation(s) (each is written alone)")
        container = meta["container"]
        if container == "stream":  # the thread is the messages of one mode; the stream is not written again
            lost.append(f"the LangGraph stream's {meta.get('parts')} parts (written as its {meta.get('mode')} messages: a message list)")
        report_loss(NAME, thread.thread_id, lost)
        if container == "jsonl":
            return b"".join(orjson.dumps(m) + b"\n" for m in messages)
        value = put(meta.get("shell") or {}, tuple(meta["path"]), messages) if meta.get("path") else messages
        return orjson.dumps(value, option=orjson.OPT_INDENT_2) + b"\n"
    messages, lost = _foreign(thread)
    if not messages:
        raise nothing_to_write(NAME, thread)
    report_loss(NAME, thread.thread_id, loss_phrases(lost))
    return orjson.dumps(messages, option=orjson.OPT_INDENT_2) + b"\n"
