"""The frames route's converter: ``Converter`` with lanes for the lines a transcript holds most
(an assistant line of one text, thinking or tool_use block; a user line of one tool_result),
each read straight into the action's frame fields.

Why: the load wants frames, not the transcript back, so a line's round-trip fields (the line's
envelope, the message envelope, the block's other fields: ``metadata.claude``) are not needed,
and building them, with the checks and copies around them, was most of a Claude load's CPU
(``docs/DEVELOPING.md``, issue 27). A lane reads only what the frames show: kind, agent, text
(content or args), tool name and id, status, usage, finish reason, model and provider. It takes
a line only when it can vouch for it: no problem on the line, no stream events waiting, a
timestamp that reads (or none), one content block of the expected types (text not blank, a
tool id and name that are text, a result answering a call already read). Any other line goes
through ``Converter.add`` as before, with the same problems and account (but without
``metadata.claude``, and so without copying the line for it: ``_meta``, ``emit``); the two kinds of
action objects sit side by side in one thread, and the frames (not the objects) are what
``tests/test_claude_documents.py`` holds equal to the careful route's."""

from __future__ import annotations

from typing import Any

from threadlab.core.timefmt import millis_text
from threadlab.formats.claude.agents import MAIN_AGENT
from threadlab.formats.claude.chain import own_time
from threadlab.formats.claude.convert import PROVIDER, Converter, _is_error
from threadlab.formats.claude.usage import Response, finish_reason, line_response, plain_usage
from threadlab.formats.claude.wire import UNREAD, Entry

_CALLS = frozenset(("tool_use", "server_tool_use", "mcp_tool_use"))


class FramesConverter(Converter):
    """``Converter`` for a ``DocBuilder`` whose objects are read for frames only."""

    taken = 0  # lines the lanes read (the tests check the lanes are used)

    def add(self, entry: Entry) -> None:
        raw = entry.raw
        message = raw.get("message")
        if entry.problem is None and not self.pending and type(message) is dict:
            content = message.get("content")
            stamp = entry.stamp  # (read by the chain ordering already, nearly always)
            if type(content) is list and len(content) == 1 and type(content[0]) is dict and (
                    (stamp is not None and stamp is not UNREAD) or raw.get("timestamp") is None or own_time(entry) is not None):
                kind = entry.type
                taken = self._assistant_lane(entry, message, content[0]) if kind == "assistant" else (
                    self._result_lane(entry, content[0]) if kind == "user" else False)
                if taken:
                    counts = self.session.counts  # (``session.saw`` for a user or assistant line)
                    counts[kind] = counts.get(kind, 0) + 1
                    self.b.account.converted += 1  # (``b.took(1)``)
                    self.taken += 1
                    return
        super().add(entry)

    def _meta(self, entry: Entry, agent: str | None, drop: tuple[str, ...]) -> dict[str, Any]:
        """As ``Converter._meta`` without what the frames do not read (the line's own fields,
        ``metadata.claude``, which only the writer reads; the subagent's launching call, which
        the lanes leave out too), so a line the lanes do not take is not copied for them."""
        return {"claude": {}}

    def emit(self, kind: str, entry: Entry | None, meta: dict[str, Any] | None, **fields: Any) -> Any:
        """As ``Converter.emit`` without ``metadata.claude`` (the stream events riding along, the
        session fields a line lacks: what only the writer reads)."""
        self.pending = []
        if meta:
            meta.pop("claude", None)
        return self.b.add(kind, timestamp=entry.time if entry is not None else None, metadata=meta or None, **fields)

    def _assistant_lane(self, entry: Entry, message: dict[str, Any], block: dict[str, Any]) -> bool:
        """One text, thinking or tool_use block, as ``_assistant`` and ``_block`` read it."""
        kind = block.get("type")
        if kind == "text":
            text = block.get("text")
            if type(text) is not str or not text.strip():  # a blank block rides along (``_assistant``)
                return False
            values: dict[str, Any] = {"action_type": "assistant_message", "content": text}
        elif kind == "thinking":
            text = block.get("thinking")
            if type(text) is not str:
                return False
            values = {"action_type": "thinking", "content": text, "provider_name": PROVIDER}
        elif kind in _CALLS:
            call_id, name = block.get("id"), block.get("name")
            if type(call_id) is not str or type(name) is not str:
                return False
            values = {"action_type": "tool_call", "tool_name": name, "tool_call_id": call_id, "args": block.get("input")}
        else:
            return False
        mid, model, agent = self._speaker(entry, message)
        values["agent_id"] = agent
        if kind in _CALLS:
            self.calls.opened(values["tool_call_id"], values["tool_name"], agent)
        response = self.responses.get(mid) if mid is not None else line_response(message)
        if response is not None and not (mid is not None and mid in self.usage_given) and kind == response.holder:
            self.give_usage(response, mid, kind, entry, values)
        if model:
            values["metadata"] = {"model_name": model, "provider_name": PROVIDER}
        self.b.add_fit(entry.time, values, _text(entry))
        return True

    def give_usage(self, response: Response, mid: str | None, kind: str, entry: Entry, values: dict[str, Any]) -> None:
        """The message's usage (and, on a text block, its finish reason) on the action of the
        block that holds it: ``plain_usage`` when its figures are plain counts, else the
        converter's ``_usage`` with its problems."""
        if mid is not None:
            self.usage_given.add(mid)
        usage = plain_usage(response.usage)
        if usage is None:
            usage = self._usage(response, entry)
        if usage is not None:
            values["usage"] = usage
        finish = finish_reason(response.stop_reason) if kind == "text" else None
        if finish is not None:
            values["finish_reason"] = finish

    def _speaker(self, entry: Entry, message: dict[str, Any]) -> tuple[str | None, str | None, str]:
        """``speaker`` without its calls when they would change nothing: a line of the main
        agent (``Agents.of`` would say so) once the main agent is known with the line's model
        (or the line names none that counts: ``Agents.main`` would then return at once)."""
        raw = entry.raw
        main = self.b.agents.get(MAIN_AGENT)
        if main is None or entry.agent is not None or isinstance(raw.get("parent_tool_use_id"), str) or (
                isinstance(raw.get("agentId"), str) and raw.get("isSidechain")):
            return self.speaker(entry, message)
        mid, model = message.get("id"), message.get("model")
        model = model if isinstance(model, str) else None
        if model and model != "<synthetic>" and (main.metadata or {}).get("model_name") != model:
            return self.speaker(entry, message)
        return (mid if isinstance(mid, str) else None), model, MAIN_AGENT

    def _result_lane(self, entry: Entry, block: dict[str, Any]) -> bool:
        """One tool_result answering a call already read, as ``_user`` and ``_tool_return`` read it."""
        call_id = block.get("tool_use_id")
        if block.get("type") != "tool_result" or type(call_id) is not str:
            return False
        name = self.calls.names.get(call_id)
        if name is None:  # answers no call: a problem, said by the careful way
            return False
        self.agents.of(entry, self)
        self.calls.answered(call_id)
        values = {"action_type": "tool_return", "tool_call_id": call_id, "tool_name": name,
                  "status": "error" if _is_error(block) else "success", "content": block.get("content")}
        self.b.add_fit(entry.time, values, _text(entry))
        return True


def _text(entry: Entry) -> str | None:
    """The canonical text of the line's time when the line keeps its own (``assign_times`` gave
    it the very moment read from its ``timestamp``), sliced from that text."""
    time = entry.time
    return millis_text(entry.raw["timestamp"]) if time is not None and time is entry.stamp else None
