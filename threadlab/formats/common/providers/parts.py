"""Content parts in provider messages: files, audio and images ↔ ThreadProtocol RC2 media parts
(``core.model.MediaPart``), for the OpenAI Responses and Chat Completions readers and writers,
and what a writer leaves out (``part_losses``: a writer maps each part to its own format or
leaves it out and names it in its ``WriteLoss``, never copies another format's part through).

A media part is ``{"type": "file", "content_type": "binary" | "url", "media_type",
"media_category", "data" | "url", "identifier"}``; ``identifier`` is the file name the
request gave (as the AI SDK readers keep a file part's ``filename``). The API parts:

- Responses ``input_file`` ``{filename?, file_data? | file_url? | file_id?}``: ``file_data`` is a
  data URL (``data:application/pdf;base64,...``) or bare base64; ``input_audio``
  ``{input_audio: {data, format: mp3 | wav}}``.
- Chat Completions ``file`` ``{file: {filename?, file_data? | file_id?}}``; ``input_audio`` as
  in Responses.

A part that gives neither data nor a URL (a ``file_id``: the file is on the provider's side) is
no media part: the reader keeps it as it came. Where the part names no media type (bare
base64, a URL), it is guessed from the file name or the URL's path (``mimetypes``), as the API
itself does, else ``application/octet-stream``. Each writer maps a media part back where its API
has a part for it and returns None where it has not (a URL to Chat Completions, which takes
files only as data), so the writer can leave it out and say so in its ``WriteLoss``."""

from __future__ import annotations

import mimetypes
from collections import Counter
from collections.abc import Callable, Iterable, Mapping
from typing import Any
from urllib.parse import urlsplit

from threadlab.formats.common.providers.replay import Said

OCTET = "application/octet-stream"
_AUDIO = {"mp3": "audio/mpeg", "wav": "audio/wav"}  # the formats input_audio takes
_AUDIO_FORMAT = {v: k for k, v in _AUDIO.items()} | {"audio/mp3": "mp3", "audio/x-wav": "wav", "audio/wave": "wav"}


def category(media_type: str) -> str:
    head = media_type.split("/", 1)[0].lower()
    return head if head in ("image", "audio", "video") else "document"


def guess_type(*names: Any) -> str:
    """The media type a file name or URL path says (``mimetypes``), else ``application/octet-stream``."""
    for name in names:
        if isinstance(name, str) and name:
            guessed = mimetypes.guess_type(urlsplit(name).path if "://" in name else name)[0]
            if guessed:
                return guessed
    return OCTET


def split_data_url(value: str) -> tuple[str, str] | None:
    """``data:<media type>;base64,<data>`` → (media type, data); None for any other text."""
    if not value.startswith("data:") or ";base64," not in value[:300]:
        return None
    head, data = value[5:].split(",", 1)
    return head.removesuffix(";base64") or OCTET, data


def media(*, media_type: str, data: str | None = None, url: str | None = None, identifier: Any = None) -> dict[str, Any]:
    part: dict[str, Any] = {"type": "file", "content_type": "binary" if data is not None else "url", "media_type": media_type, "media_category": category(media_type)}
    part["data" if data is not None else "url"] = data if data is not None else url
    if isinstance(identifier, str):
        part["identifier"] = identifier
    return part


def is_media(part: Any) -> bool:
    return isinstance(part, Mapping) and "content_type" in part and "media_category" in part


def _file(fields: Mapping[str, Any]) -> dict[str, Any] | None:
    """An ``input_file`` part's fields (or a Chat ``file`` part's ``file``) → a media part."""
    name = fields.get("filename")
    raw = fields.get("file_data")
    if isinstance(raw, str):
        split = split_data_url(raw)
        return media(media_type=split[0], data=split[1], identifier=name) if split else media(media_type=guess_type(name), data=raw, identifier=name)
    url = fields.get("file_url")
    if isinstance(url, str):
        return media(media_type=guess_type(name, url), url=url, identifier=name)
    return None


def _audio(part: Mapping[str, Any]) -> dict[str, Any] | None:
    audio = part.get("input_audio")
    if not isinstance(audio, Mapping) or not isinstance(audio.get("data"), str) or not isinstance(audio.get("format"), str) or audio["format"] not in _AUDIO:
        return None
    return media(media_type=_AUDIO[audio["format"]], data=audio["data"])


def read_responses_part(part: Mapping[str, Any]) -> dict[str, Any] | None:
    """A Responses ``input_file`` / ``input_audio`` part as a media part, or None."""
    kind = part.get("type")
    return _file(part) if kind == "input_file" else _audio(part) if kind == "input_audio" else None


def read_chat_part(part: Mapping[str, Any]) -> dict[str, Any] | None:
    """A Chat Completions ``file`` / ``input_audio`` part as a media part, or None."""
    kind = part.get("type")
    if kind == "file":
        return _file(part["file"]) if isinstance(part.get("file"), Mapping) else None
    return _audio(part) if kind == "input_audio" else None


def _data_url(part: Mapping[str, Any]) -> str:
    return f"data:{part.get('media_type') or OCTET};base64,{part.get('data')}"


def _named(out: dict[str, Any], part: Mapping[str, Any]) -> dict[str, Any]:
    if isinstance(part.get("identifier"), str):
        out["filename"] = part["identifier"]
    return out


def _audio_part(part: Mapping[str, Any]) -> dict[str, Any] | None:
    fmt = _AUDIO_FORMAT.get(str(part.get("media_type")))
    return {"type": "input_audio", "input_audio": {"data": part["data"], "format": fmt}} if fmt and isinstance(part.get("data"), str) else None


def responses_part(part: Mapping[str, Any]) -> dict[str, Any] | None:
    """A media part as the Responses input part for it (image, audio, file), or None."""
    binary = part.get("content_type") == "binary" and isinstance(part.get("data"), str)
    where = _data_url(part) if binary else part.get("url") if isinstance(part.get("url"), str) else None
    if where is None:
        return None
    if part.get("media_category") == "image":
        return {"type": "input_image", "image_url": where}
    if part.get("media_category") == "audio":
        return _audio_part(part)
    return _named({"type": "input_file", "file_data" if binary else "file_url": where}, part)


def chat_part(part: Mapping[str, Any]) -> dict[str, Any] | None:
    """A media part as the Chat Completions part for it, or None (Chat takes files as data only)."""
    binary = part.get("content_type") == "binary" and isinstance(part.get("data"), str)
    if part.get("media_category") == "image" and (binary or isinstance(part.get("url"), str)):
        return {"type": "image_url", "image_url": {"url": _data_url(part) if binary else part["url"]}}
    if not binary:
        return None
    if part.get("media_category") == "audio":
        return _audio_part(part)
    return {"type": "file", "file": _named({"file_data": _data_url(part)}, part)}


def as_part(part: Any) -> Any:
    """A content part as a dict (a model's fields without the unset ones)."""
    return part.model_dump(exclude_none=True) if hasattr(part, "model_dump") else part


def part_losses(actions: Iterable[Any], encode: Callable[[Any], Any], what: str) -> Counter[str]:
    """The content parts of ``actions`` (messages, tool results) that ``encode``, a writer's part
    rule, leaves out (it gives None: ``what`` has no part for them), by kind: a writer names them
    in its ``WriteLoss`` rather than copy another format's part through."""
    lost: Counter[str] = Counter()
    for action in actions:
        content = getattr(action, "content", None) if not isinstance(action, Said) else None
        for part in content if isinstance(content, list) else ():
            data = as_part(part)
            if isinstance(data, Mapping) and encode(data) is None:  # (a part that is no object: only a broken action holds one)
                lost[f"{data.get('media_category') or data.get('type')} content parts ({what} holds no such part; left out)"] += 1
    return lost


__all__ = ["as_part", "category", "chat_part", "guess_type", "is_media", "media", "part_losses", "read_chat_part", "read_responses_part", "responses_part", "split_data_url"]
