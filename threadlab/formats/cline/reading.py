"""A Cline / Roo Code task → one thread: the api history's messages are the actions; the UI log
beside it gives what only it holds.

- assistant blocks: ``text`` → ``assistant_message``, ``thinking`` / ``redacted_thinking`` →
  ``thinking``, ``tool_use`` → ``tool_call`` (model and provider from ``modelInfo``);
- user blocks: ``tool_result`` → ``tool_return``; ``image`` → an image part of a
  ``user_message``; ``file`` (the CLI / SDK's ``FileContent``: a file the person named, its
  ``content`` read by the harness, or the error reading it) → a ``user_message`` of
  ``author: harness``, kind ``attachment``, its ``path`` in ``metadata.cline.block``; text → by Cline's own marks (``wire.text_kind``): what the person typed
  (``<task>``, ``<feedback>``, ``<answer>``, ``<user_message>``) is a ``user_message``; a
  ``[<tool> ...] Result:`` text answering a ``tool_use`` of the message before (its name first
  in the bracket, in order) is that call's ``tool_return`` (``metadata.cline.derived``: Cline
  answers native tool calls in text); any other text is a ``user_message`` with ``author:
  harness`` and its kind (``environment_context``, ``attachment``, ``meta``,
  ``system_reminder``, ``tool_result`` for a result no call is open for);
- an unknown block is ``system.unknown_block`` with an ``unknown-type`` problem.

Usage: an ``api_req_started`` record of the UI log says ``conversationHistoryIndex`` (the
history's last index when it was said); its answer is the assistant message two after it
(the request's user message is added first), and its tokens go there. A message that no
record answers keeps its own ``metrics.tokens``; an assistant message without ``ts`` (older
releases) takes the time of the request it answered. A UI record the history does not hold
(``ui.UI_ONLY``) is a ``system.*`` action after the history message its index names; the
rest are repeats. Times: each message's ``ts`` (ms); ``task_metadata.json`` goes to the
thread's ``metadata.cline.task_metadata``."""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from threadlab.core.authors import harness_metadata
from threadlab.core.builder import ThreadBuilder
from threadlab.core.model import BaseAction, Usage
from threadlab.core.problems import short
from threadlab.formats.cline.ui import UiReader, kind_of, seconds
from threadlab.formats.cline.usage import metrics_usage, request_usage
from threadlab.formats.cline.wire import (
    AGENT,
    HISTORY,
    KEY,
    UI,
    cli_text_kind,
    is_message,
    is_ui_record,
    json_text,
    result_names,
    text_kind,
)

_MESSAGE_KEEP = ("modelInfo", "metrics", "id")


def model_of(info: Any) -> dict[str, str]:
    """``modelInfo`` as the extension writes it (``modelId``, ``providerId``) or the CLI (``id``,
    ``provider``)."""
    if not isinstance(info, dict):
        return {}
    name, provider = info.get("modelId", info.get("id")), info.get("providerId", info.get("provider"))
    return {"model_name": name, "provider_name": provider} if isinstance(name, str) and isinstance(provider, str) else {}


def _image(block: dict[str, Any]) -> dict[str, Any]:
    source = block.get("source") if isinstance(block.get("source"), dict) else {}
    if source.get("type") == "url":
        return {"type": "image", "image_url": source.get("url")}
    return {"type": "image", "image_base64": source.get("data"), "media_type": source.get("media_type")}


class TaskReader:
    def __init__(self, b: ThreadBuilder, history: list[Any], ui: list[Any] | None, name: str = HISTORY, *, cli: bool = False) -> None:
        self.b = b
        self.cli = cli  # a CLI session's messages: unmarked text is the person's (``wire.cli_text_kind``)
        self.name = name  # the file, as problems name it
        self.history = history
        self.ui = ui
        self.agent = b.agent(AGENT, agent_id=AGENT)
        self.uis = UiReader(b, self.agent)
        self.pending: list[tuple[str, str]] = []
        self.times: dict[int, Any] = {}  # a history message without ts: the time of the request it answered

    def read(self) -> None:
        answered, by_index = self._plan()
        for position in by_index.get(-1, []):
            self._ui(position, answered)
        for index, message in enumerate(self.history):
            self.message(index, message, answered.get(index))
            for position in by_index.get(index, []):
                self._ui(position, answered)
        for position in by_index.get(None, []):
            self._ui(position, answered)
        if self.uis.cost:
            self.b.metadata["cost_usd"] = self.uis.cost

    def _plan(self) -> tuple[dict[Any, Any], dict[int | None, list[int]]]:
        """Which history message each ``api_req_started`` answers (index → its usage, and the
        record positions so used), and after which message each UI record goes."""
        answered: dict[Any, Any] = {}
        by_index: dict[int | None, list[int]] = defaultdict(list)
        for position, record in enumerate(self.ui or [], 1):
            index = record.get("conversationHistoryIndex") if isinstance(record, dict) else None
            ok = type(index) is int and -1 <= index < len(self.history)
            by_index[index if ok else None].append(position)
            if ok and is_ui_record(record) and kind_of(record) == "say:api_req_started":
                target = index + 2
                info = json_text(record)
                if info is not None and target < len(self.history) and is_message(self.history[target]) and self.history[target]["role"] == "assistant" and target not in answered:
                    self.times.setdefault(target, seconds(record.get("ts")))
                    usage = request_usage(self.b, info, f"record {position} of {UI}", position)
                    if usage is not None:
                        answered[target] = usage
                        answered[("record", position)] = True
        return answered, by_index

    def _ui(self, position: int, answered: dict[Any, Any]) -> None:
        assert self.ui is not None
        self.uis.beside(self.ui[position - 1], position, bool(answered.get(("record", position))))

    def message(self, index: int, message: Any, usage: Usage | None) -> None:
        line = index + 1
        if not is_message(message):
            self.b.failed("schema", f"message {line} of {self.name} is no message with a role and content: {short(message)}", line=line)
            return
        self.b.took()
        at = seconds(message.get("ts")) or self.times.get(index)
        meta = {KEY: {"message": line, **{k: message[k] for k in _MESSAGE_KEEP if k in message}}}
        content = message["content"]
        blocks = [{"type": "text", "text": content}] if isinstance(content, str) else content
        if message["role"] == "assistant":
            self.assistant(blocks, at, meta, usage or metrics_usage(self.b, message.get("metrics"), f"message {line} of {self.name}", line), line)
        else:
            self.user(blocks, at, meta, line)

    def assistant(self, blocks: list[Any], at: Any, meta: dict[str, Any], usage: Usage | None, line: int) -> None:
        model = model_of(meta[KEY].get("modelInfo"))
        made: list[BaseAction] = []
        self.pending = []
        for block in blocks:
            kind = block.get("type") if isinstance(block, dict) else None
            if kind == "text":
                made.append(self.b.add("assistant_message", timestamp=at, agent_id=self.agent, content=block.get("text", ""), metadata={**meta, **model}))
            elif kind in ("thinking", "redacted_thinking"):
                extra = {k: v for k, v in block.items() if k not in ("type", "thinking")}
                made.append(self.b.add("thinking", timestamp=at, agent_id=self.agent, content=block.get("thinking"), provider_name=model.get("provider_name", AGENT), metadata={KEY: {**meta[KEY], "block": extra}, **model}))
            elif kind == "tool_use":
                call_id, name = str(block.get("id")), block.get("name") if isinstance(block.get("name"), str) else ""
                self.pending.append((call_id, name))
                made.append(self.b.add("tool_call", timestamp=at, agent_id=self.agent, tool_name=name, tool_call_id=call_id, args=block.get("input"), metadata={**meta, **model}))
            else:
                self.unknown(block, at, meta, line)
        if usage is not None and made:
            holder = next((a for a in made if a.action_type == "assistant_message"), made[0])
            holder.usage = usage if holder.action_type in ("assistant_message", "thinking") else usage.model_dump(exclude_none=True)  # type: ignore[attr-defined]
        elif usage is not None:
            self.b.problem("usage", f"message {line} of {self.name}: usage {short(usage.model_dump(exclude_none=True))} on a message with no action to hold it", line=line)

    def user(self, blocks: list[Any], at: Any, meta: dict[str, Any], line: int) -> None:
        for block in blocks:
            kind = block.get("type") if isinstance(block, dict) else None
            if kind == "text" and isinstance(block.get("text"), str):
                self.text(block["text"], at, meta)
            elif kind == "tool_result":
                call_id = str(block.get("tool_use_id"))
                name = next((n for c, n in self.pending if c == call_id), None)
                self.pending = [p for p in self.pending if p[0] != call_id]
                status = "error" if block.get("is_error") is True else "success"
                self.b.add("tool_return", timestamp=at, tool_call_id=call_id, tool_name=name, status=status, content=block.get("content"), metadata=meta)
            elif kind == "image":
                self.b.add("user_message", timestamp=at, content=[_image(block)], metadata=meta)
            elif kind == "file" and isinstance(block.get("content"), str):
                extra = {k: v for k, v in block.items() if k not in ("type", "content")}
                self.b.add("user_message", timestamp=at, content=block["content"], metadata={**meta, KEY: {**meta[KEY], "block": {"type": "file", **extra}}, **harness_metadata("attachment")})
            else:
                self.unknown(block, at, meta, line)
        self.pending = []

    def text(self, text: str, at: Any, meta: dict[str, Any]) -> None:
        kind = text_kind(text)
        if self.cli and kind == "system_reminder":
            kind = cli_text_kind(text)
        if kind == "tool_result":
            bracket = result_names(text) or ""
            call = next(((c, n) for c, n in self.pending if n and (bracket == n or bracket.startswith(n + " "))), None)
            if call is not None:
                self.pending.remove(call)
                self.b.add("tool_return", timestamp=at, tool_call_id=call[0], tool_name=call[1], content=text, metadata={KEY: {**meta[KEY], "derived": True}})
                return
        extra = harness_metadata(kind) if kind is not None else {}
        self.b.add("user_message", timestamp=at, content=text, metadata={**meta, **extra})

    def unknown(self, block: Any, at: Any, meta: dict[str, Any], line: int) -> None:
        action = self.b.add("system.unknown_block", timestamp=at, data=block, metadata=meta)
        kind = block.get("type") if isinstance(block, dict) else type(block).__name__
        self.b.problem("unknown-type", f"message {line} of {self.name}: a block of type {short(kind)} Cline's reader does not map; kept as system.unknown_block", sequence=action.sequence, line=line)
