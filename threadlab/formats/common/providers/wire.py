"""The containers provider message lists are kept in, shared by the OpenAI Chat Completions,
OpenAI Responses and Anthropic Messages formats (each supplies a ``Codec`` for its messages).

People keep these lists as they were sent or received: a bare list of messages, a request body
(``{"model", "messages" / "input", ...}``), a response body, a request + response pair (also
wrapped as recorded HTTP exchanges ``{"request": {"method", "url", "headers", "body"},
"response": {"status_code", "body"}}`` or OpenAI Batch lines ``{"custom_id", "body"}``), a JSON
array or JSON Lines of those. A conversation logged turn by turn repeats its history in every
request: which exchanges make one thread is ``providers.history``'s rule. What the writer needs
to give the container back (the bodies' other fields, the envelopes, where each request's
messages sit in the history) is kept in the thread's metadata under the format's key.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

import orjson

from threadlab.formats.common.json_lines import complete_lines, past_cut_first, torn_reason, with_edges
from threadlab.formats.common.source import Source

Path = tuple[str, ...]
# where the bodies sit in the documents people log (first match wins)
_REQUEST_PATHS: tuple[Path, ...] = ((), ("request", "body"), ("request",), ("body",))
_RESPONSE_PATHS: tuple[Path, ...] = ((), ("response", "body"), ("response",))


class Codec(Protocol):
    """What a provider format tells the shared container code about its bodies (a codec may also
    define ``is_config(message)``: the messages its requests carry as configuration, left out
    of the history comparison, ``providers.history``)."""

    def is_request(self, body: Mapping[str, Any]) -> bool: ...

    def is_response(self, body: Mapping[str, Any]) -> bool: ...

    def is_message_list(self, value: list[Any]) -> bool: ...

    def request_messages(self, body: Mapping[str, Any]) -> list[Any]: ...

    def response_messages(self, body: Mapping[str, Any]) -> list[Any]: ...


@dataclass
class Exchange:
    """One document of the input: a request and/or a response (bodies), the document they sat
    in with the bodies cut out (``shell``), where they sat (``req_path`` / ``resp_path``) and the
    document's line (JSON Lines) or position (array)."""

    request: dict[str, Any] | None
    response: dict[str, Any] | None
    shell: Any = None
    req_path: Path | None = None
    resp_path: Path | None = None
    line: int | None = None
    position: int = 0


@dataclass
class Container:
    """The input's shape: ``list`` (a bare message list), ``doc`` (one document), ``array`` (a
    JSON array of documents) or ``jsonl`` (JSON Lines of documents); ``bad_lines`` are JSON
    Lines lines that are not JSON (line number, error)."""

    kind: str
    exchanges: list[Exchange] = field(default_factory=list)
    messages: list[Any] | None = None
    bad_lines: list[tuple[int, str]] = field(default_factory=list)


# --- bodies inside documents ------------------------------------------------------------------


def _at(doc: Any, path: Path) -> Any:
    for key in path:
        if not isinstance(doc, Mapping):
            return None
        doc = doc.get(key)
    return doc


def _cut(doc: Any, paths: Sequence[Path | None]) -> Any:
    """A copy of ``doc`` with the values at ``paths`` replaced by None (None when a path is the
    whole document: nothing is left around the body)."""
    if any(p == () for p in paths if p is not None):
        return None
    out = _copy_path(doc, [p for p in paths if p])
    return out


def _copy_path(doc: Any, paths: list[Path]) -> Any:
    if not paths:
        return doc
    out = dict(doc)
    heads = {p[0] for p in paths}
    for head in heads:
        rest = [p[1:] for p in paths if p[0] == head]
        out[head] = None if any(not r for r in rest) else _copy_path(out[head], [r for r in rest if r])
    return out


def put(shell: Any, path: Path | None, body: Any) -> Any:
    """``shell`` with ``body`` put back at ``path`` (the inverse of the cut)."""
    if path is None:
        return shell
    if not path:
        return body
    out = dict(shell)
    out[path[0]] = put(out.get(path[0]), path[1:], body)
    return out


def exchange_of(doc: Any, codec: Codec) -> Exchange | None:
    """The request/response a document holds for ``codec``, or None."""
    if not isinstance(doc, Mapping):
        return None
    req_path = next((p for p in _REQUEST_PATHS if isinstance(_at(doc, p), Mapping) and codec.is_request(_at(doc, p))), None)
    resp_path = next((p for p in _RESPONSE_PATHS if isinstance(_at(doc, p), Mapping) and codec.is_response(_at(doc, p))), None)
    if req_path == () and resp_path == ():
        resp_path = None  # a body that looks like both is a request (it holds the messages)
    if req_path is None and resp_path is None:
        return None
    return Exchange(
        request=dict(_at(doc, req_path)) if req_path is not None else None,
        response=dict(_at(doc, resp_path)) if resp_path is not None else None,
        shell=_cut(doc, [req_path, resp_path]),
        req_path=req_path,
        resp_path=resp_path,
    )


# --- files --------------------------------------------------------------------------------------


def container_of(value: Any, codec: Codec) -> Container | None:
    """How a parsed JSON value holds ``codec``'s messages, or None."""
    if isinstance(value, list):
        if value and codec.is_message_list(value):
            return Container("list", messages=value)
        found = [exchange_of(v, codec) for v in value]
        if value and found[0] is not None and all(f is not None for f in found[:3]):
            out = Container("array")
            for i, (doc, ex) in enumerate(zip(value, found, strict=True)):
                out.exchanges.append(ex if ex is not None else Exchange(None, None, shell=doc, position=i))
                out.exchanges[-1].position = i
            return out
        return None
    ex = exchange_of(value, codec)
    return Container("doc", exchanges=[ex]) if ex is not None else None


def read_container(source: Source, codec: Codec) -> Container | None:
    """The container of a file: one JSON value, else JSON Lines (each line a document)."""
    value = source.try_json()
    if value is not None:
        return container_of(value, codec)
    out = Container("jsonl")
    for edge in with_edges(source.lines()):
        number = edge.number
        try:
            doc = orjson.loads(edge.line)
        except orjson.JSONDecodeError as exc:
            out.bad_lines.append((number, torn_reason(edge.line, exc, edge) or exc.msg))  # torn: a live file's last line, a capture's first
            out.exchanges.append(Exchange(None, None, shell=None, line=number, position=len(out.exchanges)))
            continue
        ex = exchange_of(doc, codec)
        if ex is None:
            ex = Exchange(None, None, shell=doc)
        ex.line, ex.position = number, len(out.exchanges)
        out.exchanges.append(ex)
    return out if any(e.request is not None or e.response is not None for e in out.exchanges) else None


def sniff(source: Source, codec: Codec, markers: tuple[bytes, ...]) -> bool:
    """Cheap detection: a marker in the head, then the first JSON value (or the first JSON
    Lines line) must be one of ``codec``'s containers."""
    head = source.head(65536)
    stripped = past_cut_first(head).lstrip()  # a capture begun mid-line: the lines after it decide
    if stripped[:1] not in (b"{", b"[") or not any(m in head for m in markers):
        return False
    first = _first_value(source, head)
    return first is not None and container_of(first, codec) is not None


def _first_value(source: Source, head: bytes) -> Any:
    """The whole file's JSON value, else its first line's (JSON Lines)."""
    value = source.try_json()
    if value is not None:
        return value
    lines = complete_lines(head)  # a capture's cut first line left out
    try:
        return orjson.loads(lines[0]) if lines else None
    except orjson.JSONDecodeError:
        return None


def dumps(value: Any, *, indent: bool) -> bytes:
    return orjson.dumps(value, option=orjson.OPT_INDENT_2 if indent else 0)


__all__ = [
    "Codec",
    "Container",
    "Exchange",
    "container_of",
    "dumps",
    "exchange_of",
    "put",
    "read_container",
    "sniff",
]
