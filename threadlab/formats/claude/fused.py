"""The frames route's conversion loop with the lanes written into it: ``FramesConverter.add`` for
every entry of a session, without the dozen calls a line the lanes read took (the lane, the
speaker, the agent registry, the usage, the builder's time keeping, each a Python call a line).

Why: after the third and fourth rounds (``docs/DEVELOPING.md``), a Claude Code load was about
nine Python passes a line with no function above 5 %; what was left to win was the passes and
the calls themselves. The loop below takes the lines ``lanes.py`` takes, deciding each value
by the same rules, and also the main agent's attachments, system and bookkeeping lines
(``_record``: the ``system.*`` actions ``Converter`` makes of them, without the check a model
would make, which their values always pass); every other line goes to ``FramesConverter.add``
(which may still give it to the lanes, or to ``Converter.add``). So the multi-pass route stays
the referee: ``tests/test_claude_fused.py`` holds this loop (and ``survey.py``) to it and to the
careful route, ``tests/test_claude_documents.py`` to the careful route's frames."""

from __future__ import annotations

from datetime import UTC, datetime
from functools import cache
from typing import Any

from threadlab.core.timefmt import format_timestamp, millis_text
from threadlab.formats.claude.agents import MAIN_AGENT
from threadlab.formats.claude.authorship import attachment_author, prompt_author, system_line_author, wrapped_author
from threadlab.formats.claude.chain import own_time
from threadlab.formats.claude.convert import PROVIDER, _is_error
from threadlab.formats.claude.lanes import FramesConverter, _text
from threadlab.formats.claude.usage import line_response
from threadlab.formats.claude.user import snake, system_name
from threadlab.formats.claude.wire import BAD_LINE, KNOWN_TYPES, UNREAD, Entry

_CALLS = frozenset(("tool_use", "server_tool_use", "mcp_tool_use"))


class FusedConverter(FramesConverter):
    """``FramesConverter`` fed a whole session at once (``feed``)."""

    def feed(self, entries: list[Entry]) -> None:
        """``add`` every entry, in order: the lanes' lines here, any other by ``FramesConverter.add``."""
        b = self.b
        actions, times = b.actions, b.times
        responses, usage_given = self.responses, self.usage_given
        names, owner, open_calls = self.calls.names, self.calls.owner, self.calls.open
        counts, account, joined = self.session.counts, b.account, self.agents.joined
        careful, record = FramesConverter.add, self._record
        pending = self.pending
        main, main_model = self._main()  # (changed only by the careful way and ``speaker``: read again after each)
        taken = assistant_lines = result_lines = 0  # (added to the account and the session's counts at the end)
        for entry in entries:
            raw = entry.raw
            values: dict[str, Any] | None = None
            stamp = entry.stamp
            if entry.problem is None and not pending and (
                    (stamp is not None and stamp is not UNREAD) or raw.get("timestamp") is None or own_time(entry) is not None):
                message = raw.get("message")
                kind = entry.type
                content = message.get("content") if type(message) is dict else None
                if type(content) is list and len(content) == 1 and type(content[0]) is dict:
                    block = content[0]
                    agent = entry.agent
                    btype = block.get("type")
                    if kind == "assistant":
                        if btype == "text":
                            text = block.get("text")
                            if type(text) is str and text.strip():  # (a blank block rides along: ``_assistant``)
                                values = {"action_type": "assistant_message", "content": text}
                        elif btype == "thinking":
                            text = block.get("thinking")
                            if type(text) is str:
                                values = {"action_type": "thinking", "content": text, "provider_name": PROVIDER}
                        elif btype in _CALLS:
                            call_id, name = block.get("id"), block.get("name")
                            if type(call_id) is str and type(name) is str:
                                values = {"action_type": "tool_call", "tool_name": name, "tool_call_id": call_id, "args": block.get("input")}
                        if values is not None:
                            mid, model = message.get("id"), message.get("model")  # type: ignore[union-attr]
                            if not isinstance(mid, str):
                                mid = None
                            if not isinstance(model, str):
                                model = None
                            # ``speaker``, asked only when it would change something (a new main agent or model, a subagent not joined yet)
                            if agent == MAIN_AGENT:
                                if main is None or (model and model != "<synthetic>" and main_model != model):
                                    self.speaker(entry, message)  # type: ignore[arg-type]
                                    main, main_model = self._main()
                            elif agent is None or agent not in joined:
                                agent = self.speaker(entry, message)[2]  # type: ignore[arg-type]
                                main, main_model = self._main()
                            values["agent_id"] = agent
                            if btype in _CALLS:  # ``Calls.opened``
                                names[call_id] = name
                                owner[call_id] = agent
                                calls = open_calls.get(agent)  # type: ignore[arg-type]
                                if calls is None:
                                    calls = open_calls[agent] = {}  # type: ignore[index]
                                calls[call_id] = None
                            response = responses.get(mid) if mid is not None else line_response(message)  # type: ignore[arg-type]
                            if response is not None and not (mid is not None and mid in usage_given) and btype == response.holder:
                                self.give_usage(response, mid, btype, entry, values)  # (once a message)
                            if model:
                                values["metadata"] = {"model_name": model, "provider_name": PROVIDER}
                            assistant_lines += 1  # (``session.saw`` for an assistant line)
                    elif kind == "user" and btype == "tool_result":
                        call_id = block.get("tool_use_id")
                        name = names.get(call_id) if type(call_id) is str else None
                        if name is not None:  # (a result answering no call is a problem: said by the careful way)
                            if (main is None) if agent == MAIN_AGENT else (agent is None or agent not in joined):
                                self.agents.of(entry, self)
                                main, main_model = self._main()
                            who = owner.get(call_id)  # ``Calls.answered``
                            if who is not None:
                                open_calls.get(who, {}).pop(call_id, None)
                            result = block.get("content")
                            values = {"action_type": "tool_return", "tool_call_id": call_id, "tool_name": name, "content": result,
                                      "status": "error" if block.get("is_error") is True or (type(result) is not str and _is_error(block)) else "success"}
                            result_lines += 1  # (``session.saw`` for a user line)
                elif message is None:
                    values = record(entry, raw, kind)
                elif kind == "user" and type(content) is str:
                    values = self._prompt(entry, raw, content)
            if values is None:
                careful(self, entry)
                pending = self.pending
                main, main_model = self._main()
                continue
            # ``DocBuilder.add_fit`` with its ``_moment`` for a time the chain ordering gave (UTC, of its own type)
            time = entry.time
            if type(time) is datetime and time.tzinfo is UTC:
                b._given = None
                if b._first_time is None:
                    b._timed(time)
                last = b._last_time
                if last is None or time > last:
                    b._last_time = time
                if time is not b._stamped:
                    text = millis_text(raw["timestamp"]) if time is entry.stamp else None
                    b._stamped, b._text = time, text if text is not None else format_timestamp(time)
                values["timestamp"] = b._text
                values["sequence"] = len(actions) + 1
                actions.append(values)
                times.append(time)
            else:
                b.add_fit(time, values, _text(entry))
            taken += 1  # (``b.took(1)``)
        account.converted += taken
        self.taken += taken
        for kind, n in (("assistant", assistant_lines), ("user", result_lines)):
            if n:
                counts[kind] = counts.get(kind, 0) + n

    def _main(self) -> tuple[Any, Any]:
        """The main agent (None: not registered yet) and the model it has."""
        main = self.b.agents.get(MAIN_AGENT)
        return main, (main.metadata or {}).get("model_name") if main is not None else None

    def _prompt(self, entry: Entry, raw: dict[str, Any], content: str) -> dict[str, Any] | None:
        """The values of a main-agent user line whose message is text, as ``_user_text`` gives
        them: a prompt (its author when not the person; the session's first prompt noted), or
        the ``system.*`` action of a line Claude Code wrote itself; None when the main agent
        is not registered yet (the careful way registers it)."""
        if entry.agent != MAIN_AGENT or MAIN_AGENT not in self.b.agents:
            return None
        name = system_name(raw, content)
        if name is not None:
            values = {"action_type": _action_type("system.", name), "data": content, "metadata": dict(wrapped_author(name, content))}
        else:
            values = {"action_type": "user_message", "content": content}
            author = prompt_author(content, MAIN_AGENT, MAIN_AGENT, raw.get("isSynthetic") is True)
            if author is not None:
                values["metadata"] = dict(author)
            elif self.session.first_prompt is None:
                self.session.first_prompt = content or None
        self.session.saw("user", raw)
        return values

    def _record(self, entry: Entry, raw: dict[str, Any], kind: str) -> dict[str, Any] | None:
        """The values of a main-agent line without a message that ``Converter`` reads as a
        ``system.*`` action (an attachment, a system line, a bookkeeping line), as
        ``_attachment``, ``_system`` and ``_bookkeeping`` give them (their ``metadata.claude``
        left out, as ``emit`` leaves it); None for any other line (or one of those whose agent
        is another, or not registered yet, or that changes the agents: ``agent-name``, the
        ``init`` and ``task_started`` system lines)."""
        if entry.agent != MAIN_AGENT or MAIN_AGENT not in self.b.agents:
            return None
        if kind == "attachment":
            attachment = raw.get("attachment")
            sub = attachment.get("type") if type(attachment) is dict else None
            if type(sub) is not str:
                return None
            values = {"action_type": _action_type("system.attachment.", sub or "unknown"), "data": attachment, "metadata": dict(attachment_author(attachment))}
        elif kind == "system":
            subtype = raw.get("subtype")
            if (subtype is not None and type(subtype) is not str) or subtype in ("init", "task_started") or raw.get("isSidechain"):
                return None
            values = {"action_type": _action_type("system.", subtype or "system"), "data": self.own(entry, ("type", "subtype"))}
            author = system_line_author(subtype, raw)
            if author:
                values["metadata"] = dict(author)
        elif kind in _BOOKKEEPING and not isinstance(raw.get("agentId"), str):
            values = {"action_type": _action_type("system.", kind), "data": self.own(entry, ("type",))}
        else:
            return None
        self.session.saw(kind, raw)
        return values


_BOOKKEEPING = KNOWN_TYPES - {"assistant", "user", "attachment", "system", "result", "stream_event", "agent-name", BAD_LINE}  # (``_bookkeeping``'s)


@cache
def _action_type(prefix: str, name: str) -> str:
    return prefix + snake(name)
