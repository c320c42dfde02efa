"""A Qwen Code session file → one thread (see ``wire.py``), read in the order it was written (a
rewind is a ``system.rewind`` action and what it took back stays: it happened).

A record is a line. ``user`` → a ``user_message`` of its text parts (a ``notification`` / ``cron``
turn the program sent is ``author: harness``, ``task_notification`` / ``task_prompt``);
``assistant`` → ``thinking`` (thought parts), ``assistant_message`` (text parts, with the
record's ``usageMetadata`` as usage; on the first thinking when it has no text, else on its
first call), ``tool_call`` (``functionCall`` parts); ``tool_result`` → a ``tool_return`` per
``functionResponse`` part, its status from ``toolCallResult.status``; ``system`` →
``system.<subtype>`` holding its payload. Each action keeps its record's envelope (``uuid``,
``parentUuid``, ``cwd``, ``version``, ``gitBranch`` ...) under ``metadata.qwen`` so the writer can
give the line back."""

from __future__ import annotations

from typing import Any

from threadlab.core.authors import harness_metadata
from threadlab.core.builder import ThreadBuilder, slug
from threadlab.core.model import BaseAction, Thread, Usage
from threadlab.core.problems import short
from threadlab.formats.common.counts import usage_from
from threadlab.formats.common.json_lines import parsed_lines
from threadlab.formats.common.source import Source
from threadlab.formats.gemini_cli.wire import function_output
from threadlab.formats.qwen_code.wire import is_record

KEY = "qwen"
AGENT = "Qwen Code"
HARNESS = {"notification": "task_notification", "cron": "task_prompt"}
_TOKENS = {
    "promptTokenCount": "input_tokens",
    "candidatesTokenCount": "output_tokens",
    "totalTokenCount": "total_tokens",
    "thoughtsTokenCount": "thinking_tokens",
    "cachedContentTokenCount": "cache_read_tokens",
}
_BODY = ("message", "usageMetadata", "systemPayload", "model", "timestamp", "type")


class SessionReader:
    def __init__(self, source: Source) -> None:
        self.b = ThreadBuilder(None, source=source.name)
        self.source = source
        self.agent_id = self.b.agent(AGENT, agent_id="qwen")
        self.session_id: str | None = None
        self.title = ""

    def read(self) -> Thread:
        for number, value in parsed_lines(self.source, self.b):
            self.record(value, number)
        if self.session_id:
            self.b.thread_id = self.session_id
        self.b.title = self.title
        return self.b.build()

    def record(self, value: Any, number: int) -> None:
        if not is_record(value):
            self.b.kept("unknown-type", f"line {number} is no Qwen Code record ({short(value)}); kept as system.unknown_record", line=number)
            self.b.add("system.unknown_record", data=value)
            return
        if self.session_id is None:
            self.session_id = value["sessionId"]
        envelope = {k: v for k, v in value.items() if k not in _BODY}
        if value["sessionId"] == self.session_id:
            envelope.pop("sessionId")
        kind = value["type"]
        if kind == "system":
            self.b.add(f"system.{slug(str(value.get('subtype') or 'record'))}", timestamp=value.get("timestamp"), data=value.get("systemPayload"), metadata={KEY: {"record": envelope}})
            self.b.took()
            return
        parts = value["message"]["parts"]
        extra = {k: v for k, v in value["message"].items() if k != "parts"}
        if extra:
            envelope["message_extra"] = extra
        first: dict[str, Any] = {"record": envelope}
        actions = self.user(value, parts, first) if kind == "user" else self.assistant(value, parts, first) if kind == "assistant" else self.returns(value, parts, first)
        if not actions:  # a record of no part this reader maps (an empty message)
            actions = [self.b.add(f"system.empty_{kind}", timestamp=value.get("timestamp"), data=parts, metadata={KEY: {**first, "empty": kind}})]
        odd = [p for p in parts if not _known(p)]
        if odd:
            self.b.kept("unknown-type", f"line {number}: {len(odd)} part(s) of a kind threadlab does not map ({short(odd[0])}); kept as qwen_part", line=number)
        else:
            self.b.took()

    def user(self, value: dict[str, Any], parts: list[Any], first: dict[str, Any]) -> list[BaseAction]:
        content = [{"type": "text", "text": p["text"]} if _text(p) else {"type": "qwen_part", "part": p} for p in parts]
        if not content:
            return []
        meta: dict[str, Any] = {KEY: first}
        subtype = value.get("subtype")
        if subtype in HARNESS:
            meta.update(harness_metadata(HARNESS[subtype]))
        elif not self.title:
            text = "".join(p.get("text", "") for p in content).strip()
            self.title = text.splitlines()[0][:80] if text else ""
        return [self.b.add("user_message", timestamp=value.get("timestamp"), content=content, metadata=meta)]

    def assistant(self, value: dict[str, Any], parts: list[Any], first: dict[str, Any]) -> list[BaseAction]:
        when = value.get("timestamp")
        common: dict[str, Any] = {"provider_name": "qwen"}
        if isinstance(value.get("model"), str):
            common["model_name"] = value["model"]
        out: list[BaseAction] = []
        own: dict[str, Any] | None = first
        for index, part in enumerate(parts):
            meta = {**common, KEY: {**(own or {}), "part": index}}
            own = None
            if _text(part) and part.get("thought"):
                rest = {k: v for k, v in part.items() if k not in ("text", "thought")}
                out.append(self.b.add("thinking", timestamp=when, agent_id=self.agent_id, content=part["text"], provider_name="qwen", metadata={**meta, KEY: {**meta[KEY], **({"rest": rest} if rest else {})}}))
            elif _text(part):
                out.append(self.b.add("assistant_message", timestamp=when, agent_id=self.agent_id, content=part["text"], metadata=meta))
            elif type(part) is dict and type(part.get("functionCall")) is dict:
                call = part["functionCall"]
                out.append(self.b.add("tool_call", timestamp=when, agent_id=self.agent_id, tool_name=str(call.get("name", "")), tool_call_id=str(call.get("id", "")), args=call.get("args"), metadata=meta))
            else:
                out.append(self.b.add("system.unknown_part", timestamp=when, data=part, metadata=meta))
        usage = self.usage(value.get("usageMetadata"))
        if usage is not None and out:
            holder = next((a for a in out if a.action_type == "assistant_message"), None) or next((a for a in out if a.action_type == "thinking"), None)
            if holder is not None:
                holder.usage = usage  # type: ignore[attr-defined]
            else:
                out[0].usage = usage.model_dump(exclude_none=True)  # type: ignore[attr-defined]
        return out

    def returns(self, value: dict[str, Any], parts: list[Any], first: dict[str, Any]) -> list[BaseAction]:
        result = value.get("toolCallResult") if type(value.get("toolCallResult")) is dict else {}
        out: list[BaseAction] = []
        own: dict[str, Any] | None = first
        for index, part in enumerate(parts):
            response = part.get("functionResponse") if type(part) is dict else None
            meta = {KEY: {**(own or {}), "part": index}}
            own = None
            if type(response) is not dict:
                out.append(self.b.add("system.unknown_part", timestamp=value.get("timestamp"), data=part, metadata=meta))
                continue
            status = "success" if result.get("status") in ("success", None) else "error"
            out.append(self.b.add("tool_return", timestamp=value.get("timestamp"), tool_call_id=str(response.get("id", "")), tool_name=str(response.get("name", "")), status=status, content=function_output(response.get("response")), metadata=meta))
        return out

    def usage(self, figures: Any) -> Usage | None:
        return usage_from(figures, _TOKENS, "usageMetadata.", self.b.problem)


def _text(part: Any) -> bool:
    return type(part) is dict and isinstance(part.get("text"), str)


def _known(part: Any) -> bool:
    return _text(part) or (type(part) is dict and (type(part.get("functionCall")) is dict or type(part.get("functionResponse")) is dict))


def read_session(source: Source) -> Thread:
    return SessionReader(source).read()
