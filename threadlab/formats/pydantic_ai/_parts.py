"""pydantic-ai parts ↔ ThreadProtocol fields, one part at a time.

Everything here works on the JSON form of pydantic-ai's own types (what
``ModelMessagesTypeAdapter`` writes), normalised by pydantic-ai 2.x itself, so 1.x dumps
(``retry-prompt``, missing fields) arrive already converted. For an exact round trip each action
keeps, in ``metadata["pydantic_ai"]``, only what its canonical fields cannot rebuild: the part is
rebuilt from the canonical fields, normalised by pydantic-ai, and the keys that still differ are
stored (``rest``). New fields of a future pydantic-ai are therefore kept without code changes.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from functools import cache
from typing import TYPE_CHECKING, Any

from threadlab.core.authors import harness_metadata
from threadlab.core.model import MediaPart, TextPart, UnknownPart
from threadlab.core.timefmt import format_timestamp
from threadlab.formats.pydantic_ai import fast

if TYPE_CHECKING:  # pydantic-ai is imported when a part is not one the fast route vouches for
    import pydantic

KEY = "pydantic_ai"  # metadata key of everything pydantic-ai specific
SYSTEM_PREFIX = "system.pydantic_ai."  # framework-only parts travel as system.pydantic_ai.<kind>

# part kinds that become core actions; every other part kind becomes system.pydantic_ai.<kind>
USER_KINDS = ("user-prompt", "retry-feedback")
RETURN_KINDS = ("tool-return", "builtin-tool-return")
CALL_KINDS = ("tool-call", "builtin-tool-call")
MESSAGE_KINDS = ("text", "file")  # merged into one assistant_message per response
HELD_KINDS = ("system-prompt",)  # kept on the agent (and the first action of their request)
RETRY_FEEDBACK = "retry_feedback"  # metadata.harness of a retry-feedback part (pydantic-ai's own kind)

_URL_CATEGORY = {"image-url": "image", "audio-url": "audio", "video-url": "video", "document-url": "document"}
_CATEGORY_URL = {v: k for k, v in _URL_CATEGORY.items()}


def authorship(part_kind: Any) -> dict[str, str]:
    """The ``author`` / ``harness`` metadata a part of this kind gives its user_message: a
    ``retry-feedback`` part is pydantic-ai's feedback on a response it could not use, sent in
    the user's voice ("automated feedback, not a message from the user"): the harness's."""
    return harness_metadata(RETRY_FEEDBACK) if part_kind == "retry-feedback" else {}


@cache
def request_part_adapter() -> pydantic.TypeAdapter[Any]:
    import pydantic
    from pydantic_ai import messages as pai

    return pydantic.TypeAdapter(pai.ModelRequestPart)


@cache
def response_part_adapter() -> pydantic.TypeAdapter[Any]:
    import pydantic
    from pydantic_ai import messages as pai

    return pydantic.TypeAdapter(pai.ModelResponsePart)


def normalise_part(side: str, part: Mapping[str, Any]) -> dict[str, Any]:
    """A part dict as pydantic-ai writes it (defaults filled, legacy kinds converted)."""
    adapter = request_part_adapter() if side == "request" else response_part_adapter()
    return adapter.dump_python(adapter.validate_python(dict(part)), mode="json")


def envelope_defaults(side: str) -> dict[str, Any]:
    if fast.enabled():
        return fast.ENVELOPE_DEFAULTS[side]
    return pydantic_envelope_defaults(side)


@cache
def pydantic_envelope_defaults(side: str) -> dict[str, Any]:
    """What pydantic-ai writes for a message with no fields given (timestamp aside)."""
    from pydantic_ai import messages as pai

    message = pai.ModelRequest(parts=[]) if side == "request" else pai.ModelResponse(parts=[])
    dumped = pai.ModelMessagesTypeAdapter.dump_python([message], mode="json")[0]
    dumped.pop("parts")
    dumped.pop("timestamp")
    return dumped


def envelope_of(message: Mapping[str, Any]) -> dict[str, Any]:
    """The message's own fields (not its parts) that differ from pydantic-ai's defaults; ``kind``
    and ``timestamp`` are always kept."""
    defaults = envelope_defaults(message["kind"])
    out = {"kind": message["kind"]}
    for key, value in message.items():
        default = defaults.get(key, _ABSENT)  # (the timestamp has none)
        if default == value or key == "parts":  # (the kind, already first, among them)
            continue
        if isinstance(value, dict) and isinstance(default, dict):  # usage: only what is not zero
            value = {k: v for k, v in value.items() if k not in default or default[k] != v}
            if not value:
                continue
        out[key] = value
    return out


_ABSENT = object()


REQUEST_PART_KINDS = ("user-prompt", "tool-return", "system-prompt", "retry-feedback")


def rest_of(full: Mapping[str, Any], rebuilt: Mapping[str, Any], *, vouched: bool = False) -> dict[str, Any]:
    """The keys of ``full`` that the part rebuilt from canonical fields does not reproduce
    (``_missing``, the keys the file did not have, among them). ``vouched``: ``full`` is a part
    the fast route's table took (``fast.filled`` then needs no second check)."""
    rebuilt = {k: v for k, v in rebuilt.items() if not (k == "timestamp" and v is None)}
    normal = (fast.filled(rebuilt) if vouched else None) or (fast.normal(rebuilt) if fast.enabled() else None)
    if normal is not None:
        return {k: v for k, v in full.items() if k not in normal or normal[k] != v}
    import pydantic

    try:
        normal = normalise_part("request" if rebuilt["part_kind"] in REQUEST_PART_KINDS else "response", rebuilt)
    except pydantic.ValidationError:  # content kept as it came (a kind pydantic-ai does not take): compared as it is
        normal = rebuilt
    return {k: v for k, v in full.items() if k not in normal or normal[k] != v}


# --- what a writer could not hold -------------------------------------------------------------


class Losses:
    """What a writer could not hold, counted by kind (``what``, a phrase with ``{s}`` where the
    plural ``s`` goes) and, within a kind, by detail (a type or key name)."""

    def __init__(self) -> None:
        self.counts: Counter[str] = Counter()
        self.details: dict[str, Counter[str]] = {}

    def add(self, what: str, *details: str, n: int = 1) -> None:
        self.counts[what] += n
        for detail in details:
            self.details.setdefault(what, Counter())[detail] += n

    def phrases(self) -> list[str]:
        out = []
        for what, n in sorted(self.counts.items()):
            phrase = f"{n} {what.format(s='' if n == 1 else 's')}"
            details = self.details.get(what)
            if details:
                phrase += " (" + ", ".join(d if k == 1 else f"{d} ×{k}" for d, k in sorted(details.items())) + ")"
            out.append(phrase)
        return out


# --- user content (RC2 media form) ------------------------------------------------------------


def _media_extra(item: Mapping[str, Any], known: tuple[str, ...]) -> dict[str, Any] | None:
    extra = {k: v for k, v in item.items() if k not in known and v not in (None, False)}
    return extra or None


def media_from_pai(item: Mapping[str, Any]) -> MediaPart:
    """ImageUrl/AudioUrl/VideoUrl/DocumentUrl/BinaryContent JSON → an RC2 media part."""
    kind = item.get("kind")
    media_type = item.get("media_type") or "application/octet-stream"
    if kind == "binary":
        category = media_category(media_type)
        extra = _media_extra(item, ("kind", "data", "media_type", "identifier"))
        return MediaPart(content_type="binary", media_type=media_type, media_category=category, data=item.get("data"),
                         identifier=item.get("identifier"), metadata=extra)
    extra = _media_extra(item, ("kind", "url", "media_type", "identifier"))
    return MediaPart(content_type="url", media_type=media_type, media_category=_URL_CATEGORY[str(kind)],
                     url=item.get("url"), identifier=item.get("identifier"), metadata=extra)


def media_category(media_type: str) -> Any:
    head = media_type.split("/", 1)[0]
    return head if head in ("image", "audio", "video") else "document"


def media_to_pai(part: Mapping[str, Any]) -> dict[str, Any] | None:
    """An RC2 media part (or v1.0.0 image part) → pydantic-ai content JSON: a URL becomes
    ``ImageUrl``/``AudioUrl``/``VideoUrl``/``DocumentUrl`` by its category, data becomes
    ``BinaryContent``. None when the part holds neither a URL nor data (there is nothing
    pydantic-ai could hold; the writer says so)."""
    if part.get("type") == "image" and "content_type" not in part:  # v1.0.0 image part (or an Anthropic-style one)
        source = part.get("source") if isinstance(part.get("source"), Mapping) else {}
        image = part.get("image") if isinstance(part.get("image"), str) and part["image"].startswith(("http://", "https://", "data:")) else None
        url = part.get("image_url") or part.get("url") or source.get("url") or image  # image: Inspect's shape
        media_type = part.get("media_type") or source.get("media_type")
        if isinstance(url, str) and url:
            return {"kind": "image-url", "url": url, **({"media_type": media_type} if media_type else {})}
        data = part.get("image_base64") or source.get("data")
        if isinstance(data, str) and data:
            return {"kind": "binary", "data": data, "media_type": media_type or "image/png"}
        return None
    out: dict[str, Any]
    if part.get("content_type") == "binary":
        if not part.get("data"):
            return None
        out = {"kind": "binary", "data": part["data"], "media_type": part.get("media_type")}
    else:
        if not part.get("url"):
            return None
        out = {"kind": _CATEGORY_URL.get(str(part.get("media_category")), "document-url"), "url": part["url"],
               "media_type": part.get("media_type")}
    if part.get("identifier"):
        out["identifier"] = part["identifier"]
    out.update(part.get("metadata") or {})
    return out


def user_content_from_pai(content: Any) -> Any:
    """UserPromptPart content → MessageContent (text parts, RC2 media parts, unknown parts kept)."""
    if isinstance(content, str):
        return content
    parts: list[Any] = []
    for item in content:
        if isinstance(item, str):
            parts.append(TextPart(text=item))
        elif isinstance(item, Mapping) and (item.get("kind") in _URL_CATEGORY or item.get("kind") == "binary"):
            parts.append(media_from_pai(item))
        else:  # text-content, structured-content, cache-point, uploaded-file, ...: kept as they are
            parts.append(UnknownPart.model_validate({**item, "type": f"pydantic_ai.{item.get('kind')}"}))
    return parts


def user_content_to_pai(content: Any, lost: Losses | None = None) -> Any:
    """MessageContent → UserPromptPart content. What pydantic-ai has no type for is counted in
    ``lost`` (a content part of another format's type is written as ``[type]``; a media part
    with neither URL nor data is left out)."""
    if content is None or isinstance(content, str):
        return content or ""
    items: list[Any] = []
    for part in content:
        data = part if isinstance(part, Mapping) else part.model_dump(exclude_none=True)
        kind = data.get("type")
        if kind == "text":
            items.append(data.get("text", ""))
        elif isinstance(kind, str) and kind.startswith("pydantic_ai."):
            items.append({k: v for k, v in data.items() if k != "type"})
        elif "content_type" in data or kind == "image":
            media = media_to_pai(data)
            if media is not None:
                items.append(media)
            elif lost is not None:
                lost.add("media part{s} with neither a URL nor data, left out")
        else:  # a part pydantic-ai has no type for: say what it was, as text
            items.append(f"[{kind or 'part'}]")
            if lost is not None:
                lost.add("user content part{s} of another format's type, written as the text [type]", str(kind))
    return items


# --- canonical action fields -> part dicts (the inverse, used for rest and for writing) ---------


def stamp(value: Any) -> str | None:
    return None if value is None else format_timestamp(value)


def text_of(value: Any) -> str:
    if isinstance(value, str):
        return value
    import orjson

    return orjson.dumps(value).decode()
