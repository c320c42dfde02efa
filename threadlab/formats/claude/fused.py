"""The frames route's conversion loop with the lanes written into it: ``FramesConverter.add`` for
every entry of a session, without the dozen calls a line the lanes read took (the lane, the
speaker, the agent registry, the usage, the builder's time keeping, each a Python call a line).

Why: after the third and fourth rounds (``docs/DEVELOPING.md``), a Claude Code load was about
nine Python passes a line with no function above 5 %; what was left to win was the passes and
the calls themselves. The loop below takes exactly the lines ``lanes.py`` takes, decides each
value by the same rules, and hands every other line to ``FramesConverter.add`` (which may give
it to the lanes there, or to ``Converter.add``): so the lanes stay the referee of this loop, and
``tests/test_claude_documents.py`` holds both to the careful route's frames."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from threadlab.core.timefmt import format_timestamp, millis_text
from threadlab.formats.claude.agents import MAIN_AGENT
from threadlab.formats.claude.chain import own_time
from threadlab.formats.claude.convert import PROVIDER, _is_error
from threadlab.formats.claude.lanes import FramesConverter, _text
from threadlab.formats.claude.usage import finish_reason, line_response
from threadlab.formats.claude.wire import UNREAD, Entry

_CALLS = frozenset(("tool_use", "server_tool_use", "mcp_tool_use"))


class FusedConverter(FramesConverter):
    """``FramesConverter`` fed a whole session at once (``feed``)."""

    def feed(self, entries: list[Entry]) -> None:
        """``add`` every entry, in order: the lanes' lines here, any other by ``FramesConverter.add``."""
        b = self.b
        actions, times = b.actions, b.times
        responses, usage_given = self.responses, self.usage_given
        names, owner, open_calls = self.calls.names, self.calls.owner, self.calls.open
        counts, account, registered, joined = self.session.counts, b.account, b.agents, self.agents.joined
        careful = FramesConverter.add
        pending = self.pending
        taken = 0
        for entry in entries:
            raw = entry.raw
            message = raw.get("message")
            if entry.problem is not None or pending or type(message) is not dict:
                careful(self, entry)
                pending = self.pending
                continue
            content = message.get("content")
            stamp = entry.stamp
            if type(content) is not list or len(content) != 1 or type(content[0]) is not dict or (
                    (stamp is None or stamp is UNREAD) and raw.get("timestamp") is not None and own_time(entry) is None):
                careful(self, entry)
                pending = self.pending
                continue
            block = content[0]
            kind = entry.type
            agent = entry.agent
            if kind == "assistant":
                btype = block.get("type")
                if btype == "text":
                    text = block.get("text")
                    if type(text) is not str or not text.strip():  # a blank block rides along (``_assistant``)
                        careful(self, entry)
                        pending = self.pending
                        continue
                    values: dict[str, Any] = {"action_type": "assistant_message", "content": text}
                elif btype == "thinking":
                    text = block.get("thinking")
                    if type(text) is not str:
                        careful(self, entry)
                        pending = self.pending
                        continue
                    values = {"action_type": "thinking", "content": text, "provider_name": PROVIDER}
                elif btype in _CALLS:
                    call_id, name = block.get("id"), block.get("name")
                    if type(call_id) is not str or type(name) is not str:
                        careful(self, entry)
                        pending = self.pending
                        continue
                    values = {"action_type": "tool_call", "tool_name": name, "tool_call_id": call_id, "args": block.get("input")}
                else:
                    careful(self, entry)
                    pending = self.pending
                    continue
                mid, model = message.get("id"), message.get("model")
                if not isinstance(mid, str):
                    mid = None
                if not isinstance(model, str):
                    model = None
                # ``speaker``, asked only when it would change something (a new main agent or model, a subagent not joined yet)
                if agent == MAIN_AGENT:
                    main = registered.get(MAIN_AGENT)
                    if main is None or (model and model != "<synthetic>" and (main.metadata or {}).get("model_name") != model):
                        self.speaker(entry, message)
                elif agent is None or agent not in joined:
                    agent = self.speaker(entry, message)[2]
                values["agent_id"] = agent
                if btype in _CALLS:  # ``Calls.opened``
                    names[call_id] = name
                    owner[call_id] = agent
                    calls = open_calls.get(agent)
                    if calls is None:
                        calls = open_calls[agent] = {}
                    calls[call_id] = None
                response = responses.get(mid) if mid is not None else line_response(message)
                if response is not None and not (mid is not None and mid in usage_given) and btype == response.holder:
                    if mid is not None:
                        usage_given.add(mid)
                    usage = _plain_usage(response.usage)
                    if usage is None:
                        usage = self._usage(response, entry)
                    if usage is not None:
                        values["usage"] = usage
                    finish = finish_reason(response.stop_reason) if btype == "text" else None
                    if finish is not None:
                        values["finish_reason"] = finish
                if model:
                    values["metadata"] = {"model_name": model, "provider_name": PROVIDER}
            elif kind == "user":
                call_id = block.get("tool_use_id")
                name = names.get(call_id) if type(call_id) is str and block.get("type") == "tool_result" else None
                if name is None:  # no tool result, or one answering no call: said by the careful way
                    careful(self, entry)
                    pending = self.pending
                    continue
                if (registered.get(MAIN_AGENT) is None) if agent == MAIN_AGENT else (agent is None or agent not in joined):
                    self.agents.of(entry, self)
                who = owner.get(call_id)  # ``Calls.answered``
                if who is not None:
                    open_calls.get(who, {}).pop(call_id, None)
                values = {"action_type": "tool_return", "tool_call_id": call_id, "tool_name": name,
                          "status": "error" if _is_error(block) else "success", "content": block.get("content")}
            else:
                careful(self, entry)
                pending = self.pending
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
                    text = millis_text(raw["timestamp"]) if time is stamp else None
                    b._stamped, b._text = time, text if text is not None else format_timestamp(time)
                values["timestamp"] = b._text
                values["sequence"] = len(actions) + 1
                actions.append(values)
                times.append(time)
            else:
                b.add_fit(time, values, _text(entry))
            counts[kind] = counts.get(kind, 0) + 1  # (``session.saw`` for a user or assistant line)
            account.converted += 1  # (``b.took(1)``)
            taken += 1
        self.taken += taken


def _plain_usage(raw: Any) -> dict[str, int] | None:
    """``usage.to_usage`` for usage of plain int figures and no thinking details (nearly every
    message); None for any other (``Converter._usage`` reads it then, with its problems)."""
    if type(raw) is not dict or raw.get("output_tokens_details") is not None:
        return None
    fresh, read = raw.get("input_tokens"), raw.get("cache_read_input_tokens")
    write, output = raw.get("cache_creation_input_tokens"), raw.get("output_tokens")
    if not ((fresh is None or type(fresh) is int) and (read is None or type(read) is int) and (write is None or type(write) is int)
            and (output is None or type(output) is int)):
        return None
    fresh, read, write, output = fresh or 0, read or 0, write or 0, output or 0
    return {"input_tokens": fresh + read + write, "output_tokens": output, "total_tokens": fresh + read + write + output,
            "cache_read_tokens": read, "cache_write_tokens": write}
