"""A Pi session file → one thread (see ``wire.py`` for the lines).

Every entry is read where it stands in the file, which is the order Pi appended them: a branch
(an entry whose ``parentId`` is not the entry before it) is not cut out, so the thread holds
every branch, and each entry's first action keeps its ``id`` and ``parentId`` (and the rest of
the entry) under ``metadata.pi.entry``: the tree can be rebuilt from the actions. A fork's file
names its parent session (``parentSession``) in the thread's ``metadata.pi.header``.

- ``user`` → ``user_message`` (its text parts joined; an image part stays in the entry);
- ``assistant`` → per content part a ``thinking``, ``assistant_message`` or ``tool_call``
  (``toolCall`` ``id`` / ``name`` / ``arguments``); none when it has no parts (an error or an
  aborted answer): an empty ``assistant_message``. The message's ``usage`` goes on its text (else
  its first action): ``input_tokens`` is Pi's ``input`` + ``cacheRead`` + ``cacheWrite`` (Pi's
  ``input`` leaves the cache out), its ``cost.total`` adds to the thread's ``cost_usd``;
  ``model`` / ``provider`` are ``metadata.model_name`` / ``provider_name``;
- ``toolResult`` → ``tool_return`` (``isError`` an error);
- ``bashExecution`` (``!cmd`` typed by the person) → a ``bash`` ``tool_call`` of author ``human``
  and its ``tool_return`` (the tool's);
- ``custom`` / ``hookMessage`` messages and ``custom_message`` entries (an extension's text sent to
  the model) → ``user_message`` of author ``harness`` (``meta``); ``compactionSummary`` /
  ``branchSummary`` messages → ``user_message`` of author ``harness`` (``compaction_summary``);
- ``compaction`` → ``system.compaction`` (harness, ``compaction_summary``), ``branch_summary`` →
  ``system.branch_summary`` (the same), ``model_change`` / ``thinking_level_change`` →
  ``system.config_update``, ``custom`` → ``system.custom``, ``label`` → ``system.label``,
  ``session_info`` → ``system.session_info`` (its ``name`` is the thread's title).

Records: a line."""

from __future__ import annotations

from typing import Any

from threadlab.core.authors import harness_metadata
from threadlab.core.builder import ThreadBuilder
from threadlab.core.model import BaseAction, Thread, Usage
from threadlab.core.problems import short
from threadlab.formats.common.counts import count_of, usage_from
from threadlab.formats.common.json_lines import parsed_lines
from threadlab.formats.common.source import Source
from threadlab.formats.pi.wire import ROLES, TOKENS, is_entry, is_header, texts

KEY = "pi"  # metadata key of what an entry has and ThreadProtocol has no field for
AGENT = "Pi"
MAIN = "pi"
_CONFIG = {"model_change": ("provider", "modelId"), "thinking_level_change": ("thinkingLevel",)}
_SYSTEM = {"compaction": "system.compaction", "branch_summary": "system.branch_summary", "custom": "system.custom", "label": "system.label", "session_info": "system.session_info"}


class PiReader:
    def __init__(self, source: Source) -> None:
        self.source = source
        self.b = ThreadBuilder(None, source=source.name)
        self.main = self.b.agent(AGENT, agent_id=MAIN)
        self.header: dict[str, Any] | None = None
        self.calls: dict[str, str] = {}  # tool call id → tool name
        self.cost = 0.0
        self.costed = False
        self.title = ""
        self.first = True
        self.odd: list[str] = []  # what the current line holds that threadlab does not map

    def read(self) -> Thread:
        for number, value in parsed_lines(self.source, self.b):
            self.line(value, number)
        return self.finish()

    def line(self, value: Any, number: int) -> None:
        first, self.first = self.first, False
        if first and is_header(value):
            self.header = value
            self.b.took()
            return
        if not is_entry(value):
            self.b.kept("unknown-type", f"line {number} is no Pi session entry ({short(value)}); kept as system.unknown_line", line=number)
            self.add("system.unknown_line", value, data=value)
            return
        self.odd = []
        kind = value["type"]
        if kind == "message":
            self.message(value)
        elif kind in _CONFIG:
            self.add("system.config_update", value, data={"changes": {k: value.get(k) for k in _CONFIG[kind]}})
        elif kind == "custom_message":
            self.add("user_message", value, content=_text(value.get("content")), metadata=harness_metadata("meta"))
        else:
            if kind == "session_info" and isinstance(value.get("name"), str):
                self.title = value["name"]
            harness = harness_metadata("compaction_summary") if kind in ("compaction", "branch_summary") else None
            self.add(_SYSTEM[kind], value, data={k: v for k, v in value.items() if k not in ("type", "id", "parentId", "timestamp")}, metadata=harness)
        if self.odd:
            self.b.kept("unknown-type", f"line {number}: " + "; ".join(self.odd), line=number)
        else:
            self.b.took()

    def add(self, kind: str, entry: dict[str, Any], *, first: bool = True, **fields: Any) -> BaseAction:
        """An action of an entry: the entry's first action holds the entry (less the message's
        content, which its actions hold, when they hold all of it)."""
        meta: dict[str, Any] = {"entry": entry} if first else {"part": True}
        more = fields.pop("metadata", None) or {}
        when = entry.get("timestamp") if isinstance(entry.get("timestamp"), str) else None
        return self.b.add(kind, timestamp=when, metadata={**more, KEY: meta}, **fields)

    # --- message entries -----------------------------------------------------------------
    def message(self, entry: dict[str, Any]) -> None:
        message = entry.get("message")
        role = message.get("role") if isinstance(message, dict) else None
        if role not in ROLES:
            self.odd.append(f"a message of role {short(role)}, which threadlab does not map; kept as system.unknown_message")
            self.add("system.unknown_message", entry, data=message)
            return
        assert isinstance(message, dict)
        kept = _without_content(entry) if texts(message.get("content")) is not None or role == "assistant" else entry
        if role == "assistant":
            self.assistant(entry, message)
        elif role == "toolResult":
            call = message.get("toolCallId") if isinstance(message.get("toolCallId"), str) else ""
            name = message.get("toolName") if isinstance(message.get("toolName"), str) else self.calls.get(call, "")
            status = "error" if message.get("isError") is True else "success"
            self.add("tool_return", kept, tool_call_id=call, tool_name=name, status=status, content=_text(message.get("content")))
        elif role == "bashExecution":
            call = f"bash-{entry.get('id')}"
            self.add("tool_call", entry, agent_id=self.main, tool_name="bash", tool_call_id=call, args={"command": message.get("command")}, metadata={"author": "human"})
            status = "error" if message.get("cancelled") is True or (message.get("exitCode") not in (0, None)) else "success"
            self.add("tool_return", entry, first=False, tool_call_id=call, tool_name="bash", status=status, content=message.get("output"))
        elif role == "user":
            content = _text(message.get("content"))
            if not self.title and content.strip():
                self.title = content.strip().splitlines()[0][:80]
            self.add("user_message", kept, content=content)
        else:  # what the harness sends in the user's role
            summary = role in ("compactionSummary", "branchSummary")
            text = message.get("summary") if summary else _text(message.get("content"))
            self.add("user_message", entry, content=text if isinstance(text, str) else "", metadata=harness_metadata("compaction_summary" if summary else "meta"))

    def assistant(self, entry: dict[str, Any], message: dict[str, Any]) -> None:
        model = message.get("model") if isinstance(message.get("model"), str) else None
        provider = message.get("provider") if isinstance(message.get("provider"), str) else None
        meta = {k: v for k, v in (("model_name", model), ("provider_name", provider)) if v is not None}
        stored = _without_content(entry)
        parts = message.get("content") if isinstance(message.get("content"), list) else []
        if not isinstance(message.get("content"), list):
            stored = entry
            self.odd.append(f"an assistant message whose content is {type(message.get('content')).__name__}, not a list of parts; kept in the entry")
        actions: list[BaseAction] = []
        for part in parts:
            kind = part.get("type") if isinstance(part, dict) else None
            first = not actions
            if kind == "text" and isinstance(part.get("text"), str):
                actions.append(self.add("assistant_message", stored, first=first, agent_id=self.main, content=part["text"], metadata=dict(meta)))
            elif kind == "thinking" and isinstance(part.get("thinking"), str):
                signature = part.get("thinkingSignature") if isinstance(part.get("thinkingSignature"), str) else None
                extra = {k: v for k, v in part.items() if k not in ("type", "thinking", "thinkingSignature")}
                actions.append(self.add("thinking", stored, first=first, agent_id=self.main, content=part["thinking"], signature=signature, provider_name=provider or "pi", metadata={**meta, **({"part": extra} if extra else {})}))
            elif kind == "toolCall" and isinstance(part.get("id"), str) and isinstance(part.get("name"), str):
                self.calls[part["id"]] = part["name"]
                actions.append(self.add("tool_call", stored, first=first, agent_id=self.main, tool_name=part["name"], tool_call_id=part["id"], args=part.get("arguments"), metadata=dict(meta)))
            else:
                self.odd.append(f"an assistant content part {short(part)}, which threadlab does not map; kept as system.unknown_part")
                actions.append(self.add("system.unknown_part", stored, first=first, data=part))
        if not actions or all(a.action_type == "system.unknown_part" for a in actions):
            actions.append(self.add("assistant_message", stored, first=not actions, agent_id=self.main, content="", metadata=dict(meta)))
        self.usage(message.get("usage"), actions)

    def usage(self, figures: Any, actions: list[BaseAction]) -> None:
        if not isinstance(figures, dict):
            return
        found = usage_from(figures, TOKENS, "usage.", self.b.problem)
        parts = [count_of(figures.get(k))[0] for k in ("input", "cacheRead", "cacheWrite")]
        if parts[0] is not None:  # all input, the cache's reads and writes included; a figure that is none leaves the sum out
            whole = {**(found.model_dump(exclude_none=True) if found else {}), "input_tokens": sum(p or 0 for p in parts)}
            if all(p is not None or figures.get(k) is None for p, k in zip(parts, ("input", "cacheRead", "cacheWrite"), strict=True)):
                found = Usage(**whole)
        cost = figures.get("cost")
        total = cost.get("total") if isinstance(cost, dict) else None
        if isinstance(total, int | float) and not isinstance(total, bool):
            self.cost += total
            self.costed = True
        if found is None:
            return
        holder = next((a for a in actions if a.action_type == "assistant_message"), None) or next((a for a in actions if a.action_type == "thinking"), actions[0])
        holder.usage = found if holder.action_type != "tool_call" else found.model_dump(exclude_none=True)  # type: ignore[attr-defined]

    # --- the thread ----------------------------------------------------------------------
    def finish(self) -> Thread:
        if self.header is not None:
            self.b.thread_id = self.header["id"]
            self.b.metadata[KEY] = {"header": self.header}
        self.b.title = self.title
        if self.costed:
            self.b.metadata["cost_usd"] = self.cost
        return self.b.build()


def _text(content: Any) -> str:
    """A message's text: a string, or its text parts joined (other parts stay in the entry)."""
    if isinstance(content, str):
        return content
    whole = texts(content)
    if whole is not None:
        return whole
    if isinstance(content, list):
        return "".join(p["text"] for p in content if isinstance(p, dict) and p.get("type") == "text" and isinstance(p.get("text"), str))
    return ""


def _without_content(entry: dict[str, Any]) -> dict[str, Any]:
    """The entry with its message's ``content`` left empty (its actions hold it)."""
    return {**entry, "message": {**entry["message"], "content": None}}


def read_session(source: Source) -> Thread:
    return PiReader(source).read()
