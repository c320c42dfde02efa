"""The fast route: messages already in the form pydantic-ai writes, read without pydantic-ai.

A history saved with ``ModelMessagesTypeAdapter.dump_json`` by the pydantic-ai this table was
taken from is already what validating and dumping it again gives (``wire.Normaliser``): every
field present, in pydantic-ai's order, timestamps in its format. Validating it through
pydantic-ai costs an import of about half a second, its schemas built on first use, and tens of
microseconds a message. So a message is first checked against the table below, strictly: every
key, every value's JSON type, only the part kinds and value shapes whose round trip through
pydantic-ai is the identity (``tests/test_pydantic_ai_fast.py`` checks that on every fixture and
on generated messages, and that the table is pydantic-ai's own). A message the table does not
vouch for - another pydantic-ai version, a 1.x dump, a missing field, media, a value of another
type - goes the careful way, through pydantic-ai, so frames and problems are the same either way.

The table holds for the pydantic-ai version named in ``VERSION`` (major.minor); with any other
installed the fast route is off."""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from datetime import datetime
from functools import cache
from typing import Any

from threadlab.formats.pydantic_ai.message import Message

VERSION = "2.68"  # the pydantic-ai-slim release the table was taken from
# tests turn the fast route off to compare it with the careful one; THREADLAB_PYDANTIC_AI_FAST=0
# turns it off in a process and its pool workers (benchmarks/pydantic_ai_folder.py: today's route)
ENABLED = os.environ.get("THREADLAB_PYDANTIC_AI_FAST", "1") != "0"

_TIMESTAMP = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.(\d{6}))?Z", re.ASCII)
_SPECIAL_TOOLS = frozenset({"search_tools", "load_capability", "tool_search"})  # tools with part classes of their own
_FINISH = frozenset({"stop", "length", "content_filter", "tool_call", "error"})
_USAGE_INTS = ("input_tokens", "cache_write_tokens", "cache_write_1h_tokens", "cache_read_tokens", "output_tokens",
               "output_reasoning_tokens", "input_audio_tokens", "cache_audio_read_tokens", "output_audio_tokens")
USAGE_KEYS = (*_USAGE_INTS, "audio_seconds", "details", "cost")
_RETRY_CAUSES = frozenset({"validation_error", "model_retry", "unknown_tool", "unavailable_tool"})
DIGESTS = "content_file_digests"  # written beside a tool return's content when it is not a scalar


@cache
def active() -> bool:
    """The installed pydantic-ai is the one the table describes."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        installed = version("pydantic-ai-slim")
    except PackageNotFoundError:
        return False
    return installed.split(".")[:2] == VERSION.split(".")


def enabled() -> bool:
    return ENABLED and active()


# --- value checks: True when pydantic-ai's validate-and-dump gives the value back unchanged --------


def _timestamp(value: Any) -> bool:
    """A UTC time as pydantic writes it: seconds, six digits of fraction unless it is zero, ``Z``."""
    if type(value) is not str:
        return False
    found = _TIMESTAMP.fullmatch(value)
    if found is None or found.group(1) == "000000":
        return False
    try:
        datetime.fromisoformat(value)  # a real date and time (no 30 February)
    except ValueError:
        return False
    return True


def _str(value: Any) -> bool:
    return type(value) is str


def _opt_str(value: Any) -> bool:
    return value is None or type(value) is str


def _none(value: Any) -> bool:
    return value is None


def _opt_dict(value: Any) -> bool:
    return value is None or type(value) is dict


class _OneOf:
    """A text among ``allowed`` (the compiled table checks ``choices`` inline)."""

    def __init__(self, *allowed: str) -> None:
        self.choices = frozenset(allowed)

    def __call__(self, value: Any) -> bool:
        return type(value) is str and value in self.choices


_one_of = _OneOf


def _call_id(value: Any) -> bool:
    return type(value) is str and value != ""


def _tool_name(value: Any) -> bool:
    return type(value) is str and value not in _SPECIAL_TOOLS


def _args(value: Any) -> bool:
    return value is None or type(value) in (str, dict)


_URL_KINDS = frozenset({"image-url", "audio-url", "video-url", "document-url"})
URL_ITEM = ("url", "force_download", "vendor_metadata", "kind", "media_type", "identifier")
BINARY_ITEM = ("data", "media_type", "vendor_metadata", "kind", "identifier")
_BASE64 = re.compile(r"(?:[A-Za-z0-9_-]{4})*(?:[A-Za-z0-9_-]{2}==|[A-Za-z0-9_-]{3}=)?")


def _canonical_base64(value: str) -> bool:
    """URL-safe base64 with padding, as pydantic-ai writes binary data (and the last character's
    unused bits zero, so decoding and encoding again gives it back)."""
    if _BASE64.fullmatch(value) is None:
        return False
    import base64

    return base64.urlsafe_b64encode(base64.urlsafe_b64decode(value)).decode() == value


def _media(item: dict[str, Any]) -> bool:
    """A file URL or binary content with every field pydantic-ai writes, media type and
    identifier given (not inferred)."""
    kind = item.get("kind")
    keys = (URL_ITEM if kind in _URL_KINDS else BINARY_ITEM if kind == "binary" else None) if type(kind) is str else None
    if keys is None or len(item) != len(keys) or any(k not in item for k in keys) or item["vendor_metadata"] is not None:
        return False
    if not (type(item["media_type"]) is str and item["media_type"] and type(item["identifier"]) is str and item["identifier"]):
        return False
    if kind == "binary":
        return type(item["data"]) is str and _canonical_base64(item["data"])
    return type(item["url"]) is str and type(item["force_download"]) is bool


def _prompt(value: Any) -> bool:
    """User prompt content: text, or a list of texts and media pydantic-ai wrote whole."""
    return type(value) is str or (type(value) is list and all(type(v) is str or (type(v) is dict and _media(v)) for v in value))


def _retry(value: Any) -> bool:
    return value is None or (type(value) is dict and len(value) == 3 and type(value.get("cause")) is str
                             and value["cause"] in _RETRY_CAUSES and all(v is None or type(v) is int for v in (value.get("attempt", ""), value.get("max_retries", ""))))


def _usage(value: Any) -> bool:
    if type(value) is not dict or len(value) != len(USAGE_KEYS):
        return False
    for key in _USAGE_INTS:
        number = value.get(key)
        if type(number) is not int or number < 0:
            return False
    details = value.get("details")
    return (type(value.get("audio_seconds")) is float and value.get("cost", 0) is None and type(details) is dict
            and all(type(k) is str and type(v) is int for k, v in details.items()))


def _scalar(value: Any) -> bool:
    return value is None or type(value) in (str, int, float, bool)


def _plain_content(value: Any) -> bool:
    """Tool return content holding no object with a string ``kind`` (pydantic-ai would rebuild
    those as files or media), at any depth."""
    stack = [value]
    while stack:
        item = stack.pop()
        if type(item) is dict:
            if type(item.get("kind")) is str:
                return False
            stack.extend(item.values())
        elif type(item) is list:
            stack.extend(item)
    return True


REQUEST: dict[str, Callable[[Any], bool]] = {
    "timestamp": lambda v: v is None or _timestamp(v), "instructions": _opt_str, "kind": _one_of("request"),
    "run_id": _opt_str, "conversation_id": _opt_str, "metadata": _none, "state": _one_of("complete", "interrupted"),
}
RESPONSE: dict[str, Callable[[Any], bool]] = {
    "usage": _usage, "model_name": _opt_str, "model_id": _opt_str, "timestamp": _timestamp, "kind": _one_of("response"),
    "provider_name": _opt_str, "provider_url": _opt_str, "canonical_system": _opt_str, "provider_details": _opt_dict,
    "provider_response_id": _opt_str, "finish_reason": lambda v: v is None or (type(v) is str and v in _FINISH),
    "run_id": _opt_str, "conversation_id": _opt_str, "metadata": _none, "workspace_ref": _none, "history_digest": _opt_str,
    "failed_attempts": _none, "state": _one_of("complete", "incomplete", "suspended", "interrupted"),
}
# part kind -> field -> check, in pydantic-ai's field order (the order its dump writes)
PARTS: dict[str, dict[str, Callable[[Any], bool]]] = {
    "system-prompt": {"content": _str, "timestamp": _timestamp, "dynamic_ref": _opt_str, "context_id": _opt_str,
                      "scope": _one_of("conversation", "request"), "metadata": _none, "part_kind": _one_of("system-prompt")},
    "user-prompt": {"content": _prompt, "timestamp": _timestamp, "part_kind": _one_of("user-prompt")},
    "tool-return": {"tool_name": _tool_name, "content": lambda v: True, "tool_call_id": _call_id, "tool_kind": _none,
                    "metadata": _none, "timestamp": _timestamp,
                    "outcome": _one_of("success", "failed", "denied", "interrupted", "retried"), "retry": _retry,
                    "part_kind": _one_of("tool-return")},
    "text": {"content": _str, "id": _opt_str, "provider_name": _opt_str, "provider_details": _opt_dict, "citations": _none,
             "part_kind": _one_of("text")},
    "thinking": {"content": _str, "id": _opt_str, "signature": _opt_str, "provider_name": _opt_str,
                 "provider_details": _opt_dict, "part_kind": _one_of("thinking")},
    "tool-call": {"tool_name": _tool_name, "args": _args, "tool_call_id": _call_id, "tool_kind": _none, "id": _opt_str,
                  "provider_name": _opt_str, "provider_details": _opt_dict, "part_kind": _one_of("tool-call")},
}
SIDE = {"system-prompt": "request", "user-prompt": "request", "tool-return": "request",
        "text": "response", "thinking": "response", "tool-call": "response"}
# what a field is when not given (None: pydantic-ai invents it, or it is required)
PART_DEFAULTS: dict[str, dict[str, Any]] = {
    "system-prompt": {"dynamic_ref": None, "context_id": None, "scope": "conversation", "metadata": None},
    "user-prompt": {},
    "tool-return": {"tool_kind": None, "metadata": None, "outcome": "success", "retry": None},
    "text": {"id": None, "provider_name": None, "provider_details": None, "citations": None},
    "thinking": {"id": None, "signature": None, "provider_name": None, "provider_details": None},
    "tool-call": {"args": None, "tool_kind": None, "id": None, "provider_name": None, "provider_details": None},
}
ENVELOPE_DEFAULTS: dict[str, dict[str, Any]] = {
    "request": {"instructions": None, "kind": "request", "run_id": None, "conversation_id": None, "metadata": None, "state": "complete"},
    "response": {"usage": {**dict.fromkeys(_USAGE_INTS, 0), "audio_seconds": 0.0, "details": {}, "cost": None}, "model_name": None,
                 "model_id": None, "kind": "response", "provider_name": None, "provider_url": None, "canonical_system": None,
                 "provider_details": None, "provider_response_id": None, "finish_reason": None, "run_id": None,
                 "conversation_id": None, "metadata": None, "workspace_ref": None, "history_digest": None,
                 "failed_attempts": None, "state": "complete"},
}


def _fields(value: dict[str, Any], checks: dict[str, Callable[[Any], bool]], skip: str | None = None) -> dict[str, Any] | None:
    """``value`` with its keys in pydantic-ai's order, or None when a key is missing, extra or fails."""
    order, holds = _ORDERS[id(checks)]
    keys = tuple(value)
    if keys == order or (skip is not None and keys[1:] == order and keys[0] == skip):  # as pydantic-ai wrote it
        if not holds(value):
            return None
        out = dict(value)
        if len(keys) != len(order):
            del out[keys[0]]
        return out
    expected = len(checks) + (1 if skip is not None else 0)
    if len(value) != expected:
        return None
    out = {}
    for key, check in checks.items():
        if key not in value:
            return None
        item = value[key]
        if not check(item):
            return None
        out[key] = item
    return out


def _compiled(checks: dict[str, Callable[[Any], bool]]) -> Callable[[dict[str, Any]], bool]:
    """All of a table's checks over a dict that has its keys, as straight-line code: the common
    checks inline, the others called (a call per field was most of the time of a message)."""
    inline = {_str: "type(v) is str", _opt_str: "v is None or type(v) is str", _none: "v is None",
              _opt_dict: "v is None or type(v) is dict", _call_id: 'type(v) is str and v != ""'}
    names: dict[str, Any] = {}
    lines = ["def check(d):"]
    for n, (key, check) in enumerate(checks.items()):
        if isinstance(check, _OneOf):
            names[f"C{n}"] = check.choices
            test = f"type(v) is str and v in C{n}"
        else:
            test = inline.get(check) or f"C{n}(v)"
            if test == f"C{n}(v)":
                names[f"C{n}"] = check
        lines += [f"    v = d[{key!r}]", f"    if not ({test}):", "        return False"]
    lines.append("    return True")
    exec("\n".join(lines), names)  # source built above from the table itself
    return names["check"]


# each table's keys in order and its compiled checks (``_fields``: a value written as pydantic-ai writes it)
_ORDERS = {id(checks): (tuple(checks), _compiled(checks)) for checks in (REQUEST, RESPONSE, *PARTS.values())}


def part(raw: Any) -> dict[str, Any] | None:
    """A part as pydantic-ai would dump it, when the table vouches for it; else None."""
    if type(raw) is not dict:
        return None
    kind = raw.get("part_kind")
    checks = PARTS.get(kind) if type(kind) is str else None
    if checks is None:
        return None
    if kind != "tool-return":
        return _fields(raw, checks)
    content = raw.get("content")
    if _scalar(content):
        return _fields(raw, checks)
    if raw.get(DIGESTS, []) != [] or not _plain_content(content):
        return None
    out = _fields(raw, checks, skip=DIGESTS if DIGESTS in raw else None)
    if out is not None:
        out[DIGESTS] = []
    return out


def message(raw: Any, *, line: int | None = None, counted: bool = True) -> Message | None:
    """The message as ``wire.Normaliser.message`` would give it, or None when the table does not
    vouch for every field of it (the caller then takes the careful way)."""
    if type(raw) is not dict:
        return None
    kind = raw.get("kind")
    checks = REQUEST if kind == "request" else RESPONSE if kind == "response" else None
    raws = raw.get("parts")
    if checks is None or type(raws) is not list:
        return None
    envelope = _fields(raw, checks, skip="parts")
    if envelope is None or "parts" not in raw:
        return None
    if kind == "response":
        envelope["usage"] = {key: envelope["usage"][key] for key in USAGE_KEYS}
    parts: list[dict[str, Any] | Any] = []
    for item in raws:
        done = part(item)
        if done is None or SIDE[done["part_kind"]] != kind:
            return None
        parts.append(done)
    return Message(envelope, parts, [p["part_kind"] for p in parts], line, counted, vouched=True)


def normal(rebuilt: dict[str, Any]) -> dict[str, Any] | None:
    """A part rebuilt from canonical fields as pydantic-ai would normalise it (defaults filled),
    or None when the table does not vouch for it."""
    kind = rebuilt.get("part_kind")
    defaults = PART_DEFAULTS.get(kind) if type(kind) is str else None
    if defaults is None:
        return None
    filled = {**defaults, **rebuilt}
    content = filled.get("content")
    if kind == "user-prompt" and type(content) is list:
        filled["content"] = [_media_defaults(item) if type(item) is dict else item for item in content]
    return part(filled)


def filled(rebuilt: dict[str, Any]) -> dict[str, Any] | None:
    """What ``normal`` gives (but for key order, which ``rest_of`` does not read) for a part
    ``specs`` rebuilt from one this table took: every rebuilt value is then one the table takes
    again (the same text, ids and times, args parsed into an object, an outcome it allows), so
    it is not checked a second time. None for user prompt content that is a list (its media
    items get defaults of their own: ``normal`` fills and checks those)."""
    kind = rebuilt["part_kind"]
    content = rebuilt.get("content")
    if kind == "user-prompt" and type(content) is not str:
        return None
    out = {**PART_DEFAULTS[kind], **rebuilt}
    if kind == "tool-return" and not _scalar(content):
        out[DIGESTS] = []
    return out


def _media_defaults(item: dict[str, Any]) -> dict[str, Any]:
    """A media item as specs rebuild it (defaults left out), with pydantic-ai's defaults, in its order."""
    keys = URL_ITEM if type(item.get("kind")) is str and item["kind"] in _URL_KINDS else BINARY_ITEM
    filled = {"force_download": False, "vendor_metadata": None, **item} if keys is URL_ITEM else {"vendor_metadata": None, **item}
    return {k: filled[k] for k in keys if k in filled} if set(filled) <= set(keys) else item
