"""A Gemini CLI session file → one thread (see ``wire.py`` for the records).

The file is read as the log it is: each message once, where it first appeared, in its last copy
(a message is written again when its tokens or tool calls arrive); a ``$set`` of the history
adds only the messages it is the first to name (on a resume it repeats every earlier message,
stripped of its tool calls, thoughts and tokens); a ``$rewindTo`` is a ``system.rewind`` action
and the messages it took back stay (the model was sent them, and their tokens were spent); a
metadata line met again (``--resume``) is a ``system.session_resumed`` action. The file a
resume left beside the session's own (``layout.py``) is read with it: its metadata line is the
``system.session_resumed`` action, placed where the resumed process went on in the session's file
(its ``$set`` of ``sessionId``), and its messages, repeats of the session's, are accounted for
as such; a file of another session id is a thread of its own.

A ``gemini`` message becomes its thoughts (``thinking``), its text (``assistant_message``, with
the message's ``tokens`` as usage; on the first thinking when it has no text, else on its first
tool call), and its ``toolCalls``, each a ``tool_call`` and, once answered, the ``tool_return``
of its ``result``. From 0.3x on, the ``functionResponse`` parts are also sent back as a ``user``
message: a part answering a call already returned repeats it; one that answers none is its
tool's return. The ``<session_context>`` message the CLI writes first is a ``user_message`` of
``author: harness`` (``environment_context``). ``info`` / ``error`` / ``warning`` messages are
``system.info`` / ``system.error`` / ``system.warning`` actions holding their content.

Records: a JSON Lines line; in the JSON generation, a message (the object itself when it has
none)."""

from __future__ import annotations

from typing import Any

from threadlab.core.authors import harness_metadata
from threadlab.core.builder import ThreadBuilder
from threadlab.core.model import BaseAction, Thread, Usage
from threadlab.core.problems import short
from threadlab.formats.common.counts import usage_from
from threadlab.formats.common.json_lines import head_values, parsed_lines
from threadlab.formats.common.source import Source
from threadlab.formats.gemini_cli.wire import (
    MESSAGE_TYPES,
    SESSION_KEYS,
    function_output,
    is_message,
    is_metadata,
    is_rewind,
    is_session_object,
    is_update,
)

KEY = "gemini"  # metadata key of what a record has and ThreadProtocol has no field for
AGENT = "Gemini"
PROVIDER = "google"
CONTEXT_TAG = "<session_context>"
_USER_KEYS = frozenset({"id", "timestamp", "type", "content"})
_GEMINI_KEYS = frozenset({"id", "timestamp", "type", "content", "thoughts", "toolCalls", "tokens", "model"})
_CALL_KEYS = frozenset({"id", "name", "args", "result", "timestamp"})
_TOKENS = {"input": "input_tokens", "output": "output_tokens", "total": "total_tokens", "thoughts": "thinking_tokens", "cached": "cache_read_tokens"}


class SessionReader:
    def __init__(self, source: Source) -> None:
        self.source = source
        self.b = ThreadBuilder(None, source=source.name)
        self.agent_id = self.b.agent(AGENT, agent_id="gemini")
        self.session: dict[str, Any] = {}
        self.order: list[tuple[str, Any, int]] = []  # (kind, message id or record, line)
        self.messages: dict[str, dict[str, Any]] = {}
        self.returned: set[str] = set()
        self.called: set[str] = set()
        self.title = ""
        self.generation = "jsonl"
        self.in_part = False  # reading a file a resume left beside the session's (``read_part``)
        self.resumed_at: int | None = None  # where in ``order`` the resumed process took over

    # --- reading the records -------------------------------------------------------------
    def read(self) -> Thread:
        self.read_records()
        return self.finish()

    def read_records(self) -> None:
        whole = self.source.try_json() if self.source.head(1)[:1] in (b"{", b" ", b"\n", b"\r", b"\t", b"\xef") else None
        if is_session_object(whole):
            self.read_object(whole)
        else:
            for number, value in parsed_lines(self.source, self.b):
                self.record(value, number)

    def read_object(self, obj: dict[str, Any]) -> None:
        self.generation = "json"
        self.session = {k: v for k, v in obj.items() if k != "messages"}
        if not obj["messages"]:
            self.b.took()
        for index, message in enumerate(obj["messages"], 1):
            if is_message(message):
                self.message(message, index)
            else:
                self.order.append(("unknown", message, index))

    def record(self, value: Any, number: int) -> None:
        if is_message(value):
            self.message(value, number)
        elif is_update(value):
            self.update(value["$set"], number)
        elif is_rewind(value):
            self.order.append(("rewind", value, number))
        elif is_metadata(value):
            if self.session:
                self.order.append(("resume", value, number))
            else:
                self.session = dict(value)
                self.b.took()
        else:
            self.order.append(("unknown", value, number))

    def read_part(self, source: Source) -> None:
        """The records of a file a resume left beside the session's, at the resume."""
        self.in_part = True
        at = self.resumed_at if self.resumed_at is not None else len(self.order)
        before = len(self.order)
        for number, value in parsed_lines(source, self.b):
            self.record(value, number)
        added = self.order[before:]
        del self.order[before:]
        self.order[at:at] = added
        self.in_part = False

    def message(self, message: dict[str, Any], number: int) -> None:
        if message["id"] in self.messages:
            if not self.in_part:  # (the resume's own file repeats a message the session holds as it is now)
                self.messages[message["id"]] = message  # a later copy: the message as it now is
            self.b.took()
            return
        self.messages[message["id"]] = message
        self.order.append(("message", message["id"], number))  # its record is accounted for when it is converted

    def update(self, changes: dict[str, Any], number: int) -> None:
        for key, value in changes.items():
            if key == "messages" and isinstance(value, list):
                for message in value:
                    if is_message(message) and message["id"] not in self.messages:
                        self.messages[message["id"]] = message
                        self.order.append(("message", message["id"], 0))
            elif not self.in_part or key not in self.session:  # the session's own file says how it is now
                if key == "sessionId" and not self.in_part and self.resumed_at is None:
                    self.resumed_at = len(self.order)
                self.session[key] = value
        self.b.took()

    # --- converting ----------------------------------------------------------------------
    def finish(self) -> Thread:
        for kind, item, number in self.order:
            if kind == "message":
                self.convert(self.messages[item], number)
            elif kind == "rewind":
                self.b.add("system.rewind", data=item)
                self.b.took()
            elif kind == "resume":
                self.b.add("system.session_resumed", timestamp=item.get("startTime"), data=item)
                self.b.took()
            else:
                where = f"line {number}" if self.generation == "jsonl" else f"message {number}"
                self.b.kept("unknown-type", f"{where} is no Gemini CLI record ({_what(item)}); kept as system.unknown_record", line=number)
                self.b.add("system.unknown_record", data=item)
        if isinstance(self.session.get("sessionId"), str):
            self.b.thread_id = self.session["sessionId"]
        self.b.title = self.title
        meta: dict[str, Any] = {"generation": self.generation}
        meta.update({k: self.session[k] for k in SESSION_KEYS if k in self.session and k != "sessionId"})
        other = {k: v for k, v in self.session.items() if k not in SESSION_KEYS}
        if other:
            meta["other"] = other
        self.b.metadata[KEY] = meta
        return self.b.build()

    def convert(self, message: dict[str, Any], number: int) -> None:
        kind = message["type"]
        counted = number > 0  # a message first named by a $set has its record counted there
        if kind == "user":
            kept = self.user(message)
        elif kind == "gemini":
            kept = self.gemini(message)
        elif kind in MESSAGE_TYPES:
            extra = {k: v for k, v in message.items() if k not in _USER_KEYS}
            self.b.add(f"system.{kind}", timestamp=message.get("timestamp"), data=message.get("content"), metadata={KEY: _meta(message, extra)})
            kept = None
        else:
            self.b.add("system.unknown_message", timestamp=message.get("timestamp"), data=message, metadata={KEY: {"message_id": message["id"]}})
            kept = f"a message of type {short(kind)}, which threadlab does not map; kept as system.unknown_message"
        if not counted:
            return
        where = f"line {number}" if self.generation == "jsonl" else f"message {number}"
        if kept:
            self.b.kept("unknown-type", f"{where}: {kept}", line=number)
        else:
            self.b.took()

    def user(self, message: dict[str, Any]) -> str | None:
        when, content = message.get("timestamp"), message.get("content")
        extra = {k: v for k, v in message.items() if k not in _USER_KEYS}
        parts: list[Any] = [{"text": content}] if isinstance(content, str) else content if isinstance(content, list) else []
        texts: list[dict[str, Any]] = []
        odd: list[Any] = []
        for part in parts:
            if type(part) is dict and isinstance(part.get("text"), str) and len(part) == 1:
                texts.append({"type": "text", "text": part["text"]})
            elif type(part) is dict and type(part.get("functionResponse")) is dict:
                self.function_response(part["functionResponse"], when, message["id"])
            else:
                odd.append(part)
                texts.append({"type": "gemini_part", "part": part})
        if not texts and parts:
            return None
        body: Any = content if isinstance(content, str) else texts
        meta: dict[str, Any] = {KEY: _meta(message, extra)}
        text = content if isinstance(content, str) else "".join(t.get("text", "") for t in texts)
        if text.lstrip().startswith(CONTEXT_TAG):
            meta.update(harness_metadata("environment_context"))
        elif not self.title and text.strip():
            self.title = text.strip().splitlines()[0][:80]
        if not isinstance(content, (str, list)):
            meta[KEY]["content"] = content
        self.b.add("user_message", timestamp=when, content=body, metadata=meta)
        return f"{len(odd)} part(s) of a kind threadlab does not map ({_what(odd[0])}); kept as gemini_part" if odd else None

    def function_response(self, response: dict[str, Any], when: Any, message_id: str) -> None:
        call_id = response.get("id")
        if isinstance(call_id, str) and call_id in self.returned:
            return  # it repeats a tool call's result
        name = response.get("name") if isinstance(response.get("name"), str) else ""
        self.b.add(
            "tool_return",
            timestamp=when,
            tool_call_id=call_id if isinstance(call_id, str) else "",
            tool_name=name,
            content=function_output(response.get("response")),
            metadata={KEY: {"message_id": message_id, "from": "functionResponse"}},
        )
        if isinstance(call_id, str):
            self.returned.add(call_id)

    def gemini(self, message: dict[str, Any]) -> str | None:
        when, content = message.get("timestamp"), message.get("content")
        extra = {k: v for k, v in message.items() if k not in _GEMINI_KEYS}
        model = message.get("model")
        common: dict[str, Any] = {"provider_name": PROVIDER}
        if isinstance(model, str):
            common["model_name"] = model
        usage = self.usage(message.get("tokens"))
        first = True
        actions: list[BaseAction] = []

        def meta(**more: Any) -> dict[str, Any]:
            nonlocal first
            own = _meta(message, extra) if first else {"message_id": message["id"]}
            first = False
            return {**common, KEY: {**own, **more}}

        thoughts = message.get("thoughts")
        for thought in thoughts if isinstance(thoughts, list) else []:
            if type(thought) is dict:
                rest = {k: v for k, v in thought.items() if k not in ("description", "timestamp")}
                actions.append(self.b.add("thinking", timestamp=thought.get("timestamp") or when, agent_id=self.agent_id, content=thought.get("description"), provider_name=PROVIDER, metadata=meta(thought=rest)))
            else:
                actions.append(self.b.add("thinking", timestamp=when, agent_id=self.agent_id, content=None, provider_name=PROVIDER, metadata=meta(thought_value=thought)))
        text, calls = _gemini_content(content)
        if text:
            body = content if isinstance(content, str) else text
            actions.append(self.b.add("assistant_message", timestamp=when, agent_id=self.agent_id, content=body, metadata=meta(**({} if isinstance(content, str) else {"parts": True}))))
        for call in calls:
            call_id = call.get("id")
            if isinstance(call_id, str) and call_id in self.called:
                continue
            actions.append(self.b.add("tool_call", timestamp=when, agent_id=self.agent_id, tool_name=str(call.get("name", "")), tool_call_id=call_id if isinstance(call_id, str) else "", args=call.get("args"), metadata=meta(from_content=True)))
            if isinstance(call_id, str):
                self.called.add(call_id)
        tool_calls = message.get("toolCalls")
        for call in tool_calls if isinstance(tool_calls, list) else []:
            actions.extend(self.tool_call(call, when, meta, message["id"]))
        if not actions:  # an empty message (a turn that said nothing): kept as an empty answer
            actions.append(self.b.add("assistant_message", timestamp=when, agent_id=self.agent_id, content="", metadata=meta()))
        if usage is not None:
            holder = next((a for a in actions if a.action_type == "assistant_message"), None) or next((a for a in actions if a.action_type == "thinking"), None)
            if holder is not None:
                holder.usage = usage  # type: ignore[attr-defined]
            else:  # a message of tool calls only: its first call holds the figures (as Codex's do)
                actions[0].usage = usage.model_dump(exclude_none=True)  # type: ignore[attr-defined]
        return None

    def tool_call(self, call: Any, when: Any, meta: Any, message_id: str) -> list[BaseAction]:
        if type(call) is not dict:
            return [self.b.add("system.unknown_tool_call", timestamp=when, data=call, metadata=meta())]
        call_id = call.get("id") if isinstance(call.get("id"), str) else ""
        name = call.get("name") if isinstance(call.get("name"), str) else ""
        rest = {k: v for k, v in call.items() if k not in _CALL_KEYS}
        out = [self.b.add("tool_call", timestamp=call.get("timestamp") or when, agent_id=self.agent_id, tool_name=name, tool_call_id=call_id, args=call.get("args"), metadata=meta(call=rest))]
        self.called.add(call_id)
        result = call.get("result")
        if result is None or call_id in self.returned:
            return out
        status = call.get("status")
        response = result[0].get("functionResponse") if isinstance(result, list) and len(result) == 1 and type(result[0]) is dict else None
        content = function_output(response.get("response")) if type(response) is dict and response.get("id") == call_id and response.get("name") == name and len(response) == 3 else result
        mark = {"message_id": message_id, "from": "toolCalls"} if content is not result else {"message_id": message_id, "from": "toolCalls", "raw_result": True}
        out.append(
            self.b.add(
                "tool_return",
                timestamp=call.get("timestamp") or when,
                tool_call_id=call_id,
                tool_name=name,
                status="success" if status in ("success", None) else "error",
                content=content,
                metadata={KEY: mark},
            )
        )
        self.returned.add(call_id)
        return out

    def usage(self, tokens: Any) -> Usage | None:
        return usage_from(tokens, _TOKENS, "tokens.", self.b.problem)


def _meta(message: dict[str, Any], extra: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {"message_id": message["id"]}
    if "timestamp" not in message:
        out["no_timestamp"] = True
    if extra:
        out["extra"] = extra
    return out


def _gemini_content(content: Any) -> tuple[str, list[dict[str, Any]]]:
    """The text of a gemini message's content and the function calls among its parts (only a
    history ``$set`` writes parts there)."""
    if isinstance(content, str):
        return content, []
    text, calls = [], []
    for part in content if isinstance(content, list) else []:
        if type(part) is dict and isinstance(part.get("text"), str) and not part.get("thought"):
            text.append(part["text"])
        elif type(part) is dict and type(part.get("functionCall")) is dict:
            calls.append(part["functionCall"])
    return "".join(text), calls


def _what(value: Any) -> str:
    if type(value) is dict:
        return f"an object with keys {', '.join(list(value)[:5])}"
    return type(value).__name__


def read_session(source: Source, parts: list[Source] | None = None) -> list[Thread]:
    """The session of ``source`` with the files a resume left beside it (``parts``: those of its
    session id; a part of another id is a thread of its own)."""
    reader = SessionReader(source)
    reader.read_records()
    others: list[Thread] = []
    for part in parts or []:
        first = head_values(part, 1)
        if reader.generation == "jsonl" and first and is_metadata(first[0]) and first[0].get("sessionId") == reader.session.get("sessionId"):
            reader.read_part(part)
        else:
            others.append(SessionReader(part).read())
    return [reader.finish(), *others]
