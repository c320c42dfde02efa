"""A session of the Copilot CLI's single-file generation (``~/.copilot/history-session-state/
session_<id>_<time>.json``, releases before the events log) → one thread.

The object holds ``sessionId``, ``startTime``, ``chatMessages`` (the OpenAI Chat Completions
messages the model was sent and gave: ``system``, ``user``, ``assistant`` with ``tool_calls``,
``tool`` with ``tool_call_id``) and a ``timeline`` of what the terminal showed (it repeats the
messages and calls, so it is kept in the thread's metadata, not read again). A message's
timestamps are unknown: every action has the session's ``startTime``.

Records: a message of ``chatMessages`` (the object itself when it holds none)."""

from __future__ import annotations

from typing import Any

import orjson

from threadlab.core.builder import ThreadBuilder
from threadlab.core.model import Thread
from threadlab.core.problems import short
from threadlab.formats.common.source import Source

KEY = "copilot"
AGENT = "Copilot"
MAIN = "copilot"
_MESSAGE_KEYS = frozenset({"role", "content", "tool_calls", "tool_call_id", "name"})


def read_legacy(source: Source, session: dict[str, Any]) -> Thread:
    b = ThreadBuilder(session["sessionId"], source=source.name)
    agent = b.agent(AGENT, agent_id=MAIN)
    when = session.get("startTime") if isinstance(session.get("startTime"), str) else None
    names: dict[str, str] = {}
    title = ""
    messages = session["chatMessages"]
    if not messages:
        b.took()
    for index, message in enumerate(messages, 1):
        if type(message) is not dict or message.get("role") not in ("system", "user", "assistant", "tool"):
            b.kept("unknown-type", f"message {index} is no Chat Completions message ({short(message)}); kept as system.unknown_message")
            b.add("system.unknown_message", timestamp=when, data=message, metadata={KEY: {"index": index}})
            continue
        b.took()
        role, content = message["role"], message.get("content")
        extra = {k: v for k, v in message.items() if k not in _MESSAGE_KEYS}
        meta: dict[str, Any] = {KEY: {"index": index, **({"extra": extra} if extra else {})}}
        if role == "system":
            b.add("system.prompt", timestamp=when, data=content, metadata=meta)
        elif role == "user":
            if isinstance(content, str) and content.strip() and not title:
                title = content.strip().splitlines()[0][:80]
            b.add("user_message", timestamp=when, content=content if isinstance(content, (str, list)) else "", metadata=meta)
        elif role == "tool":
            call_id = message.get("tool_call_id") if isinstance(message.get("tool_call_id"), str) else ""
            name = message.get("name") if isinstance(message.get("name"), str) else names.get(call_id, "")
            b.add("tool_return", timestamp=when, tool_call_id=call_id, tool_name=name, content=content, metadata=meta)
        else:
            calls = message.get("tool_calls") if isinstance(message.get("tool_calls"), list) else []
            if (isinstance(content, str) and content) or not calls:
                b.add("assistant_message", timestamp=when, agent_id=agent, content=content if isinstance(content, (str, list)) else "", metadata=meta)
                meta = {KEY: {"index": index, "part": True}}
            for number, call in enumerate(calls):
                function = call.get("function") if type(call) is dict and type(call.get("function")) is dict else {}
                call_id = call.get("id") if type(call) is dict and isinstance(call.get("id"), str) else f"{session['sessionId']}-{index}-{number}"
                name = function.get("name") if isinstance(function.get("name"), str) else ""
                names[call_id] = name
                b.add("tool_call", timestamp=when, agent_id=agent, tool_name=name, tool_call_id=call_id, args=_arguments(function.get("arguments"), b, index), metadata=meta)
                meta = {KEY: {"index": index, "part": True}}
    b.title = title
    b.metadata[KEY] = {"generation": "history-session-state", **{k: v for k, v in session.items() if k not in ("sessionId", "chatMessages")}}
    return b.build()


def _arguments(text: Any, b: ThreadBuilder, index: int) -> Any:
    """A call's ``arguments`` JSON text parsed (the text kept, with a problem, when it is no JSON)."""
    if not isinstance(text, str):
        return text
    try:
        return orjson.loads(text)
    except orjson.JSONDecodeError:
        b.problem("json", f"message {index}: a tool call's arguments are no JSON; kept as text")
        return text
