"""A mini-swe-agent trajectory → one thread (see ``wire.py`` for the file).

``system`` → ``system.prompt``; ``user`` → ``user_message`` (the first is the task; one that
answers a model message with no command to run is the harness's format error or timeout notice,
``author: harness``, ``harness: meta``: 2.x marks it ``extra.interrupt_type``, 1.x not at all); ``assistant`` → its thinking (``thinking_blocks`` or ``reasoning_content``: ``thinking``), its text (``assistant_message``, with ``extra.response.usage``
as usage; an answer of calls only has it on its first call) and its calls; ``tool`` → ``tool_return``; ``exit`` → ``system.exit``.

Tool calls. A tool-calling answer's ``tool_calls`` are its calls. A text-based answer runs its one
fenced command: the reader surfaces it as a ``tool_call`` of ``bash`` (args ``{"command": ...}``,
id ``mswea-<message>-<k>``) and the next ``user`` message as its ``tool_return`` (content as the
model read it), both marked ``metadata.mini_swe_agent.derived`` (the call is not a message of the
file: the assistant's text keeps the whole content, the command inside it). Users want tool-call
frames for these agents, and the derived pair is how the agent itself ran it. A return's status
is ``error`` when its exit code (``extra.returncode``, or 1.x's ``<returncode>``) is not 0.

The Responses API models' items are read as the Chat messages they stand for (``responses.py``).

Records: a message (the object itself when it holds none)."""

from __future__ import annotations

from typing import Any

from threadlab.core.authors import harness_metadata
from threadlab.core.builder import ThreadBuilder
from threadlab.core.model import Thread, Usage
from threadlab.core.problems import short
from threadlab.formats.common.arguments import parsed_arguments
from threadlab.formats.common.counts import counts_as
from threadlab.formats.common.source import Source
from threadlab.formats.mini_swe_agent.responses import as_chat
from threadlab.formats.mini_swe_agent.wire import RETURNCODE, ROLES, commands_of, thoughts_of

KEY = "mini_swe_agent"
AGENT = "mini-swe-agent"
MAIN = "main"
PROVIDER = "litellm"  # the thinking litellm hands back (thinking_blocks, reasoning_content), whichever provider gave it
_USAGE = {"prompt_tokens": "input_tokens", "completion_tokens": "output_tokens", "total_tokens": "total_tokens"}


class TrajectoryReader:
    def __init__(self, source: Source, obj: dict[str, Any]) -> None:
        self.obj = obj
        self.b = ThreadBuilder(None, source=source.name)
        self.agent = self.b.agent(AGENT, agent_id=MAIN)
        self.pending: list[tuple[str, str]] = []  # derived calls waiting for their observation: (id, name)
        self.names: dict[str, str] = {}
        self.title = ""
        self.when: Any = None
        self.after_answer = False  # the last message was the model's (a user message now is the harness's)

    def read(self) -> Thread:
        messages = self.obj["messages"]
        if not messages:
            self.b.took()
        for index, item in enumerate(messages, 1):
            message = as_chat(item)
            if type(message) is not dict or not isinstance(message.get("role"), str) or message["role"] not in ROLES:
                self.b.kept("unknown-type", f"message {index} is no mini-swe-agent message ({short(message)}); kept as system.unknown_message")
                self.b.add("system.unknown_message", timestamp=self.when, data=message, metadata={KEY: {"index": index}})
                continue
            self.message(message, index)
            self.after_answer = message["role"] == "assistant"
            self.b.took()
        instance = self.obj.get("instance_id")
        if isinstance(instance, str):
            self.b.thread_id = instance
        self.b.title = self.title
        self.b.metadata[KEY] = {k: v for k, v in self.obj.items() if k != "messages"}
        return self.b.build()

    def time_of(self, message: dict[str, Any]) -> Any:
        extra = message.get("extra")
        when = extra.get("timestamp") if type(extra) is dict else None
        when = message.get("timestamp") if when is None else when
        if when is None and type(extra) is dict and type(extra.get("response")) is dict:
            when = extra["response"].get("created")
        if isinstance(when, (int, float)) and not isinstance(when, bool):
            self.when = when
        return self.when

    def message(self, m: dict[str, Any], index: int) -> None:
        role, content, when = m["role"], m.get("content"), self.time_of(m)
        meta: dict[str, Any] = {KEY: {"index": index, **{k: v for k, v in m.items() if k not in ("role", "content", "tool_calls")}}}
        if role == "system":
            self.b.add("system.prompt", timestamp=when, data=content, metadata=meta)
        elif role == "exit":
            self.b.add("system.exit", timestamp=when, data=content, metadata=meta)
        elif role == "tool":
            call_id = m.get("tool_call_id") if isinstance(m.get("tool_call_id"), str) else ""
            self.b.add("tool_return", timestamp=when, tool_call_id=call_id, tool_name=self.names.get(call_id, "bash"), status=_status(m), content=content, metadata=meta)
        elif role == "user":
            self.user(m, content, when, meta)
        else:
            self.assistant(m, content, when, meta, index)

    def user(self, m: dict[str, Any], content: Any, when: Any, meta: dict[str, Any]) -> None:
        extra = m.get("extra") if type(m.get("extra")) is dict else {}
        if self.pending and "interrupt_type" not in extra:
            call_id, name = self.pending.pop(0)
            meta[KEY]["derived"] = True
            self.b.add("tool_return", timestamp=when, tool_call_id=call_id, tool_name=name, status=_status(m), content=content, metadata=meta)
            return
        self.pending.clear()
        if "interrupt_type" in extra or self.after_answer:
            meta.update(harness_metadata("meta"))
        elif not self.title and isinstance(content, str) and content.strip():
            self.title = content.strip().splitlines()[0][:80]
        self.b.add("user_message", timestamp=when, content=content if isinstance(content, (str, list)) else "", metadata=meta)

    def assistant(self, m: dict[str, Any], content: Any, when: Any, meta: dict[str, Any], index: int) -> None:
        usage = self.usage(m)
        for text, signature in thoughts_of(m):
            self.b.add("thinking", timestamp=when, agent_id=self.agent, content=text, signature=signature, provider_name=PROVIDER)
        calls = m.get("tool_calls") if isinstance(m.get("tool_calls"), list) else []
        if (isinstance(content, str) and content.strip()) or (isinstance(content, list) and content) or not calls:
            self.b.add("assistant_message", timestamp=when, agent_id=self.agent, content=content if isinstance(content, (str, list)) else "", usage=usage, metadata=meta)
            usage = None
            meta = {KEY: {"index": index}}
        for k, call in enumerate(calls):
            fn = call.get("function") if type(call) is dict and type(call.get("function")) is dict else {}
            call_id = call.get("id") if type(call) is dict and isinstance(call.get("id"), str) else f"mswea-{index}-{k}"
            name = fn.get("name") if isinstance(fn.get("name"), str) else ""
            self.names[call_id] = name
            added = self.b.add("tool_call", timestamp=when, agent_id=self.agent, tool_name=name, tool_call_id=call_id, args=parsed_arguments(fn.get("arguments")), metadata={KEY: {**meta[KEY], "call": call}})
            if usage is not None:
                added.usage = usage.model_dump(exclude_none=True)  # type: ignore[attr-defined]  # an answer of calls only: its first call holds the figures
                usage = None
        self.pending = []
        for k, command in enumerate([] if calls else commands_of(m)):
            call_id = f"mswea-{index}-{k}"
            self.pending.append((call_id, "bash"))
            self.b.add("tool_call", timestamp=when, agent_id=self.agent, tool_name="bash", tool_call_id=call_id, args={"command": command}, metadata={KEY: {"index": index, "derived": True}})

    def usage(self, m: dict[str, Any]) -> Usage | None:
        extra = m.get("extra")
        response = extra.get("response") if type(extra) is dict else None
        figures = response.get("usage") if type(response) is dict else None
        if type(figures) is not dict:
            return None
        problems: list[str] = []
        named = {k: (ours, figures.get(k)) for k, ours in _USAGE.items()}
        details = figures.get("prompt_tokens_details")
        if type(details) is dict:  # litellm's OpenAI shape: prompt_tokens counts the cached ones too
            named["prompt_tokens_details.cached_tokens"] = ("cache_read_tokens", details.get("cached_tokens"))
        found = counts_as(named, problems, "extra.response.usage.")
        for phrase in problems:
            self.b.problem("usage", phrase)
        return Usage(**found) if found else None


def _status(m: dict[str, Any]) -> str:
    extra = m.get("extra")
    code = extra.get("returncode") if type(extra) is dict else None
    if code is None and isinstance(m.get("content"), str):
        found = RETURNCODE.search(m["content"])
        code = int(found.group(1)) if found else None
    return "error" if type(code) is int and code != 0 else "success"


def read_trajectory(source: Source, obj: dict[str, Any]) -> Thread:
    return TrajectoryReader(source, obj).read()
