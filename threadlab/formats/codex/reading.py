"""A Codex CLI rollout → one thread (see ``wire.py`` for the line shapes).

Every line is one record and becomes one action, so the writer can give the rollout back: a
``response_item`` becomes the core action of its Responses item (``common/responses/items.py``), every
other line a ``system.<type>`` action holding its payload (``system.session_meta``,
``system.turn_context``, ``system.token_count``, ``system.user_message`` ...). The UI events
that repeat a response item (``user_message``, ``agent_message``, ``agent_reasoning``) stay as
system actions, so the transcript shows each message once.

Who wrote each user message (``harness.py``): a message Codex wrote itself (its tagged context,
interrupt markers, ``!command`` records ...) is a ``user_message`` with ``metadata.author =
"harness"`` and its kind; the ``user_message`` / ``item_completed`` events that repeat a typed
prompt stay system actions and decide nothing but which untagged message a person typed.

Usage: a ``token_count`` whose cumulative total moved gives its ``last_token_usage`` to the
latest model response that has none yet (on its assistant message, else its first action); a
repeated event (same total) gives nothing, so nothing is counted twice. The running total is
the thread's ``metadata.usage_total`` (``usage.py``)."""

from __future__ import annotations

import re
from dataclasses import replace
from datetime import UTC, datetime
from functools import lru_cache
from pathlib import Path
from typing import Any

import orjson

from threadlab.core.builder import ThreadBuilder, slug
from threadlab.core.canonical import model_to_dict
from threadlab.core.model import BaseAction, Thread, Usage
from threadlab.core.problems import short
from threadlab.core.timefmt import parse_timestamp
from threadlab.formats.codex.harness import Authorship, mark, prompt_text
from threadlab.formats.codex.usage import TokenTotals
from threadlab.formats.codex.wire import LINE_TYPES, MODEL_OUTPUTS, is_bare_header, is_envelope, is_state_marker, token_info
from threadlab.formats.common.json_lines import parsed_lines
from threadlab.formats.common.responses.items import ItemReader
from threadlab.formats.common.source import Source

KEY = "codex"  # metadata key of what a line has and ThreadProtocol has no field for
AGENT = "Codex"


def codex_time(moment: datetime) -> str:
    """A timestamp as Codex writes it (UTC, milliseconds)."""
    moment = moment.astimezone(UTC)
    return moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{moment.microsecond // 1000:03d}Z"


_event_name = lru_cache(maxsize=512)(slug)  # (a rollout names a few dozen event types, thousands of times)
_CODEX_TIME = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{3}Z")
_EXIT_LINE = re.compile(r"^(?:Process exited with code|Exit code:) (-?\d+)$", re.M)


def exit_status(output: Any) -> str:
    """A shell or patch call's output that reports a non-zero exit code is an error: the JSON
    form Codex wrote for ``shell`` calls (``{"output": ..., "metadata": {"exit_code": N}}``), or
    the text header of later tools (``exec_command``: ``Process exited with code N``;
    ``shell_command`` and ``apply_patch``: ``Exit code: N``), before the ``Output:`` line."""
    if not isinstance(output, str):
        return "success"
    if output.startswith('{"output"'):
        try:
            value = orjson.loads(output)
        except orjson.JSONDecodeError:
            return "success"
        meta = value.get("metadata") if isinstance(value, dict) else None
        code = meta.get("exit_code") if isinstance(meta, dict) else None
        return "error" if isinstance(code, int) and code != 0 else "success"
    header = output.split("\nOutput:", 1)[0] if "\nOutput:" in output[:400] else ""
    found = _EXIT_LINE.search(header)
    return "error" if found and int(found.group(1)) != 0 else "success"


class RolloutReader:
    def __init__(self, source: Source, builder: type[ThreadBuilder] = ThreadBuilder) -> None:
        self.source = source
        self.b = builder(None, source=source.name)
        self.items = ItemReader(self.b, KEY, status_of=exit_status)
        self.agent_id = self.b.agent(AGENT, agent_id="codex")
        self.model: str | None = None
        self.provider = "openai"
        self.thread_id: str | None = None
        self.title: str | None = None  # the first prompt typed (a user_message event)
        self.authors = Authorship()
        self.forked_from: Any = None
        self.totals = TokenTotals()
        self.bare = False
        self.has_meta = False  # a session_meta line was read (else the file is a fragment of a rollout)
        self.responses: list[list[BaseAction]] = []
        self.counts: list[tuple[int, dict[str, int], BaseAction]] = []  # (responses before it, figures, event action)
        self.open_response = False

    def read(self) -> Thread:
        self.finish()
        return self.b.build()

    def finish(self) -> None:
        """Every line read and the thread's head settled (the builder then gives the thread)."""
        for number, obj in parsed_lines(self.source, self.b):
            self.line(obj, number)
        provisional, self.b.thread_id = self.b.thread_id, self.thread_id or _stem(self.source)
        self.b.problems = [replace(p, thread_id=self.b.thread_id) if p.thread_id == provisional else p for p in self.b.problems]
        self.give_usage()
        typed = self.authors.finish()
        first = next((t for t in (prompt_text(getattr(a, "content", None)) for a in typed) if t), "")
        self.b.title = self.title or (_title(first) if first else "")
        total = self.totals.total()
        if total is not None:
            self.b.metadata["usage_total"] = total
            note = self.totals.note()
            if note and self.forked_from:
                note += f" — this session was forked from session {short(self.forked_from)}"
            if note:
                self.b.metadata["usage_total_note"] = note
        if self.bare:
            self.b.metadata[KEY] = {"generation": "bare"}
        elif not self.has_meta:  # lines cut from a rollout: the writer gives back these lines, no session_meta of its own
            self.b.metadata[KEY] = {"generation": "fragment"}

    # --- one line --------------------------------------------------------------------------
    def line(self, obj: Any, number: int) -> None:
        if is_envelope(obj):
            self.envelope(obj, number)
        elif (number == 1 and is_bare_header(obj)) or is_state_marker(obj) or (self.bare and isinstance(obj, dict) and ("type" in obj or "role" in obj)):
            self.bare_line(obj, number)
        else:
            what = type(obj).__name__ if not isinstance(obj, dict) else f"an object with keys {', '.join(list(obj)[:5])}"
            self.b.kept("unknown-type", f"line {number} is {what}, no rollout line; kept as system.unknown_line", line=number)
            self.b.add("system.unknown_line", data=obj, metadata={KEY: {"line_type": "bare_other"}})

    def envelope(self, obj: dict[str, Any], number: int) -> None:
        kind, payload, stamp = obj["type"], obj["payload"], obj.get("timestamp")
        when, codex = self._time(stamp, number)
        extra = {k: v for k, v in obj.items() if k not in ("timestamp", "type", "payload")}
        if extra:
            codex["envelope"] = extra
        if stamp is None:
            codex["no_timestamp"] = True
        if kind == "response_item" and isinstance(payload, dict):
            self.item(payload, when, codex, number)
            return
        codex["line_type"] = kind
        if kind not in LINE_TYPES:
            self.b.kept("unknown-type", f"line {number} is of type {kind!r}, which threadlab does not map; kept as system.unknown_line", line=number)
            self.b.add("system.unknown_line", timestamp=when, data=payload, metadata={KEY: codex})
            return
        name = kind if kind != "event_msg" or not isinstance(payload, dict) else _event_name(str(payload.get("type") or "event"))
        action = self.b.add(f"system.{name}", timestamp=when, data=payload, metadata={KEY: codex})
        self.b.took()
        if kind == "compacted":  # the summary that replaces the conversation the model sees
            mark(action, "compaction_summary")
        elif kind == "session_meta":
            self.session_meta(payload)
        elif kind == "turn_context" and isinstance(payload, dict) and isinstance(payload.get("model"), str):
            self.model = payload["model"]
        elif kind == "event_msg" and isinstance(payload, dict):
            self.event(payload, action, number)

    def bare_line(self, obj: dict[str, Any], number: int) -> None:
        self.bare = True
        if number == 1 and is_bare_header(obj):
            self.b.add("system.session_meta", timestamp=obj.get("timestamp"), data=obj, metadata={KEY: {"line_type": "bare_meta"}})
            self.b.took()
            self.session_meta(obj)
        elif is_state_marker(obj):
            self.b.add("system.state", data=obj, metadata={KEY: {"line_type": "bare_state"}})
            self.b.took()
        else:
            self.item(obj, None, {}, number)

    def item(self, payload: dict[str, Any], when: Any, codex: dict[str, Any], number: int) -> None:
        meta: dict[str, Any] = {KEY: codex} if codex else {}
        if payload.get("role") == "assistant" or payload.get("type") not in ("message", None, "function_call_output", "custom_tool_call_output"):
            if self.model:
                meta["model_name"] = self.model
            meta["provider_name"] = self.provider
        actions = self.items.add(payload, agent_id=self.agent_id, timestamp=when, meta=meta, where=f"line {number}", line=number)
        if actions is None:
            kind = payload.get("type")
            self.b.kept("unknown-type", f"line {number}: response item of type {kind!r} is not one threadlab maps; kept as system.unknown_item", line=number)
            self.b.add("system.unknown_item", timestamp=when, data=payload, metadata={KEY: {**codex, "line_type": "response_item"}})
            return
        self.b.took()
        for action in actions:
            self.response(action)
            if action.action_type == "user_message":
                self.authors.user_message(action, _provenance(payload))

    # --- what lines say about the session ------------------------------------------------
    def session_meta(self, payload: Any) -> None:
        self.has_meta = True
        if not isinstance(payload, dict):
            return
        if isinstance(payload.get("id"), str) and self.thread_id is None:
            self.thread_id = payload["id"]
        if payload.get("forked_from_id") is not None and self.forked_from is None:
            self.forked_from = payload["forked_from_id"]
        if isinstance(payload.get("model_provider"), str):
            self.provider = payload["model_provider"]
        if isinstance(payload.get("model"), str):
            self.model = payload["model"]
        keep = {k: payload[k] for k in ("originator", "cli_version", "source", "model_provider", "cwd") if k in payload}
        if keep:
            self.b.agent(AGENT, agent_id=self.agent_id, metadata=keep)
            self.b.metadata.setdefault("session", {}).update({k: v for k, v in keep.items() if k in ("cwd", "cli_version", "originator", "source")})

    def event(self, payload: dict[str, Any], action: BaseAction, number: int) -> None:
        kind = payload.get("type")
        if kind == "user_message" and payload.get("kind") in (None, "plain"):  # a prompt typed (other kinds repeat injected context)
            if self.title is None and isinstance(payload.get("message"), str) and payload["message"].strip():
                self.title = _title(payload["message"])
            self.authors.prompt_event(action, "user_message", payload.get("message"))
        elif kind == "item_completed" and isinstance(payload.get("item"), dict) and payload["item"].get("type") == "UserMessage":
            self.authors.prompt_event(action, "item_completed", prompt_text(payload["item"].get("content")))
        elif kind == "turn_aborted" and payload.get("reason") == "interrupted":
            self.authors.aborted(action)
        if kind != "token_count":
            return
        info = token_info(payload)
        if isinstance(info, str):
            self.b.problem("usage", f"line {number}: token_count {info}; no usage taken from it", line=number)
            return
        if info is None:
            return
        if info.total_token_usage is not None and not self.totals.add(info.total_token_usage, info.last_token_usage, number):
            return  # the same event written again
        if info.last_token_usage is None:
            return
        self.counts.append((len(self.responses), info.last_token_usage.fields(), action))

    def give_usage(self) -> None:
        """Each counted event's figures to its model response. Releases up to about 0.4x wrote
        a response's token_count just before its items (the first event of such a file comes
        before any response): each event goes to the next response. Later releases write it
        after them: each event goes to the latest response that has none yet. An event with no
        response to go to keeps its figures on its own action."""
        leads = bool(self.counts) and self.counts[0][0] == 0 and len(self.responses) > 0
        for before, fields, action in self.counts:
            if leads:
                target = self.responses[before] if before < len(self.responses) and not _has_usage(self.responses[before]) else None
            else:
                target = next((self.responses[i] for i in range(before - 1, -1, -1) if not _has_usage(self.responses[i])), None)  # (no copy of the list per event)
            if target is None:
                action.usage = fields  # type: ignore[attr-defined]
                action.agent_id = self.agent_id  # type: ignore[attr-defined]
                continue
            first = next((a for a in target if a.action_type == "assistant_message"), target[0])
            usage: Any = Usage(**fields) if first.action_type in ("assistant_message", "thinking") else fields
            first.usage = model_to_dict(usage) if isinstance(first, dict) and isinstance(usage, Usage) else usage  # type: ignore[attr-defined]

    def response(self, action: BaseAction) -> None:
        """Group model outputs into responses: an input (user message, tool output) closes one."""
        if action.action_type in MODEL_OUTPUTS:
            if not self.open_response:
                self.responses.append([])
                self.open_response = True
            self.responses[-1].append(action)
        elif action.action_type in ("user_message", "tool_return") and not _own_meta(action).get("hosted_result"):
            self.open_response = False

    def _time(self, stamp: Any, number: int) -> tuple[Any, dict[str, Any]]:
        if stamp is None:
            return None, {}
        try:
            moment = parse_timestamp(stamp)
        except ValueError:
            self.b.problem("schema", f"line {number}: timestamp {stamp!r} does not read; a synthetic one is used", line=number)
            return None, {"ts": stamp}
        if type(stamp) is str and _CODEX_TIME.fullmatch(stamp):  # what codex_time writes: it gives the text back
            return moment, {}
        return moment, ({} if isinstance(stamp, str) and codex_time(moment) == stamp else {"ts": stamp})


def _provenance(item: dict[str, Any]) -> list[str] | None:
    """The provenance type of each content part, where the item says (late 2026 releases)."""
    passthrough = item.get("internal_chat_message_metadata_passthrough")
    parts = passthrough.get("content_item_metadata") if isinstance(passthrough, dict) else None
    if not isinstance(parts, list):
        return None
    kinds = [p["provenance"].get("type") for p in parts if isinstance(p, dict) and isinstance(p.get("provenance"), dict)]
    return [k for k in kinds if isinstance(k, str)] or None


def _has_usage(response: list[BaseAction]) -> bool:
    return any(getattr(a, "usage", None) is not None for a in response)


_REQUEST = "## My request for Codex:"  # the IDE extension puts its context before the prompt


def _title(text: str) -> str:
    if _REQUEST in text:
        text = text.split(_REQUEST, 1)[1]
    first = text.strip().splitlines()[0] if text.strip() else ""
    return first[:100]


def _own_meta(action: BaseAction) -> dict[str, Any]:
    """``metadata.codex`` of an action; {} when there is none (an action kept as it came, an
    ``InvalidAction``, may have no metadata)."""
    own = (getattr(action, "metadata", None) or {}).get(KEY)
    return own if isinstance(own, dict) else {}


def _stem(source: Source) -> str:
    if source.name and not source.name.startswith("<"):
        stem = Path(source.name).stem
        return stem[-36:] if stem.startswith("rollout-") and len(stem) > 36 else stem
    return "codex-session"


def read_rollout(source: Source) -> Thread:
    return RolloutReader(source).read()
