"""Crush sessions (``store.py``) → threads: one thread per session; a session an agent tool
started (``parent_session_id``) is a thread of its own whose ``parent_thread_id`` names its
parent's.

A message's ``parts`` become actions in their order:

- ``text`` → ``user_message`` (role ``user``; its texts joined, once) or ``assistant_message``;
- ``reasoning`` → ``thinking`` (``signature`` kept); ``tool_call`` → ``tool_call`` (``input`` is
  JSON text: its value, or the text as it came when it is not JSON);
- ``tool_result`` → ``tool_return`` (``is_error`` an error; ``content`` the content);
- ``shell_command`` (a command the person ran) → a ``bash`` ``tool_call`` of author ``human`` and
  its ``tool_return``;
- ``finish`` (why the model stopped, and when) is kept on the message's first action
  (``metadata.crush.finish``); ``image_url`` / ``binary`` parts are kept there too (``attachments``);
- a message of role ``system`` is a ``system.prompt`` holding its parts; an unknown part type is
  ``system.unknown_part``, an unknown role ``system.unknown_message``, each kept with an
  ``unknown-type`` problem; parts that are not a JSON array fail the message (``json``).

Crush keeps no usage per message: the session's ``prompt_tokens`` / ``completion_tokens`` are the
thread's ``usage_total`` and its ``cost`` the thread's ``cost_usd``. ``model`` / ``provider`` are
each assistant action's ``metadata.model_name`` / ``provider_name``.

Records: a session row, a message row."""

from __future__ import annotations

from typing import Any

import orjson

from threadlab.core.builder import ThreadBuilder
from threadlab.core.model import Thread
from threadlab.core.problems import short
from threadlab.formats.common.counts import count_of
from threadlab.formats.crush.store import Row, Session

KEY = "crush"
AGENT = "Crush"
MAIN = "crush"
_ATTACHED = frozenset({"image_url", "binary"})
_SESSION_KEEP = ("parent_session_id", "message_count", "updated_at", "summary_message_id", "todos")


def _json_or_text(value: Any) -> Any:
    if not isinstance(value, str):
        return value
    try:
        return orjson.loads(value)
    except orjson.JSONDecodeError:
        return value


class SessionReader:
    def __init__(self, session: Session, source: str) -> None:
        self.session = session
        self.source = source
        values = session.row.values if session.row is not None else {}
        meta = {k: values[k] for k in _SESSION_KEEP if values.get(k) not in (None, "")}
        self.b = ThreadBuilder(session.id, title=str(values.get("title") or ""), metadata={KEY: meta} if meta else None, parent_thread_id=session.parent, source=source)
        self.main = self.b.agent(AGENT, agent_id=MAIN)
        self.odd: list[str] = []
        self.calls: dict[str, str] = {}  # tool call id → tool name (early releases leave a result's name empty)

    def read(self) -> Thread:
        row = self.session.row
        if row is not None:
            self.totals(row)
            self.b.took()
        for message in self.session.messages:
            self.message(message)
        return self.b.build()

    def totals(self, row: Row) -> None:
        found = {ours: count_of(row.values.get(theirs)) for theirs, ours in (("prompt_tokens", "input_tokens"), ("completion_tokens", "output_tokens"))}
        for ours, (_, why) in found.items():
            if why:
                self.b.problem("usage", f"row {row.row_id} of table sessions: {ours} {why}", line=row.row_id)
        totals = {ours: count for ours, (count, _) in found.items() if count is not None}
        if any(totals.values()):
            self.b.metadata["usage_total"] = totals
            self.b.metadata["usage_total_note"] = "Crush's own totals for the session (sessions.prompt_tokens / completion_tokens); its messages hold no usage"
        cost = row.values.get("cost")
        if isinstance(cost, int | float) and not isinstance(cost, bool) and cost:
            self.b.metadata["cost_usd"] = cost

    # --- one message row -----------------------------------------------------------------
    def message(self, row: Row) -> None:
        where = f"row {row.row_id} of table messages"
        values = row.values
        parts = _json_or_text(values.get("parts"))
        if not isinstance(parts, list):
            self.b.failed("json", f"{where}: its parts are {short(parts)}, not a JSON array of parts", line=row.row_id)
            return
        self.odd = [f"its text columns {', '.join(row.undecodable)} are not UTF-8 (kept with backslash escapes)"] if row.undecodable else []
        meta: dict[str, Any] = {k: values[k] for k in ("id", "role", "created_at", "updated_at", "finished_at", "is_summary_message") if values.get(k) is not None}
        when = values.get("created_at")
        role = values.get("role")
        first = len(self.b.actions)
        kept: dict[str, Any] = {}
        if role == "system":
            self.b.add("system.prompt", timestamp=when, data=parts)
        elif role in ("user", "assistant", "tool"):
            kept = self.parts(role, parts, when, values)
        else:
            self.odd.append(f"a message of role {short(role)}, which threadlab does not map; kept as system.unknown_message")
            self.b.add("system.unknown_message", timestamp=when, data={"role": role, "parts": parts})
        if len(self.b.actions) == first:  # no part made an action (an empty, cut-off, canceled or failed answer)
            answer = {"agent_id": self.main, "metadata": _model(values) or None} if role != "user" else {}  # the model it asked, as other answers name it
            self.b.add("assistant_message" if role != "user" else "user_message", timestamp=when, content="", **answer)
        held = self.b.actions[first]
        held.metadata = {**(held.metadata or {}), KEY: {**meta, **kept}}
        if self.odd:
            self.b.kept("unknown-type", f"{where}: " + "; ".join(self.odd), line=row.row_id)
        else:
            self.b.took()

    def parts(self, role: str, parts: list[Any], when: Any, values: dict[str, Any]) -> dict[str, Any]:
        """The actions of a message's parts; what no action holds (its finish, its attachments)
        is returned for the message's first action."""
        model = _model(values)
        kept: dict[str, Any] = {}
        texts: list[str] = []
        for part in parts:
            kind = part.get("type") if isinstance(part, dict) else None
            data = part.get("data") if isinstance(part, dict) and isinstance(part.get("data"), dict) else {}
            if kind == "text" and isinstance(data.get("text"), str):
                if role == "user":
                    texts.append(data["text"])
                else:
                    self.b.add("assistant_message", timestamp=when, agent_id=self.main, content=data["text"], metadata=dict(model) or None)
            elif kind == "reasoning" and isinstance(data.get("thinking"), str):
                signature = data.get("signature") if isinstance(data.get("signature"), str) and data["signature"] else None
                self.b.add("thinking", timestamp=when, agent_id=self.main, content=data["thinking"], signature=signature, provider_name=model.get("provider_name", "crush"), metadata=dict(model) or None)
            elif kind == "tool_call" and isinstance(data.get("id"), str):
                self.calls[data["id"]] = str(data.get("name") or "")
                self.b.add("tool_call", timestamp=when, agent_id=self.main, tool_name=str(data.get("name") or ""), tool_call_id=data["id"], args=_json_or_text(data.get("input")), metadata=dict(model) or None)
            elif kind == "tool_result" and isinstance(data.get("tool_call_id"), str):
                self.b.add("tool_return", timestamp=when, tool_call_id=data["tool_call_id"], tool_name=str(data.get("name") or self.calls.get(data["tool_call_id"], "")), status="error" if data.get("is_error") is True else "success", content=data.get("content"))
            elif kind == "shell_command" and isinstance(data.get("command"), str):
                call = f"shell-{values.get('id')}-{len(self.b.actions)}"
                self.b.add("tool_call", timestamp=when, agent_id=self.main, tool_name="bash", tool_call_id=call, args={"command": data["command"]}, metadata={"author": "human"})
                status = "success" if data.get("exit_code") in (0, None) else "error"
                self.b.add("tool_return", timestamp=when, tool_call_id=call, tool_name="bash", status=status, content=data.get("output"))
            elif kind == "finish":
                kept["finish"] = data
            elif kind in _ATTACHED:
                kept.setdefault("attachments", []).append(part)
            else:
                self.odd.append(f"a part {short(part)}, which threadlab does not map; kept as system.unknown_part")
                self.b.add("system.unknown_part", timestamp=when, data=part)
        if texts or (role == "user" and kept.get("attachments")):
            self.b.add("user_message", timestamp=when, content="".join(texts))
        return kept


def _model(values: dict[str, Any]) -> dict[str, Any]:
    """A message row's ``model`` / ``provider`` columns as an action's ``model_name`` / ``provider_name``."""
    return {k: values[c] for c, k in (("model", "model_name"), ("provider", "provider_name")) if isinstance(values.get(c), str) and values[c]}


def read_sessions(sessions: list[Session], source: str) -> list[Thread]:
    return [SessionReader(s, source).read() for s in sessions]
