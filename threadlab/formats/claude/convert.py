"""Claude wire entries (in order) → ThreadProtocol actions, agents and thread metadata.

One converter for transcripts, stream-json and SDK objects: each content block becomes an
action (thinking with its signature, text, tool_use / server_tool_use → tool_call, tool_result
→ tool_return with ``toolUseResult`` kept), every other entry becomes a ``system.*`` action
whose ``data`` holds the entry, and the raw envelope of each line is kept under
``metadata.claude`` so the thread can be written back as a transcript."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from threadlab.core.builder import ThreadBuilder, slug
from threadlab.formats.claude.session import SESSION_KEYS, SessionInfo, without_envelope
from threadlab.formats.claude.usage import Response, collect_responses, finish_reason, to_usage
from threadlab.formats.claude.wire import KNOWN_TYPES, Entry

MAIN_AGENT = "main"
PROVIDER = "anthropic"
_WRAPPED_USER_TEXT = (
    ("<task-notification>", "task_notification"),
    ("<command-name>", "command"),
    ("<command-message>", "command"),
    ("<local-command-stdout>", "command_output"),
    ("<local-command-stderr>", "command_output"),
)
_SNAKE = re.compile(r"[^a-z0-9]+")


def snake(name: Any) -> str:
    """A name fit for ``system.<snake_case>``."""
    text = _SNAKE.sub("_", str(name).lower()).strip("_")
    return text if text and text[0].isalpha() else f"x_{text or 'unnamed'}"


class Converter:
    """Feeds entries, in thread order, into a ThreadBuilder."""

    def __init__(self, builder: ThreadBuilder, entries: list[Entry]) -> None:
        self.b = builder
        self.responses: dict[str, Response] = collect_responses(entries)
        self.usage_given: set[str] = set()
        self.tool_names: dict[str, str] = {}
        self.task_agents: dict[str, str] = {}  # Agent/Task tool_use id → subagent id (stream-json)
        self.links: dict[str, str] = {}  # subagent id → parent's Agent/Task tool_use id
        self.parents: dict[str, str] = {}  # subagent id → agent that launched it
        self.joined: set[str] = set()
        self.known: dict[str, dict[str, Any]] = {}  # subagent id → what its sidecar says (transcripts)
        self.session = SessionInfo()

    # --- agents ---------------------------------------------------------------------------
    def main_agent(self, entry: Entry | None = None, model: str | None = None) -> str:
        meta = {"model_name": model} if model else None
        return self.b.agent("main", agent_id=MAIN_AGENT, identifier="claude-code", created_at=entry.time if entry else None, metadata=meta)

    def subagent(self, agent_id: str, entry: Entry, *, agent_type: str | None = None, description: str | None = None,
                 tool_use_id: str | None = None, model: str | None = None, extra: dict[str, Any] | None = None,
                 line: dict[str, Any] | None = None) -> str:
        """Register a subagent (once) and emit its ``system.agent_join`` before its first action."""
        if tool_use_id:
            self.links.setdefault(agent_id, tool_use_id)
        kind = agent_type or "subagent"
        name = f"{kind}: {description}" if description else kind
        meta = {k: v for k, v in {"model_name": model, "agent_type": agent_type, "description": description,
                                  "parent_tool_call_id": self.links.get(agent_id), **(extra or {})}.items() if v is not None}
        self.b.agent(name, agent_id=agent_id, identifier=slug(kind), created_at=entry.time, metadata=meta)
        if agent_id not in self.joined:
            self.joined.add(agent_id)
            data = {"agent_id": agent_id, "invited_by": self.parents.get(agent_id, MAIN_AGENT),
                    "tool_call_id": self.links.get(agent_id), "agent_type": agent_type, "description": description}
            self.b.add("system.agent_join", timestamp=entry.time, data={k: v for k, v in data.items() if v is not None},
                       metadata={"claude": line, "source_line": entry.where()} if line else None)
        return agent_id

    def agent_of(self, entry: Entry) -> str:
        """Whose action a line is: the file's agent, an inline sidechain's ``agentId``, or (stream-json)
        the subagent launched by the ``parent_tool_use_id`` call."""
        raw = entry.raw
        if entry.agent is not None and entry.agent != MAIN_AGENT:
            agent = entry.agent
        elif isinstance(raw.get("agentId"), str) and (raw.get("isSidechain") or "uuid" not in raw):
            agent = raw["agentId"]
        elif isinstance(raw.get("parent_tool_use_id"), str):
            tool_use_id = raw["parent_tool_use_id"]
            agent = self.task_agents.get(tool_use_id) or raw.get("agent_id") or raw.get("parent_agent_id") or f"task-{tool_use_id[-12:]}"
            self.links.setdefault(agent, tool_use_id)
        else:
            return self.main_agent(entry)
        if agent not in self.joined:
            info = self.known.get(agent) or {
                "agent_type": raw.get("subagent_type") or raw.get("attributionAgent"),
                "description": raw.get("task_description"),
            }
            self.subagent(agent, entry, tool_use_id=self.links.get(agent), **info)
        return agent

    # --- dispatch -------------------------------------------------------------------------
    def add(self, entry: Entry) -> None:
        kind = entry.type
        self.session.saw(kind, entry.raw)
        handler = {
            "assistant": self._assistant,
            "user": self._user,
            "attachment": self._attachment,
            "system": self._system,
            "result": self._result,
            "stream_event": lambda e: None,  # deltas of lines already read; message_delta usage is in responses
            "bad-line": self._bad_line,
        }.get(kind)
        if handler is not None:
            handler(entry)
        elif kind in KNOWN_TYPES:
            self._bookkeeping(entry)
        else:
            self._unknown(entry)

    def _meta(self, entry: Entry, drop: tuple[str, ...] = ()) -> dict[str, Any]:
        """The line's envelope (what ThreadProtocol has no field for), for ``metadata.claude``."""
        envelope = {k: v for k, v in entry.raw.items() if k not in drop and k not in SESSION_KEYS}
        return {"claude": envelope, "source_line": entry.where()}

    def _link(self, agent: str | None, meta: dict[str, Any]) -> dict[str, Any]:
        """Mark a subagent's action with the parent's Agent/Task tool call that launched it."""
        if agent is not None and agent in self.links:
            meta["parent_tool_call_id"] = self.links[agent]
        return meta

    # --- assistant lines ------------------------------------------------------------------
    def _assistant(self, entry: Entry) -> None:
        message = entry.raw.get("message")
        if not isinstance(message, Mapping):
            self._unknown(entry, "assistant entry has no message object")
            return
        mid = message.get("id") if isinstance(message.get("id"), str) else None
        model = message.get("model") if isinstance(message.get("model"), str) else None
        agent = self.agent_of(entry)
        if agent == MAIN_AGENT and model and model != "<synthetic>":
            self.main_agent(entry, model)
        envelope = {k: v for k, v in message.items() if k not in ("content", "usage")}
        content = message.get("content")
        blocks = content if isinstance(content, list) else [{"type": "text", "text": content if isinstance(content, str) else ""}]
        response = self.responses.get(mid or "")
        for index, block in enumerate(blocks):
            meta = self._link(agent, self._meta(entry, drop=("message",)))
            meta["claude"]["message"] = envelope
            if len(blocks) > 1:
                meta["claude"]["block_index"] = index
            if model:
                meta["model_name"] = model
                meta["provider_name"] = PROVIDER
            usage = None
            finish = None
            block_type = block.get("type") if isinstance(block, Mapping) else None
            if response is not None and mid not in self.usage_given and block_type == response.holder:
                self.usage_given.add(mid or "")
                usage = to_usage(response.usage)
                meta["claude"]["usage"] = response.usage
                if not response.final:
                    meta["claude"]["usage_is_snapshot"] = True
                finish = finish_reason(response.stop_reason)
            self._block(entry, agent, block, meta, usage, finish)

    def _block(self, entry: Entry, agent: str, block: Any, meta: dict[str, Any], usage: dict[str, int] | None, finish: str | None) -> None:
        t = entry.time
        kind = block.get("type") if isinstance(block, Mapping) else None
        if kind == "text":
            self.b.add("assistant_message", timestamp=t, agent_id=agent, content=block.get("text", ""), usage=usage,
                       finish_reason=finish, metadata=_extra(block, ("type", "text"), meta))
        elif kind in ("thinking", "redacted_thinking"):
            self.b.add("thinking", timestamp=t, agent_id=agent, content=block.get("thinking"), signature=block.get("signature"),
                       provider_name=PROVIDER, usage=usage, metadata=_extra(block, ("type", "thinking", "signature"), meta))
        elif kind in ("tool_use", "server_tool_use", "mcp_tool_use") and isinstance(block.get("id"), str):
            self.tool_names[block["id"]] = str(block.get("name"))
            self.b.add("tool_call", timestamp=t, agent_id=agent, tool_name=str(block.get("name")), tool_call_id=block["id"],
                       args=block.get("input"), usage=usage, metadata=_extra(block, ("type", "id", "name", "input"), meta))
        elif isinstance(block, Mapping) and isinstance(block.get("tool_use_id"), str):  # server tool results
            self._tool_return(entry, block, meta, agent)
        else:
            meta["claude"]["block"] = block
            self.b.problem("unknown-type", f"{entry.where()} content block type {kind!r} is not one threadlab maps; kept as system.unknown_block", line=entry.line)
            self.b.add("system.unknown_block", timestamp=t, agent_id=agent, data=block, usage=usage, metadata=meta)

    # --- user lines -----------------------------------------------------------------------
    def _user(self, entry: Entry) -> None:
        raw = entry.raw
        message = raw.get("message")
        content = message.get("content") if isinstance(message, Mapping) else None
        agent = self.agent_of(entry)
        meta = self._link(agent, self._meta(entry, drop=("message",)))
        if isinstance(message, Mapping):
            meta["claude"]["message"] = {k: v for k, v in message.items() if k != "content"}
        if isinstance(content, str):
            self._user_text(entry, agent, content, meta)
            return
        blocks = content if isinstance(content, list) else []
        parts: list[Any] = []
        for block in blocks:
            if isinstance(block, Mapping) and block.get("type") == "tool_result":
                self._tool_return(entry, block, meta, agent)
            else:
                parts.append(_user_part(block))
        if parts or not blocks:
            self._user_text(entry, agent, parts, meta)

    def _user_text(self, entry: Entry, agent: str, content: Any, meta: dict[str, Any]) -> None:
        raw = entry.raw
        text = content if isinstance(content, str) else "".join(p.get("text", "") for p in content if isinstance(p, Mapping))
        system_name = None
        if raw.get("isMeta"):
            system_name = "meta_message"
        elif raw.get("isCompactSummary"):
            system_name = "compact_summary"
        else:
            system_name = next((name for prefix, name in _WRAPPED_USER_TEXT if text.lstrip().startswith(prefix)), None)
        if system_name is not None:
            self.b.add(f"system.{system_name}", timestamp=entry.time, agent_id=agent, data=content, metadata=meta)
            return
        if agent != MAIN_AGENT:
            meta["to_agent_id"] = agent
        elif self.session.first_prompt is None and text:
            self.session.first_prompt = text
        self.b.add("user_message", timestamp=entry.time, content=content, metadata=meta)

    def _tool_return(self, entry: Entry, block: Mapping[str, Any], meta: dict[str, Any], agent: str) -> None:
        call_id = block["tool_use_id"]
        name = self.tool_names.get(call_id)
        if name is None:
            self.b.problem("tool-call-match", f"{entry.where()} tool_result for {call_id!r} answers no earlier tool_use", line=entry.line)
            name = "unknown"
        meta = {**meta, "claude": {**meta["claude"], "block": {k: v for k, v in block.items() if k != "content"}}}
        self.b.add("tool_return", timestamp=entry.time, tool_call_id=call_id, tool_name=name, status="error" if _is_error(block) else "success",
                   content=block.get("content"), metadata=meta)

    # --- everything else ------------------------------------------------------------------
    def _attachment(self, entry: Entry) -> None:
        attachment = entry.raw.get("attachment")
        kind = attachment.get("type") if isinstance(attachment, Mapping) else None
        agent = self.agent_of(entry)
        meta = self._link(agent, self._meta(entry, drop=("attachment",)))
        self.b.add(f"system.attachment.{snake(kind or 'unknown')}", timestamp=entry.time, agent_id=agent, data=attachment, metadata=meta)

    def _system(self, entry: Entry) -> None:
        raw = entry.raw
        subtype = raw.get("subtype")
        if subtype == "init":
            self.session.fields["init"] = {k: v for k, v in raw.items() if k not in ("type", "subtype")}
            if isinstance(raw.get("model"), str):
                self.main_agent(entry, raw["model"])
        if subtype == "task_started" and isinstance(raw.get("task_id"), str):
            task = raw["task_id"]
            if isinstance(raw.get("tool_use_id"), str):
                self.task_agents[raw["tool_use_id"]] = task
            self.subagent(task, entry, agent_type=raw.get("subagent_type"), description=raw.get("description"),
                          tool_use_id=raw.get("tool_use_id"), line=dict(raw))
            return
        agent = self.agent_of(entry) if (entry.agent not in (None, MAIN_AGENT) or raw.get("isSidechain")) else None
        data = {k: v for k, v in raw.items() if k not in ("type", "subtype", *SESSION_KEYS)}
        self.b.add(f"system.{snake(subtype or 'system')}", timestamp=entry.time, agent_id=agent, data=data,
                   metadata=self._link(agent, {"claude": {"type": "system", "subtype": subtype}, "source_line": entry.where()}))

    def _result(self, entry: Entry) -> None:
        data = without_envelope(entry.raw)
        self.session.results.append(data)
        self.b.add("system.result", timestamp=entry.time, data=data, metadata={"source_line": entry.where()})

    def _bookkeeping(self, entry: Entry) -> None:
        raw = entry.raw
        kind = entry.type
        agent = self.agent_of(entry) if entry.agent not in (None, MAIN_AGENT) or isinstance(raw.get("agentId"), str) else None
        data = without_envelope(raw)
        self.b.add(f"system.{snake(kind)}", timestamp=entry.time, agent_id=agent, data=data,
                   metadata=self._link(agent, {"claude": {"type": kind}, "source_line": entry.where()}))

    def _bad_line(self, entry: Entry) -> None:
        self.b.add("system.unparsed_line", timestamp=entry.time, data=entry.raw, metadata={"source_line": entry.where()})

    def _unknown(self, entry: Entry, why: str | None = None) -> None:
        reason = why or f"entry type {entry.type!r} is not one threadlab knows"
        self.b.problem("unknown-type", f"{entry.where()} {reason}; kept as system.unknown_entry", line=entry.line)
        agent = entry.agent if entry.agent not in (None, MAIN_AGENT) else None
        self.b.add("system.unknown_entry", timestamp=entry.time, agent_id=agent, data=entry.raw,
                   metadata=self._link(agent, {"source_line": entry.where()}))


def _is_error(block: Mapping[str, Any]) -> bool:
    """``is_error`` on a tool_result; an ``*_error`` content type on a server tool's result."""
    content = block.get("content")
    kind = content.get("type") if isinstance(content, Mapping) else None
    return block.get("is_error") is True or (isinstance(kind, str) and kind.endswith("_error"))


def _extra(block: Mapping[str, Any], known: tuple[str, ...], meta: dict[str, Any]) -> dict[str, Any]:
    """Block fields ThreadProtocol has no place for (cache_control, citations, ...) into metadata."""
    rest = {k: v for k, v in block.items() if k not in known}
    if rest:
        meta["claude"]["block"] = rest
    return meta


def _user_part(block: Any) -> Any:
    """A user content block as a ThreadProtocol content part (text, image as RC2 media)."""
    if not isinstance(block, Mapping):
        return {"type": "unknown", "value": block}
    if block.get("type") == "text":
        return {"type": "text", "text": block.get("text", "")}
    if block.get("type") in ("image", "document") and isinstance(block.get("source"), Mapping):
        source = block["source"]
        category = "image" if block["type"] == "image" else "document"
        if source.get("type") == "url":
            return {"type": "file", "content_type": "url", "media_type": source.get("media_type") or "application/octet-stream",
                    "media_category": category, "url": source.get("url")}
        return {"type": "file", "content_type": "binary", "media_type": source.get("media_type") or "application/octet-stream",
                "media_category": category, "data": source.get("data")}
    return dict(block)

