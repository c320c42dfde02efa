"""A thread → a Copilot CLI ``events.jsonl``.

A thread read from an events file is written from the events its actions kept
(``metadata.copilot``: each action's event, less what the action's fields hold, and the quiet
events before it; the thread's ``session.start`` and last events): read back, it is the same
thread. Another format's thread is written as the events the CLI would have logged for it: a
``session.start``, ``user.message``, ``assistant.reasoning``, ``assistant.message`` (its tool
calls as ``toolRequests``), ``tool.execution_complete`` and ``session.usage_record`` events; its
``system.*`` actions and its agents have no event here and are named in a ``WriteLoss``."""

from __future__ import annotations

import copy
from typing import Any

import orjson

from threadlab.core.loss import nothing_to_write, report_loss
from threadlab.core.model import BaseAction, Thread
from threadlab.core.timefmt import format_timestamp as iso
from threadlab.formats.copilot_cli.reading import KEY
from threadlab.formats.copilot_cli.wire import START, TOKENS

NAME = "copilot-cli"
_OURS = {ours: theirs for theirs, ours in TOKENS.items()}


def write_events(thread: Thread) -> bytes:
    if not thread.actions and not (thread.metadata or {}).get(KEY):
        raise nothing_to_write(NAME, thread)
    own = (thread.metadata or {}).get(KEY) or {}
    lost: set[str] = set()
    if own.get("generation") == "history-session-state":  # the single-file generation: its messages are written as events
        lost.add("the single-file session (history-session-state) layout and its timeline")
        own = {}
    events: list[Any] = [own["start"]] if "start" in own else [_start(thread)]
    actions = thread.actions
    called: dict[str, str] = {}
    i = 0
    while i < len(actions):
        action = actions[i]
        group = [action]
        while i + len(group) < len(actions) and ((actions[i + len(group)].metadata or {}).get(KEY) or {}).get("part"):
            group.append(actions[i + len(group)])
        i += len(group)
        meta = (action.metadata or {}).get(KEY)
        if isinstance(meta, dict) and "event" in meta:
            events.extend(meta.get("before") or [])
            events.append(_event_back(meta, group))
        else:
            for one in group:
                events.extend(_foreign(one, lost, called))
    events.extend(own.get("after") or [])
    if len(thread.agents or {}) > 1 and not own:
        lost.add("agents other than the first (the CLI's events name no agent)")
    if lost:
        report_loss(NAME, thread.thread_id, sorted(lost))
    return b"".join(orjson.dumps(e) + b"\n" for e in events)


def _event_back(meta: dict[str, Any], group: list[BaseAction]) -> Any:
    """The event an action (and the parts after it) was read from: the values its fields hold
    put back where they stood (``filled``)."""
    event = copy.deepcopy(meta["event"])
    first = group[0]
    if not event:  # a line that was no event: kept whole as the action's data
        return getattr(first, "data", None)
    if first.action_type.startswith("system.") and first.action_type not in ("system.agent_join", "system.unknown_tool_request"):
        event["data"] = getattr(first, "data", None)
        return event
    data = event["data"]
    for key in meta.get("filled") or []:
        if key == "result.content":
            data["result"]["content"] = first.content  # type: ignore[attr-defined]
        elif key == "result":
            data["result"] = first.content  # type: ignore[attr-defined]
        elif key == "arguments":
            data["arguments"] = first.args  # type: ignore[attr-defined]
        elif key == "toolRequests":
            args = {a.tool_call_id: a.args for a in group if a.action_type == "tool_call"}  # type: ignore[attr-defined]
            for request in data["toolRequests"]:
                if type(request) is dict and "arguments" in request and request["arguments"] is None and request.get("toolCallId") in args:
                    request["arguments"] = args[request["toolCallId"]]
        elif key == "reasoningText":
            data[key] = next(a.content for a in group if a.action_type == "thinking")  # type: ignore[attr-defined]
        elif key == "content":
            holder = next((a for a in group if a.action_type in ("user_message", "assistant_message")), first)
            data[key] = holder.content  # type: ignore[attr-defined]
    return event


def _start(thread: Thread) -> dict[str, Any]:
    when = iso(thread.actions[0].timestamp) if thread.actions else None
    data = {"sessionId": thread.thread_id, "version": 1, "producer": "copilot-agent", "copilotVersion": "threadlab", "startTime": when}
    return {"type": START, "data": data, "id": f"{thread.thread_id}-start", "timestamp": when, "parentId": None}


def _foreign(action: BaseAction, lost: set[str], called: dict[str, str]) -> list[dict[str, Any]]:
    """The events the CLI logs for an action of another format's thread."""
    when = iso(action.timestamp)
    kind = action.action_type

    def event(type_: str, data: dict[str, Any]) -> dict[str, Any]:
        return {"type": type_, "data": data, "id": f"a{action.sequence}", "timestamp": when, "parentId": None}

    out: list[dict[str, Any]] = []
    usage = getattr(action, "usage", None)
    call_id = f"threadlab-{action.sequence}"
    if usage is not None:
        figures = usage if isinstance(usage, dict) else usage.model_dump(exclude_none=True)
        mine = {_OURS[k]: v for k, v in figures.items() if k in _OURS}
        if len(mine) < len(figures):
            lost.add("total token counts (the CLI keeps only input, output, cache and reasoning tokens)")
        out.append(event("session.usage_record", {"usage": {**mine, "apiCallId": call_id}}))
    model = {"model": action.model_name} if isinstance(getattr(action, "model_name", None), str) else {}  # type: ignore[attr-defined]
    if kind == "user_message":
        content = action.content  # type: ignore[attr-defined]
        if not isinstance(content, str):
            lost.add("user content that is not text")
            content = "".join(p.get("text", "") for p in content if isinstance(p, dict)) if isinstance(content, list) else ""
        out.append(event("user.message", {"content": content}))
    elif kind == "assistant_message":
        content = action.content  # type: ignore[attr-defined]
        if not isinstance(content, str):
            lost.add("assistant content that is not text")
            content = "".join(p.get("text", "") for p in content if isinstance(p, dict)) if isinstance(content, list) else ""
        out.append(event("assistant.message", {"content": content, "toolRequests": [], **model, "apiCallId": call_id}))
    elif kind == "thinking":
        if usage is not None:
            lost.add("token counts of thinking")
        out.append(event("assistant.reasoning", {"reasoningId": f"r{action.sequence}", "content": action.content}))  # type: ignore[attr-defined]
    elif kind == "tool_call":
        request = {"toolCallId": action.tool_call_id, "name": action.tool_name, "arguments": action.args}  # type: ignore[attr-defined]
        called[action.tool_call_id] = action.tool_name  # type: ignore[attr-defined]
        out.append(event("assistant.message", {"content": "", "toolRequests": [request], **model, "apiCallId": call_id}))
    elif kind == "tool_return":
        content = action.content  # type: ignore[attr-defined]
        result = {"content": content} if isinstance(content, str) else content
        out.append(event("tool.execution_complete", {"toolCallId": action.tool_call_id, "success": action.status == "success", "result": result}))  # type: ignore[attr-defined]
        if action.tool_name and called.get(action.tool_call_id) != action.tool_name:  # type: ignore[attr-defined]
            lost.add("the tool name of a return whose call the thread does not hold (a return names only its call)")
        if action.status not in ("success", "error"):  # type: ignore[attr-defined]
            lost.add(f"tool return status {action.status!r} (the CLI keeps success or failure)")  # type: ignore[attr-defined]
    else:
        lost.add(f"{kind} actions")
    if action.metadata:
        lost.add("action metadata")
    return out
