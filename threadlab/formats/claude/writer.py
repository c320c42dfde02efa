"""Thread → Claude Code JSON Lines.

A thread read from Claude keeps each line's envelope under ``metadata.claude`` (the entry's
fields, its message envelope with the usage the line had, the block's other fields and its
place in the line); the writer puts the content back into it, so every line comes out as it
went in, in the dialect it came in (a transcript's camelCase lines, stream-json's, an SDK
list's), and reads back as the same thread. The session fields the reader keeps once on the
thread (``sessionId``, ``cwd`` ...) go back on every line that had them.

Subagents are written inline as ``isSidechain`` lines with their ``agentId`` (one byte string
cannot hold a ``subagents/`` folder); a subagent's sidecar goes before its first line as an
``agent_metadata`` entry, the form the Claude Agent SDK's session stores keep it in.

Any other thread gets a plausible transcript: one line per action with fresh ``uuid`` /
``parentUuid`` links per agent, the main agent's name as an ``agent-name`` entry, each other
agent's name as an ``agent_metadata`` entry, the title as a ``custom-title`` entry. What a
transcript cannot hold is named in a ``WriteLoss`` warning (``writer_losses.py``)."""

from __future__ import annotations

import uuid as uuidlib
from collections.abc import Mapping
from typing import Any

import orjson

from threadlab.core.derive import tool_call_owner
from threadlab.core.loss import report_loss
from threadlab.core.model import CORE_ACTION_TYPES, BaseAction, SystemAction, Thread
from threadlab.core.timefmt import format_timestamp
from threadlab.formats.claude.agents import MAIN_AGENT
from threadlab.formats.claude.blocks import assistant_block, jsonable, user_blocks, wire_usage
from threadlab.formats.claude.session import SESSION_KEYS
from threadlab.formats.claude.wire import READER_KEYS
from threadlab.formats.claude.writer_losses import Losses

NAME = "claude-code"
_STOP = {"stop": "end_turn", "tool_call": "tool_use", "length": "max_tokens", "content_filter": "refusal"}
_ASSISTANT_KINDS = ("assistant_message", "thinking", "tool_call")


def thread_to_transcript(thread: Thread) -> bytes:
    writer = _Writer(thread)
    for position, action in enumerate(thread.actions):
        writer.add(action, position)
    writer.close()
    report_loss(NAME, thread.thread_id, writer.losses.phrases())
    return b"".join(line if isinstance(line, bytes) else orjson.dumps(line) for line in writer.lines for line in (line, b"\n"))


class _Writer:
    def __init__(self, thread: Thread) -> None:
        self.thread = thread
        self.lines: list[dict[str, Any] | bytes] = []
        session = (thread.metadata or {}).get("claude")
        self.from_claude = isinstance(session, Mapping)
        if self.from_claude:
            self.session = {k: session[k] for k in SESSION_KEYS if k in session}  # type: ignore[index]
        else:
            self.session = {"sessionId": thread.thread_id}
        self.transcript = "session_id" not in self.session
        self.owner = tool_call_owner(thread)
        self.main = MAIN_AGENT if MAIN_AGENT in thread.agents or not thread.agents else next(iter(thread.agents))
        self.last_uuid: dict[str, str | None] = {}
        self.announced: set[str] = set()
        self.sidecars: list[dict[str, Any]] = []  # agent_metadata entries, written after the next line
        self.open: dict[str, Any] | None = None  # the line being filled: {"line", "slots", "content"}
        self.after: list[dict[str, Any]] = []
        self.losses = Losses(thread, self.from_claude)
        self._preamble()

    # --- lines ----------------------------------------------------------------------------
    def _preamble(self) -> None:
        """What a foreign thread says about itself that a transcript holds in entries: the main
        agent's name and the title (an empty one too, or the first prompt would become it)."""
        if self.from_claude:
            return
        agent = self.thread.agents.get(self.main)
        if agent is not None and agent.agent_name != "main":
            self._write({"type": "agent-name", "agentName": agent.agent_name})
        self._write({"type": "custom-title", "customTitle": self.thread.title or ""})

    def _write(self, line: dict[str, Any] | bytes, absent: Any = ()) -> None:
        """Append a line with the session fields the thread keeps once (but those it lacked)."""
        if isinstance(line, dict):
            for key, value in self.session.items():
                if key not in absent:
                    line.setdefault(key, value)
        self.lines.append(line)
        self.lines.extend(self.sidecars)  # never the first line: it is not what detection should see
        self.sidecars = []

    def _flush(self) -> None:
        if self.open is None:
            return
        line, slots = self.open["line"], self.open["slots"]
        if slots:
            message = line.get("message")
            if isinstance(message, dict):
                message["content"] = [slots[i] for i in sorted(slots)]
        self._write(line, self.open["absent"])
        self.open = None

    def close(self) -> None:
        self._flush()
        for event in self.after:
            self._riding(event)
        self.lines.extend(self.sidecars)

    def _riding(self, line: Any) -> None:
        """A line kept on an action (``stream_events``): a stream event (its session fields left
        to the thread), or a whole line the reader made no action of (a whitespace-only text
        block: written as it was, session fields and all)."""
        if isinstance(line, dict) and line.get("type") != "stream_event":
            self._write(dict(line), self.session)
        else:
            self._write(dict(line) if isinstance(line, dict) else orjson.dumps(line))

    # --- agents ---------------------------------------------------------------------------
    def _agent(self, action: BaseAction) -> str:
        if action.action_type == "tool_return":
            return self.owner.get(getattr(action, "tool_call_id", ""), self.main)
        meta = action.metadata or {}
        return getattr(action, "agent_id", None) or meta.get("to_agent_id") or self.main

    def _announce(self, agent: str) -> None:
        """A subagent's sidecar (or, for a foreign thread, its name) before its first line."""
        if agent == self.main or agent in self.announced:
            return
        self.announced.add(agent)
        config = self.thread.agents.get(agent)
        meta = (config.metadata or {}).get("claude_meta") if config is not None else None
        if isinstance(meta, Mapping):
            self.sidecars.append({"type": "agent_metadata", **meta, "agentId": agent})
        elif config is None and not self.from_claude:  # an agent the registry does not hold: named by its id
            self.sidecars.append({"type": "agent_metadata", "name": agent, "agentId": agent})
        elif config is not None and not self.from_claude:
            link = (config.metadata or {}).get("parent_tool_call_id")
            entry = {"type": "agent_metadata", "agentType": config.agent_identifier, "name": config.agent_name, "agentId": agent}
            self.sidecars.append({**entry, **({"toolUseId": link} if isinstance(link, str) else {})})

    # --- actions --------------------------------------------------------------------------
    def add(self, action: BaseAction, position: int) -> None:
        if action.action_type not in CORE_ACTION_TYPES and not isinstance(action, SystemAction):
            self.losses.count(f"actions of a type no transcript entry stands for ({action.action_type})")
            return
        kept = _claude(action)
        index = kept.get("block_index")
        blanks = kept.get("blank_blocks")
        if isinstance(index, int) and blanks:  # whitespace-only blocks of the line, kept on its first other block
            index = min(index, *(b[0] for b in blanks))
        starts = index is None or (0 in index if isinstance(index, list) else index == 0)
        agent = self._agent(action)
        if starts:
            self._flush()
            self._announce(agent)
            for event in kept.get("stream_events") or ():
                self._riding(event)
        self.after.extend(kept.get("stream_events_after") or ())
        if isinstance(action, SystemAction):
            self._system(action, kept, agent)
        elif not kept:
            self._foreign(action, agent, position)
        else:
            self._kept(action, kept, agent, starts)

    def _kept(self, action: BaseAction, kept: dict[str, Any], agent: str, starts: bool) -> None:
        """A block of a line read from Claude: back into the line's envelope."""
        if starts or self.open is None:
            line = {k: v for k, v in kept.items() if k not in READER_KEYS and k != "content"}
            if "message" in kept:
                message = kept["message"]
                line["message"] = dict(message) if isinstance(message, Mapping) else message
            self._route(line, agent)
            self.open = {"line": line, "slots": {}, "absent": kept.get("absent") or ()}
        line = self.open["line"]
        message = line.get("message")
        kind = action.action_type
        for at, blank in kept.get("blank_blocks") or ():
            self.open["slots"][at] = blank
        index = kept.get("block_index")
        if kind == "user_message":
            blocks: Any = user_blocks(getattr(action, "content", ""))
            if isinstance(index, list):
                self.open["slots"].update(zip(index, blocks, strict=False))
            elif isinstance(message, dict):
                message["content"] = kept["content"] if "content" in kept else blocks
            return
        block = assistant_block(action, kept.get("block"))
        if index is not None:
            self.open["slots"][index] = block
        elif isinstance(message, dict):
            message["content"] = block if kept.get("block") == "string" else [block]

    def _route(self, line: dict[str, Any], agent: str) -> None:
        """In a transcript, a subagent's line is a sidechain line naming its agent (a line read
        from a subagent file says so itself; stream-json lines name their launching call)."""
        if self.transcript and agent != self.main and "parent_tool_use_id" not in line and "isSidechain" not in line and "agentId" not in line:
            line["isSidechain"] = True
            line["agentId"] = agent

    def _foreign(self, action: BaseAction, agent: str, position: int) -> None:
        """An action of a thread not read from Claude: a line of its own."""
        kind = action.action_type
        sub = agent != self.main
        line: dict[str, Any] = {"parentUuid": self.last_uuid.get(agent), "isSidechain": sub, "type": "assistant" if kind in _ASSISTANT_KINDS else "user",
                                "uuid": str(uuidlib.uuid5(uuidlib.NAMESPACE_URL, f"{self.thread.thread_id}/{position}")),
                                "timestamp": format_timestamp(action.timestamp)}
        if sub:
            line["agentId"] = agent
        self.last_uuid[agent] = line["uuid"]
        self.losses.foreign(action)
        if kind in _ASSISTANT_KINDS:
            meta = action.metadata or {}
            message: dict[str, Any] = {"id": f"msg_{line['uuid'].replace('-', '')[:24]}", "type": "message", "role": "assistant"}
            if isinstance(meta.get("model_name"), str):
                message["model"] = meta["model_name"]
            message["content"] = [assistant_block(action, None)]
            finish = getattr(action, "finish_reason", None)
            if finish in _STOP:
                message["stop_reason"] = _STOP[finish]
            usage = wire_usage(getattr(action, "usage", None))
            if usage is not None:
                message["usage"] = usage
            line["message"] = message
        elif kind == "tool_return":
            block: dict[str, Any] = {"type": "tool_result", "tool_use_id": action.tool_call_id, "content": jsonable(action.content)}  # type: ignore[attr-defined]
            if action.status != "success":  # type: ignore[attr-defined]
                block["is_error"] = True
            line["message"] = {"role": "user", "content": [block]}
        else:
            line["message"] = {"role": "user", "content": user_blocks(getattr(action, "content", ""))}
        self._write(line)

    def _system(self, action: SystemAction, kept: dict[str, Any], agent: str) -> None:
        data = jsonable(action.data)
        name = action.name
        kind = kept.get("type")
        whole = kept.get("line")
        if whole == "unparsed":  # a line that was no entry: its text as it was
            value = data if isinstance(data, Mapping) else {}
            self.lines.append(value["text"].encode("utf-8") if isinstance(value.get("text"), str) else orjson.dumps(value.get("value")))
        elif whole == "events":  # stream events (and whole lines) with no action to ride on
            for line in data if isinstance(data, list) else [data]:
                self._riding(line)
        elif whole == "whole":  # an entry of a type threadlab does not know
            self._write(dict(data) if isinstance(data, dict) else orjson.dumps(data), kept.get("absent") or ())
        elif name == "unknown_block" and kept.get("block") in ("whole", "content"):
            self._unknown_block(kept, data, agent)
        elif kind in ("user", "assistant"):  # a user line Claude Code wrote itself (meta, command, notification)
            self._user_system(kept, data, agent)
        elif kind == "attachment":
            line = {k: v for k, v in kept.items() if k not in READER_KEYS}
            line["attachment"] = data
            self._route(line, agent)
            self._write(line, kept.get("absent") or ())
        elif name == "agent_join":
            if kept:  # from a stream-json task_started line; otherwise made by the reader: not written
                self._write({k: v for k, v in kept.items() if k not in READER_KEYS}, kept.get("absent") or ())
        elif kind is not None:  # system lines, results and bookkeeping entries: their data is the line
            line = {**{k: v for k, v in kept.items() if k not in READER_KEYS}, **(data if isinstance(data, dict) else {"data": data})}
            if getattr(action, "agent_id", None) is not None:
                self._route(line, agent)
            self._write(line, kept.get("absent") or ())
        else:
            self.losses.system(action)
            fields = data if isinstance(data, dict) else {"data": data}
            self._write({"type": "system", "subtype": name, **fields, "timestamp": format_timestamp(action.timestamp)})

    def _unknown_block(self, kept: dict[str, Any], data: Any, agent: str) -> None:
        index = kept.get("block_index")
        blanks = kept.get("blank_blocks") or ()
        first = min(index, *(b[0] for b in blanks)) if isinstance(index, int) and blanks else index
        if self.open is None or first is None or (0 in first if isinstance(first, list) else first == 0):
            line = {k: v for k, v in kept.items() if k not in READER_KEYS}
            if "message" in kept:
                line["message"] = dict(kept["message"]) if isinstance(kept["message"], Mapping) else kept["message"]
            self._route(line, agent)
            self.open = {"line": line, "slots": {}, "absent": kept.get("absent") or ()}
        message = self.open["line"].get("message")
        for at, blank in blanks:
            self.open["slots"][at] = blank
        if index is not None:
            self.open["slots"][index] = data
        elif isinstance(message, dict):
            message["content"] = data if kept.get("block") == "content" else [data]

    def _user_system(self, kept: dict[str, Any], data: Any, agent: str) -> None:
        index = kept.get("block_index")
        if self.open is None or index is None or 0 in index:
            line = {k: v for k, v in kept.items() if k not in READER_KEYS and k != "content"}
            message = kept.get("message")
            line["message"] = dict(message) if isinstance(message, Mapping) else message
            self._route(line, agent)
            self.open = {"line": line, "slots": {}, "absent": kept.get("absent") or ()}
        message = self.open["line"].get("message")
        if isinstance(index, list) and isinstance(data, list):
            self.open["slots"].update(zip(index, data, strict=False))
        elif isinstance(message, dict):
            message["content"] = kept["content"] if "content" in kept else data


def _claude(action: BaseAction) -> dict[str, Any]:
    value = (action.metadata or {}).get("claude")
    return value if isinstance(value, dict) else {}
