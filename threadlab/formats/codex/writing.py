"""A thread → a Codex CLI rollout (JSON Lines).

A thread read from a rollout is written back line for line: each action's line comes back from
the action and what the reader kept in ``metadata["codex"]``. Any other thread is written as a
rollout of the envelope generation: a ``session_meta`` line, a ``turn_context`` line whenever
the model changes, one ``response_item`` per core action and a ``token_count`` event after each
response that carries usage (with the running total, as Codex writes it; a thread's
``metadata.usage_total`` beyond its turns' sum is the first total's head start, so it reads back
the same). What a rollout cannot hold is named in a ``WriteLoss``: other agents than Codex's one,
``system.*`` actions of other formats, tool error statuses, sub-millisecond times, who wrote a
user message where its text does not say it the way Codex tells (``harness.py``), a usage total
below its turns' sum or a note about it."""

from __future__ import annotations

from collections import Counter
from typing import Any

import orjson

from threadlab.core.authors import AUTHOR_KEY, HARNESS_KEY
from threadlab.core.loss import report_loss
from threadlab.core.model import BaseAction, Thread
from threadlab.formats.codex.harness import harness_kind
from threadlab.formats.codex.reading import AGENT, KEY, codex_time
from threadlab.formats.codex.usage import TokenTotals
from threadlab.formats.codex.wire import TokenCountInfo, token_info
from threadlab.formats.common.providers.parts import part_losses
from threadlab.formats.common.responses.items import action_item, encode_part, return_name_lost

NAME = "codex"
_TOKENS = ("input_tokens", "cached_input_tokens", "cache_write_input_tokens", "output_tokens", "reasoning_output_tokens", "total_tokens")


def write_rollout(thread: Thread) -> bytes:
    generation = ((thread.metadata or {}).get(KEY) or {}).get("generation")
    native = generation == "fragment" or any(_codex(a).get("line_type") in ("session_meta", "bare_meta") for a in thread.actions)
    bare = generation == "bare"
    writer = _Writer(thread, native, bare)
    for action in thread.actions:
        writer.action(action)
    if not native and not bare:
        writer.finish()
    report_loss(NAME, thread.thread_id, writer.losses())
    return b"".join(orjson.dumps(line) + b"\n" for line in writer.lines)


def _codex(action: BaseAction) -> dict[str, Any]:
    value = (action.metadata or {}).get(KEY)
    return value if isinstance(value, dict) else {}


class _Writer:
    def __init__(self, thread: Thread, native: bool, bare: bool) -> None:
        self.thread = thread
        self.native = native
        self.bare = bare
        self.lines: list[Any] = []
        self.lost: Counter[str] = Counter()
        self.model: str | None = None
        self.total = dict.fromkeys(_TOKENS, 0)
        self.calls = {a.tool_call_id for a in thread.actions if a.action_type == "tool_call"}  # type: ignore[attr-defined]
        self.no_rows = False
        if not native:
            self.start()
            self.start_total()

    def start_total(self) -> None:
        """The first running total starts at what the thread's ``usage_total`` counts beyond the
        usage its token_count events will carry, so the total reads back as it was."""
        meta = self.thread.metadata or {}
        wanted = meta.get("usage_total")
        if not isinstance(wanted, dict):
            return
        rows = [_codex_usage(a.usage) for a in self.thread.actions if getattr(a, "usage", None) is not None and action_item(a, KEY) is not None]  # type: ignore[attr-defined]
        given = {_NAMES.get(k, k): v for k, v in wanted.items() if k in _NAMES and type(v) is int}
        base = {k: given.get(k, 0) - sum(r[k] for r in rows) for k in _TOKENS}
        if any(v < 0 for v in base.values()):
            return  # (named in finish: the total read back differs)
        self.total = base
        self.no_rows = not rows

    def finish(self) -> None:
        """A total with no turn to carry it gets an event of its own; then the usage total and
        its note are read back from the lines written, as the reader reads them, and any
        difference is named."""
        if self.no_rows and any(self.total.values()):
            info = {"total_token_usage": dict(self.total), "last_token_usage": None, "model_context_window": None}
            stamp = self.lines[-1].get("timestamp") if self.lines and isinstance(self.lines[-1], dict) else None
            self.lines.append({"timestamp": stamp, "type": "event_msg", "payload": {"type": "token_count", "info": info}})
        meta = self.thread.metadata or {}
        if "usage_total" not in meta:
            return
        totals = TokenTotals()
        for number, line in enumerate(self.lines, 1):
            info = token_info(line["payload"]) if isinstance(line, dict) and line.get("type") == "event_msg" and line["payload"].get("type") == "token_count" else None
            if isinstance(info, TokenCountInfo) and info.total_token_usage is not None:
                totals.add(info.total_token_usage, info.last_token_usage, number)
        if totals.total() != meta["usage_total"]:
            self.lost["the usage total (a rollout's running total is Codex's figures, and at least its turns' sum)"] += 1
        elif totals.note() != meta.get("usage_total_note"):
            self.lost["the note on the usage total (reading a rollout words its own)"] += 1

    def start(self) -> None:
        first = self.thread.actions[0].timestamp if self.thread.actions else self.thread.created_at
        stamp = codex_time(first) if first is not None else None
        meta = {"id": self.thread.thread_id, "timestamp": stamp, "originator": "threadlab", "model_provider": "openai"}
        self.lines.append({"timestamp": stamp, "type": "session_meta", "payload": meta})
        agents = [a.agent_name for a in self.thread.agents.values()]
        if len(agents) > 1 or (agents and agents[0] != AGENT):
            self.lost[f"agent names ({', '.join(agents)}: a rollout has one agent, {AGENT})"] += 1

    def action(self, action: BaseAction) -> None:
        codex = _codex(action)
        line_type = codex.get("line_type")
        if line_type is not None and action.action_type.startswith("system."):
            self.system_line(action, codex, line_type)
            return
        item = action_item(action, KEY)
        if item is None:
            if not codex.get("hosted_result"):
                self.lost[f"{action.action_type} actions"] += 1
            return
        if return_name_lost(action, item, self.calls):
            self.lost["tool names of returns whose call is not in the thread (an output item names no tool)"] += 1
        if self.bare:
            self.lines.append(item)
            return
        if not self.native:
            self.foreign(action)
        self.lines.append(self.envelope(action, codex, "response_item", item))
        if not self.native and getattr(action, "usage", None) is not None:
            self.token_count(action)

    def system_line(self, action: BaseAction, codex: dict[str, Any], line_type: str) -> None:
        data = getattr(action, "data", None)
        if line_type.startswith("bare_"):
            self.lines.append(data)
        else:
            self.lines.append(self.envelope(action, codex, line_type, data))

    def envelope(self, action: BaseAction, codex: dict[str, Any], line_type: str, payload: Any) -> dict[str, Any]:
        line: dict[str, Any] = {}
        if not codex.get("no_timestamp"):
            line["timestamp"] = codex.get("ts") or codex_time(action.timestamp)
        line["type"] = line_type
        line["payload"] = payload
        line.update(codex.get("envelope") or {})
        return line

    # --- threads of other formats --------------------------------------------------------
    def foreign(self, action: BaseAction) -> None:
        self.lost.update(part_losses([action], encode_part, "a Responses item"))
        if action.timestamp.microsecond % 1000:
            self.lost["sub-millisecond timestamps"] += 1
        if action.action_type == "tool_return" and getattr(action, "status", "success") != "success":
            self.lost["tool error statuses"] += 1
        meta = action.metadata or {}
        if action.action_type == "user_message":
            said = meta.get(HARNESS_KEY) if meta.get(AUTHOR_KEY) == "harness" else None
            if (meta.get(AUTHOR_KEY) == "harness" and said is None) or said != harness_kind(getattr(action, "content", None)):
                self.lost["who wrote user messages whose text does not say it as Codex's tags do"] += 1
        model = meta.get("model_name")
        if isinstance(model, str) and model != self.model:
            self.model = model
            self.lines.append({"timestamp": codex_time(action.timestamp), "type": "turn_context", "payload": {"model": model}})

    def token_count(self, action: BaseAction) -> None:
        last = _codex_usage(action.usage)  # type: ignore[attr-defined]
        self.total = {k: self.total[k] + last[k] for k in _TOKENS}
        info = {"total_token_usage": dict(self.total), "last_token_usage": last, "model_context_window": None}
        self.lines.append({"timestamp": codex_time(action.timestamp), "type": "event_msg", "payload": {"type": "token_count", "info": info}})

    def losses(self) -> list[str]:
        return [f"{n} {what}" if n > 1 else what for what, n in sorted(self.lost.items())]


# ThreadProtocol usage keys -> Codex's
_NAMES = {
    "input_tokens": "input_tokens",
    "cache_read_tokens": "cached_input_tokens",
    "cache_write_tokens": "cache_write_input_tokens",
    "output_tokens": "output_tokens",
    "thinking_tokens": "reasoning_output_tokens",
    "total_tokens": "total_tokens",
}


def _codex_usage(usage: Any) -> dict[str, int]:
    """An action's usage as Codex's figures (total = input + output when not given)."""
    fields = usage if isinstance(usage, dict) else usage.model_dump(exclude_none=True)
    out = {codex: fields.get(ours) or 0 for ours, codex in _NAMES.items()}
    out["total_tokens"] = out["total_tokens"] or out["input_tokens"] + out["output_tokens"]
    return out
