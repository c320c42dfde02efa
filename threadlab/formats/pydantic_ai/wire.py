"""Messages as files hold them, made into pydantic-ai 2.x JSON one message at a time, leniently.

pydantic-ai's own ``ModelMessagesTypeAdapter`` does the work (1.x dumps, ``retry-prompt``,
``request_tokens`` and the other legacy names arrive converted). What it cannot validate costs
only that part: a message whose envelope or some part is broken keeps everything else, and the
broken part is handed on as it came (``BadPart``), with the reason, for the reader to keep.

Two things pydantic-ai fills in by itself are not read as data, because they are not in the file:
a missing timestamp (pydantic-ai puts the wall clock there) and a missing ``tool_call_id`` (a
random one). A missing timestamp stays missing (the thread builder synthesises one and says so);
a missing tool call id gets a made-up id that is the same on every read (``pyd_ai_missing_<message>_
<part>``), and a return without one answers the last unanswered call of its tool. Either way the
part remembers (``_missing``) so that a writer leaves the key out again."""

from __future__ import annotations

import dataclasses
import typing
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from typing import Any

import pydantic
import pydantic_core
from pydantic_ai import messages as pai

from threadlab.formats.common.counts import count_of
from threadlab.formats.pydantic_ai.message import MISSING, BadPart, Message

_INVENTED = ("timestamp", "tool_call_id")  # what pydantic-ai fills in when missing (wall clock, random id)


@dataclass(frozen=True)
class _Kind:
    """What pydantic-ai's class for a part kind fills in by itself, and whether it calls a tool
    or answers a call (read off its dataclass fields and base classes, not re-declared)."""

    invented: tuple[str, ...]
    call: bool
    answer: bool


@cache
def message_invented(kind: str) -> tuple[str, ...]:
    """The fields pydantic-ai's ModelRequest/ModelResponse fills in by itself (a response's timestamp)."""
    cls = pai.ModelRequest if kind == "request" else pai.ModelResponse
    return tuple(f.name for f in dataclasses.fields(cls) if f.name in _INVENTED and f.default_factory is not dataclasses.MISSING)


@cache
def part_kinds() -> dict[str, _Kind]:
    def members(union: Any) -> list[type]:
        return [typing.get_args(member)[0] for member in typing.get_args(typing.get_args(union)[0])]

    out = {}
    for cls in (*members(pai.ModelRequestPart), *members(pai.ModelResponsePart), pai.RetryPromptPart):
        fields = {f.name: f for f in dataclasses.fields(cls)}
        kind = fields["part_kind"].default if "part_kind" in fields else None
        if isinstance(kind, str):
            invented = tuple(n for n in _INVENTED if n in fields and fields[n].default_factory is not dataclasses.MISSING)
            out[kind] = _Kind(invented, issubclass(cls, pai.BaseToolCallPart), issubclass(cls, pai.BaseToolReturnPart | pai.RetryPromptPart))
    return out


@cache
def part_adapter(side: str) -> pydantic.TypeAdapter[Any]:
    return pydantic.TypeAdapter(pai.ModelRequestPart if side == "request" else pai.ModelResponsePart)


def to_wire_dicts(messages: Any) -> list[Any]:
    """ModelMessage objects (or a mix with dicts) as JSON dicts; anything else as it is."""
    out: list[Any] = []
    for message in messages:
        if isinstance(message, pai.ModelRequest | pai.ModelResponse):
            out.append(pai.ModelMessagesTypeAdapter.dump_python([message], mode="json")[0])
        else:
            out.append(message)
    return out


class Normaliser:
    """Normalises the messages of one history in order (made-up tool call ids pair up across
    messages, so one Normaliser serves one history)."""

    def __init__(self) -> None:
        self._open: dict[str, list[str]] = {}  # tool name -> made-up ids of calls not yet answered
        self.made_up = 0

    def message(self, raw: Any, index: int, *, line: int | None = None, counted: bool = True) -> Message | None:
        """The message at ``index`` of its history, or None when ``raw`` is no message at all."""
        if not isinstance(raw, Mapping) or not isinstance(raw.get("parts"), list):
            return None
        problems: list[tuple[str, str]] = []
        raw = dict(raw)
        if raw.get("kind") not in ("request", "response"):
            kind = _infer_kind(raw["parts"])
            said = f"has kind {raw['kind']!r}" if "kind" in raw else "has no kind"
            problems.append(("schema", f"message #{index + 1} {said}; read as a {kind} (its parts are {kind} parts)"))
            raw["kind"] = kind
        raw_kinds = [p.get("part_kind") if isinstance(p, Mapping) else None for p in raw["parts"]]
        unread = _unread_counts(raw, index, problems)
        prepared, missing = self._prepare(raw, index)
        part_problems: dict[int, tuple[str, str]] = {}
        try:
            whole = pai.ModelMessagesTypeAdapter.validate_python([prepared])
            dumped = pai.ModelMessagesTypeAdapter.dump_python(whole, mode="json")[0]
        except (ValueError, pydantic_core.PydanticSerializationError):  # (invalid, or nested deeper than pydantic writes) one part at a time, each named
            envelope, parts = self._piecewise(prepared, index, problems, part_problems)
        else:
            parts = dumped.pop("parts")
            envelope = dumped
        if unread:
            envelope["_invalid"] = {**envelope.get("_invalid", {}), **unread}
        for position, keys in missing.items():
            if position < 0:
                _forget(envelope, keys)
            elif isinstance(parts[position], dict):
                _forget(parts[position], keys)
        return Message(envelope, parts, raw_kinds, line, counted, problems, part_problems)

    def _prepare(self, raw: dict[str, Any], index: int) -> tuple[dict[str, Any], dict[int, list[str]]]:
        """A copy pydantic-ai can validate without inventing values, and per part position (-1:
        the envelope) the keys the file did not have."""
        missing: dict[int, list[str]] = {}
        envelope_keys = [k for k in message_invented(raw["kind"]) if raw.get(k) is None]
        if envelope_keys:
            missing[-1] = envelope_keys
        parts = []
        for position, part in enumerate(raw["parts"]):
            if not isinstance(part, Mapping):
                parts.append(part)
                continue
            part = dict(part)
            kind = part_kinds().get(str(part.get("part_kind")))
            keys = []
            if kind is not None and "timestamp" in kind.invented and part.get("timestamp") is None:
                keys.append("timestamp")
            if kind is not None and "tool_call_id" in kind.invented and not part.get("tool_call_id"):
                part["tool_call_id"] = self._made_up_id(kind, part.get("tool_name"), index, position)
                keys.append("tool_call_id")
            if keys:
                missing[position] = keys
            parts.append(part)
        return {**raw, "parts": parts}, missing

    def _made_up_id(self, kind: _Kind, tool_name: Any, index: int, position: int) -> str:
        self.made_up += 1
        waiting = self._open.setdefault(str(tool_name), [])
        if kind.answer and tool_name and waiting:
            return waiting.pop(0)
        made = f"pyd_ai_missing_{index}_{position}"
        if kind.call:
            waiting.append(made)
        return made

    def _piecewise(self, raw: dict[str, Any], index: int, problems: list[tuple[str, str]],
                   part_problems: dict[int, tuple[str, str]]) -> tuple[dict[str, Any], list[Any]]:
        """Validate the envelope and each part on their own: what fails costs only itself."""
        side = raw["kind"]
        envelope = _valid_envelope({k: v for k, v in raw.items() if k != "parts"}, index, problems)
        parts: list[dict[str, Any] | BadPart] = []
        adapter = part_adapter(side)
        for position, part in enumerate(raw["parts"]):
            try:
                parts.append(_dump(adapter, adapter.validate_python(part)))
            except (pydantic_core.PydanticSerializationError, _TooDeep) as exc:  # validated, but pydantic-ai cannot write it back
                kind = part.get("part_kind") if isinstance(part, Mapping) else None
                parts.append(BadPart(part, "schema", f"message #{index + 1} part #{position + 1} ({kind}) cannot be written by pydantic-ai ({str(exc)[:120]}); kept as it came"))
                continue
            except pydantic.ValidationError as exc:
                salvaged = _salvage_prompt(part, side)
                if salvaged is None:
                    parts.append(_bad_part(part, side, exc, index, position))
                    continue
                dumped, kinds = salvaged
                parts.append(dumped)
                part_problems[position] = ("unknown-type", f"message #{index + 1} part #{position + 1} (user-prompt) holds content of "
                                                           f"a kind pydantic-ai does not take ({', '.join(kinds)}); kept as it came")
        return envelope, parts


class _TooDeep(ValueError):
    """pydantic's "Maximum serialization depth exceeded" (a plain ValueError)."""


def _dump(adapter: pydantic.TypeAdapter[Any], value: Any) -> Any:
    try:
        return adapter.dump_python(value, mode="json")
    except ValueError as exc:
        if isinstance(exc, pydantic.ValidationError):
            raise
        raise _TooDeep(str(exc)) from None


@cache
def user_content_adapter() -> pydantic.TypeAdapter[Any]:
    return pydantic.TypeAdapter(pai.UserContent)


def _salvage_prompt(part: Any, side: str) -> tuple[dict[str, Any], list[str]] | None:
    """A user prompt whose content list holds items pydantic-ai does not take: the part as
    pydantic-ai writes it, with those items put back, as they came, where they were."""
    if side != "request" or not isinstance(part, Mapping) or part.get("part_kind") != "user-prompt" or not isinstance(part.get("content"), list):
        return None
    good: list[Any] = []
    bad: list[tuple[int, Any]] = []
    for position, item in enumerate(part["content"]):
        try:
            user_content_adapter().validate_python(item)
        except pydantic.ValidationError:
            bad.append((position, item))
            continue
        good.append(item)
    if not bad or not all(isinstance(item, Mapping) for _, item in bad):
        return None
    adapter = part_adapter("request")
    try:
        dumped = adapter.dump_python(adapter.validate_python({**part, "content": good}), mode="json")
    except pydantic.ValidationError:
        return None
    content = list(dumped["content"])
    for position, item in bad:
        content.insert(position, dict(item))
    dumped["content"] = content
    return dumped, [str(item.get("kind")) for _, item in bad]


def _infer_kind(parts: list[Any]) -> str:
    def fits(side: str) -> int:
        adapter = part_adapter(side)
        count = 0
        for part in parts:
            try:
                adapter.validate_python(part)
            except pydantic.ValidationError:
                continue
            count += 1
        return count

    return "response" if fits("response") > fits("request") else "request"


def _forget(value: dict[str, Any], keys: list[str]) -> None:
    for key in keys:
        if key == "timestamp":
            value.pop("timestamp", None)
    value[MISSING] = list(keys)


# RequestUsage's token counts, under their names and 1.x's (``details`` holds more, by name)
COUNT_KEYS = ("input_tokens", "request_tokens", "cache_write_tokens", "cache_write_1h_tokens", "cache_read_tokens", "output_tokens",
              "response_tokens", "output_reasoning_tokens", "input_audio_tokens", "cache_audio_read_tokens", "output_audio_tokens")


def _unread_counts(raw: dict[str, Any], index: int, problems: list[tuple[str, str]]) -> dict[str, Any]:
    """Token counts of the message's usage that are no counts (``counts.count_of``: pydantic-ai's
    lax integers would take ``true`` as 1 and ``"12"`` as 12), taken out of ``raw``'s usage (a
    copy), each a ``usage`` problem; returns them as ``usage.<key>`` → value."""
    usage = raw.get("usage")
    if not isinstance(usage, dict):
        return {}
    unread: dict[str, Any] = {}
    details = usage.get("details")
    figures = [(key, usage[key]) for key in COUNT_KEYS if key in usage]
    figures += [(f"details.{key}", value) for key, value in details.items()] if isinstance(details, dict) else []
    for key, value in figures:
        _, why = count_of(value)
        if why is not None:
            unread[f"usage.{key}"] = value
            problems.append(("usage", f"message #{index + 1} usage.{key}: {why}; left out"))
    if unread:
        kept = {k: v for k, v in usage.items() if f"usage.{k}" not in unread}
        if isinstance(details, dict):
            kept["details"] = {k: v for k, v in details.items() if f"usage.details.{k}" not in unread}
        raw["usage"] = kept
    return unread


def _valid_envelope(envelope: dict[str, Any], index: int, problems: list[tuple[str, str]]) -> dict[str, Any]:
    """The envelope as pydantic-ai writes it; fields it cannot validate are set aside (kept under
    ``_invalid`` for the record, and named in a problem)."""
    invalid: dict[str, Any] = {}
    for _ in range(len(envelope) + 1):
        try:
            dumped = pai.ModelMessagesTypeAdapter.dump_python(pai.ModelMessagesTypeAdapter.validate_python([{**envelope, "parts": []}]), mode="json")[0]
        except pydantic.ValidationError as exc:
            names = {str(err["loc"][2]) for err in exc.errors() if len(err["loc"]) > 2}
            if not names & set(envelope):
                raise
            for name in names & set(envelope):
                invalid[name] = envelope.pop(name)
                problems.append(("schema", f"message #{index + 1} field {name!r} is not what pydantic-ai takes ({_first_error(exc, name)}); set aside"))
            continue
        except ValueError:  # "Maximum serialization depth exceeded": the deepest field is set aside
            name = max(envelope, key=lambda k: _depth(envelope[k]))
            invalid[name] = envelope.pop(name)
            problems.append(("schema", f"message #{index + 1} field {name!r} nests deeper than pydantic-ai writes; set aside"))
            continue
        dumped.pop("parts")
        if invalid:
            dumped["_invalid"] = invalid
        return dumped
    raise AssertionError("unreachable")  # pragma: no cover


def _depth(value: Any) -> int:
    """How deep lists and objects nest in ``value`` (without recursion)."""
    deepest, todo = 0, [(value, 1)]
    while todo:
        item, level = todo.pop()
        if isinstance(item, dict | list):
            deepest = max(deepest, level)
            todo.extend((v, level + 1) for v in (item.values() if isinstance(item, dict) else item))
    return deepest


def _first_error(exc: pydantic.ValidationError, name: str) -> str:
    for err in exc.errors():
        if len(err["loc"]) > 2 and str(err["loc"][2]) == name:
            return str(err["msg"])
    return "invalid"


def _bad_part(part: Any, side: str, exc: pydantic.ValidationError, index: int, position: int) -> BadPart:
    errors = exc.errors()
    kind = part.get("part_kind") if isinstance(part, Mapping) else None
    other = "response" if side == "request" else "request"
    if errors and errors[0]["type"] in ("union_tag_invalid", "union_tag_not_found"):
        try:
            part_adapter(other).validate_python(part)
        except pydantic.ValidationError:
            what = f"of kind {kind!r}, which pydantic-ai does not know" if kind else "without a part_kind"
            return BadPart(part, "unknown-type", f"message #{index + 1} part #{position + 1} is a part {what}; kept as it came")
        return BadPart(part, "schema", f"message #{index + 1} part #{position + 1} is a {kind} part, which a {side} cannot hold; kept as it came")
    err = errors[0] if errors else {"loc": (), "msg": str(exc)}
    path = ".".join(str(p) for p in err["loc"][1:]) or "part"
    return BadPart(part, "schema", f"message #{index + 1} part #{position + 1} ({kind}) is not a pydantic-ai part ({path}: {err['msg']}); kept as it came")
