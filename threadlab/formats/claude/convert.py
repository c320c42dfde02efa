"""Claude wire entries (in order) → ThreadProtocol actions, agents and thread metadata.

One converter for transcripts, stream-json and SDK objects: each content block becomes an
action (thinking with its signature, text, tool_use / server_tool_use → tool_call, tool_result
→ tool_return with ``toolUseResult`` kept), every other entry becomes a ``system.*`` action
whose ``data`` holds the entry. What ThreadProtocol has no field for stays under
``metadata.claude``: the line's envelope, the message envelope (usage included, as the line
had it), the block's other fields and its place in the line (``block_index``), so the writer
can put every line back as it was. Session fields every line repeats (``sessionId``, ``cwd``
...) are kept once on the thread, and on an action only where they differ from it.

Who wrote each user-role record (the person, Claude Code, another agent) is ``metadata.author``
as ``authorship.py`` documents. A whitespace-only text block (the ``"\\n\\n"`` streamed before a
message's thinking or tool call) is no assistant message when its message has another block: a
line of it alone rides along with the next action (``stream_events``, written back before it),
one beside other blocks on the line's first other block (``blank_blocks``). Tool calls and
results without ids are keyed as ``calls.py`` says.

Every entry is accounted for (``ThreadBuilder.took/kept``): one record per content block of
its message, one for a line without blocks (``wire.records_of``)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from threadlab.core.builder import ThreadBuilder
from threadlab.core.model import BaseAction
from threadlab.core.problems import short
from threadlab.formats.claude.agents import MAIN_AGENT, Agents
from threadlab.formats.claude.authorship import attachment_author, prompt_author, system_line_author, wrapped_author
from threadlab.formats.claude.calls import Calls, has_no_id
from threadlab.formats.claude.chain import own_time
from threadlab.formats.claude.session import SESSION_KEYS, STREAM_KEYS, SessionInfo
from threadlab.formats.claude.usage import Response, collect_responses, finish_reason, line_response, to_usage
from threadlab.formats.claude.user import snake, system_name, user_part
from threadlab.formats.claude.wire import BAD_LINE, KNOWN_TYPES, Entry, is_blank, records_of

PROVIDER = "anthropic"


class Converter:
    """Feeds entries, in thread order, into a ThreadBuilder."""

    def __init__(self, builder: ThreadBuilder, entries: list[Entry], *, stream: bool = False, responses: dict[str, Response] | None = None) -> None:
        self.b = builder
        if responses is None:  # (given: collected while the streams were ordered, ``survey.py``)
            responses = collect_responses(entries, lambda line, message: builder.problem("schema", message, line=line))
        self.responses = responses
        self.usage_given: set[str] = set()
        self.calls = Calls(builder, entries)  # open calls, and ids for calls a trimmed file left without one
        self.session = SessionInfo(keys=STREAM_KEYS if stream else SESSION_KEYS)
        self.session.gather([e.raw for e in entries])
        self.agents = Agents(builder)
        self.pending: list[dict[str, Any]] = []  # stream events waiting for the next action
        # the session fields some line gives (all of them are known now: read from every line above)
        self.present = tuple(k for k in self.session.keys if k in self.session.fields)
        self._repeated = tuple((k, self.session.fields[k]) for k in self.present)  # (each line is checked against these)

    # --- emission -------------------------------------------------------------------------
    def emit(self, kind: str, entry: Entry | None, meta: dict[str, Any] | None, **fields: Any) -> BaseAction:
        """Add an action; stream events read since the last action ride along in its metadata
        (they repeat what the lines hold whole, and the writer puts them back before it). A line
        lacking a session field the thread has says so (``absent``), so none is added to it."""
        if self.pending:
            meta = meta if meta is not None else {}
            meta.setdefault("claude", {})["stream_events"] = self.pending
            self.pending = []
        if entry is not None and entry.problem is None:
            raw = entry.raw
            absent = [k for k in self.present if k not in raw]
            if absent:
                meta = meta if meta is not None else {}
                meta.setdefault("claude", {})["absent"] = absent
        return self.b.add(kind, timestamp=entry.time if entry is not None else None, metadata=meta or None, **fields)

    def finish(self) -> None:
        """Stream events after the last action stay on it (or, with no action at all, in one
        ``system.stream_events`` action)."""
        if not self.pending:
            return
        if self.b.actions:
            last = self.b.actions[-1]
            last.metadata = last.metadata or {}
            last.metadata.setdefault("claude", {})["stream_events_after"] = self.pending
        else:
            self.b.add("system.stream_events", data=self.pending, metadata={"claude": {"line": "events"}})
        self.pending = []

    # --- dispatch -------------------------------------------------------------------------
    def feed(self, entries: list[Entry]) -> None:
        for entry in entries:  # (the frames route's converter fuses this loop: ``fused.py``)
            self.add(entry)

    def add(self, entry: Entry) -> None:
        kind = entry.type
        records = records_of(entry.raw)
        before = self.b.account.unconverted
        self.session.saw(kind, entry.raw)
        if entry.problem is None and entry.raw.get("timestamp") is not None and own_time(entry) is None:
            self.b.problem("schema", f"{entry.where()} timestamp {short(entry.raw['timestamp'])} is no time; the line takes the time of the one before it (or its file's first)",
                           line=entry.line)
        if entry.problem is not None:
            self._bad_line(entry, records)
        elif kind == "stream_event":  # deltas of lines the stream also holds whole
            self.pending.append(self.own(entry, ()))
        else:
            handler = _HANDLERS.get(kind)
            if handler is not None:
                handler(self, entry)
            elif kind in KNOWN_TYPES and kind != BAD_LINE:
                self._bookkeeping(entry)
            else:
                self._unknown(entry, records)
        self.b.took(max(records - (self.b.account.unconverted - before), 0))

    def own(self, entry: Entry, drop: tuple[str, ...]) -> dict[str, Any]:
        """The line's fields but ``drop`` and the session fields that repeat the thread's."""
        out = dict(entry.raw)  # (a copy with keys deleted: several times cheaper than a filtering comprehension)
        for key in drop:
            out.pop(key, None)
        for key, value in self._repeated:
            if key in out and value == out[key]:
                del out[key]
        return out

    def _meta(self, entry: Entry, agent: str | None, drop: tuple[str, ...]) -> dict[str, Any]:
        meta: dict[str, Any] = {"claude": self.own(entry, drop)}
        link = self.agents.links.get(agent or "")
        if agent is not None and agent != MAIN_AGENT and link:
            meta["parent_tool_call_id"] = link
        return meta

    # --- assistant lines ------------------------------------------------------------------
    def _assistant(self, entry: Entry) -> None:
        message = entry.raw.get("message")
        if type(message) is not dict and not isinstance(message, Mapping):  # (a dict nearly always: the cheap test first)
            self._unknown(entry, 1, "assistant entry has no message object")
            return
        mid, model, agent = self.speaker(entry, message)
        envelope = {k: v for k, v in message.items() if k != "content"}
        content = message.get("content")
        blocks = content if isinstance(content, list) and content else [content]
        response = self.responses.get(mid) if mid is not None else line_response(message)
        blank = [i for i, block in enumerate(blocks) if is_blank(block)]
        if blank and len(blank) == len(blocks):
            if response is not None and response.block_types:  # whitespace before the message's other blocks: no message of its own
                self.pending.append(dict(entry.raw))  # the line rides along with the next action, written back before it
                return
            blank = []  # the message is whitespace only: that is its answer
        given = mid is not None and mid in self.usage_given
        carry = [[i, blocks[i]] for i in blank]
        for index, block in enumerate(blocks):
            if blank and index in blank:
                continue  # kept whole on the line's first other block (``blank_blocks``)
            meta = self._meta(entry, agent, ("message",))
            meta["claude"]["message"] = envelope
            if len(blocks) > 1:
                meta["claude"]["block_index"] = index
            if carry:
                meta["claude"]["blank_blocks"] = carry
                carry = []
            if model:
                meta["model_name"] = model
                meta["provider_name"] = PROVIDER
            usage = finish = None
            block_type = block.get("type") if type(block) is dict or isinstance(block, Mapping) else ("text" if isinstance(block, str) else None)
            if response is not None and not given and block_type == response.holder:
                given = True
                if mid is not None:
                    self.usage_given.add(mid)
                usage = self._usage(response, entry)
                if not response.final:
                    meta["claude"]["usage_is_snapshot"] = True
                finish = finish_reason(response.stop_reason)
            self._block(entry, agent, block, meta, usage, finish, index)

    def speaker(self, entry: Entry, message: Mapping[str, Any]) -> tuple[str | None, str | None, str]:
        """An assistant message's id and model (None: not text) and the agent whose line it is
        (the main agent takes the model it names)."""
        mid = message.get("id")
        model = message.get("model")
        model = model if isinstance(model, str) else None
        agent = self.agents.of(entry, self)
        if agent == MAIN_AGENT and model and model != "<synthetic>":
            self.agents.main(entry, model)
        return (mid if isinstance(mid, str) else None), model, agent

    def _usage(self, response: Response, entry: Entry) -> dict[str, int] | None:
        """The response's usage; a figure that is no count is a ``usage`` problem naming the line
        it came from."""
        phrases: list[str] = []
        usage = to_usage(response.usage, phrases)
        line = response.line if response.line is not None else entry.line
        for phrase in phrases:
            self.b.problem("usage", f"{entry.file}:{line}: message.{phrase}", line=line)
        return usage

    def _block(self, entry: Entry, agent: str, block: Any, meta: dict[str, Any], usage: dict[str, int] | None, finish: str | None, index: int) -> None:
        kind = block.get("type") if type(block) is dict or isinstance(block, Mapping) else None
        whole = "block_index" not in meta["claude"] and not isinstance((entry.raw.get("message") or {}).get("content"), list)
        if whole and isinstance(block, str):  # message.content a plain string
            meta["claude"]["block"] = "string"
            self.emit("assistant_message", entry, meta, agent_id=agent, content=block, usage=usage, finish_reason=finish)
        elif kind == "text" and isinstance(block.get("text"), str):
            self.emit("assistant_message", entry, _extra(block, ("type", "text"), meta), agent_id=agent, content=block["text"],
                      usage=usage, finish_reason=finish)
        elif kind in ("thinking", "redacted_thinking"):
            # redacted thinking: the API's encrypted ``data``, no text; kept under metadata.claude.block
            known = tuple(k for k in ("thinking", "signature") if isinstance(block.get(k), str))
            self.emit("thinking", entry, _extra(block, known, meta), agent_id=agent, content=block.get("thinking") if "thinking" in known else None,
                      signature=block.get("signature") if "signature" in known else None, provider_name=PROVIDER, usage=usage)
        elif kind in ("tool_use", "server_tool_use", "mcp_tool_use") and (isinstance(block.get("id"), str) or has_no_id(block)):
            name = block.get("name") if isinstance(block.get("name"), str) else str(block.get("name"))
            known = ("id", "input", *(("name",) if isinstance(block.get("name"), str) else ()))
            meta = _extra(block, known, meta)
            if "input" not in block:
                meta["claude"]["block"]["input_absent"] = True
            call_id = block.get("id")
            if not isinstance(call_id, str):
                call_id = self.calls.made_id(entry, index, agent)
                meta["claude"]["block"]["id_absent"] = True
                self.b.problem("missing-id", f"{entry.where()} content block {index}: a {kind} block without id; read as tool call {call_id!r}",
                               line=entry.line)
            self.calls.opened(call_id, name, agent)
            self.emit("tool_call", entry, meta, agent_id=agent, tool_name=name, tool_call_id=call_id, args=block.get("input"), usage=usage)
        elif isinstance(block, Mapping) and isinstance(block.get("tool_use_id"), str):  # server tool results
            self._tool_return(entry, block, meta, usage)
        else:
            meta["claude"]["block"] = "content" if whole else "whole"
            self.b.kept("unknown-type", f"{entry.where()} content block {index} {_describe(block)} is not one threadlab maps; kept as system.unknown_block",
                        line=entry.line)
            self.emit("system.unknown_block", entry, meta, agent_id=agent, data=block, usage=usage)

    # --- user lines -----------------------------------------------------------------------
    def _user(self, entry: Entry) -> None:
        raw = entry.raw
        message = raw.get("message")
        if not isinstance(message, Mapping) or "content" not in message:
            self._unknown(entry, 1, "user entry has no message object" if not isinstance(message, Mapping) else "user entry's message has no content")
            return
        content = message.get("content")
        agent = self.agents.of(entry, self)

        def meta() -> dict[str, Any]:
            m = self._meta(entry, agent, ("message",))
            m["claude"]["message"] = {k: v for k, v in message.items() if k != "content"}
            return m

        if not isinstance(content, list) or not content:
            self._user_text(entry, agent, content, meta(), None)
            return
        parts = [(i, b) for i, b in enumerate(content) if not (isinstance(b, Mapping) and b.get("type") == "tool_result")]
        indexed = len(content) > 1
        for index, block in enumerate(content):
            if parts and index == parts[0][0]:
                self._user_text(entry, agent, [b for _, b in parts], meta(), [i for i, _ in parts] if indexed else None)
            if isinstance(block, Mapping) and block.get("type") == "tool_result":
                m = meta()
                if indexed:
                    m["claude"]["block_index"] = index
                only = self.calls.only_open(agent) if "tool_use_id" not in block else None
                if isinstance(block.get("tool_use_id"), str):
                    self._tool_return(entry, block, m)
                elif only is not None:
                    self.b.problem("missing-id", f"{entry.where()} content block {index}: a tool_result without tool_use_id; read as the result of "
                                   f"{only!r}, the only call of its agent still open", line=entry.line)
                    self._tool_return(entry, block, m, call_id=only)
                else:
                    m["claude"]["block"] = "whole"
                    self.b.kept("schema", f"{entry.where()} content block {index}: a tool_result without tool_use_id; kept as system.unknown_block",
                                line=entry.line)
                    self.emit("system.unknown_block", entry, m, agent_id=agent, data=block)

    def _user_text(self, entry: Entry, agent: str, blocks: Any, meta: dict[str, Any], indexes: list[int] | None) -> None:
        """A prompt (string or the line's non-tool-result blocks), or a ``system.*`` action for
        the user lines Claude Code writes itself (meta lines, command wrappers, notifications)."""
        raw = entry.raw
        if indexes is not None:
            meta["claude"]["block_index"] = indexes
        name = system_name(raw, blocks)
        if name is not None:
            meta.update(wrapped_author(name, blocks))
            self.emit(f"system.{name}", entry, meta, agent_id=agent if agent != MAIN_AGENT else None, data=blocks)
            return
        if isinstance(blocks, list):
            content = [user_part(block, self.b, entry, at) for block, at in zip(blocks, indexes or range(len(blocks)), strict=False)]
        else:
            if not isinstance(blocks, str):
                meta["claude"]["content"] = blocks  # null or a value that is no prompt: kept as it came
                if blocks is not None:
                    self.b.problem("schema", f"{entry.where()} message.content is {short(blocks)}, neither text nor blocks; kept as it came", line=entry.line)
            content = blocks if isinstance(blocks, str) else ""
        author = prompt_author(blocks, agent, MAIN_AGENT, raw.get("isSynthetic") is True)
        if author is not None:
            meta.update(author)
        if agent != MAIN_AGENT:
            meta["to_agent_id"] = agent
        elif self.session.first_prompt is None and author is None:
            text = content if isinstance(content, str) else "".join(p.get("text", "") for p in content if isinstance(p, Mapping))
            self.session.first_prompt = text or None
        self.emit("user_message", entry, meta, content=content)

    def _tool_return(self, entry: Entry, block: Mapping[str, Any], meta: dict[str, Any], usage: dict[str, int] | None = None,
                     call_id: str | None = None) -> None:
        """A tool result (``call_id``: the call it answers, when the block names none)."""
        rest = {k: v for k, v in block.items() if k not in ("tool_use_id", "content")}
        if call_id is None:
            call_id = block["tool_use_id"]
        else:
            rest["tool_use_id_absent"] = True
        name = self.calls.names.get(call_id)
        if name is None:
            self.b.problem("tool-call-match", f"{entry.where()} tool_result for {call_id!r} answers no earlier tool_use", line=entry.line)
            name = "unknown"
        self.calls.answered(call_id)
        if "content" not in block:
            rest["content_absent"] = True
        meta["claude"]["block"] = rest
        self.emit("tool_return", entry, meta, tool_call_id=call_id, tool_name=name, status="error" if _is_error(block) else "success",
                  content=block.get("content"), usage=usage)  # usage only when a message's first block is a server tool's result

    # --- everything else ------------------------------------------------------------------
    def _attachment(self, entry: Entry) -> None:
        attachment = entry.raw.get("attachment")
        kind = attachment.get("type") if isinstance(attachment, Mapping) else None
        agent = self.agents.of(entry, self)
        meta = self._meta(entry, agent, ("attachment",))
        meta.update(attachment_author(attachment))
        self.emit(f"system.attachment.{snake(kind or 'unknown')}", entry, meta, agent_id=agent if agent != MAIN_AGENT else None, data=attachment)

    def _system(self, entry: Entry) -> None:
        raw = entry.raw
        subtype = raw.get("subtype")
        if subtype == "init":
            self.session.fields["init"] = {k: v for k, v in raw.items() if k not in ("type", "subtype")}
            if isinstance(raw.get("model"), str):
                self.agents.main(entry, raw["model"])
        if subtype == "task_started" and isinstance(raw.get("task_id"), str) and raw["task_id"] not in self.agents.joined:
            self.agents.task_started(entry, self)
            return
        agent = self.agents.of(entry, self) if entry.agent not in (None, MAIN_AGENT) or raw.get("isSidechain") else None
        meta = self._meta(entry, agent, tuple(raw))
        meta["claude"] = {"type": "system", **({"subtype": subtype} if "subtype" in raw else {})}
        meta.update(system_line_author(subtype, raw) or {})
        self.emit(f"system.{snake(subtype or 'system')}", entry, meta, agent_id=agent, data=self.own(entry, ("type", "subtype")))

    def _result(self, entry: Entry) -> None:
        data = self.own(entry, ("type",))
        self.session.results.append({k: v for k, v in entry.raw.items() if k not in ("type", *SESSION_KEYS)})
        self.emit("system.result", entry, {"claude": {"type": "result"}}, data=data)

    def _bookkeeping(self, entry: Entry) -> None:
        raw = entry.raw
        kind = entry.type
        agent = self.agents.of(entry, self) if entry.agent not in (None, MAIN_AGENT) or isinstance(raw.get("agentId"), str) else None
        if kind == "agent-name" and isinstance(raw.get("agentName"), str) and agent in (None, MAIN_AGENT):
            self.agents.rename_main(entry, raw["agentName"])
        meta = self._meta(entry, agent, tuple(raw))
        meta["claude"] = {"type": kind}
        self.emit(f"system.{snake(kind)}", entry, meta, agent_id=agent if agent != MAIN_AGENT else None, data=self.own(entry, ("type",)))

    def _bad_line(self, entry: Entry, records: int) -> None:
        rule, reason = entry.problem or ("json", "cannot be read")
        self.b.kept(rule, f"{entry.where()} {reason}; kept as system.unparsed_line", line=entry.line, n=records)
        self.emit("system.unparsed_line", entry, {"claude": {"line": "unparsed"}}, data=entry.raw)

    def _unknown(self, entry: Entry, records: int, why: str | None = None) -> None:
        reason = why or f"entry type {entry.type!r} is not one threadlab knows"
        self.b.kept("unknown-type", f"{entry.where()} {reason}; kept as system.unknown_entry", line=entry.line, n=records)
        agent = entry.agent if entry.agent not in (None, MAIN_AGENT) else None
        self.emit("system.unknown_entry", entry, {"claude": {"line": "whole"}}, agent_id=agent, data=self.own(entry, ()))


_HANDLERS = {
    "assistant": Converter._assistant,
    "user": Converter._user,
    "attachment": Converter._attachment,
    "system": Converter._system,
    "result": Converter._result,
}


def _is_error(block: Mapping[str, Any]) -> bool:
    """``is_error`` on a tool_result; an ``*_error`` content type on a server tool's result."""
    content = block.get("content")
    kind = content.get("type") if isinstance(content, Mapping) else None
    return block.get("is_error") is True or (isinstance(kind, str) and kind.endswith("_error"))


def _extra(block: Mapping[str, Any], known: tuple[str, ...], meta: dict[str, Any]) -> dict[str, Any]:
    """Block fields ThreadProtocol has no place for (its type, cache_control, citations, ...)."""
    meta["claude"]["block"] = {k: v for k, v in block.items() if k not in known}
    return meta


def _describe(block: Any) -> str:
    if isinstance(block, Mapping):
        return f"of type {block.get('type')!r}"
    return f"that is a JSON {type(block).__name__}"
